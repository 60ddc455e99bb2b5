package newsnet_test

// One test per rule of direct delivery (direct.go) that the patent's
// worked examples do not show on their own.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// notesOf collects the notes servants make while f runs.
func notesOf(n *sim.Network, f func()) map[newsnet.ServantID][]string {
	notes := map[newsnet.ServantID][]string{}
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if nt, ok := a.(newsnet.Note); ok {
			notes[id] = append(notes[id], nt.Text)
		}
	}
	f()
	n.Trace = nil
	return notes
}

// A source serves at most Config.DirectBudget direct links; a request
// beyond the budget is refused with the reason, and the refused
// subscriber keeps receiving through the tree and waits a window before
// asking again.
// Reference: JP5458944B2, S271-S273 (the P2P subscription is the source's
// to accept); issue 14, budget.
func TestDirectBudgetRefusal(t *testing.T) {
	n := directNetwork(t)
	n.Base.DirectBudget = 1
	c, a1, a2, b := small(1), small(2), small(3), small(4)
	seeds := []newsnet.ServantID{c}
	n.Add(c, nil)
	n.Add(a1, seeds, "it")
	n.Add(a2, seeds, "it")
	n.Add(b, seeds)
	mustConverge(t, n, 10*time.Second)
	notes := notesOf(n, func() { stream(n, b, "it", 20) })
	var served, refused []newsnet.ServantID
	for _, id := range []newsnet.ServantID{a1, a2} {
		st := n.Node(id).Servant.Status()
		switch {
		case len(st.Direct) == 1 && st.Counters.DirectRefused == 0:
			served = append(served, id)
		case len(st.Direct) == 0 && st.Counters.DirectRefused == 1:
			refused = append(refused, id)
			if !slices.ContainsFunc(notes[id], func(s string) bool { return strings.Contains(s, "refused: budget full: 1 direct links") }) {
				t.Errorf("%s's notes %q do not give the reason", id, notes[id])
			}
		}
		if got := len(n.Node(id).Order[string(b)]); got != 20 {
			t.Errorf("%s delivered %d of 20 items", id, got)
		}
	}
	if len(served) != 1 || len(refused) != 1 {
		t.Fatalf("served %v, refused %v: want one of each", served, refused)
	}
	if d := directOf(n, b); len(d) != 1 || d[0].Peer != served[0] {
		t.Errorf("B serves %+v, want %s only", d, served[0])
	}
	// Within the window the refused one does not ask again.
	requests := 0
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && id == refused[0] {
			if _, ok := s.Msg.(*newsnet.DirectRequest); ok {
				requests++
			}
		}
	}
	stream(n, b, "it", 20)
	n.Trace = nil
	if requests != 0 {
		t.Errorf("the refused subscriber asked %d more times within the window", requests)
	}
}

// A subscriber asks only for a source at least Config.DirectMinHops links
// away (Multicast.Hops): a tree neighbour's items cross no relay, so a
// direct link would save nothing. The source checks the distance too, by
// the request's trail.
// Reference: issue 14, hop minimum.
func TestDirectHopMinimum(t *testing.T) {
	n := directNetwork(t)
	n.Base.DirectMinHops = 3
	c, a, b := small(1), small(2), small(3)
	seeds := []newsnet.ServantID{c}
	n.Add(c, nil, "it") // C is B's neighbour: 1 hop
	n.Add(a, seeds, "it")
	n.Add(b, seeds)
	mustConverge(t, n, 10*time.Second)
	requests := 0
	n.Trace = func(_ time.Time, id newsnet.ServantID, act newsnet.Action) {
		if s, ok := act.(newsnet.Send); ok {
			if _, ok := s.Msg.(*newsnet.DirectRequest); ok {
				requests++
			}
		}
	}
	stream(n, b, "it", 20)
	n.Trace = nil
	if requests != 0 {
		t.Errorf("%d direct requests, want none: A is 2 hops away, C 1, minimum 3", requests)
	}

	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	acts := h.step(newsnet.Received{Link: up, Msg: &newsnet.DirectRequest{Source: "10.0.0.3:7400", Categories: newsnet.CategorySet{"it"},
		Trail: []newsnet.ServantID{"10.0.0.1:7400"}}})
	ans := sentOn[*newsnet.DirectAnswer](acts, up)
	if ans == nil || ans.Refused != "too close: 1 hops, direct delivery starts at 2" {
		t.Fatalf("answer to a neighbour's request: %+v, want refused as too close", ans)
	}
}

