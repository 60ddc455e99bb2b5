package sim

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"slices"

	"newsdesk/newsnet"
)

// The simulated host's side of reach reports (newsnet/reach.go): readers
// who open and acknowledge items, and what a host keeps of its part in
// reach across restarts (newsnet.Config.Reach).

// reachMark is what the host of one servant keeps of one item's reach.
type reachMark struct {
	read            bool
	identity, proof []byte
}

// Read makes the reader of servant id open item; false if it does not
// hold the item.
func (n *Network) Read(id newsnet.ServantID, item [16]byte) bool {
	return n.markReach(id, item, func(src string, m *reachMark) newsnet.Event {
		m.read = true
		return newsnet.ReadItem{ID: item, Source: src}
	})
}

// MustRead tells servant id that item, which it holds, is must-read, with
// identity as its reader's identity blob; false if it does not hold it.
func (n *Network) MustRead(id newsnet.ServantID, item [16]byte, identity []byte) bool {
	return n.markReach(id, item, func(src string, m *reachMark) newsnet.Event {
		m.identity = identity
		return newsnet.MustReadItem{ID: item, Source: src, Identity: identity}
	})
}

// Acknowledge makes the reader of servant id confirm item with proof;
// false if it does not hold it.
func (n *Network) Acknowledge(id newsnet.ServantID, item [16]byte, proof []byte) bool {
	return n.markReach(id, item, func(src string, m *reachMark) newsnet.Event {
		m.read, m.proof = true, proof
		return newsnet.AcknowledgeItem{ID: item, Source: src, Proof: proof}
	})
}

func (n *Network) markReach(id newsnet.ServantID, item [16]byte, mark func(string, *reachMark) newsnet.Event) bool {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive || nd.Delivered[item] == 0 {
		return false
	}
	src := ""
	for k, e := range nd.Store {
		if e.msg.ID == item {
			src = k.source
			break
		}
	}
	if nd.reach == nil {
		nd.reach = map[[16]byte]*reachMark{}
	}
	m := nd.reach[item]
	if m == nil {
		m = &reachMark{}
		nd.reach[item] = m
	}
	n.step(nd, mark(src, m))
	return true
}

// TellReach steps a reach event (newsnet.ReadItem, MustReadItem,
// AcknowledgeItem) at hosted servant id, whose application keeps its own
// marks; false if no such servant is alive.
func (n *Network) TellReach(id newsnet.ServantID, ev newsnet.Event) bool {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return false
	}
	switch ev.(type) {
	case newsnet.ReadItem, newsnet.MustReadItem, newsnet.AcknowledgeItem:
	default:
		panic(fmt.Sprintf("sim: TellReach with %T", ev))
	}
	n.step(nd, ev)
	return true
}

// keptReach is what a simulated host passes back in Config.Reach: every
// item it stored (delivered or published), oldest first, with its marks.
func (nd *Node) keptReach() []newsnet.OwnReach {
	stored := make([]archived, 0, len(nd.Store))
	for _, e := range nd.Store {
		stored = append(stored, e)
	}
	slices.SortFunc(stored, func(a, b archived) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.msg.Source, b.msg.Source), cmp.Compare(a.msg.Count, b.msg.Count))
	})
	out := make([]newsnet.OwnReach, 0, len(stored))
	for _, e := range stored {
		o := newsnet.OwnReach{ID: e.msg.ID, Source: e.msg.Source, Category: e.msg.Category, Audience: e.msg.Audience}
		if m := nd.reach[e.msg.ID]; m != nil {
			o.Read, o.Identity, o.Proof = m.read, m.identity, m.proof
		}
		out = append(out, o)
	}
	return out
}

// TrueReach counts, over the live servants but the publisher, the truth a
// reach report of item (published by from in category cat) must match once
// the network is quiet: subscribers, copies stored, readers, and
// acknowledgements with the identities of the pending readers and the
// proofs of the others.
//
// The subscribers of an item with an audience are those subscribed to cat
// now, inside the audience, that hold the item: a servant counts itself
// once it learned the item (newsnet/reach.go). In a network without
// losses that is every subscriber inside (AudienceSubscribers).
func (n *Network) TrueReach(from newsnet.ServantID, item [16]byte, cat string) newsnet.ReachTotals {
	var t newsnet.ReachTotals
	audience := n.audienceOf(from, item)
	for _, nd := range n.Alive() {
		if nd.ID == from {
			continue
		}
		subscribed := newsnet.NewCategorySet(nd.Subscriptions...).Matches(cat)
		switch {
		case audience == nil && subscribed:
			t.Subscribers++
		case audience != nil && subscribed && nd.Delivered[item] > 0 && inAudience(nd.ID, audience):
			t.Subscribers++
		}
		if nd.Delivered[item] == 0 {
			continue
		}
		t.Delivered++
		m := nd.reach[item]
		if m == nil {
			continue
		}
		if m.read {
			t.Read++
		}
		switch {
		case m.proof != nil:
			t.Acknowledged++
			t.Acks = append(t.Acks, m.proof)
		case m.identity != nil:
			t.Pending = append(t.Pending, m.identity)
			t.PendingCount++
		}
	}
	slices.SortFunc(t.Pending, compareBytes)
	slices.SortFunc(t.Acks, compareBytes)
	return t
}

// AudienceSubscribers counts the live servants but from subscribed to cat
// now whose advertised address lies in audience: the subscribers of an
// audience item, as its publisher's report should count them once the
// network is quiet and lost nothing.
func (n *Network) AudienceSubscribers(from newsnet.ServantID, cat string, audience []netip.Prefix) uint64 {
	var k uint64
	for _, nd := range n.Alive() {
		if nd.ID != from && newsnet.NewCategorySet(nd.Subscriptions...).Matches(cat) && inAudience(nd.ID, audience) {
			k++
		}
	}
	return k
}

// audienceOf returns the audience of item as its publisher stored it (nil
// for none, or when its publisher does not hold it).
func (n *Network) audienceOf(from newsnet.ServantID, item [16]byte) []netip.Prefix {
	if nd := n.nodes[from]; nd != nil {
		for _, e := range nd.Store {
			if e.msg.ID == item {
				return e.msg.Audience
			}
		}
	}
	return nil
}

// inAudience reports whether the address servant id advertises lies in
// one of ps; a host name never does.
func inAudience(id newsnet.ServantID, ps []netip.Prefix) bool {
	host, _, err := net.SplitHostPort(string(id))
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	for _, p := range ps {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

func compareBytes(a, b []byte) int { return cmp.Compare(string(a), string(b)) }

// CheckReach compares the publisher's reach of item with TrueReach.
func (n *Network) CheckReach(from newsnet.ServantID, item [16]byte, cat string) error {
	nd := n.nodes[from]
	got, ok := nd.Servant.Reach(item)
	if !ok {
		return fmt.Errorf("%s does not track the reach of its item %x", from, item[:4])
	}
	want := n.TrueReach(from, item, cat)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("reach of %x (%q) at %s: got %s, want %s", item[:4], cat, from, briefReach(got), briefReach(want))
	}
	return nil
}

func briefReach(t newsnet.ReachTotals) string {
	return fmt.Sprintf("subscribers %d delivered %d read %d acknowledged %d pending %d (%d listed) acks %d",
		t.Subscribers, t.Delivered, t.Read, t.Acknowledged, t.PendingCount, len(t.Pending), len(t.Acks))
}
