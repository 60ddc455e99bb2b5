package newsnet

import "slices"

// Leaves: servants that others cannot dial.
//
// The partition tree is built from servants that a dial-back reached
// (dialback.go). Any other servant is a leaf: it hangs below a member like
// a down-servant and receives, publishes, repairs, catches up and reports
// over that link like any servant, but it holds no slot, takes no
// down-servants, is never the target of a redirect and never the vertex.
//
// Placement: a joiner descends by slots as in JP4353827B2 Fig. 4. Where its
// slot is empty, a joiner known reachable takes it; any other becomes a
// leaf there, under the member whose partition holds its ID: the tree still
// follows the network. A member holds at most LeafCapacity leaves; a full
// one sends the leaf up (JoinRedirect.Full) and the joiner avoids it from
// then on. Seeds, archives and the vertex take every leaf, so a leaf
// always has a place. A joiner that cannot dial the member it was redirected to goes
// back to the redirecting servant with that member in its Avoid list: it
// becomes a leaf there, and the redirecting servant dials the member back
// to see whether it is the member that cannot be dialed.
//
// Leaves are kept in s.downs (downSet) with slot -1, before the members, so that
// every per-link mechanism (routing information, multicast, recovery,
// catch-up, reach reports) serves them unchanged.

const leafSlot = -1

// leafCapacity is the most leaves a member takes besides its Fanout
// members (Config.LeafCapacity, by default 4 × Fanout).
func leafCapacity(cfg *Config) int {
	if cfg.LeafCapacity > 0 {
		return cfg.LeafCapacity
	}
	return DefaultLeafCapacity(cfg.Fanout)
}

// DefaultLeafCapacity is 4 × fanout: a leaf costs its up-servant what a
// down-servant costs (a frame per item of its categories, a routing entry,
// a dial-back every ReachProbeInterval), so a member sends each item at
// most 5 × fanout times. That holds the share of undialable laptops seen in
// company networks (most of them) under reachable ones at fanout's depth
// without making any one servant a hub.
func DefaultLeafCapacity(fanout int) int { return 4 * fanout }

// roomForLeaf reports whether we take one more leaf: seeds, archives
// (always-on machines that subscribe to AllCategories) and the top of the
// tree always do, so a leaf is never left without a place.
func (s *Servant) roomForLeaf() bool {
	return s.up == nil || s.connector.isSeed() || s.self.Has(AllCategories) || s.downs.leaves() < leafCapacity(&s.cfg)
}

// admit places joiner l (its peer and value set): in its slot, in the
// member holding its slot, as a leaf here, or above us when we are full.
func (s *Servant) admit(l *link, req *JoinRequest) {
	for _, a := range req.Avoid {
		s.dialback.undialable(s, l.peer, a)
	}
	l.avoid, l.avoidUntil = slices.Clone(req.Avoid), s.now.Add(s.cfg.ReachProbeInterval)
	// The subtree range covers every servant below us, leaves included,
	// as in the patent: so the leaves of a subnet are placed under the
	// member whose partition holds them.
	s.widen(l.value)
	slot := s.part.Slot(l.value)
	holder := s.downs.inSlot(slot)
	member := req.Reach == ReachReachable
	switch {
	case holder != nil && !slices.Contains(req.Avoid, holder.peer) && (member || !slices.Contains(req.Full, holder.peer)):
		s.send(l, &JoinRedirect{To: holder.peer})
		s.closeLink(l, "redirected to "+string(holder.peer))
		return
	case holder == nil && member:
		s.downs.addMember(l, slot)
		s.acceptJoin(l)
		s.sendSiblings()
		return
	}
	if !s.roomForLeaf() {
		s.send(l, &JoinRedirect{To: s.up.peer, Full: true})
		s.closeLink(l, "no room for another leaf")
		return
	}
	s.downs.addLeaf(l)
	s.acceptJoin(l)
}

// acceptJoin answers an admitted joiner and dials it back.
func (s *Servant) acceptJoin(l *link) {
	path := slices.Concat(s.rootPath, []ServantID{s.id})
	s.send(l, &JoinAccept{Lo: s.part.Lo, Hi: s.part.Hi, Path: path, Leaf: l.leaf})
	s.routeInfo(l) // new link
	s.dialback.dialBack(s, l.peer)
}

// promote gives leaf d, which a dial-back reached, its slot; when another
// member holds the slot, d rejoins under it.
func (s *Servant) promote(d *link) {
	s.widen(d.value)
	slot := s.part.Slot(d.value)
	holder := s.downs.inSlot(slot)
	if holder != nil && slices.Contains(d.avoid, holder.peer) && s.now.Before(d.avoidUntil) {
		// It could not dial the holder of its slot lately: it stays a
		// leaf here. After a probe interval it tries again: the cause may
		// have been passing.
		s.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: true})
		return
	}
	if holder != nil {
		s.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: true})
		s.send(d, &JoinRedirect{To: holder.peer})
		s.closeLink(d, "reachable: moved to the holder of its slot, "+string(holder.peer))
		s.removeDown(d)
		return
	}
	s.downs.remove(d)
	s.downs.addMember(d, slot)
	s.note("%s is reachable: promoted to slot %d", d.peer, slot)
	s.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: false})
	s.sendSiblings()
}

// demote makes member d, which a dial-back did not reach, a leaf; it gives
// up its own down-servants (becomeLeaf). When we have no room for another
// leaf, it rejoins above us.
func (s *Servant) demote(d *link) {
	s.note("%s is not reachable at its address: demoted to a leaf", d.peer)
	s.downs.remove(d)
	if !s.roomForLeaf() {
		s.send(d, &Reachability{Addr: d.peer, Reachable: false, Leaf: true})
		s.send(d, &JoinRedirect{To: s.up.peer, Full: true})
		s.closeLink(d, "unreachable, and no room for another leaf")
		s.downLost(d)
		s.sendSiblings()
		s.fillSlots()
		return
	}
	s.downs.addLeaf(d)
	s.send(d, &Reachability{Addr: d.peer, Reachable: false, Leaf: true})
	s.sendSiblings()
	s.fillSlots()
}

// fillSlots promotes the leaves found reachable whose slots are empty now:
// those that stayed leaves because they could not dial the holder.
func (s *Servant) fillSlots() {
	for _, d := range slices.Clone(s.downs) {
		if d.leaf && d.reach == ReachReachable && s.part.Contains(d.value) && s.downs.inSlot(s.part.Slot(d.value)) == nil {
			s.promote(d)
		}
	}
}

// becomeLeaf: our up-servant found us undialable. We hold no slot any more
// and give up our down-servants, sending them to our up-servant, where they
// find their places again.
func (s *Servant) becomeLeaf() {
	s.leaf = true
	if len(s.downs) == 0 {
		return
	}
	s.note("leaf now: moving %d down-servants to %s", len(s.downs), s.up.peer)
	downs := s.downs
	s.downs = nil
	for _, d := range downs {
		s.send(d, &JoinRedirect{To: s.up.peer})
		s.closeLink(d, "this servant became a leaf")
		d.received = nil
	}
	s.clearSubtree()
	s.routeInfoAllExcept(nil)
}
