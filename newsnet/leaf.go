package newsnet

import "slices"

// Leaves: servants that others cannot dial. Their rules are admissions'
// (admissions.go).
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
// Leaves are kept in the downSet with slot -1, before the members, so that
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
func (a *admissions) roomForLeaf(h admissionHost) bool {
	return h.takesAnyLeaf() || a.downs.leaves() < leafCapacity(a.cfg)
}

// admit places joiner l (its peer and value set): in its slot, in the
// member holding its slot, as a leaf here, or above us when we are full.
func (a *admissions) admit(h admissionHost, l *link, req *JoinRequest) {
	for _, t := range req.Avoid {
		h.undialable(l.peer, t)
	}
	l.avoid, l.avoidUntil = slices.Clone(req.Avoid), h.clock().Add(a.cfg.ReachProbeInterval)
	// The subtree range covers every servant below us, leaves included,
	// as in the patent: so the leaves of a subnet are placed under the
	// member whose partition holds them.
	a.widen(h, l.value)
	slot := a.part.Slot(l.value)
	holder := a.downs.inSlot(slot)
	member := req.Reach == ReachReachable
	switch {
	case holder != nil && !slices.Contains(req.Avoid, holder.peer) && (member || !slices.Contains(req.Full, holder.peer)):
		h.send(l, &JoinRedirect{To: holder.peer})
		h.closeLink(l, "redirected to "+string(holder.peer))
		return
	case holder == nil && member:
		a.downs.addMember(l, slot)
		a.acceptJoin(h, l)
		a.sendSiblings(h)
		return
	}
	if !a.roomForLeaf(h) {
		h.send(l, &JoinRedirect{To: h.upLink().peer, Full: true})
		h.closeLink(l, "no room for another leaf")
		return
	}
	a.downs.addLeaf(l)
	a.acceptJoin(h, l)
}

// acceptJoin answers an admitted joiner and dials it back.
func (a *admissions) acceptJoin(h admissionHost, l *link) {
	h.send(l, &JoinAccept{Lo: a.part.Lo, Hi: a.part.Hi, Path: h.pathDown(), Leaf: l.leaf})
	h.routeInfo(l) // new link
	h.dialBack(l.peer)
}

// placeReached applies a dial-back's verdict about down-servant d (in
// d.reach): a reachable leaf is promoted, an unreachable member demoted,
// and any other is only told.
func (a *admissions) placeReached(h admissionHost, d *link) {
	reachable := d.reach == ReachReachable
	switch {
	case reachable && d.leaf:
		a.promote(h, d)
	case !reachable && !d.leaf:
		a.demote(h, d)
	default:
		h.send(d, &Reachability{Addr: d.peer, Reachable: reachable, Leaf: d.leaf})
	}
}

// promote gives leaf d, which a dial-back reached, its slot; when another
// member holds the slot, d rejoins under it.
func (a *admissions) promote(h admissionHost, d *link) {
	a.widen(h, d.value)
	slot := a.part.Slot(d.value)
	holder := a.downs.inSlot(slot)
	if holder != nil && slices.Contains(d.avoid, holder.peer) && h.clock().Before(d.avoidUntil) {
		// It could not dial the holder of its slot lately: it stays a
		// leaf here. After a probe interval it tries again: the cause may
		// have been passing.
		h.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: true})
		return
	}
	if holder != nil {
		h.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: true})
		h.send(d, &JoinRedirect{To: holder.peer})
		h.closeLink(d, "reachable: moved to the holder of its slot, "+string(holder.peer))
		a.removeDown(h, d)
		return
	}
	a.downs.remove(d)
	a.downs.addMember(d, slot)
	h.note("%s is reachable: promoted to slot %d", d.peer, slot)
	h.send(d, &Reachability{Addr: d.peer, Reachable: true, Leaf: false})
	a.sendSiblings(h)
}

// demote makes member d, which a dial-back did not reach, a leaf; it gives
// up its own down-servants (becomeLeaf). When we have no room for another
// leaf, it rejoins above us.
func (a *admissions) demote(h admissionHost, d *link) {
	h.note("%s is not reachable at its address: demoted to a leaf", d.peer)
	a.downs.remove(d)
	if !a.roomForLeaf(h) {
		h.send(d, &Reachability{Addr: d.peer, Reachable: false, Leaf: true})
		h.send(d, &JoinRedirect{To: h.upLink().peer, Full: true})
		h.closeLink(d, "unreachable, and no room for another leaf")
		a.downLost(h, d)
		a.sendSiblings(h)
		a.fillSlots(h)
		return
	}
	a.downs.addLeaf(d)
	h.send(d, &Reachability{Addr: d.peer, Reachable: false, Leaf: true})
	a.sendSiblings(h)
	a.fillSlots(h)
}

// fillSlots promotes the leaves found reachable whose slots are empty now:
// those that stayed leaves because they could not dial the holder.
func (a *admissions) fillSlots(h admissionHost) {
	for _, d := range slices.Clone(*a.downs) {
		if d.leaf && d.reach == ReachReachable && a.part.Contains(d.value) && a.downs.inSlot(a.part.Slot(d.value)) == nil {
			a.promote(h, d)
		}
	}
}

// becomeLeaf: our up-servant found us undialable. We hold no slot any more
// and give up our down-servants, sending them to our up-servant, where they
// find their places again.
func (a *admissions) becomeLeaf(h admissionHost) {
	a.leaf = true
	if len(*a.downs) == 0 {
		return
	}
	up := h.upLink()
	h.note("leaf now: moving %d down-servants to %s", len(*a.downs), up.peer)
	downs := *a.downs
	*a.downs = nil
	for _, d := range downs {
		h.send(d, &JoinRedirect{To: up.peer})
		h.closeLink(d, "this servant became a leaf")
		d.received = nil
	}
	a.clearSubtree()
	h.routeInfoAllExcept(nil)
}

// Servant's side of admissions: what the dial-backs' verdicts do, and
// what admissions ask of the servant besides core.

// placeReached is dialBackHost's: admissions apply a verdict.
func (s *Servant) placeReached(d *link) { s.adm.placeReached(s, d) }

// takesAnyLeaf is admissionHost's: seeds, archives (always-on machines
// that subscribe to AllCategories) and the top of the tree.
func (s *Servant) takesAnyLeaf() bool {
	return s.up == nil || s.connector.isSeed() || s.self.Has(AllCategories)
}

// dialBack and undialable are admissionHost's (dialback.go).
func (s *Servant) dialBack(target ServantID)           { s.dialback.dialBack(s, target) }
func (s *Servant) undialable(joiner, target ServantID) { s.dialback.undialable(s, joiner, target) }
