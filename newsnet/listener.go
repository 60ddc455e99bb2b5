package newsnet

import (
	"fmt"
	"slices"
	"time"
)

// handleJoin is listener processing (JP4353827B2 Fig. 4): widen the subtree
// range with the joiner's ID value, recompute partition and slots, and answer
// OK when the joiner's slot is empty or redirect it to the slot's holder.
// Only a joiner known to be reachable takes a slot; admit (leaf.go) places
// the others as leaves.
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
	case s.leaf:
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
	if old := s.downs.byPeer(c); old != nil {
		// The joiner reconnected before we noticed its old link die.
		s.closeLink(old, "replaced by a new link from the same servant")
		s.removeDown(old)
	}
	l.peer = c
	l.value = IDValue(c)
	s.admit(l, req) // leaf.go
}

func (s *Servant) refuse(l *link, reason string) {
	s.send(l, &JoinRefuse{Reason: reason})
	s.closeLink(l, "join refused: "+reason)
}

// widen updates the subtree range with v (S205) and recomputes partition and
// slots (S207). When the wider partition puts several downlinks into one
// slot, the first of them keeps it and the others are told to rejoin under it.
func (s *Servant) widen(v uint64) {
	if v >= s.vmin && v <= s.vmax {
		return
	}
	s.vmin, s.vmax = min(s.vmin, v), max(s.vmax, v)
	p := PartitionFor(s.vmin, s.vmax, s.cfg.Fanout)
	if p == s.part {
		return
	}
	s.part = p
	var kept []*link
	var evicted []*link
	for _, d := range s.downs {
		if d.leaf {
			kept = append(kept, d)
			continue
		}
		d.slot = p.Slot(d.value)
		if n := len(kept); n > 0 && kept[n-1].slot == d.slot {
			evicted = append(evicted, d)
			s.send(d, &JoinRedirect{To: kept[n-1].peer})
			s.closeLink(d, "slot merged into "+string(kept[n-1].peer)+"'s")
			continue
		}
		kept = append(kept, d)
	}
	s.downs = kept
	for _, d := range evicted {
		s.downLost(d)
	}
	if len(evicted) > 0 {
		s.sendSiblings()
	}
}

// removeDown is downlink-loss processing: the slot becomes empty.
func (s *Servant) removeDown(l *link) {
	if !s.downs.remove(l) {
		return
	}
	s.downLost(l)
	if !l.leaf {
		s.sendSiblings()
		s.fillSlots()
	}
}

// downLost updates the routing sets after a downlink went away.
func (s *Servant) downLost(l *link) {
	delete(s.links, l.id)
	l.received = nil
	s.routeInfoAllExcept(nil)
}

// sendSiblings tells every member the current list of members. Leaves
// need none: they recover through the seeds.
func (s *Servant) sendSiblings() {
	members := s.downs.members()
	if len(members) == 0 {
		return
	}
	ids := make([]ServantID, len(members))
	for i, d := range members {
		ids[i] = d.peer
	}
	for _, d := range members {
		s.send(d, &Siblings{IDs: ids})
	}
}
