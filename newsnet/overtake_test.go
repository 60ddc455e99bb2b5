package newsnet_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// overtakeNetwork is C with A (subscribing to "it") and B (publishing it)
// under it, and a slow tree link between C and A: once A's direct link to
// B is up, B's items reach A over it well before their tree copies.
func overtakeNetwork(t *testing.T) (n *sim.Network, c, a, b newsnet.ServantID) {
	n = directNetwork(t)
	c, a, b = small(1), small(2), small(3)
	seeds := []newsnet.ServantID{c}
	n.Add(c, nil)
	n.Add(a, seeds, "it")
	n.Add(b, seeds)
	mustConverge(t, n, 10*time.Second)
	n.Delay(c, a, 150*time.Millisecond)
	return n, c, a, b
}

// checkOnceInOrder checks that A delivered B's counts 1..total once each,
// in order, and lost none.
func checkOnceInOrder(t *testing.T, n *sim.Network, a, b newsnet.ServantID, total int) {
	t.Helper()
	want := make([]uint64, total)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	if got := n.Node(a).Order[string(b)]; !slices.Equal(got, want) {
		t.Errorf("A delivered %v, want 1..%d once each in order", got, total)
	}
	if lost := n.Node(a).Servant.Status().Counters.Lost; lost != 0 {
		t.Errorf("A lost %d items", lost)
	}
	for _, v := range n.Violations() {
		t.Error(v)
	}
}

// When A's direct link starts, its first items overtake those still on
// the slow tree path, and A finds them missing; it waits for their tree
// copies instead of asking for them: no request goes out.
// Reference: issue 14, "a lossless stream must cause zero recovery frames".
func TestDirectSwitchWaitsForOvertakenItems(t *testing.T) {
	n, _, a, b := overtakeNetwork(t)
	const total = 60
	stream(n, b, "it", total)
	n.RunFor(5 * time.Second)
	st := n.Node(a).Servant.Status()
	if len(st.Direct) != 1 || st.Counters.DirectReceived == 0 {
		t.Fatalf("A's direct links %+v, %d items received directly: the switch did not happen", st.Direct, st.Counters.DirectReceived)
	}
	if st.Counters.GapNeeded == 0 {
		t.Errorf("no item overtook another: the test does not show the switch")
	}
	if st.Counters.AskedMessages != 0 || st.Counters.AskedClasses != 0 || n.Stats["Recover"] != 0 {
		t.Errorf("A asked for %d messages and %d categories (%d Recover frames in all) on a lossless stream", st.Counters.AskedMessages, st.Counters.AskedClasses, n.Stats["Recover"])
	}
	checkOnceInOrder(t, n, a, b, total)
}

// A real loss during the switch is still repaired: the tree link between
// C and A is cut as the first item goes out directly, so the tree copies
// of the items before it that were still on their way are lost (they will
// not come directly: the direct link starts after them). A gets each once,
// in order.
// Reference: issue 14, "no item lost or duplicated across the switch".
func TestDirectSwitchRepairsALossInFlight(t *testing.T) {
	n, c, a, b := overtakeNetwork(t)
	var firstDirect, delivered uint64
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if item, ok := m.(*newsnet.Multicast); ok && from == b && to == a && firstDirect == 0 { // B and A share no tree link
			firstDirect = item.Count
			if order := n.Node(a).Order[string(b)]; len(order) > 0 {
				delivered = order[len(order)-1]
			}
			n.CutLink(a, c)
		}
		return true
	}
	const total = 60
	stream(n, b, "it", total)
	n.Filter = nil
	n.RunFor(10 * time.Second)
	if firstDirect == 0 || delivered+1 >= firstDirect {
		t.Fatalf("A had delivered up to %d when the first item (%d) went out directly: nothing was in flight on the tree", delivered, firstDirect)
	}
	t.Logf("cut with B's items %d..%d on their way from C to A", delivered+1, firstDirect-1)
	checkOnceInOrder(t, n, a, b, total)
}

// A relay that resolved a count without its item passing through it (a
// later item showed it lies outside the relay's own categories) passes on
// the item when it does come, late: it was overtaken by a later one (a
// direct link into the relay's subtree, a busy tree link beside a quiet
// one, at equal hop counts so no grace is open), and the servant below
// that needs it has no other way to learn of it when the source sends
// nothing more that reaches it. Dropping it as a replay lost it silently
// (TestReliableDeliveryLarge, seed 1: a source's tail items at subscribers
// under its own direct subscriber, which was also its tree neighbour).
func TestOvertakenItemOfAnotherCategoryIsRelayed(t *testing.T) {
	h := newHarness(t, "10.0.1.1:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.SetSubscriptions{Categories: []string{"a"}})
	const down = newsnet.LinkID(1)
	h.acceptDown(down, "10.0.1.2:7400")
	h.step(newsnet.Received{Link: down, Msg: &newsnet.RoutingInfo{Categories: newsnet.NewCategorySet("b")}})
	item := func(count uint64, cat string, lasts ...newsnet.LastCount) *newsnet.Multicast {
		slices.SortFunc(lasts, func(x, y newsnet.LastCount) int { return cmp.Compare(x.Short, y.Short) })
		return &newsnet.Multicast{ID: [16]byte{byte(count)}, Category: cat, Source: "X", Count: count, Lasts: lasts, LastsComplete: true}
	}
	a, b := newsnet.ShortID("a"), newsnet.ShortID("b")
	if d := find[newsnet.Deliver](h.step(newsnet.Received{Link: up, Msg: item(1, "a")})); d == nil {
		t.Fatal("item 1 not delivered")
	}
	// Item 3 comes before item 2: the relay learns that 2 is not one of
	// its categories and resolves it.
	if d := find[newsnet.Deliver](h.step(newsnet.Received{Link: up, Msg: item(3, "a", newsnet.LastCount{Short: a, Count: 1}, newsnet.LastCount{Short: b, Count: 2})})); d == nil {
		t.Fatal("item 3 not delivered")
	}
	acts := h.step(newsnet.Received{Link: up, Msg: item(2, "b", newsnet.LastCount{Short: a, Count: 1})})
	if m := sentOn[*newsnet.Multicast](acts, down); m == nil || m.Count != 2 {
		t.Errorf("the late item 2 was not passed on to the servant below that wants it: %v", acts)
	}
	if find[newsnet.Deliver](acts) != nil {
		t.Errorf("the late item 2 was delivered, but it is not in the relay's categories")
	}
	// A second copy is a duplicate.
	acts = h.step(newsnet.Received{Link: up, Msg: item(2, "b", newsnet.LastCount{Short: a, Count: 1})})
	if sentOn[*newsnet.Multicast](acts, down) != nil {
		t.Errorf("a second copy of item 2 was passed on")
	}
}
