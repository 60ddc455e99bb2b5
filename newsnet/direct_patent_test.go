package newsnet_test

// JP5458944B2's worked examples: suppression of unnecessary events and
// their restart (first embodiment, Figs. 12-17) and direct delivery with
// the exception list (second embodiment, Figs. 20-27). Servant IDs
// "0.0.0.0:N" have ID value N (fanout 10), as in patent_test.go.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// hop names one multicast frame: sender>receiver, by ID value.
func hopName(n *sim.Network, id newsnet.ServantID, link newsnet.LinkID) string {
	return fmt.Sprintf("%d>%d", newsnet.IDValue(id), newsnet.IDValue(n.Peer(id, link)))
}

// multicastHops records the hops of every multicast frame while f runs,
// per source, sorted.
func multicastHops(n *sim.Network, f func()) map[string][]string {
	hops := map[string][]string{}
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if m, ok := s.Msg.(*newsnet.Multicast); ok {
				src := fmt.Sprint(newsnet.IDValue(newsnet.ServantID(m.Source)))
				hops[src] = append(hops[src], hopName(n, id, s.Link))
			}
		}
	}
	f()
	n.Trace = nil
	for _, h := range hops {
		slices.Sort(h)
	}
	return hops
}

// directNetwork is a figure network with direct delivery set to react
// within a few items: a source is hot after 5 needed items in 10 s.
func directNetwork(t *testing.T) *sim.Network {
	n := figureNetwork(t, 10)
	n.WireCheck = true
	n.Base.DirectThreshold = 5
	n.Base.DirectWindow = 10 * time.Second
	n.Base.DirectMinHops = 2
	n.Base.DirectBudget = 4
	return n
}

// addQuiet adds a servant that never asks for direct delivery (the
// patent's terminals that did not).
func addQuiet(t *testing.T, n *sim.Network, id newsnet.ServantID, seeds []newsnet.ServantID, subs ...string) {
	t.Helper()
	cfg := n.Base
	cfg.ID, cfg.Seeds, cfg.Subscriptions = id, seeds, subs
	cfg.DirectThreshold = 0
	if _, err := n.AddHosted(cfg, sim.Host{}); err != nil {
		t.Fatal(err)
	}
}

// stream publishes count items of cat from id, one every 100 ms.
func stream(n *sim.Network, id newsnet.ServantID, cat string, count int) {
	for range count {
		n.Publish(id, cat)
		n.RunFor(100 * time.Millisecond)
	}
}

func directOf(n *sim.Network, id newsnet.ServantID) []newsnet.DirectStatus {
	return n.Node(id).Servant.Status().Direct
}

// Figs. 20-26: terminals A (2) and B (3) under broker C (1). A receives
// many of B's events; it asks B for direct delivery and gets it: A's
// request and B's accept travel through C, A dials B. Once A's cover
// (the exception "000B" in A's subscription, Fig. 23) reaches C, C no
// longer forwards B's events to A (S293: the exception node list), and
// since no other terminal under C wants them, C covers them toward B
// too, so B sends them to A alone (the unnecessary event notification
// of Fig. 26's paragraph). Then E (4) subscribes under C: C's claim no
// longer holds, B's events go to E through the tree again, and A keeps
// receiving them directly.
// Reference: JP5458944B2, Figs. 20-26, steps S261-S301.
func TestDirectDeliveryFigs20To26(t *testing.T) {
	n := directNetwork(t)
	c, a, b, e := small(1), small(2), small(3), small(4)
	seeds := []newsnet.ServantID{c}
	n.Add(c, nil)
	n.Add(a, seeds, "a.doc")
	n.Add(b, seeds)
	addQuiet(t, n, e, seeds)
	mustConverge(t, n, 10*time.Second)

	before := multicastHops(n, func() { stream(n, b, "a.doc", 1) })
	if want := []string{"1>2", "3>1"}; !slices.Equal(before["3"], want) {
		t.Fatalf("before: B's event went %v, want %v (through C)", before["3"], want)
	}
	stream(n, b, "a.doc", 10)
	if d := directOf(n, a); len(d) != 1 || d[0].Peer != b || d[0].Role != newsnet.DirectSubscriber || !d[0].Categories.Equal(newsnet.CategorySet{"a.doc"}) {
		t.Fatalf("A's direct links: %+v, want one from B for a.doc", d)
	}
	if d := directOf(n, b); len(d) != 1 || d[0].Peer != a || d[0].Role != newsnet.DirectPublisher {
		t.Fatalf("B's direct links: %+v, want one to A", d)
	}
	after := multicastHops(n, func() { stream(n, b, "a.doc", 1) })
	if want := []string{"3>2"}; !slices.Equal(after["3"], want) {
		t.Errorf("with the direct link: B's event went %v, want %v (directly, nothing through C)", after["3"], want)
	}

	n.Subscribe(e, "a.doc")
	n.RunFor(time.Second)
	withE := multicastHops(n, func() { stream(n, b, "a.doc", 1) })
	if want := []string{"1>4", "3>1", "3>2"}; !slices.Equal(withE["3"], want) {
		t.Errorf("with E subscribed: B's event went %v, want %v (A directly, E through C)", withE["3"], want)
	}
	for _, id := range []newsnet.ServantID{a, e} {
		nd := n.Node(id)
		for src, counts := range nd.Order {
			if !slices.IsSorted(counts) || len(slices.Compact(slices.Clone(counts))) != len(counts) {
				t.Errorf("%s delivered %s's items out of order or twice: %v", id, src, counts)
			}
		}
	}
	if got := len(n.Node(a).Order[string(b)]); got != 13 {
		t.Errorf("A delivered %d of B's 13 events", got)
	}
}

