package sim

import (
	"fmt"
	"slices"

	"newsdesk/newsnet"
)

// Statuses returns a snapshot of every live servant.
func (n *Network) Statuses() []newsnet.Status {
	alive := n.Alive()
	sts := make([]newsnet.Status, len(alive))
	for i, nd := range alive {
		sts[i] = nd.Servant.Status()
	}
	return sts
}

// CheckTree runs CheckTreeOf on the live servants.
func (n *Network) CheckTree() error { return CheckTreeOf(n.Statuses()) }

// CheckRouting runs CheckRoutingOf on the live servants.
func (n *Network) CheckRouting() error { return CheckRoutingOf(n.Statuses()) }

func byID(sts []newsnet.Status) map[newsnet.ServantID]newsnet.Status {
	m := make(map[newsnet.ServantID]newsnet.Status, len(sts))
	for _, s := range sts {
		m[s.ID] = s
	}
	return m
}

// CheckTreeOf verifies that the servants of these snapshots form exactly
// one tree: one vertex, every other servant attached, up and down pointers
// agreeing, following up-servants always reaching the vertex (no cycles),
// and at most one downlink per slot, each inside its slot. The simulator and
// the TCP tests share it.
func CheckTreeOf(sts []newsnet.Status) error {
	st := byID(sts)
	var vertex newsnet.ServantID
	for _, s := range sts {
		switch s.Role {
		case newsnet.RoleVertex:
			if vertex != "" {
				return fmt.Errorf("two vertices: %s and %s", vertex, s.ID)
			}
			vertex = s.ID
		case newsnet.RoleAttached:
			up, ok := st[s.Up]
			if !ok {
				return fmt.Errorf("%s is attached to %s, which is not alive", s.ID, s.Up)
			}
			if s.Leaf != slices.Contains(up.Leaves, s.ID) || !s.Leaf && !slices.Contains(up.Downs, s.ID) {
				return fmt.Errorf("%s (leaf %v) has up %s, which does not list it as such (downs %v, leaves %v)",
					s.ID, s.Leaf, s.Up, up.Downs, up.Leaves)
			}
			if s.Leaf && len(s.Links) > 1 {
				return fmt.Errorf("leaf %s has %d down-servants", s.ID, len(s.Links)-1)
			}
		default:
			return fmt.Errorf("%s is %s", s.ID, s.Role)
		}
		slots := map[int]newsnet.ServantID{}
		for _, l := range s.Links {
			if l.Up {
				continue
			}
			down, ok := st[l.Peer]
			if !ok || down.Up != s.ID {
				return fmt.Errorf("%s lists down %s, whose up is %q", s.ID, l.Peer, down.Up)
			}
			if l.Leaf {
				continue // a leaf holds no slot
			}
			if other, dup := slots[l.Slot]; dup {
				return fmt.Errorf("%s has two downs in slot %d: %s and %s", s.ID, l.Slot, other, l.Peer)
			}
			slots[l.Slot] = l.Peer
			lo, hi := s.Partition.SlotRange(l.Slot)
			if v := newsnet.IDValue(l.Peer); v < lo || v > hi {
				return fmt.Errorf("%s: down %s (value %d) is not in its slot %d [%d,%d]", s.ID, l.Peer, v, l.Slot, lo, hi)
			}
		}
	}
	if vertex == "" {
		return fmt.Errorf("no vertex among %d servants", len(sts))
	}
	for _, s := range sts {
		id := s.ID
		for steps := 0; id != vertex; steps++ {
			if steps > len(sts) {
				return fmt.Errorf("cycle above %s", s.ID)
			}
			id = st[id].Up
		}
	}
	return nil
}

