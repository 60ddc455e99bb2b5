package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Catch-up covers what gap detection cannot: a servant that was away, or
// that just subscribed, learns of nothing it missed until a source sends
// again, and a source that fell silent never does. So after (re)joining the
// tree, and after subscribing to a category, a servant asks upward for what
// it missed. The nearest archive servant (one that subscribes to
// AllCategories and keeps a store) answers from its store; without one, the
// vertex answers with what it has. The request is repeated once a little
// later, for items that were still in flight or being repaired upstream
// when the first answer was made.
//
// Answers come in pages of at most Config.CatchUpLimit items, each ended
// by a CatchUpDone; the requester asks for the next page from where the
// last one ended. One catch-up runs at a time per servant, so a catch-up
// of any size keeps at most one page in flight toward it, and no link on
// the way has to hold more.
//
// Sources a servant does not follow yet are catch-up's alone: their live
// items wait while a catch-up runs (catchUps.holds), and their leading edges
// are not taken up, for an edge says nothing of how old the items before
// it are, and only catch-up keeps to the window.

//
// catchUps is the sub-machine: the queue of runs, the live items held back
// meanwhile, and when to catch up again. The servant steps it with plain
// calls and lends it the tree and its sequencing through catchUpHost.

// catchUpHost is what catch-up needs of the servant. *Servant implements
// it; the sub-machine's tests use a small fake.
type catchUpHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	// upLink is our uplink, nil when we are not attached.
	upLink() *link
	downLinks() []*link
	isVertex() bool
	detached() bool
	subscriptions() CategorySet
	// ownNext is the count of our next publication.
	ownNext() uint64
	// keepsArchive reports whether we answer catch-ups from our store.
	keepsArchive() bool
	// sequenceHeld sequences an item or an edge held back during a
	// catch-up, which came over link d.from.
	sequenceHeld(d deferredItem)
	takeRequest(l *link, m Message)
}

var _ catchUpHost = (*Servant)(nil)

// followedStreams is what catch-up reads of the sequencer, which meets it.
type followedStreams interface {
	// nextOf is the next count we expect of source, 0 when we do not
	// follow it.
	nextOf(source string) uint64
	// followedFrom lists where a catch-up of the sources we follow starts
	// for each: sourceState.catchUpFrom, or the next count the host kept
	// (Config.Expected) for a source not met in this run yet.
	followedFrom() map[string]uint64
}

var _ followedStreams = (*sequencer)(nil)

// catchUps is the servant's catch-up state.
type catchUps struct {
	cfg     *Config         // the servant's
	streams followedStreams // the servant's sequencer
	runs    []*catchUpRun   // the running one first
	// again is when to repeat the catch-up made on attaching; lastUp when
	// we were last attached (or from when the uplink we lost may have
	// dropped items).
	again, lastUp time.Time
	deferred      []deferredItem
	// deferredEdges: of the live items beyond maxDeferred, the latest
	// header per stream.
	deferredEdges map[edgeKey]deferredItem
}

func newCatchUps(cfg *Config, streams followedStreams) catchUps {
	return catchUps{cfg: cfg, streams: streams, lastUp: cfg.LastAttached}
}

// deferredItem is a live item held back until the catch-up ends, or only
// its header (edge) when too many are held back.
type deferredItem struct {
	msg  *Multicast
	edge *LatestHeader
	from LinkID
}

// catchUpRun is one catch-up the servant asks for, page by page.
type catchUpRun struct {
	cats     CategorySet
	since    int64             // Unix ns; sources not in known, from then on
	followed bool              // also send the next counts of the sources we follow
	known    map[string]uint64 // per source, where the pages got to
	sentAt   time.Time         // zero: not asked yet (or to ask again)
	started  bool              // the followed sources' counts are in known
	timeouts int               // pages that did not come
	// prior, for the catch-up of a new subscription, is what we subscribed
	// to before: an item it brings that is older than what we resolved of
	// its source is delivered as history only if prior did not cover it
	// (then it was not delivered before).
	prior   CategorySet
	history bool
}

// catchUpTimeouts is how many pages in a row may go unanswered before a
// catch-up is given up: live items of sources it would have brought are
// held back meanwhile, so an up-servant that never answers must not hold
// them for ever. Gaps and edges still find what it would have brought.
const catchUpTimeouts = 3