// Fig. 27: brokers C (61) under F (1); terminals A (62) and E (63) under
// C; terminals B (11) and G (21) under F. A and E collect the logs of
// A.doc, which B and G edit; A has B's events sent directly (B in A's
// exception node list). Then B's event reaches A directly (d) and E
// through F and C (a): C keeps the exception for A's link only, and
// since E still needs B's events, C does not cover them toward F. G's
// events reach E and A through the tree (b, c).
// Reference: JP5458944B2, Fig. 27 (messages a-d).
func TestDirectDeliveryFig27(t *testing.T) {
	n := directNetwork(t)
	f, c, a, e, b, g := small(1), small(61), small(62), small(63), small(11), small(21)
	seeds := []newsnet.ServantID{f}
	n.Add(f, nil)
	n.RunFor(50 * time.Millisecond)
	n.Add(c, seeds)
	n.RunFor(50 * time.Millisecond)
	n.Add(a, seeds, "a.doc")
	addQuiet(t, n, e, seeds, "a.doc")
	n.Add(b, seeds)
	n.Add(g, seeds)
	mustConverge(t, n, 10*time.Second)
	if got := downsOf(n, f); !slices.Equal(got, []newsnet.ServantID{b, g, c}) {
		t.Fatalf("downs of F = %v, want B, G, C", got)
	}
	if got := downsOf(n, c); !slices.Equal(got, []newsnet.ServantID{a, e}) {
		t.Fatalf("downs of C = %v, want A, E", got)
	}
	stream(n, b, "a.doc", 10)
	if d := directOf(n, a); len(d) != 1 || d[0].Peer != b {
		t.Fatalf("A's direct links: %+v, want one from B", d)
	}
	if d := directOf(n, e); len(d) != 0 {
		t.Fatalf("E's direct links: %+v, want none", d)
	}
	hops := multicastHops(n, func() {
		n.Publish(b, "a.doc")
		n.Publish(g, "a.doc")
		n.RunFor(time.Second)
	})
	// B: a is 11>1, 1>61, 61>63; d is 11>62. G: b and c are 21>1, 1>61, 61>62, 61>63.
	if want := []string{"11>1", "11>62", "1>61", "61>63"}; !slices.Equal(hops["11"], want) {
		t.Errorf("B's event went %v, want %v", hops["11"], want)
	}
	if want := []string{"1>61", "21>1", "61>62", "61>63"}; !slices.Equal(hops["21"], want) {
		t.Errorf("G's event went %v, want %v", hops["21"], want)
	}
	for _, id := range []newsnet.ServantID{a, e} {
		if got := len(n.Node(id).Order[string(b)]); got != 11 {
			t.Errorf("%s delivered %d of B's 11 events", id, got)
		}
		if got := len(n.Node(id).Order[string(g)]); got != 1 {
			t.Errorf("%s delivered %d of G's 1 event", id, got)
		}
	}
	if st := n.Node(a).Servant.Status(); st.Counters.DirectReceived == 0 || st.Direct[0].Delivered != st.Counters.DirectReceived {
		t.Errorf("A's counters: %d received directly, link says %d", st.Counters.DirectReceived, st.Direct[0].Delivered)
	}
}

