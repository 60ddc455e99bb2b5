package newsnet

import (
	"fmt"
	"slices"
	"time"
)

// admissions is the listener side of joins (JP4353827B2 Fig. 4) with
// the leaves (leaf.go): the subtree range [vmin, vmax], the partition
// and slots computed from it, where a joiner goes (its empty slot, the
// member holding its slot, a leaf here, or above us), what a dial-back's
// verdict does to a down-servant's place, and whether we are a leaf
// ourselves. It places downlinks in the servant's downSet (core's) and asks
// the servant, through admissionHost, to update routing and to dial back;
// who may join at all (conduct, cycles, our own join) the servant decides
// first (Servant.handleJoin). As raft's raftLog and tracker own their state
// beside raft, this keeps the servant to the tree's transitions.
// admissions_test.go drives it through a fake host.
type admissions struct {
	cfg   *Config  // the servant's: Fanout, LeafCapacity, ReachProbeInterval
	value uint64   // our ID value
	downs *downSet // core's

	vmin, vmax uint64    // subtree range, own value included
	part       Partition // computed from [vmin, vmax]
	// leaf: we hang below our up-servant without a slot, because it
	// could not dial us back; we take no down-servants.
	leaf bool
}

// admissionHost is what admissions need of the servant. *Servant
// implements it, mostly through core.
type admissionHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	closeLink(l *link, reason string)
	// upLink is our uplink, nil at the top of the tree.
	upLink() *link
	// pathDown is the path a joiner is told: from the vertex to us.
	pathDown() []ServantID
	// takesAnyLeaf reports whether we take every leaf whatever our leaf
	// capacity: seeds, archives and the top of the tree do.
	takesAnyLeaf() bool
	// routeInfo sends routing information on a new link;
	// routeInfoAllExcept(nil) resends it after a link went (routing.go).
	routeInfo(l *link)
	routeInfoAllExcept(except *link)
	// dialBack dials target back; undialable takes joiner's report that
	// it could not dial target (dialback.go).
	dialBack(target ServantID)
	undialable(joiner, target ServantID)
}

var _ admissionHost = (*Servant)(nil)

func newAdmissions(cfg *Config, value uint64, downs *downSet) admissions {
	a := admissions{cfg: cfg, value: value, downs: downs}
	a.clearSubtree()
	return a
}

// handleJoin is listener processing (JP4353827B2 Fig. 4) for joiner l: it
// refuses a joiner that must not join us (a bad or banned ID, ourselves,
// an ancestor, the servant we are joining), and admissions place the
// others.
func (s *Servant) handleJoin(l *link, req *JoinRequest) {
	c := req.From
	if _, err := ParseServantID(string(c)); err != nil {
		s.refuse(l, "bad servant id")
		return
	}
	if until, ok := s.conduct.bannedUntil(c, s.now); ok {
		s.refuse(l, fmt.Sprintf("%s kept exceeding its budgets: refused until %s", c, until.UTC().Format(time.TimeOnly)))
		return
	}
	switch {
	case s.adm.leaf:
		s.refuse(l, "this servant is a leaf: others cannot dial it, so it takes no down-servants")
		return
	case c == s.id:
		if a := s.connector.attempt; a != nil {
			// Our own join attempt reached us: its target is another name
			// for this servant.
			s.connector.learnAlias(s, a.peer)
		}
		s.refuse(l, "that is this servant")
		return
	case slices.Contains(s.rootPath, c):
		// A servant never joins its own subtree.
		s.refuse(l, fmt.Sprintf("%s is an ancestor of %s", c, s.id))
		return
	case s.connector.attempt != nil && s.connector.attempt.peer == c:
		// We are joining c right now; accepting it too could close a cycle.
		s.refuse(l, fmt.Sprintf("%s is joining %s", s.id, c))
		return
	}
	s.adm.join(s, l, c, req)
}