// timeout is how long a page may be silent before it is asked again:
// nothing of it arrived for that long.
func (c *catchUps) timeout() time.Duration { return 2 * c.cfg.LinkTimeout }

// running reports whether a catch-up is queued or under way.
func (c *catchUps) running() bool { return len(c.runs) > 0 }

// progress notes that an answer for us arrived while a page is asked for.
// A page that trickles in behind a long backlog is not silent: asking for
// it again would only queue a second copy behind the first, and three
// such timeouts would give the catch-up up while it works.
func (c *catchUps) progress(now time.Time) {
	if len(c.runs) > 0 && !c.runs[0].sentAt.IsZero() {
		c.runs[0].sentAt = now
	}
}

// since is the time from which catch-up asks for the items of sources we
// do not follow: when we were last attached, bounded by the catch-up
// window.
func (c *catchUps) since(now time.Time) time.Time {
	if floor := now.Add(-c.cfg.CatchUpWindow); c.lastUp.Before(floor) {
		return floor
	}
	return c.lastUp
}

// attached catches up on what we missed while away, once now and once
// CatchUpRepeat later, and tells the downs to do the same.
func (c *catchUps) attached(h catchUpHost) {
	now := h.clock()
	c.request(h, h.subscriptions(), c.since(now), true)
	c.again = now.Add(c.cfg.CatchUpRepeat)
	c.hintDowns(h)
}

// detached notes that the uplink was lost: what was in flight toward us
// since horizon may be lost too. The page under way is asked for again
// once we are attached.
func (c *catchUps) detached(horizon time.Time) {
	c.lastUp = horizon
	c.again = time.Time{}
	if len(c.runs) > 0 {
		c.runs[0].sentAt = time.Time{} // its pages are gone with the link: ask again
	}
}

// becameVertex drops the runs (nobody above to ask) and releases what
// they held back.
func (c *catchUps) becameVertex(h catchUpHost) {
	c.runs = nil
	c.release(h)
}

// request asks the tree above for the items of cats we missed. With
// followed set, the sources we follow are asked for from their next count;
// otherwise (a new category) every source is asked for since the time.
// Durable categories are asked for once more without the time bound.
func (c *catchUps) request(h catchUpHost, cats CategorySet, since time.Time, followed bool) {
	if h.isVertex() {
		return // the vertex has nobody to ask
	}
	if len(cats) == 0 {
		c.next(h) // a run queued earlier may still wait for the tree
		return
	}
	c.queue(&catchUpRun{cats: cats, since: since.UnixNano(), followed: followed})
	var durable []string
	for _, d := range c.cfg.Durable {
		if cats.Matches(d) {
			durable = append(durable, d)
		}
	}
	if len(durable) > 0 && since.UnixNano() > 0 {
		c.queue(&catchUpRun{cats: NewCategorySet(durable...), followed: followed})
	}
	c.next(h)
}

// history asks for what was published in newly subscribed categories
// before the subscription, as far back as the catch-up window.
func (c *catchUps) history(h catchUpHost, added, prior CategorySet) {
	if len(added) == 0 || h.isVertex() {
		return
	}
	c.queue(&catchUpRun{cats: added, since: h.clock().Add(-c.cfg.CatchUpWindow).UnixNano(), prior: prior, history: true})
	c.next(h)
}

// historyWanted reports whether an item of category cat older than what
// we resolved of its source is history a new subscription asked for.
func (c *catchUps) historyWanted(cat string) bool {
	for _, run := range c.runs {
		if run.history && run.cats.Matches(cat) && !run.prior.Matches(cat) {
			return true
		}
	}
	return false
}

// queue adds run unless one of the same kind waits already, not started
// yet: then that one asks from the earlier of the two times. So rejoining
// again and again while a catch-up runs (an overloaded tree) queues one
// more run, not one per rejoin, each paging through the same items after
// the others.
func (c *catchUps) queue(run *catchUpRun) {
	for _, q := range c.runs {
		if !q.started && q.followed == run.followed && q.cats.Equal(run.cats) && q.history == run.history && q.prior.Equal(run.prior) {
			q.since = min(q.since, run.since)
			return
		}
	}
	c.runs = append(c.runs, run)
}

