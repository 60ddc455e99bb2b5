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
// items wait while a catch-up runs (catchingUp), and their leading edges
// are not taken up, for an edge says nothing of how old the items before
// it are, and only catch-up keeps to the window.

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

// catchUpTimeout is how long a page may be silent before it is asked
// again: nothing of it arrived for that long.
func (s *Servant) catchUpTimeout() time.Duration { return 2 * s.cfg.LinkTimeout }

// pageProgress notes that an answer for us arrived while a page is asked
// for. A page that trickles in behind a long backlog is not silent:
// asking for it again would only queue a second copy behind the first,
// and three such timeouts would give the catch-up up while it works.
func (s *Servant) pageProgress() {
	if len(s.catchUps) > 0 && !s.catchUps[0].sentAt.IsZero() {
		s.catchUps[0].sentAt = s.now
	}
}

// catchUpSince is the time from which catch-up asks for the items of
// sources we do not follow: when we were last attached, bounded by the
// catch-up window.
func (s *Servant) catchUpSince(last time.Time) time.Time {
	if floor := s.now.Add(-s.cfg.CatchUpWindow); last.Before(floor) {
		return floor
	}
	return last
}

// requestCatchUp asks the tree above for the items of cats we missed. With
// followed set, the sources we follow are asked for from their next count;
// otherwise (a new category) every source is asked for since the time.
// Durable categories are asked for once more without the time bound.
func (s *Servant) requestCatchUp(cats CategorySet, since time.Time, followed bool) {
	if s.vertex {
		return // the vertex has nobody to ask
	}
	if len(cats) == 0 {
		s.nextCatchUp() // a run queued earlier may still wait for the tree
		return
	}
	s.queueCatchUp(&catchUpRun{cats: cats, since: since.UnixNano(), followed: followed})
	var durable []string
	for _, c := range s.cfg.Durable {
		if cats.Matches(c) {
			durable = append(durable, c)
		}
	}
	if len(durable) > 0 && since.UnixNano() > 0 {
		s.queueCatchUp(&catchUpRun{cats: NewCategorySet(durable...), followed: followed})
	}
	s.nextCatchUp()
}

// requestHistory asks for what was published in newly subscribed
// categories before the subscription, as far back as the catch-up window.
func (s *Servant) requestHistory(added, prior CategorySet) {
	if len(added) == 0 || s.vertex {
		return
	}
	s.queueCatchUp(&catchUpRun{cats: added, since: s.now.Add(-s.cfg.CatchUpWindow).UnixNano(), prior: prior, history: true})
	s.nextCatchUp()
}

// historyWanted reports whether an item of category c older than what we
// resolved of its source is history a new subscription asked for.
func (s *Servant) historyWanted(c string) bool {
	for _, run := range s.catchUps {
		if run.history && run.cats.Matches(c) && !run.prior.Matches(c) {
			return true
		}
	}
	return false
}

// queueCatchUp adds run unless one of the same kind waits already, not
// started yet: then that one asks from the earlier of the two times. So
// rejoining again and again while a catch-up runs (an overloaded tree)
// queues one more run, not one per rejoin, each paging through the same
// items after the others.
func (s *Servant) queueCatchUp(run *catchUpRun) {
	for _, q := range s.catchUps {
		if !q.started && q.followed == run.followed && q.cats.Equal(run.cats) && q.history == run.history && q.prior.Equal(run.prior) {
			q.since = min(q.since, run.since)
			return
		}
	}
	s.catchUps = append(s.catchUps, run)
}

// nextCatchUp asks for the first queued run's next page, if it is not
// asked for already and we are attached.
func (s *Servant) nextCatchUp() {
	if s.up == nil || len(s.catchUps) == 0 || !s.catchUps[0].sentAt.IsZero() {
		return
	}
	run := s.catchUps[0]
	if run.known == nil {
		run.known = map[string]uint64{}
	}
	if run.followed && !run.started {
		// The sources followed when the run starts are asked for from
		// their next counts; the pages move them on from there.
		for id, next := range s.cfg.Expected {
			if s.sources[id] == nil && next > 0 {
				run.known[id] = max(run.known[id], next)
			}
		}
		for id, st := range s.sources {
			if st.next > 0 {
				run.known[id] = max(run.known[id], st.catchUpFrom())
			}
		}
	}
	// Our own items we have: a page of them would only come back.
	run.known[s.cfg.Source] = max(run.known[s.cfg.Source], s.ownCount+1)
	run.started = true
	req := &CatchUp{Categories: run.cats, Since: run.since, Trail: []ServantID{s.id}}
	for _, id := range slices.Sorted(maps.Keys(run.known)) {
		if len(req.Known) < MaxSources {
			req.Known = append(req.Known, SourceCount{Source: id, Next: run.known[id]})
		}
	}
	fitCatchUp(req)
	run.sentAt = s.now
	s.send(s.up, req)
}

// catchingUpFollowed reports whether a catch-up of the sources we follow
// is under way: it brings their missed items a page at a time, so requests
// for the same items one by one wait until it ends (it ends at the latest
// after three silent pages).
func (s *Servant) catchingUpFollowed() bool {
	return s.up != nil && len(s.catchUps) > 0 && s.catchUps[0].followed
}

// catchingUp reports whether the items of a source we do not follow yet
// must wait for the catch-up under way: it brings the source's items from
// where we last caught up, in order, and starting the source's sequence at
// a live item now would put them behind it. The live items are relayed
// and cached as usual, and sequenced when the catch-up ends.
func (s *Servant) catchingUp(source string) bool {
	return s.up != nil && len(s.catchUps) > 0 && s.nextOf(source) == 0
}