// CheckRoutingOf verifies that every received set equals the true union of
// the self sets of every servant beyond its link, and that each side's sent
// set equals the other side's received set. It assumes CheckTreeOf passed.
func CheckRoutingOf(sts []newsnet.Status) error {
	st := byID(sts)
	children := map[newsnet.ServantID][]newsnet.ServantID{}
	var vertex newsnet.ServantID
	total := map[string]int{}
	for _, s := range sts {
		if s.Up == "" {
			vertex = s.ID
		} else {
			children[s.Up] = append(children[s.Up], s.ID)
		}
		for _, c := range s.Subscriptions {
			total[c]++
		}
	}
	// Category counts of each subtree, computed bottom-up.
	sub := map[newsnet.ServantID]map[string]int{}
	var walk func(id newsnet.ServantID)
	walk = func(id newsnet.ServantID) {
		counts := map[string]int{}
		for _, c := range st[id].Subscriptions {
			counts[c]++
		}
		for _, ch := range children[id] {
			walk(ch)
			for c, k := range sub[ch] {
				counts[c] += k
			}
		}
		sub[id] = counts
	}
	walk(vertex)
	setOf := func(counts map[string]int) newsnet.CategorySet {
		var cs []string
		for c, k := range counts {
			if k > 0 {
				cs = append(cs, c)
			}
		}
		return newsnet.NewCategorySet(cs...)
	}
	for _, s := range sts {
		for _, l := range s.Links {
			var want newsnet.CategorySet
			if l.Up {
				outside := map[string]int{}
				for c, k := range total {
					outside[c] = k - sub[s.ID][c]
				}
				want = setOf(outside)
			} else {
				want = setOf(sub[l.Peer])
			}
			if !l.Received.Equal(want) {
				return fmt.Errorf("%s: received set from %s is %v, true union is %v", s.ID, l.Peer, l.Received, want)
			}
			peer := st[l.Peer]
			for _, pl := range peer.Links {
				if pl.Peer == s.ID && !pl.Sent.Equal(l.Received) {
					return fmt.Errorf("%s sent %v to %s, which holds %v", l.Peer, pl.Sent, s.ID, l.Received)
				}
			}
		}
	}
	return nil
}

// CheckDirect runs CheckDirectOf on the live servants.
func (n *Network) CheckDirect() error { return CheckDirectOf(n.Statuses()) }

// CheckDirectOf verifies that the direct links of these snapshots pair
// up: every subscriber's link to a source's servant is listed there as a
// publisher's link back, for the same source, and the other way round.
// Direct links are not tree links: they are never in Links, so
// CheckTreeOf (one tree, no cycles) does not see them. A link that
// broke silently is one-sided until heartbeats close it, so check a
// network that has been quiet for a link timeout.
func CheckDirectOf(sts []newsnet.Status) error {
	st := byID(sts)
	for _, s := range sts {
		for _, d := range s.Direct {
			peer, ok := st[d.Peer]
			if !ok {
				return fmt.Errorf("%s has a direct link to %s, which is not alive", s.ID, d.Peer)
			}
			want := newsnet.DirectPublisher
			if d.Role == newsnet.DirectPublisher {
				want = newsnet.DirectSubscriber
			}
			if !slices.ContainsFunc(peer.Direct, func(o newsnet.DirectStatus) bool {
				return o.Peer == s.ID && o.Source == d.Source && o.Role == want
			}) {
				return fmt.Errorf("%s's direct link (%s of %s) to %s is not listed there (%+v)", s.ID, d.Role, d.Source, d.Peer, peer.Direct)
			}
		}
	}
	return nil
}

// Converged reports whether CheckTree and CheckRouting both pass.
func (n *Network) Converged() bool { return ConvergedOf(n.Statuses()) }

// Settled reports whether the network has converged and no servant is
// still catching up: items of sources a servant does not follow yet wait
// for its catch-up, so only then does a new publisher reach everyone at
// once.
func (n *Network) Settled() bool {
	sts := n.Statuses()
	for _, st := range sts {
		if st.CatchingUp {
			return false
		}
	}
	return ConvergedOf(sts)
}

// ConvergedOf reports whether CheckTreeOf and CheckRoutingOf both pass and
// every leaf has had its dial-back: a leaf still waiting for one may yet
// take a slot. (A leaf found reachable stays one while it cannot dial the
// holder of its slot: CheckDialable, not convergence, is about that.)
func ConvergedOf(sts []newsnet.Status) bool {
	for _, st := range sts {
		if st.Leaf && st.Reach == newsnet.ReachUnknown {
			return false
		}
	}
	return CheckTreeOf(sts) == nil && CheckRoutingOf(sts) == nil
}