// next asks for the first queued run's next page, if it is not asked for
// already and we are attached.
func (c *catchUps) next(h catchUpHost) {
	up := h.upLink()
	if up == nil || len(c.runs) == 0 || !c.runs[0].sentAt.IsZero() {
		return
	}
	run := c.runs[0]
	if run.known == nil {
		run.known = map[string]uint64{}
	}
	if run.followed && !run.started {
		// The sources followed when the run starts are asked for from
		// their next counts; the pages move them on from there.
		for id, from := range c.streams.followedFrom() {
			run.known[id] = max(run.known[id], from)
		}
	}
	// Our own items we have: a page of them would only come back.
	run.known[c.cfg.Source] = max(run.known[c.cfg.Source], h.ownNext())
	run.started = true
	req := &CatchUp{Categories: run.cats, Since: run.since, Trail: []ServantID{c.cfg.ID}}
	for _, id := range slices.Sorted(maps.Keys(run.known)) {
		if len(req.Known) < MaxSources {
			req.Known = append(req.Known, SourceCount{Source: id, Next: run.known[id]})
		}
	}
	fitCatchUp(req)
	run.sentAt = h.clock()
	h.send(up, req)
}

// followingUp reports whether a catch-up of the sources we follow is
// under way: it brings their missed items a page at a time, so requests
// for the same items one by one wait until it ends (it ends at the latest
// after three silent pages).
func (c *catchUps) followingUp(h catchUpHost) bool {
	return h.upLink() != nil && len(c.runs) > 0 && c.runs[0].followed
}

// holds reports whether the items of a source we do not follow yet must
// wait for the catch-up under way: it brings the source's items from
// where we last caught up, in order, and starting the source's sequence at
// a live item now would put them behind it. The live items are relayed
// and cached as usual, and sequenced when the catch-up ends.
func (c *catchUps) holds(h catchUpHost, source string) bool {
	return h.upLink() != nil && len(c.runs) > 0 && c.streams.nextOf(source) == 0
}

// done takes a page end that is ours (the servant passes the others back
// along their trails, requestRelay.retrace): it asks for the next page or
// the next run.
func (c *catchUps) done(h catchUpHost, d *CatchUpDone) {
	if len(c.runs) == 0 || c.runs[0].sentAt.IsZero() {
		return
	}
	if d.More {
		run := c.runs[0]
		for _, k := range d.Next {
			run.known[k.Source] = max(run.known[k.Source], k.Next)
		}
		run.sentAt = time.Time{}
		run.timeouts = 0
	} else {
		c.runs[0] = nil
		c.runs = c.runs[1:]
	}
	c.next(h)
	c.release(h)
}

// maxDeferred bounds the live items held back while a catch-up runs. Of
// those that fall beyond, only the latest header per stream is kept (see
// deferLive).
const maxDeferred = 4096

// deferLive holds back a live item of a source we do not follow while a
// catch-up runs (see holds). Beyond maxDeferred it keeps only the item's
// header, as its stream's edge: the item is marked seen and its edge noted
// already, so neither a copy nor an edge from the tree would reveal it
// again, and it may be the last of its stream.
func (c *catchUps) deferLive(m *Multicast, from LinkID) {
	if len(c.deferred) < maxDeferred {
		c.deferred = append(c.deferred, deferredItem{msg: m, from: from})
		return
	}
	keepLatestEdge(&c.deferredEdges, edgeOf(m), from)
}

// deferEdge holds back the edge of a source we do not follow while a
// catch-up runs, as deferLive does the items beyond maxDeferred.
func (c *catchUps) deferEdge(e *LatestHeader, from LinkID) {
	keepLatestEdge(&c.deferredEdges, e, from)
}

// keepLatestEdge keeps e in *edges unless a later edge of its stream is
// there: of the items held back beyond what fits, the latest header per
// stream is all a gap search needs.
func keepLatestEdge(edges *map[edgeKey]deferredItem, e *LatestHeader, from LinkID) {
	k := edgeKey{e.Source, e.Category}
	if d, ok := (*edges)[k]; ok && d.edge.Count >= e.Count {
		return
	}
	if *edges == nil {
		*edges = map[edgeKey]deferredItem{}
	}
	(*edges)[k] = deferredItem{edge: e, from: from}
}