// A servant keeps exceptions per link and covers a source's items toward
// it only when no link on its side still needs them: with two
// subscribers below, a cover from one stops the items on that link alone
// and goes no further; a cover from the other too sends one cover up
// (from the later of their counts); a withdrawal below withdraws it, and
// the link whose exception was lifted gets the stream's leading edge.
// Reference: JP5458944B2, Fig. 23 (exception node list per subscription), S293-S295; issue 14, exceptions counted per link.
func TestDirectExceptionsPerLink(t *testing.T) {
	h := newHarness(t, "10.0.1.1:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Received{Link: up, Msg: &newsnet.RoutingInfo{}})
	const a, e = newsnet.LinkID(1), newsnet.LinkID(2)
	for l, id := range map[newsnet.LinkID]newsnet.ServantID{a: "10.0.1.2:7400", e: "10.0.1.3:7400"} {
		h.acceptDown(l, id)
		h.step(newsnet.Received{Link: l, Msg: &newsnet.RoutingInfo{Categories: newsnet.CategorySet{"it"}}})
	}
	count := uint64(0)
	item := func() []newsnet.Action {
		count++
		return h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{byte(count)}, Category: "it", Source: "X", Count: count}})
	}
	for range 4 {
		item()
	}
	cover := func(l newsnet.LinkID, cats newsnet.CategorySet, from uint64) []newsnet.Action {
		return h.step(newsnet.Received{Link: l, Msg: &newsnet.DirectCover{Source: "X", Categories: cats, From: from}})
	}
	if acts := cover(a, newsnet.CategorySet{"it"}, 5); sentOn[*newsnet.DirectCover](acts, up) != nil {
		t.Fatalf("covered up while E still needs the items: %v", acts)
	}
	acts := item() // count 5
	if sentOn[*newsnet.Multicast](acts, a) != nil || sentOn[*newsnet.Multicast](acts, e) == nil {
		t.Fatalf("item 5 with A's exception: %v, want E only", acts)
	}
	acts = cover(e, newsnet.CategorySet{"it"}, 7)
	if c := sentOn[*newsnet.DirectCover](acts, up); c == nil || !c.Categories.Equal(newsnet.CategorySet{"it"}) || c.From != 7 {
		t.Fatalf("both covered: %+v, want a cover of it from 7 toward X", c)
	}
	acts = item() // count 6: below E's count, E still gets it
	if sentOn[*newsnet.Multicast](acts, a) != nil || sentOn[*newsnet.Multicast](acts, e) == nil {
		t.Errorf("item 6: %v, want E only (E's exception starts at 7)", acts)
	}
	acts = item() // count 7: nobody
	if sentOn[*newsnet.Multicast](acts, a) != nil || sentOn[*newsnet.Multicast](acts, e) != nil {
		t.Errorf("item 7: %v, want no copy down", acts)
	}
	acts = cover(e, nil, 0)
	if c := sentOn[*newsnet.DirectCover](acts, up); c == nil || len(c.Categories) != 0 {
		t.Errorf("E withdrew: %+v, want the cover toward X withdrawn", c)
	}
	if edge := sentOn[*newsnet.LatestHeader](acts, e); edge == nil || edge.Count != 7 {
		t.Errorf("E's exception lifted: edge %+v, want X's edge at 7", edge)
	}
}

