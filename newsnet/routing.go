package newsnet

import "slices"

// routeInfo is multicast routing information transmission to the target
// link l (JP4353827B2 Fig. 7): the union of our self set and the received
// sets of every other link (S501-S502) is sent only when it differs from
// what we last sent on l (S503-S507). One departure: the first union on a
// new link is sent even when empty, so the peer learns for certain that
// nobody beyond subscribes, and stops treating the link as unknown.
// Another: a union too large for one frame goes coarser (budget.go).
func (s *Servant) routeInfo(l *link) {
	if s.cfg.Flood {
		return
	}
	u := s.self
	for _, o := range s.treeLinks() {
		if o != l {
			u = u.Union(o.received)
		}
	}
	sent := fitRoutingSet(u)
	if l.infoSent && sent.Equal(l.sent) {
		return
	}
	if !sent.Equal(u) {
		s.note("routing information to %s: %d categories do not fit one frame, sent as %d coarser ones", l.peer, len(u), len(sent))
	}
	l.infoSent = true
	l.sent = sent
	s.send(l, &RoutingInfo{Categories: sent})
}

// routeInfoAllExcept runs routeInfo for every tree link but except.
func (s *Servant) routeInfoAllExcept(except *link) {
	for _, l := range s.treeLinks() {
		if l != except {
			s.routeInfo(l)
		}
	}
}

// receiveRouteInfo is multicast information reception (Fig. 8): store the
// set as the link's received set (S522) and pass the change on (S523).
//
// Streams the link newly asks for get their leading edges (edge.go), so a
// servant that rejoined elsewhere learns what it missed meanwhile.
func (s *Servant) receiveRouteInfo(l *link, m *RoutingInfo) {
	was, known := l.received, l.infoKnown
	l.received = NewCategorySet(m.Categories...)
	l.infoKnown = true
	s.routeInfoAllExcept(l)
	s.sendEdgesFor(l, was, known)
}

// setSelf replaces the self set (a join or leave request from the
// application) and informs every link.
func (s *Servant) setSelf(set CategorySet) {
	if set.Equal(s.self) {
		return
	}
	added := slices.DeleteFunc(slices.Clone(set), s.self.Has)
	prior := s.self
	s.self = set
	for _, c := range set {
		s.seq.learnCategory(c)
	}
	s.routeInfoAllExcept(nil)
	// A new subscription asks for what was published before it (after the
	// routing information, so nothing falls between the two).
	s.catchUp.history(s, added, prior)
}

// route is multicast message routing (Fig. 9): deliver locally when the
// category is ours (S532) and forward on every other link whose received set
// holds it (S533-S535).
//
// Local delivery of a counted message goes through the source's sequence
// (order.go), which holds it back until what it follows is resolved.
func (s *Servant) route(from *link, m *Multicast) {
	if !s.verifiedOn(from, m) {
		return
	}
	if !s.seen.add(m.ID) || s.replayed(m) {
		s.counters.Duplicates++
		return
	}
	s.relay(m, from, nil)
	s.cache.add(m)
	s.edges.note(m)
	if s.noteArrival(from, m.Source, true) {
		s.reach.pathMoved(s, m.Source)
	}
	switch {
	case m.Source == s.cfg.Source:
		// Our own publication come back: we never deliver to ourselves.
	case m.Count == 0:
		// Unsequenced: deliver as it comes.
		if s.seq.delivers(s, m) {
			s.counters.Delivered++
			s.out = append(s.out, Deliver{Msg: m, From: from.id})
		}
	case s.catchUp.holds(s, m.Source):
		st := s.seq.source(m.Source)
		st.arrival, st.live, st.hops, st.viaUp = from.id, from.id, m.Hops+1, from == s.up
		s.catchUp.deferLive(m, from.id)
	default:
		st := s.seq.source(m.Source)
		st.arrival, st.live, st.hops, st.viaUp = from.id, from.id, m.Hops+1, from == s.up
		s.seq.notePath(s, st, m.Hops+1)
		s.seq.sequence(s, m, from.id)
	}
}

// relay forwards m, one hop further, on every tree link but except and
// also (either may be nil) whose received set holds its category, that no
// exception covers, and that can lead into its audience.
func (s *Servant) relay(m *Multicast, except, also *link) {
	var fwd *Multicast // m one hop further
	aud := audienceIDRanges(m.Audience)
	for _, l := range s.treeLinks() {
		if l != except && l != also && s.wants(l, m.Category) && !l.except.coversItem(m, s.now) && s.audienceLink(l, aud) {
			if fwd == nil {
				c := *m
				c.Hops++
				fwd = &c
			}
			s.counters.Relayed++
			l.flow.forward(s, l, fwd)
		}
	}
}