// release sequences the held-back live items once no catch-up runs any
// more: after what catch-up brought of their sources, so in order; or as
// the first items of a source catch-up knew nothing of. Then the edges of
// what did not fit: a needed item among them that catch-up did not bring
// is asked for.
func (c *catchUps) release(h catchUpHost) {
	if len(c.runs) > 0 || len(c.deferred) == 0 && len(c.deferredEdges) == 0 {
		return
	}
	held, edges := c.deferred, c.deferredEdges
	c.deferred, c.deferredEdges = nil, nil
	for _, d := range held {
		h.sequenceHeld(d)
	}
	for _, k := range slices.SortedFunc(maps.Keys(edges), compareEdgeKeys) {
		h.sequenceHeld(edges[k])
	}
}

// hinted runs when the up-servant passes down a catch-up hint: the tree
// above us re-formed, and messages in flight through a servant that died
// may have been lost for our whole subtree, not only for the servant that
// rejoined. So catch up ourselves (now and once more later) and pass the
// hint on.
func (c *catchUps) hinted(h catchUpHost) {
	if len(c.runs) > 0 {
		// A page under way may have died with the servant that re-formed
		// the tree above: ask for it again now rather than at the timeout.
		c.runs[0].sentAt = time.Time{}
	}
	c.attached(h)
}

// hintDowns sends the catch-up hint (a CatchUp without a trail) to every
// down-servant.
func (c *catchUps) hintDowns(h catchUpHost) {
	for _, d := range h.downLinks() {
		h.send(d, &CatchUp{})
	}
}

// tick repeats the catch-up after joining once, CatchUpRepeat later, and
// asks again for a page that did not come.
func (c *catchUps) tick(h catchUpHost) {
	now := h.clock()
	if len(c.runs) > 0 {
		if run := c.runs[0]; !run.sentAt.IsZero() && now.Sub(run.sentAt) >= c.timeout() {
			run.sentAt = time.Time{}
			if run.timeouts++; run.timeouts >= catchUpTimeouts {
				h.note("catch-up of %v unanswered %d times: given up", run.cats, run.timeouts)
				c.runs = c.runs[1:]
			}
			c.next(h)
			c.release(h)
		}
	}
	if c.again.IsZero() || now.Before(c.again) {
		return
	}
	c.again = time.Time{}
	c.request(h, h.subscriptions(), c.since(now), true)
}

// answer answers one page of a catch-up request from below when we are an
// archive (the vertex answers with what it has, or with nothing), and
// passes it up otherwise.
func (c *catchUps) answer(h catchUpHost, from *link, req *CatchUp) {
	if len(req.Trail) == 0 || slices.Contains(req.Trail, c.cfg.ID) || len(req.Trail) >= MaxPathLen {
		return
	}
	archive := h.keepsArchive()
	if !archive && h.detached() {
		// Looking for the tree ourselves: our store may lack what the tree
		// has, and an answer would end the requester's catch-up. Our hint
		// once we are attached makes it ask again.
		return
	}
	if up := h.upLink(); !archive && up != nil {
		fwd := *req
		fwd.Trail = slices.Concat(req.Trail, []ServantID{c.cfg.ID})
		fitCatchUp(&fwd) // the longer trail may push sources out
		h.send(up, &fwd)
		return
	}
	h.takeRequest(from, req) // answered here, within the link's budget (requests.go)
}

// What the servant lends catch-up alone (catchUpHost).

// sequenceHeld puts an item or edge held back during a catch-up into its
// source's sequence. An edge's source is found over the link it came by,
// unless its items arrive over a link we still have.
func (s *Servant) sequenceHeld(d deferredItem) {
	if d.msg != nil {
		s.seq.sequence(s, d.msg, d.from)
		return
	}
	st := s.seq.source(d.edge.Source)
	if s.links[st.arrival] == nil {
		st.arrival = d.from
	}
	s.seq.sequenceEdge(s, st, d.edge)
}