// handleCatchUpDone passes a page end back along its trail, or, when it is
// ours, asks for the next page or the next run.
func (s *Servant) handleCatchUpDone(d *CatchUpDone) {
	if !s.retrace(d.Trail, d) || len(s.catchUps) == 0 || s.catchUps[0].sentAt.IsZero() {
		return
	}
	if d.More {
		run := s.catchUps[0]
		for _, k := range d.Next {
			run.known[k.Source] = max(run.known[k.Source], k.Next)
		}
		run.sentAt = time.Time{}
		run.timeouts = 0
	} else {
		s.catchUps[0] = nil
		s.catchUps = s.catchUps[1:]
	}
	s.nextCatchUp()
	s.releaseDeferred()
}

// maxDeferred bounds the live items held back while a catch-up runs. Of
// those that fall beyond, only the latest header per stream is kept (see
// deferLive).
const maxDeferred = 4096

// deferLive holds back a live item of a source we do not follow while a
// catch-up runs (see catchingUp). Beyond maxDeferred it keeps only the
// item's header, as its stream's edge: the item is marked seen and its
// edge noted already, so neither a copy nor an edge from the tree would
// reveal it again, and it may be the last of its stream.
func (s *Servant) deferLive(m *Multicast, from LinkID) {
	if len(s.deferred) < maxDeferred {
		s.deferred = append(s.deferred, deferredItem{msg: m, from: from})
		return
	}
	keepLatestEdge(&s.deferredEdges, edgeOf(m), from)
}

// deferEdge holds back the edge of a source we do not follow while a
// catch-up runs, as deferLive does the items beyond maxDeferred.
func (s *Servant) deferEdge(e *LatestHeader, from LinkID) {
	keepLatestEdge(&s.deferredEdges, e, from)
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

// releaseDeferred sequences the held-back live items once no catch-up
// runs any more: after what catch-up brought of their sources, so in
// order; or as the first items of a source catch-up knew nothing of.
// Then the edges of what did not fit: a needed item among them that
// catch-up did not bring is asked for.
func (s *Servant) releaseDeferred() {
	if len(s.catchUps) > 0 || len(s.deferred) == 0 && len(s.deferredEdges) == 0 {
		return
	}
	held, edges := s.deferred, s.deferredEdges
	s.deferred, s.deferredEdges = nil, nil
	for _, d := range held {
		s.sequence(d.msg, d.from)
	}
	for _, k := range slices.SortedFunc(maps.Keys(edges), compareEdgeKeys) {
		d := edges[k]
		st := s.source(k.source)
		if s.links[st.arrival] == nil {
			st.arrival = d.from
		}
		s.sequenceEdge(st, d.edge)
	}
}

// catchUpHinted runs when the up-servant passes down a catch-up hint: the
// tree above us re-formed, and messages in flight through a servant that
// died may have been lost for our whole subtree, not only for the servant
// that rejoined. So catch up ourselves (now and once more later) and pass
// the hint on.
func (s *Servant) catchUpHinted() {
	if len(s.catchUps) > 0 {
		// A page under way may have died with the servant that re-formed
		// the tree above: ask for it again now rather than at the timeout.
		s.catchUps[0].sentAt = time.Time{}
	}
	s.requestCatchUp(s.self, s.catchUpSince(s.lastUp), true)
	s.catchUpAgain = s.now.Add(s.cfg.CatchUpRepeat)
	s.hintDowns()
}

// hintDowns sends the catch-up hint (a CatchUp without a trail) to every
// down-servant.
func (s *Servant) hintDowns() {
	for _, d := range s.downs {
		s.send(d, &CatchUp{})
	}
}

// tickCatchUp repeats the catch-up after joining once, CatchUpRepeat later,
// and asks again for a page that did not come.
func (s *Servant) tickCatchUp() {
	if len(s.catchUps) > 0 {
		if run := s.catchUps[0]; !run.sentAt.IsZero() && s.now.Sub(run.sentAt) >= s.catchUpTimeout() {
			run.sentAt = time.Time{}
			if run.timeouts++; run.timeouts >= catchUpTimeouts {
				s.note("catch-up of %v unanswered %d times: given up", run.cats, run.timeouts)
				s.catchUps = s.catchUps[1:]
			}
			s.nextCatchUp()
			s.releaseDeferred()
		}
	}
	if s.catchUpAgain.IsZero() || s.now.Before(s.catchUpAgain) {
		return
	}
	s.catchUpAgain = time.Time{}
	s.requestCatchUp(s.self, s.catchUpSince(s.lastUp), true)
}

// handleCatchUp answers one page of a catch-up request from below when we
// are an archive (the vertex answers with what it has, or with nothing),
// and passes it up otherwise.
func (s *Servant) handleCatchUp(from *link, c *CatchUp) {
	if len(c.Trail) == 0 || slices.Contains(c.Trail, s.id) || len(c.Trail) >= MaxPathLen {
		return
	}
	archive := s.self.Has(AllCategories) && s.cfg.Archive != nil
	if !archive && s.detached() {
		// Looking for the tree ourselves: our store may lack what the tree
		// has, and an answer would end the requester's catch-up. Our hint
		// once we are attached makes it ask again.
		return
	}
	if !archive && s.up != nil {
		fwd := *c
		fwd.Trail = slices.Concat(c.Trail, []ServantID{s.id})
		fitCatchUp(&fwd) // the longer trail may push sources out
		s.send(s.up, &fwd)
		return
	}
	s.takeRequest(from, c) // answered here, within the link's budget (requests.go)
}
