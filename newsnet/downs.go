package newsnet

import "slices"

// downSet is a servant's downlinks in their one order: the leaves first
// (slot leafSlot, newest first), then the members by slot, at most one per
// slot. Iterating it in that order keeps the servant deterministic, and
// slot lookups are binary searches. It owns only the order; what a change
// means for routing and siblings is the servant's (leaf.go, listener.go).
type downSet []*link

// leaves counts the leaves.
func (ds downSet) leaves() int {
	n := 0
	for _, d := range ds {
		if d.leaf {
			n++
		}
	}
	return n
}

// members returns the downlinks that hold slots.
func (ds downSet) members() []*link {
	i := slices.IndexFunc(ds, func(d *link) bool { return !d.leaf })
	if i < 0 {
		return nil
	}
	return ds[i:]
}

// inSlot is the member holding slot, or nil.
func (ds downSet) inSlot(slot int) *link {
	i, ok := slices.BinarySearchFunc(ds, slot, func(d *link, slot int) int { return d.slot - slot })
	if !ok {
		return nil
	}
	return ds[i]
}

// byPeer is the downlink to id, or nil.
func (ds downSet) byPeer(id ServantID) *link {
	for _, d := range ds {
		if d.peer == id {
			return d
		}
	}
	return nil
}

// addMember makes l a member in slot, in slot order.
func (ds *downSet) addMember(l *link, slot int) {
	l.kind = linkDown
	l.leaf = false
	l.slot = slot
	i, _ := slices.BinarySearchFunc(*ds, slot, func(d *link, slot int) int { return d.slot - slot })
	*ds = slices.Insert(*ds, i, l)
}

// addLeaf makes l a leaf, at the front.
func (ds *downSet) addLeaf(l *link) {
	l.kind = linkDown
	l.leaf = true
	l.slot = leafSlot
	*ds = slices.Insert(*ds, 0, l)
}

// remove takes l out, and reports whether it was there.
func (ds *downSet) remove(l *link) bool {
	i := slices.Index(*ds, l)
	if i < 0 {
		return false
	}
	*ds = slices.Delete(*ds, i, i+1)
	return true
}
