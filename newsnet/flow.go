package newsnet

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Flow control. A link's queue in the host is bounded in bytes, and a burst
// larger than any queue must slow that link down, never empty the queue
// into the void. So the core counts, per link, the bytes it sent that the
// host has not reported written (SizeOf units, Written events). Once that
// reaches Config.LinkBuffer the link is busy: items for it are withheld,
// kept as (source, count) only, and answers and page ends queue behind
// them in order. When the host reports the queue half drained, the core
// sends what it withheld, looking the items up again in the relay cache
// and the store, up to the buffer again. An item it no longer holds is not
// lost: the link is sent the source's leading edge in that category (an
// LatestHeader), and the servant behind it asks for what it misses along the
// reverse path, which ends at the publisher's own store.
//
// The loop never waits for a link; memory per link is LinkBuffer in the
// host's queue plus LinkBacklog keys here (and the answers to requests
// from below, which the requesters bound by their recovery window and one
// catch-up page). A link is closed as too slow only when nothing at all
// was written for LinkTimeout while frames were queued.
//
// linkFlow is that state of one link (link.flow), as magicsock keeps each
// peer's path state in its endpoint: it owns the counts and the backlog,
// and decides what goes out now and what waits. It sends and looks items
// up through flowHost, which the servant implements and the unit tests
// (flow_test.go) fake. Its methods take the link whose flow it is, for
// the host's send.
type linkFlow struct {
	// inflight: bytes sent and not yet reported written; progressAt: when
	// the host last reported progress (or the queue became non-empty).
	inflight   int
	progressAt time.Time
	// backlog is what is withheld while the link is busy, in order; keys
	// counts the items among it, backlogBytes the frames and keyed answers
	// (withheld.size).
	backlog      []withheld
	keys         int
	backlogBytes int
	// edgesOwed: the streams whose edge the link is owed, for items it
	// could not be sent.
	edgesOwed map[edgeKey]bool
}

// flowHost is what a link's flow control needs of the servant. *Servant
// implements it; flow_test.go fakes it.
type flowHost interface {
	clock() time.Time
	config() *Config
	tally() *Counters
	send(l *link, m Message)
	// lookup finds an item again in the relay cache or the store.
	lookup(source string, count uint64) *Multicast
	// wants reports whether items of category go over l.
	wants(l *link, category string) bool
	latestEdges() leadingEdges
	// serveParked lets l's waiting requests have their turn once its
	// answers drained (requests.go).
	serveParked(l *link)
}

var _ flowHost = (*Servant)(nil)

// withheld is one entry of a busy link's backlog: an item to send again by
// key (msg and trail nil), an answer to a retransmission request from this
// servant's own cache or store, also by key (trail set: it goes out as a
// Recovered along that trail), or a frame to send as it is (a page, an
// answer passed back, an edge). Frames count toward the link's backlog
// bytes, and keyed answers toward them by the size they had when looked up,
// so that requests from the link wait while its answers pile up
// (requests.go).
type withheld struct {
	msg      Message
	source   string
	count    uint64
	category string
	trail    []ServantID
	size     int
}

// edgeKey names a source's stream in one category.
type edgeKey struct {
	source, category string
}

// sent counts a frame of size bytes handed to the host at now.
func (f *linkFlow) sent(size int, now time.Time) {
	if f.inflight == 0 {
		f.progressAt = now
	}
	f.inflight += size
}

// busy reports whether the link's host queue is full: nothing more than
// control frames goes onto it until it drains.
func (f *linkFlow) busy(cfg *Config) bool { return f.inflight >= cfg.LinkBuffer }

// backedUp reports whether a bulk frame must queue behind others: the
// link is busy, or earlier frames are withheld (order matters).
func (f *linkFlow) backedUp(cfg *Config) bool { return f.busy(cfg) || len(f.backlog) > 0 }

// reportRoom reports whether the link may take a reach report now: never
// while it withholds items or has more than a quarter of LinkBuffer queued.
func (f *linkFlow) reportRoom(cfg *Config) bool {
	return !f.backedUp(cfg) && f.inflight <= cfg.LinkBuffer/4
}

// chunkRoom reports whether the link may take a blob chunk now: only while
// it withholds nothing and less than BlobConfig.Window bytes (and a quarter
// of LinkBuffer) are queued on it, so chunks never make a link busy for
// items. The host's queue sends items ahead of the chunks queued before
// them (node's bulk lane).
func (f *linkFlow) chunkRoom(cfg *Config) bool {
	return len(f.backlog) == 0 && len(f.edgesOwed) == 0 && f.inflight < min(cfg.Blob.Window, cfg.LinkBuffer/4)
}

// farBehind reports whether the link withholds more than half of
// Config.LinkBacklog items (Servant.Backlogged).
func (f *linkFlow) farBehind(cfg *Config) bool { return f.keys > cfg.LinkBacklog/2 }

// answerBudget is how many bytes of answers (keyed or whole) a link may
// have withheld before its requests wait: twice what the host queues.
func answerBudget(cfg *Config) int { return 2 * cfg.LinkBuffer }

// answersFull reports whether the link's withheld answers reached their
// budget: its requests wait (requests.go).
func (f *linkFlow) answersFull(cfg *Config) bool { return f.backlogBytes >= answerBudget(cfg) }