// When the direct link dies, the subscriber withdraws its cover, every
// servant on the way lifts its exception and withdraws its own, and the
// tree carries the source's items again; what was published meanwhile
// is asked for along the reverse path. Here the link is cut twice in the
// middle of a 20 items/s stream (once closed, once black-holed): the
// subscriber delivers every count once, in order, loses none, and the
// direct link forms again after each cut.
// Reference: issue 14, fallback with no gap.
func TestDirectFallbackCutMidStream(t *testing.T) {
	n := directNetwork(t)
	c, a, b := small(1), small(2), small(3)
	seeds := []newsnet.ServantID{c}
	n.Add(c, nil)
	n.Add(a, seeds, "it")
	n.Add(b, seeds)
	mustConverge(t, n, 10*time.Second)
	links := 0
	var viaTree []uint64 // counts of B's items C sent A while the link was down
	down := false
	n.Trace = func(_ time.Time, id newsnet.ServantID, act newsnet.Action) {
		if s, ok := act.(newsnet.Send); ok && id == c && n.Peer(c, s.Link) == a && down {
			if m, ok := s.Msg.(*newsnet.Multicast); ok {
				viaTree = append(viaTree, m.Count)
			}
		}
	}
	const total = 400
	for i := 1; i <= total; i++ {
		n.Publish(b, "it")
		n.RunFor(50 * time.Millisecond)
		switch i {
		case 60, 160:
			if len(directOf(n, a)) != 1 {
				t.Fatalf("item %d: no direct link to cut", i)
			}
			links++
			down = true
			if i == 60 {
				n.CutLink(a, b)
			} else {
				n.Cut(a, b) // no FIN: heartbeats find it
			}
		case 70, 190:
			if len(viaTree) == 0 {
				t.Errorf("item %d: the tree carried nothing to A since the cut", i)
			}
			down = false
			n.HealAll()
		}
	}
	n.RunFor(10 * time.Second)
	n.Trace = nil
	if d := directOf(n, a); len(d) != 1 {
		t.Errorf("the direct link did not form again: %+v", d)
	}
	nd := n.Node(a)
	want := make([]uint64, total)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	if got := nd.Order[string(b)]; !slices.Equal(got, want) {
		t.Errorf("A delivered %d items, want 1..%d once each in order; got %v", len(got), total, got)
	}
	st := nd.Servant.Status()
	if st.Counters.Lost != 0 {
		t.Errorf("A lost %d items", st.Counters.Lost)
	}
	if st.Counters.DirectReceived == 0 || st.Counters.DirectReceived >= total {
		t.Errorf("A received %d items directly, want some but not all", st.Counters.DirectReceived)
	}
	for _, v := range n.Violations() {
		t.Error(v)
	}
}

// A direct link whose publisher becomes a tree neighbour is closed: the
// tree link carries the items in one hop. Here broker C dies, B (the
// next seed) becomes the root and A rejoins under it; A closes its
// direct link from B, and B's items keep coming, over the tree, once
// each and in order.
func TestDirectLinkClosedWhenPublisherBecomesTreeNeighbour(t *testing.T) {
	n := directNetwork(t)
	c, a, b := small(1), small(2), small(3)
	seeds := []newsnet.ServantID{c, b}
	n.Add(c, nil)
	n.Add(a, seeds, "it")
	n.Add(b, seeds)
	mustConverge(t, n, 10*time.Second)
	stream(n, b, "it", 10)
	if d := directOf(n, a); len(d) != 1 || d[0].Peer != b {
		t.Fatalf("A's direct links before: %+v, want one from B", d)
	}
	n.Crash(c)
	if !n.RunUntil(time.Minute, func() bool { return n.Node(a).Servant.Status().Up == b }) {
		t.Fatalf("A did not rejoin under B: %+v", n.Node(a).Servant.Status())
	}
	n.RunFor(time.Second)
	if d := directOf(n, a); len(d) != 0 {
		t.Errorf("A's direct links with B its up-servant: %+v, want none", d)
	}
	stream(n, b, "it", 10)
	n.RunFor(2 * time.Second)
	got := n.Node(a).Order[string(b)]
	if len(got) != 20 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != 20 {
		t.Errorf("A delivered B's counts %v, want 1..20 once each in order", got)
	}
	if d := directOf(n, a); len(d) != 0 {
		t.Errorf("A asked for a direct link again from its up-servant: %+v", d)
	}
}