// join places joiner l from c, whom nothing refused: widen the subtree
// range with its ID value, recompute partition and slots, and answer OK
// when its slot is empty or redirect it to the slot's holder. Only a
// joiner known to be reachable takes a slot; admit (leaf.go) places the
// others as leaves.
func (a *admissions) join(h admissionHost, l *link, c ServantID, req *JoinRequest) {
	if old := a.downs.byPeer(c); old != nil {
		// The joiner reconnected before we noticed its old link die.
		h.closeLink(old, "replaced by a new link from the same servant")
		a.removeDown(h, old)
	}
	l.peer = c
	l.value = IDValue(c)
	a.admit(h, l, req) // leaf.go
}

// widen updates the subtree range with v (S205) and recomputes partition and
// slots (S207). When the wider partition puts several downlinks into one
// slot, the first of them keeps it and the others are told to rejoin under it.
func (a *admissions) widen(h admissionHost, v uint64) {
	if v >= a.vmin && v <= a.vmax {
		return
	}
	a.vmin, a.vmax = min(a.vmin, v), max(a.vmax, v)
	p := PartitionFor(a.vmin, a.vmax, a.cfg.Fanout)
	if p == a.part {
		return
	}
	a.part = p
	var kept []*link
	var evicted []*link
	for _, d := range *a.downs {
		if d.leaf {
			kept = append(kept, d)
			continue
		}
		d.slot = p.Slot(d.value)
		if n := len(kept); n > 0 && kept[n-1].slot == d.slot {
			evicted = append(evicted, d)
			h.send(d, &JoinRedirect{To: kept[n-1].peer})
			h.closeLink(d, "slot merged into "+string(kept[n-1].peer)+"'s")
			continue
		}
		kept = append(kept, d)
	}
	*a.downs = kept
	for _, d := range evicted {
		a.downLost(h, d)
	}
	if len(evicted) > 0 {
		a.sendSiblings(h)
	}
}

// slotRange is the range of IDs below our downlink in slot.
func (a *admissions) slotRange(slot int) (lo, hi uint64) { return a.part.SlotRange(slot) }

// towardServant is the tree link toward servant id by the partitions: the
// link to it, else the down-servant whose slot holds its ID, else up when
// our partition does not; never from. Nil when there is none.
func (a *admissions) towardServant(id ServantID, up, from *link) *link {
	if up != nil && up.peer == id && up != from {
		return up
	}
	for _, l := range *a.downs {
		if l.peer == id && l != from {
			return l
		}
	}
	v := IDValue(id)
	if a.part.Contains(v) {
		for _, l := range *a.downs {
			if lo, hi := a.part.SlotRange(l.slot); !l.leaf && l != from && lo <= v && v <= hi {
				return l
			}
		}
		return nil
	}
	if up != nil && up != from {
		return up
	}
	return nil
}

// clearSubtree forgets the subtree range: only our own value remains.
func (a *admissions) clearSubtree() {
	a.vmin, a.vmax = a.value, a.value
	a.part = PartitionFor(a.value, a.value, a.cfg.Fanout)
}

// removeDown is downlink-loss processing (the link is closed or lost
// already): the slot becomes empty.
func (a *admissions) removeDown(h admissionHost, l *link) {
	if !a.downs.remove(l) {
		return
	}
	a.downLost(h, l)
	if !l.leaf {
		a.sendSiblings(h)
		a.fillSlots(h)
	}
}

// downLost updates the routing sets after a downlink, closed or lost
// already, went away.
func (a *admissions) downLost(h admissionHost, l *link) {
	l.received = nil
	h.routeInfoAllExcept(nil)
}

// sendSiblings tells every member the current list of members. Leaves
// need none: they recover through the seeds.
func (a *admissions) sendSiblings(h admissionHost) {
	members := a.downs.members()
	if len(members) == 0 {
		return
	}
	ids := make([]ServantID, len(members))
	for i, d := range members {
		ids[i] = d.peer
	}
	for _, d := range members {
		h.send(d, &Siblings{IDs: ids})
	}
}