// CheckDelivery verifies that message id, published by from in category
// cat, was delivered exactly once to every live servant (other than the
// publisher) whose subscriptions match cat, and to nobody else.
func (n *Network) CheckDelivery(from newsnet.ServantID, id [16]byte, cat string) error {
	for _, nd := range n.Alive() {
		want := 0
		if nd.ID != from && newsnet.NewCategorySet(nd.Subscriptions...).Matches(cat) {
			want = 1
		}
		if got := nd.Delivered[id]; got != want {
			return fmt.Errorf("%s received item %x of %q %d times, want %d", nd.ID, id[:4], cat, got, want)
		}
	}
	return nil
}

// checkDeliver checks, at the step that delivers m to nd, what must hold at
// every step and not only once the network is quiet: a servant delivers
// only what its subscriptions match, and an item at most once per run (a
// restarted servant may deliver again what it had not reported as
// progress; the host's store drops that copy by ID).
func (n *Network) checkDeliver(nd *Node, m *newsnet.Multicast) {
	switch {
	case !nd.subscribed().Matches(m.Category):
		n.violate("%s delivered %x of %q (source %s, count %d), which its subscriptions %v do not match",
			nd.ID, m.ID[:4], m.Category, m.Source, m.Count, nd.Subscriptions)
	case nd.thisRun[m.ID]:
		n.violate("%s delivered %x (source %s, count %d) twice in one run", nd.ID, m.ID[:4], m.Source, m.Count)
	}
	nd.thisRun[m.ID] = true
}

// subscribed is nd's Subscriptions as a set, made again only when
// Subscriptions was given another slice (Subscribe does that).
func (nd *Node) subscribed() newsnet.CategorySet {
	if len(nd.subsOf) != len(nd.Subscriptions) || len(nd.subsOf) > 0 && &nd.subsOf[0] != &nd.Subscriptions[0] || nd.subsSet == nil {
		nd.subsSet, nd.subsOf = newsnet.NewCategorySet(nd.Subscriptions...), nd.Subscriptions
	}
	return nd.subsSet
}

func (n *Network) violate(format string, args ...any) {
	if len(n.violations) < maxViolations {
		n.violations = append(n.violations, n.now.Sub(n.start).String()+": "+fmt.Sprintf(format, args...))
	}
}

// Violations returns the invariants broken during the run, each with the
// virtual time of the step that broke it; nil when none was. Tests check
// it at the end, so a breach that healed before the end still fails them.
func (n *Network) Violations() []string { return slices.Clone(n.violations) }

// CheckDialable verifies that the tree is built from servants others can dial
// (leaf.go): every attached servant behind a Firewall is a leaf, every
// other attached one holds a slot, and no servant but a seed or the vertex
// holds more than its leaf capacity. Dial-backs repeat every
// ReachProbeInterval, so after a firewall changed it holds only once that
// interval (and a half, for the jitter) has passed.
func (n *Network) CheckDialable() error {
	capacity := n.Base.LeafCapacity
	if capacity == 0 {
		capacity = newsnet.DefaultLeafCapacity(n.Base.Fanout)
	}
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		if st.Role != newsnet.RoleAttached {
			continue
		}
		switch {
		case n.firewalled[nd.ID] && !st.Leaf:
			return fmt.Errorf("%s cannot be dialed but holds a slot under %s", nd.ID, st.Up)
		case !n.firewalled[nd.ID] && st.Leaf:
			return fmt.Errorf("%s can be dialed but is a leaf under %s (reach %v)", nd.ID, st.Up, st.Reach)
		case len(st.Leaves) > capacity && !slices.Contains(nd.Seeds, nd.ID):
			return fmt.Errorf("%s holds %d leaves, more than its capacity %d", nd.ID, len(st.Leaves), capacity)
		}
	}
	return nil
}
