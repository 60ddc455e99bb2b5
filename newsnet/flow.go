package newsnet

import (
	"fmt"
	"maps"
	"slices"
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

// busy reports whether l's host queue is full: nothing more than control
// frames goes onto it until it drains.
func (s *Servant) busy(l *link) bool { return l.inflight >= s.cfg.LinkBuffer }

// backedUp reports whether a bulk frame for l must queue behind others:
// the link is busy, or earlier frames are withheld (order matters).
func (s *Servant) backedUp(l *link) bool { return s.busy(l) || len(l.backlog) > 0 }

// reportRoom reports whether l may take a reach report now: never while
// it withholds items or has more than a quarter of LinkBuffer queued.
func (s *Servant) reportRoom(l *link) bool {
	return !s.backedUp(l) && l.inflight <= s.cfg.LinkBuffer/4
}

// forward sends multicast message m on l, or withholds it by key when l is
// backed up.
func (s *Servant) forward(l *link, m *Multicast) {
	if !s.backedUp(l) || m.Count == 0 {
		s.send(l, m) // unsequenced messages cannot be looked up again
		return
	}
	s.counters.Withheld++
	if l.keys >= s.cfg.LinkBacklog {
		// The backlog is full: drop this one and tell the link the
		// source's edge once it drains, so its servant asks for it.
		s.counters.BacklogDropped++
		s.oweEdge(l, m.Source, m.Category)
		return
	}
	l.keys++
	l.backlog = append(l.backlog, withheld{source: m.Source, count: m.Count, category: m.Category})
}

// sendBulk sends a frame that carries items or must follow them (a
// retransmission, a catch-up page end, an edge), queueing it behind what l
// withholds.
func (s *Servant) sendBulk(l *link, m Message) {
	if s.backedUp(l) {
		size := SizeOf(m)
		l.backlogBytes += size
		l.backlog = append(l.backlog, withheld{msg: m, size: size})
		return
	}
	s.send(l, m)
}

// sendAnswer sends m, found in this servant's cache or store, to the
// requester at the end of trail over l. When l is backed up, the answer
// waits whole within the link's answer budget, and beyond it as a key,
// looked up again once l drains: a requester that asks much and reads
// slowly costs keys here, not payloads.
func (s *Servant) sendAnswer(l *link, trail []ServantID, m *Multicast) {
	if !s.backedUp(l) {
		s.send(l, &Recovered{Trail: trail, Source: m.Source, Msg: m})
		return
	}
	r := &Recovered{Trail: trail, Source: m.Source, Msg: m}
	size := SizeOf(r)
	if l.backlogBytes+size <= s.answerBudget() {
		// Within the budget the answer waits whole: looking it up again
		// would cost the honest requester a second read.
		l.backlogBytes += size
		l.backlog = append(l.backlog, withheld{msg: r, size: size})
		return
	}
	l.backlogBytes += size
	l.backlog = append(l.backlog, withheld{source: m.Source, count: m.Count, trail: trail, size: size})
}

func (s *Servant) oweEdge(l *link, source, category string) {
	if l.edgesOwed == nil {
		l.edgesOwed = map[edgeKey]bool{}
	}
	l.edgesOwed[edgeKey{source, category}] = true
}

// written takes the host's report that bytes of l's queued frames are out,
// and sends what l withholds once its queue is half drained.
func (s *Servant) written(l *link, bytes int) {
	l.inflight = max(0, l.inflight-bytes)
	l.progressAt = s.now
	if len(l.backlog) > 0 || len(l.edgesOwed) > 0 {
		if l.inflight <= s.cfg.LinkBuffer/2 {
			s.drainLink(l)
		}
	}
	s.blobs.pump(s, l) // chunks last: they yield to everything else
}

// drainLink sends l's backlog in order until the link is busy again, then,
// once the backlog is empty, the edges of what could not be sent.
func (s *Servant) drainLink(l *link) {
	for len(l.backlog) > 0 && !s.busy(l) {
		w := l.backlog[0]
		l.backlog[0] = withheld{}
		l.backlog = l.backlog[1:]
		l.backlogBytes -= w.size
		switch {
		case w.msg != nil:
			s.send(l, w.msg)
			continue
		case w.trail != nil:
			// Gone from the cache and the store since: the requester asks
			// again, and a holder further on answers.
			if m := s.lookup(w.source, w.count); m != nil {
				s.send(l, &Recovered{Trail: w.trail, Source: m.Source, Msg: m})
			}
			continue
		}
		l.keys--
		m := s.lookup(w.source, w.count)
		switch {
		case m == nil:
			s.counters.BacklogDropped++
			s.oweEdge(l, w.source, w.category)
		case s.wants(l, m.Category) && !l.except.coversItem(m, s.now):
			s.send(l, m)
		}
	}
	if len(l.backlog) > 0 {
		s.serveParked(l)
		return
	}
	l.backlog = nil
	for _, k := range slices.SortedFunc(maps.Keys(l.edgesOwed), compareEdgeKeys) {
		if e := s.edgeOf(k); e != nil && s.wants(l, k.category) {
			s.send(l, e)
		}
	}
	l.edgesOwed = nil
	s.serveParked(l)
}

// stalled reports whether l has had frames queued and nothing written for
// LinkTimeout: the peer stopped reading.
func (s *Servant) stalled(l *link) (bool, string) {
	if l.inflight == 0 || s.now.Sub(l.progressAt) < s.cfg.LinkTimeout {
		return false, ""
	}
	return true, fmt.Sprintf("peer too slow: nothing written for %v with %d bytes queued", s.now.Sub(l.progressAt), l.inflight)
}

// Backlogged reports whether some tree link has fallen far behind: it holds
// more than half of Config.LinkBacklog withheld items. Publishing more now
// only grows the backlog, so hosts hold publishers back until it clears
// (node.Publish waits).
func (s *Servant) Backlogged() bool {
	for _, l := range s.treeLinks() {
		if l.keys > s.cfg.LinkBacklog/2 {
			return true
		}
	}
	return false
}