// Figs. 12-17: broker C (1) is the top; brokers A (11) and B (21) under
// it; terminal A (12) under broker A, terminals B (22) and C (23) under
// broker B. Nobody collects B.doc's logs: terminal B's event is not
// sent at all (the unnecessary event list of S181 holds B.doc). When
// terminal A subscribes, the subscription travels A → broker A → C, and
// the restart reaches terminal B through broker B (S203-S223); B's next
// event goes terminal B → broker B → C → broker A → terminal A, and
// nowhere else.
//
// The project gets the patent's outcome from JP4353827B2's routing
// information instead of the unnecessary event and restart messages:
// the subscription's routing information itself travels to terminal B,
// so B's first event is never sent (the patent sends it up to the top
// broker once and then the notification back).
// Reference: JP5458944B2, Figs. 12-17, steps S151-S251.
func TestSuppressionAndRestartFigs12To17(t *testing.T) {
	n := figureNetwork(t, 10)
	n.WireCheck = true
	top, brokerA, brokerB, termA, termB, termC := small(1), small(11), small(21), small(12), small(22), small(23)
	seeds := []newsnet.ServantID{top}
	for _, id := range []newsnet.ServantID{top, brokerA, brokerB, termA, termB, termC} {
		n.Add(id, seeds)
		n.RunFor(50 * time.Millisecond)
	}
	mustConverge(t, n, 10*time.Second)
	if got := downsOf(n, brokerB); !slices.Equal(got, []newsnet.ServantID{termB, termC}) {
		t.Fatalf("downs of broker B = %v, want terminals B and C", got)
	}
	suppressed := multicastHops(n, func() {
		n.Publish(termB, "b.doc")
		n.RunFor(time.Second)
	})
	if len(suppressed["22"]) != 0 {
		t.Errorf("unneeded event went %v, want nowhere", suppressed["22"])
	}
	if st := n.Node(termB).Servant.Status(); st.Counters.Suppressed != 1 {
		t.Errorf("terminal B suppressed %d events, want 1", st.Counters.Suppressed)
	}
	var restart []string
	n.Trace = func(_ time.Time, id newsnet.ServantID, act newsnet.Action) {
		if s, ok := act.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.RoutingInfo); ok && r.Categories.Has("b.doc") {
				restart = append(restart, hopName(n, id, s.Link))
			}
		}
	}
	n.Subscribe(termA, "b.doc")
	n.RunFor(time.Second)
	n.Trace = nil
	slices.Sort(restart)
	// S203/S209 (12>11, 11>1), S217/S223 (1>21, 21>22); 21>23 and 1>... the
	// routing information also tells terminal C, whose union changed.
	if want := []string{"11>1", "12>11", "1>21", "21>22", "21>23"}; !slices.Equal(restart, want) {
		t.Errorf("subscription and restart went %v, want %v", restart, want)
	}
	resumed := multicastHops(n, func() {
		n.Publish(termB, "b.doc")
		n.RunFor(time.Second)
	})
	if want := []string{"11>12", "1>11", "21>1", "22>21"}; !slices.Equal(resumed["22"], want) {
		t.Errorf("event after the restart went %v, want %v", resumed["22"], want)
	}
	// The suppressed first event is not lost to a later subscriber: the
	// second one's chain names it, and terminal A asks terminal B for it,
	// as the history of a new subscription (not in the patent).
	if got := n.Node(termA).Order[string(termB)]; !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("terminal A delivered %v of terminal B's events, want [1 2]", got)
	}
	if got := n.Node(termC).Order[string(termB)]; len(got) != 0 {
		t.Errorf("terminal C delivered %v of terminal B's events, want none", got)
	}
}