// verifiedOn checks a message that came over l (verifier): one rejected
// for a reason no honest servant passes on (Config.ForgedReasons) counts
// against l's peer, which forged or tampered with it (conduct.go). A
// relay that does so to every item would otherwise cut its subtree off
// unnoticed: nothing of the items arrives, so no gap shows.
func (s *Servant) verifiedOn(l *link, m *Multicast) bool {
	reason := s.verify(l.peer, m)
	if reason != "" && slices.Contains(s.cfg.ForgedReasons, reason) {
		s.counters.Forged++
		s.misbehaved(l, reasonForged, forgedPoints)
	}
	return reason == ""
}

// replayed reports whether m is older than what we already resolved of its
// source and was not asked for: a replay that outlived the seen window, or
// a copy that came the long way round while the tree re-formed. Either way
// nobody below needs it from us: a servant still missing it asks for it.
// Not while an item of the source overtook others (overtake.go): then it
// is most likely one of those, which we skipped (it is not in our
// categories) but a servant below us still waits for. Nor, at any time,
// for a count we resolved without its item passing through us: it was
// overtaken by a later item over a path the grace does not see (a direct
// link at the tree's hop count, a busy tree link beside a quiet one, or
// the relay above us passing on items in the order such paths brought
// them), nobody below got it from us, and a servant below that needs it
// may hear of no later item that would show it the gap. Its first copy
// is passed on; copies after it are duplicates by ID, and one that
// outlives the seen window a replay again.
func (s *Servant) replayed(m *Multicast) bool {
	if m.Count == 0 || m.Source == s.cfg.Source {
		return false
	}
	st := s.seq.sources[m.Source]
	if st == nil || st.next == 0 || m.Count >= st.next || st.wanted[m.Count] != nil || s.seq.overtaking(s, st) {
		return false
	}
	if st.resolvedUnseen(m.Count) {
		st.passed(m.Count, false) // it passes through us now
		return false
	}
	return true
}

// publish sends a message of our own on every link leading to a subscriber.
// With no such link nothing is sent: the publication is suppressed
// (JP5458944B2's unnecessary event notification never leaves the servant).
//
// The message gets its source and count (the host may set a persisted count
// above the last one; zero means the next) and the history of the source's
// previous categories. Not attached to the tree, it waits in the outbox.
func (s *Servant) publish(orig *Multicast) {
	s.counters.Published++
	m := *orig // the host's message stays as it was; Published reports the count
	m.Source = s.cfg.Source
	if m.Count <= s.ownCount {
		m.Count = s.ownCount + 1
	}
	s.ownCount = m.Count
	m.History = s.own.runs()
	m.Lasts, m.LastsComplete = s.chains.Lasts(), s.chains.complete
	s.own.add(m.Category)
	s.chains.addMessage(&m)
	s.cache.add(&m)
	s.edges.note(&m)
	s.seen.add(m.ID)
	s.reach.trackOwnAudience(s, &m)
	if s.detached() {
		s.outbox = append(s.outbox, &m)
		s.out = append(s.out, Published{ID: m.ID, Category: m.Category, Count: m.Count, Queued: true})
		return
	}
	s.sendOwn(&m)
}

// sendOwn sends one of our publications into the tree.
func (s *Servant) sendOwn(m *Multicast) {
	n := 0
	aud := audienceIDRanges(m.Audience)
	for _, l := range s.treeLinks() {
		if s.wants(l, m.Category) && !l.except.coversItem(m, s.now) && s.audienceLink(l, aud) {
			l.flow.forward(s, l, m)
			n++
		}
	}
	n += s.sendDirect(m)
	if n == 0 {
		s.counters.Suppressed++
	}
	s.out = append(s.out, Published{ID: m.ID, Category: m.Category, Count: m.Count, Links: n})
}

// flushOutbox sends what was published while we were not attached, in
// order, once we are part of the tree again.
func (s *Servant) flushOutbox() {
	queued := s.outbox
	s.outbox = nil
	for _, m := range queued {
		s.sendOwn(m)
	}
}

// seenSet remembers the most recent multicast IDs in a ring, so a copy that
// a re-forming tree delivers twice is dropped.
// It grows to its limit only as messages arrive, so an idle servant (and
// each of a simulation's thousands) costs nothing.
type seenSet struct {
	ring  [][16]byte
	next  int
	limit int
	ids   map[[16]byte]struct{}
}

func newSeenSet(limit int) seenSet {
	return seenSet{limit: limit, ids: make(map[[16]byte]struct{})}
}

// add records id and reports whether it was new.
func (s *seenSet) add(id [16]byte) bool {
	if _, dup := s.ids[id]; dup {
		return false
	}
	if len(s.ring) < s.limit {
		s.ring = append(s.ring, id)
	} else {
		delete(s.ids, s.ring[s.next])
		s.ring[s.next] = id
		s.next = (s.next + 1) % len(s.ring)
	}
	s.ids[id] = struct{}{}
	return true
}