// forward sends multicast message m on l, or withholds it by key when l is
// backed up.
func (f *linkFlow) forward(h flowHost, l *link, m *Multicast) {
	cfg := h.config()
	if !f.backedUp(cfg) || m.Count == 0 {
		h.send(l, m) // unsequenced messages cannot be looked up again
		return
	}
	h.tally().Withheld++
	if f.keys >= cfg.LinkBacklog {
		// The backlog is full: drop this one and tell the link the
		// source's edge once it drains, so its servant asks for it.
		h.tally().BacklogDropped++
		f.oweEdge(m.Source, m.Category)
		return
	}
	f.keys++
	f.backlog = append(f.backlog, withheld{source: m.Source, count: m.Count, category: m.Category})
}

// sendBulk sends a frame that carries items or must follow them (a
// retransmission, a catch-up page end, an edge), queueing it behind what l
// withholds.
func (f *linkFlow) sendBulk(h flowHost, l *link, m Message) {
	if f.backedUp(h.config()) {
		f.withhold(m, SizeOf(m))
		return
	}
	h.send(l, m)
}

// withhold queues frame m, of size bytes, whole.
func (f *linkFlow) withhold(m Message, size int) {
	f.backlogBytes += size
	f.backlog = append(f.backlog, withheld{msg: m, size: size})
}

// sendAnswer sends m, found in this servant's cache or store, to the
// requester at the end of trail over l. When l is backed up, the answer
// waits whole within the link's answer budget, and beyond it as a key,
// looked up again once l drains: a requester that asks much and reads
// slowly costs keys here, not payloads.
func (f *linkFlow) sendAnswer(h flowHost, l *link, trail []ServantID, m *Multicast) {
	cfg := h.config()
	r := &Recovered{Trail: trail, Source: m.Source, Msg: m}
	if !f.backedUp(cfg) {
		h.send(l, r)
		return
	}
	size := SizeOf(r)
	if f.backlogBytes+size <= answerBudget(cfg) {
		// Within the budget the answer waits whole: looking it up again
		// would cost the honest requester a second read.
		f.withhold(r, size)
		return
	}
	f.backlogBytes += size
	f.backlog = append(f.backlog, withheld{source: m.Source, count: m.Count, trail: trail, size: size})
}

// oweEdge records that the link is owed the edge of source in category.
func (f *linkFlow) oweEdge(source, category string) {
	if f.edgesOwed == nil {
		f.edgesOwed = map[edgeKey]bool{}
	}
	f.edgesOwed[edgeKey{source, category}] = true
}

// written takes the host's report that bytes of l's queued frames are out,
// and sends what l withholds once its queue is half drained.
func (f *linkFlow) written(h flowHost, l *link, bytes int) {
	f.inflight = max(0, f.inflight-bytes)
	f.progressAt = h.clock()
	if len(f.backlog) > 0 || len(f.edgesOwed) > 0 {
		if f.inflight <= h.config().LinkBuffer/2 {
			f.drain(h, l)
		}
	}
}

// resume drains l's backlog, on a tick, when its queue is half drained.
func (f *linkFlow) resume(h flowHost, l *link) {
	if len(f.backlog) > 0 && f.inflight <= h.config().LinkBuffer/2 {
		f.drain(h, l)
	}
}

// drain sends l's backlog in order until the link is busy again, then,
// once the backlog is empty, the edges of what could not be sent.
func (f *linkFlow) drain(h flowHost, l *link) {
	cfg := h.config()
	for len(f.backlog) > 0 && !f.busy(cfg) {
		w := f.backlog[0]
		f.backlog[0] = withheld{}
		f.backlog = f.backlog[1:]
		f.backlogBytes -= w.size
		switch {
		case w.msg != nil:
			h.send(l, w.msg)
			continue
		case w.trail != nil:
			// Gone from the cache and the store since: the requester asks
			// again, and a holder further on answers.
			if m := h.lookup(w.source, w.count); m != nil {
				h.send(l, &Recovered{Trail: w.trail, Source: m.Source, Msg: m})
			}
			continue
		}
		f.keys--
		m := h.lookup(w.source, w.count)
		switch {
		case m == nil:
			h.tally().BacklogDropped++
			f.oweEdge(w.source, w.category)
		case h.wants(l, m.Category) && !l.except.coversItem(m, h.clock()):
			h.send(l, m)
		}
	}
	if len(f.backlog) > 0 {
		h.serveParked(l)
		return
	}
	f.backlog = nil
	for _, k := range slices.SortedFunc(maps.Keys(f.edgesOwed), compareEdgeKeys) {
		if e := h.latestEdges()[k]; e != nil && h.wants(l, k.category) {
			h.send(l, e)
		}
	}
	f.edgesOwed = nil
	h.serveParked(l)
}

// stalled reports whether the link has had frames queued and nothing
// written for LinkTimeout at now: the peer stopped reading.
func (f *linkFlow) stalled(cfg *Config, now time.Time) (bool, string) {
	if f.inflight == 0 || now.Sub(f.progressAt) < cfg.LinkTimeout {
		return false, ""
	}
	return true, fmt.Sprintf("peer too slow: nothing written for %v with %d bytes queued", now.Sub(f.progressAt), f.inflight)
}

// Backlogged reports whether some tree link has fallen far behind: it holds
// more than half of Config.LinkBacklog withheld items. Publishing more now
// only grows the backlog, so hosts hold publishers back until it clears
// (node.Publish waits).
func (s *Servant) Backlogged() bool {
	for _, l := range s.treeLinks() {
		if l.flow.farBehind(&s.cfg) {
			return true
		}
	}
	return false
}

// What the servant lends a link's flow control (flowHost) beyond what
// other sub-machines ask of it too.
