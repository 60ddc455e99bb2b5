package newsnet_test

// One test per protocol rule that the patents' worked examples do not cover
// on their own: cycle prevention, suppression, heartbeats, tree optimization,
// seed handling, duplicates and routing triggers.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// harness drives one servant directly, for rules about a single servant's
// reaction to one event.
type harness struct {
	t   *testing.T
	s   *newsnet.Servant
	now time.Time
}

func newHarness(t *testing.T, id newsnet.ServantID, seeds ...newsnet.ServantID) *harness {
	return newHarnessWith(t, id, nil, seeds...)
}

// newHarnessWith is newHarness with the config adjusted by set.
func newHarnessWith(t *testing.T, id newsnet.ServantID, set func(*newsnet.Config), seeds ...newsnet.ServantID) *harness {
	cfg := newsnet.DefaultConfig(id)
	cfg.Seeds = seeds
	cfg.Rand = rand.New(rand.NewPCG(7, 7))
	if set != nil {
		set(&cfg)
	}
	s, err := newsnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: sim.Epoch}
	h.step(newsnet.Tick{Now: h.now})
	return h
}

// step feeds ev to the servant and reports every frame it sent as written
// at once, as a host with an infinitely fast network would. A catch-up
// request is answered at once with an empty last page: the harness's
// up-servant has nothing to catch up.
func (h *harness) step(ev newsnet.Event) []newsnet.Action {
	acts := h.s.Step(ev)
	written := map[newsnet.LinkID]int{}
	var pageEnds []newsnet.Received
	for _, a := range acts {
		if s, ok := a.(newsnet.Send); ok {
			written[s.Link] += newsnet.SizeOf(s.Msg)
			if c, ok := s.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
				pageEnds = append(pageEnds, newsnet.Received{Link: s.Link, Msg: &newsnet.CatchUpDone{Trail: c.Trail}})
			}
		}
	}
	for _, l := range slices.Sorted(maps.Keys(written)) {
		acts = append(acts, h.s.Step(newsnet.Written{Link: l, Bytes: written[l]})...)
	}
	for _, r := range pageEnds {
		acts = append(acts, h.step(r)...)
	}
	return acts
}

func (h *harness) advance(d time.Duration) []newsnet.Action {
	var out []newsnet.Action
	for end := h.now.Add(d); h.now.Before(end); {
		h.now = h.now.Add(100 * time.Millisecond)
		out = append(out, h.step(newsnet.Tick{Now: h.now})...)
	}
	return out
}

// attach starts the servant and lets it join up through its first seed,
// whose path is path.
func (h *harness) attach(up newsnet.ServantID, path ...newsnet.ServantID) newsnet.LinkID {
	acts := h.step(newsnet.Start{})
	dial := find[newsnet.Dial](acts)
	if dial == nil || dial.Addr != up {
		h.t.Fatalf("start: %v, want a dial to %s", acts, up)
	}
	h.step(newsnet.LinkUp{Link: dial.Link})
	h.step(newsnet.Received{Link: dial.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: append(path, up)}})
	if h.s.Role() != newsnet.RoleAttached {
		h.t.Fatalf("role %s after join accept", h.s.Role())
	}
	return dial.Link
}

func find[T newsnet.Action](acts []newsnet.Action) *T {
	for _, a := range acts {
		if v, ok := a.(T); ok {
			return &v
		}
	}
	return nil
}

func sentOn[T newsnet.Message](acts []newsnet.Action, link newsnet.LinkID) T {
	var zero T
	for _, a := range acts {
		if s, ok := a.(newsnet.Send); ok && s.Link == link {
			if m, ok := s.Msg.(T); ok {
				return m
			}
		}
	}
	return zero
}

func closed(acts []newsnet.Action, link newsnet.LinkID) bool {
	return slices.ContainsFunc(acts, func(a newsnet.Action) bool {
		c, ok := a.(newsnet.Close)
		return ok && c.Link == link
	})
}

// A listener refuses a joiner that is on its own path to the root (or is
// itself): accepting it would close a cycle.
// Reference: DESIGN.md, tree construction invariant.
func TestJoinerOnRootPathRefused(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	h.attach("10.0.0.1:7400", "10.0.0.9:7400")
	for i, joiner := range []newsnet.ServantID{"10.0.0.1:7400", "10.0.0.9:7400", "10.0.0.3:7400"} {
		link := newsnet.LinkID(i + 1)
		h.step(newsnet.LinkUp{Link: link, Inbound: true})
		acts := h.step(newsnet.Received{Link: link, Msg: &newsnet.JoinRequest{From: joiner}})
		if sentOn[*newsnet.JoinRefuse](acts, link) == nil || !closed(acts, link) {
			t.Errorf("join from %s: %v, want refuse and close", joiner, acts)
		}
	}
	if d := h.s.Status().Downs; len(d) != 0 {
		t.Errorf("downs = %v", d)
	}
}

// A connector that is offered a place under a listener whose root path
// contains the connector itself (its own subtree) declines and moves on.
// Reference: DESIGN.md, tree construction invariant (never join its own subtree).
func TestConnectorDeclinesOwnSubtree(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400", "10.0.0.2:7400")
	acts := h.step(newsnet.Start{})
	dial := find[newsnet.Dial](acts)
	h.step(newsnet.LinkUp{Link: dial.Link})
	acts = h.step(newsnet.Received{Link: dial.Link, Msg: &newsnet.JoinAccept{Path: []newsnet.ServantID{"10.0.0.3:7400", "10.0.0.1:7400"}}})
	if !closed(acts, dial.Link) {
		t.Fatalf("accept from own subtree not closed: %v", acts)
	}
	if next := find[newsnet.Dial](acts); next == nil || next.Addr != "10.0.0.2:7400" {
		t.Fatalf("next target: %v, want a dial to the second seed", acts)
	}
}

// A partition message whose path already holds this servant went round a
// cycle: the servant leaves its up-servant and reconnects through the seeds.
// Reference: DESIGN.md, tree construction invariant (the partition message carries the root path).
func TestCycleDetectedFromPartitionPath(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	acts := h.step(newsnet.Received{Link: up, Msg: &newsnet.PartitionInfo{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.3:7400", "10.0.0.7:7400"}}})
	if !closed(acts, up) || find[newsnet.Dial](acts) == nil {
		t.Fatalf("cycle: %v, want close of the uplink and a new dial", acts)
	}
}

// An attached servant that hears no partition message for RootSilence is cut
// off from every vertex and reconnects through the seeds.
// Reference: DESIGN.md, tree construction invariant (cut off from every vertex: reconnect).
func TestRootSilenceReconnects(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	var acts []newsnet.Action
	for i := 0; i < 200 && !closed(acts, up); i++ {
		// Keep the link itself alive: only the root is silent.
		h.step(newsnet.Received{Link: up, Msg: &newsnet.Ping{}})
		acts = h.advance(100 * time.Millisecond)
	}
	if !closed(acts, up) || find[newsnet.Dial](acts) == nil {
		t.Fatalf("no reconnection after root silence")
	}
	if waited := h.now.Sub(sim.Epoch); waited < newsnet.DefaultConfig("").RootSilence {
		t.Errorf("reconnected after %v, before RootSilence", waited)
	}
}

// A copy of a multicast message that arrives again (a re-forming tree can
// deliver one twice) is dropped: delivered once, forwarded once.
// Reference: DESIGN.md, multicast routing (each item crosses each edge once); JP3679935B2 (duplicates by count).
func TestDuplicateMulticastDropped(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: "it"})
	m := &newsnet.Multicast{ID: [16]byte{1}, Category: "it"}
	first := h.step(newsnet.Received{Link: up, Msg: m})
	second := h.step(newsnet.Received{Link: up, Msg: m})
	if find[newsnet.Deliver](first) == nil || find[newsnet.Deliver](second) != nil {
		t.Fatalf("deliveries: first %v, second %v", first, second)
	}
	if h.s.Status().Counters.Duplicates != 1 {
		t.Errorf("duplicates counter = %d", h.s.Status().Counters.Duplicates)
	}
}

// A publisher with no link whose received set holds the category sends
// nothing and reports the item as suppressed; once a subscriber appears the
// same publication goes out.
// Reference: JP5458944B2 (unnecessary event notification); JP4353827B2 Fig. 9.
func TestPublishSuppressedWithoutSubscribers(t *testing.T) {
	n := sim.New(3)
	seed := newsnet.ServantID("10.0.0.1:7400")
	n.Add(seed, nil)
	n.Add("10.0.0.2:7400", []newsnet.ServantID{seed}, "hr")
	mustConverge(t, n, 10*time.Second)
	before := n.Stats["Multicast"]
	id := n.Publish(seed, "it")
	n.RunFor(time.Second)
	if links := n.Node(seed).Published[id]; links != 0 || n.Stats["Multicast"] != before {
		t.Fatalf("publish to nobody: %d links, %d frames", links, n.Stats["Multicast"]-before)
	}
	if c := n.Node(seed).Servant.Status().Counters.Suppressed; c != 1 {
		t.Errorf("suppressed counter = %d", c)
	}
	n.Subscribe("10.0.0.2:7400", "hr", "it")
	mustConverge(t, n, 10*time.Second)
	id = n.Publish(seed, "it")
	n.RunFor(time.Second)
	if err := n.CheckDelivery(seed, id, "it"); err != nil {
		t.Fatal(err)
	}
}

// Leaving a group updates the routing sets along the tree (Fig. 7 trigger
// "leave"); afterwards items of that group no longer reach the servant, nor
// cross links that led only to it.
// Reference: JP4353827B2, multicast group leave request.
func TestLeaveStopsDelivery(t *testing.T) {
	n := sim.New(4)
	seed := newsnet.ServantID("10.0.0.1:7400")
	n.Add(seed, nil)
	for _, id := range []newsnet.ServantID{"10.0.1.1:7400", "10.0.2.1:7400", "10.0.2.2:7400"} {
		n.Add(id, []newsnet.ServantID{seed}, "it")
	}
	mustConverge(t, n, 10*time.Second)
	n.Subscribe("10.0.2.2:7400")
	mustConverge(t, n, 10*time.Second)
	id := n.Publish("10.0.1.1:7400", "it")
	n.RunFor(time.Second)
	if err := n.CheckDelivery("10.0.1.1:7400", id, "it"); err != nil {
		t.Fatal(err)
	}
}

// A peer that vanishes without closing its socket is detected by
// heartbeats within LinkTimeout (default under 5 s), and its down-servants
// rejoin the tree.
// Reference: DESIGN.md, tree construction, failure detection; JP4353827B2, sibling list on uplink loss.
func TestHeartbeatDetectsVanishedServant(t *testing.T) {
	n := sim.New(5)
	seed := small(3)
	n.Base.Fanout = 10
	for _, v := range []int{3, 13, 14, 15} {
		n.Add(small(v), []newsnet.ServantID{seed})
		n.RunFor(50 * time.Millisecond)
	}
	mustConverge(t, n, 10*time.Second)
	if up := n.Node(small(14)).Servant.Status().Up; up != small(13) {
		t.Fatalf("14 is under %s, want 13", up)
	}
	n.Vanish(small(13))
	start := n.Now()
	if !n.RunUntil(10*time.Second, func() bool { return !slices.Contains(downsOf(n, seed), small(13)) }) {
		t.Fatal("vanished servant never dropped")
	}
	if took := n.Now().Sub(start); took > 5*time.Second {
		t.Errorf("detection took %v, want at most 5s", took)
	}
	mustConverge(t, n, 10*time.Second)
}

// Tree optimization: after the vertex died, its down-servants gathered under
// the first sibling 11, whose range now spans the old vertex's slots. When
// the seed returns and 11 joins it, 11's partition equals the seed's (not
// strictly inside), so 11 resets its down-servants, which rejoin through the
// seed into their own slots.
// Reference: JP4353827B2, Fig. 6, S407-S421.
func TestTreeOptimizationResetsSubtreeOutsidePartition(t *testing.T) {
	n := sim.New(6)
	n.Base.Fanout = 10
	seed := small(50)
	n.Add(seed, []newsnet.ServantID{seed})
	for _, v := range []int{11, 22, 33, 44} {
		n.Add(small(v), []newsnet.ServantID{seed})
		n.RunFor(50 * time.Millisecond)
	}
	mustConverge(t, n, 10*time.Second)
	n.Crash(seed)
	if !n.RunUntil(5*time.Second, func() bool { return len(downsOf(n, small(11))) == 3 }) {
		t.Fatalf("siblings did not gather under 11: %v", downsOf(n, small(11)))
	}
	n.Restart(seed)
	mustConverge(t, n, 30*time.Second)
	if got := downsOf(n, seed); !slices.Equal(got, []newsnet.ServantID{small(11), small(22), small(33), small(44)}) {
		t.Errorf("downs of the seed = %v, want 11, 22, 33, 44", got)
	}
	if r := n.Node(small(11)).Servant.Status().Counters.Resets; r == 0 {
		t.Error("11 never reset its subtree")
	}
}

// A joiner told only of a servant below the vertex (mid-tree seed) whose
// value lies outside that servant's slot: the servant admits it (S205
// widens its range), its partition then equals its up-servant's, and tree
// optimization resets the joiner (S413). Reconnecting through the seeds
// alone (S421) would take it back to the same servant, to be reset again
// for ever; it reconnects through the root of the tree it was in first,
// which places it in its own slot.
// Reference: JP4353827B2, Fig. 4 S205, Fig. 6 S413-S421; DESIGN.md, tree
// construction.
func TestResetJoinerRejoinsThroughTheRoot(t *testing.T) {
	n := sim.New(9)
	n.Base.Fanout = 10
	seed, mid, joiner := small(50), small(11), small(33)
	n.Add(seed, []newsnet.ServantID{seed})
	n.Add(mid, []newsnet.ServantID{seed})
	mustConverge(t, n, 10*time.Second)
	n.Add(joiner, []newsnet.ServantID{mid}, "it")
	n.RunFor(20 * time.Second) // partition messages go round every few seconds
	mustConverge(t, n, 30*time.Second)
	if up := n.Node(joiner).Servant.Status().Up; up != seed {
		t.Fatalf("the joiner is under %q, want the vertex %s, which holds its slot; mid resets %d, seed downs %v, mid downs %v", up, seed, n.Node(mid).Servant.Status().Counters.Resets, downsOf(n, seed), downsOf(n, mid))
	}
	before := n.Node(mid).Servant.Status().Counters.Resets
	n.RunFor(time.Minute)
	if r := n.Node(mid).Servant.Status().Counters.Resets; r != before || before > 1 {
		t.Errorf("the mid-tree servant reset %d times before the tree settled and %d times in the minute after; want at most once, then never", before, r-before)
	}
	id := n.Publish(seed, "it")
	n.RunFor(time.Second)
	if err := n.CheckDelivery(seed, id, "it"); err != nil {
		t.Fatal(err)
	}
}

// With seeds A, B: while A is down, B is the vertex and servants join it;
// when A returns, B (probing the seeds before it) joins A, so the network
// does not stay split and A is the vertex.
// Reference: DESIGN.md, seeds.
func TestVertexRejoinsEarlierSeed(t *testing.T) {
	n := sim.New(7)
	a, b := newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.0.2:7400")
	seeds := []newsnet.ServantID{a, b}
	n.Add(b, seeds)
	for _, id := range []newsnet.ServantID{"10.1.0.1:7400", "10.2.0.1:7400", "10.3.0.1:7400"} {
		n.Add(id, seeds, "it")
	}
	mustConverge(t, n, 30*time.Second)
	if r := n.Node(b).Servant.Role(); r != newsnet.RoleVertex {
		t.Fatalf("B is %s while A is down", r)
	}
	n.Add(a, seeds)
	n.Add("10.4.0.1:7400", seeds, "it") // joins A alone at first
	mustConverge(t, n, 30*time.Second)
	if r := n.Node(a).Servant.Role(); r != newsnet.RoleVertex {
		t.Fatalf("A is %s after it returned", r)
	}
	id := n.Publish("10.4.0.1:7400", "it")
	n.RunFor(time.Second)
	if err := n.CheckDelivery("10.4.0.1:7400", id, "it"); err != nil {
		t.Fatal(err)
	}
}

// A servant that is alone (no seeds, or the first seed) is the vertex at
// once; a non-seed whose seeds are all unreachable keeps trying with backoff
// and joins as soon as one appears.
// Reference: DESIGN.md, tree construction, connector (back off with jitter) and seeds.
func TestConnectorBacksOffAndRetries(t *testing.T) {
	n := sim.New(8)
	seed := newsnet.ServantID("10.0.0.1:7400")
	n.Add("10.0.0.2:7400", []newsnet.ServantID{seed}, "it")
	n.RunFor(20 * time.Second)
	dials := 0
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if _, ok := a.(newsnet.Dial); ok {
			dials++
		}
	}
	n.RunFor(20 * time.Second)
	if dials == 0 || dials > 10 {
		t.Errorf("%d dials in 20s against a dead seed, want a few (backoff ≤ 8s)", dials)
	}
	n.Add(seed, nil)
	mustConverge(t, n, 15*time.Second)
}

// A seed list may name this servant by another spelling ("localhost:7400"
// for "127.0.0.1:7400"). Its own join attempt reaches itself; it learns the
// alias, and as the first seed becomes the vertex instead of retrying.
// Reference: DESIGN.md, tree construction, seeds (the first reachable seed is the vertex).
func TestSeedAliasRecognised(t *testing.T) {
	h := newHarness(t, "127.0.0.1:7400", "localhost:7400")
	dial := find[newsnet.Dial](h.step(newsnet.Start{}))
	if dial == nil || dial.Addr != "localhost:7400" {
		t.Fatalf("start: want a dial to the seed")
	}
	h.step(newsnet.LinkUp{Link: dial.Link})
	h.step(newsnet.LinkUp{Link: 1, Inbound: true})
	acts := h.step(newsnet.Received{Link: 1, Msg: &newsnet.JoinRequest{From: "127.0.0.1:7400"}})
	refusal := sentOn[*newsnet.JoinRefuse](acts, 1)
	if refusal == nil {
		t.Fatalf("self join not refused: %v", acts)
	}
	h.step(newsnet.Received{Link: dial.Link, Msg: refusal})
	if r := h.s.Role(); r != newsnet.RoleVertex {
		t.Fatalf("role %s, want vertex", r)
	}
}

// A simulated signature: the payload must be a digest of the fields a
// publisher signs. Enough to check where the core drops what fails.
func simSign(m *newsnet.Multicast) []byte {
	h := sha256.Sum256(fmt.Appendf(nil, "%x|%s|%s", m.ID, m.Category, m.Source))
	return h[:]
}

func simVerify(m *newsnet.Multicast) string {
	switch {
	case len(m.Payload) == 0:
		return "unsigned"
	case !bytes.Equal(m.Payload, simSign(m)):
		return "badSignature"
	}
	return ""
}

// Messages that fail verification (forged, unsigned, tampered) are dropped
// at the first servant they reach, counted there per reason, and never
// delivered or forwarded; replaying a valid one is dropped as a duplicate.
// Reference: DESIGN.md, what must hold under stress (identity is bound to keys); docs/admin.md, what the servants enforce.
func TestUnverifiedMessagesStopAtFirstServant(t *testing.T) {
	n := sim.New(21)
	n.Base.Verify = simVerify
	seed := newsnet.ServantID("10.0.0.1:7400")
	rogue := newsnet.ServantID("10.0.1.1:7400")
	n.Add(seed, nil, "it")
	n.Add(rogue, []newsnet.ServantID{seed})
	for _, id := range []newsnet.ServantID{"10.0.2.1:7400", "10.0.3.1:7400"} {
		n.Add(id, []newsnet.ServantID{seed}, "it")
	}
	mustConverge(t, n, 10*time.Second)
	publish := func(m *newsnet.Multicast) {
		n.PublishMsg(rogue, m)
		n.RunFor(time.Second)
	}
	good := &newsnet.Multicast{ID: [16]byte{1}, Category: "it"}
	good.Source = string(rogue)
	good.Payload = simSign(good)
	publish(good)
	publish(&newsnet.Multicast{ID: [16]byte{2}, Category: "it"}) // unsigned
	forged := &newsnet.Multicast{ID: [16]byte{3}, Category: "it", Source: string(rogue), Payload: []byte("nope")}
	publish(forged)
	tampered := &newsnet.Multicast{ID: [16]byte{4}, Category: "hr", Source: string(rogue)}
	tampered.Payload = simSign(tampered)
	tampered.Category = "it"
	publish(tampered)

	st := n.Node(seed).Servant.Status()
	if st.Rejected["unsigned"] != 1 || st.Rejected["badSignature"] != 2 {
		t.Errorf("rejections at the first servant = %v, want unsigned 1, badSignature 2", st.Rejected)
	}
	for _, id := range []newsnet.ServantID{seed, "10.0.2.1:7400", "10.0.3.1:7400"} {
		nd := n.Node(id)
		if nd.Delivered[good.ID] != 1 {
			t.Errorf("%s did not get the signed item", id)
		}
		for _, bad := range [][16]byte{{2}, {3}, {4}} {
			if nd.Delivered[bad] != 0 {
				t.Errorf("%s delivered rejected item %x", id, bad[0])
			}
		}
		if id != seed && len(nd.Servant.Status().Rejected) != 0 {
			t.Errorf("%s saw rejected messages %v: they went past the first servant", id, nd.Servant.Status().Rejected)
		}
	}
}

// A replayed message (its exact bytes, sent again later) is dropped at the
// first servant even after its ID has left the seen window: its count is
// below what the servant already resolved of that source.
// Reference: JP3679935B2 (per-source communication counts); DESIGN.md, reliable ordered delivery.
func TestReplayBeyondSeenWindowDropped(t *testing.T) {
	cfg := newsnet.DefaultConfig("10.0.0.3:7400")
	cfg.Seeds = []newsnet.ServantID{"10.0.0.1:7400"}
	cfg.Rand = rand.New(rand.NewPCG(7, 7))
	cfg.SeenWindow = 1
	cfg.Subscriptions = []string{"it"}
	s, err := newsnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: sim.Epoch}
	h.step(newsnet.Tick{Now: h.now})
	up := h.attach("10.0.0.1:7400")
	msg := func(id byte, count uint64) *newsnet.Multicast {
		return &newsnet.Multicast{ID: [16]byte{id}, Category: "it", Source: "src", Count: count}
	}
	for i := byte(1); i <= 3; i++ {
		if find[newsnet.Deliver](h.step(newsnet.Received{Link: up, Msg: msg(i, uint64(i))})) == nil {
			t.Fatalf("item %d not delivered", i)
		}
	}
	acts := h.step(newsnet.Received{Link: up, Msg: msg(1, 1)}) // the replay
	if find[newsnet.Deliver](acts) != nil || find[newsnet.Send](acts) != nil {
		t.Errorf("replay delivered or forwarded: %v", acts)
	}
	if d := s.Status().Counters.Duplicates; d != 1 {
		t.Errorf("duplicates = %d, want 1", d)
	}
}

// A gap of more than 65,536 counts (a servant away for very long) is not
// tracked count by count: the servant follows the source from the last
// 65,536 on and leaves the rest to catch-up.
// Reference: DESIGN.md, what must hold under stress (bounded memory); JP3679935B2, gap classification.
func TestHugeGapIsBounded(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: "it"})
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{1}, Category: "it", Source: "src", Count: 1}})
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{2}, Category: "it", Source: "src", Count: 1 << 40}})
	// Neither chain nor history tells the categories of the gap: after the
	// grace period they are asked for, a recovery window at a time, and
	// only the last 65,536.
	asked, lowest := 0, uint64(1<<40)
	for _, a := range h.advance(1100 * time.Millisecond) {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.Recover); ok {
				asked += len(r.Counts)
				lowest = min(lowest, r.Counts[0])
			}
		}
	}
	if want := newsnet.DefaultConfig("").RecoverWindow; asked != want {
		t.Errorf("asked about %d counts, want one recovery window (%d)", asked, want)
	}
	if lowest != 1<<40-1<<16 {
		t.Errorf("first count asked = %d, want %d (the last 65,536 only)", lowest, uint64(1<<40-1<<16))
	}
}

// A servant looking for the tree spends no recovery attempts: its requests
// would have nowhere to go, and counting them would give up as lost what
// the source still holds. Once it is attached again it asks, with every
// attempt still ahead.
// Reference: JP3679935B2 ¶0087 (request what is missing; give up only when no holder answers); issue 10 (overload run: detached servants recorded 1,024–1,536 losses each).
func TestDetachedServantSpendsNoRecoveryAttempts(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: newsnet.AllCategories})
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{1}, Category: "it", Source: "src", Count: 1}})
	acts := h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{3}, Category: "it", Source: "src", Count: 3}})
	if r := sentOn[*newsnet.Recover](acts, up); r == nil || !slices.Equal(r.Counts, []uint64{2}) {
		t.Fatalf("count 2 missing: request %+v, want one for count 2", r)
	}
	h.step(newsnet.LinkDown{Link: up, Reason: "cut"})
	var redial *newsnet.Dial
	for range 3000 { // 5 minutes: far beyond every attempt's backoff
		for _, a := range h.advance(100 * time.Millisecond) {
			switch a := a.(type) {
			case newsnet.Lost:
				t.Fatalf("detached servant gave up %d counts of %s", a.N, a.Source)
			case newsnet.Send:
				if _, ok := a.Msg.(*newsnet.Recover); ok {
					t.Fatalf("recovery request sent while detached: %v", a)
				}
			case newsnet.Dial:
				redial = &a
			}
		}
		if redial != nil {
			// Refuse the join attempts: the servant stays detached.
			h.step(newsnet.LinkDown{Link: redial.Link, Reason: "refused"})
			redial = nil
		}
	}
	if got := h.s.Status().Counters.Lost; got != 0 {
		t.Fatalf("Lost = %d while detached, want 0", got)
	}
	// Attached again: the missing count is asked for.
	for redial == nil {
		for _, a := range h.advance(100 * time.Millisecond) {
			if d, ok := a.(newsnet.Dial); ok {
				redial = &d
			}
		}
	}
	h.step(newsnet.LinkUp{Link: redial.Link})
	h.step(newsnet.Received{Link: redial.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
	acts = h.advance(500 * time.Millisecond)
	r := sentOn[*newsnet.Recover](acts, redial.Link)
	if r == nil || !slices.Equal(r.Counts, []uint64{2}) || r.CategoriesOnly {
		t.Fatalf("after rejoining: request %+v, want one for count 2", r)
	}
}

// Catch-ups asked for while one runs wait as one: a servant that rejoins
// again and again while its first catch-up is unanswered (an overloaded
// tree) queues one run, from the earliest time any of them asked for,
// not one run per rejoin that would each page through the same items.
// Reference: issue 10 (overload run: 13 catch-ups queued on one servant, each of them paged after the others).
func TestRepeatedRejoinsQueueOneCatchUp(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: "it"})
	var pages []*newsnet.CatchUp // requests sent and not answered
	var pageLink []newsnet.LinkID
	var raw func(ev newsnet.Event)
	raw = func(ev newsnet.Event) {
		for _, a := range h.s.Step(ev) {
			switch a := a.(type) {
			case newsnet.Send:
				h.s.Step(newsnet.Written{Link: a.Link, Bytes: newsnet.SizeOf(a.Msg)})
				if c, ok := a.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
					pages, pageLink = append(pages, c), append(pageLink, a.Link)
				}
			case newsnet.Dial:
				h.s.Step(newsnet.LinkUp{Link: a.Link})
				up = a.Link
				raw(newsnet.Received{Link: a.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
			}
		}
	}
	for i := range 10 {
		h.now = h.now.Add(time.Second)
		raw(newsnet.Tick{Now: h.now})
		raw(newsnet.LinkDown{Link: up, Reason: fmt.Sprintf("cut %d", i)})
		for h.s.Role() != newsnet.RoleAttached {
			h.now = h.now.Add(100 * time.Millisecond)
			raw(newsnet.Tick{Now: h.now})
		}
	}
	// Now the tree answers: each page, as it is asked for, is the last.
	// The up-servant stays alive (partition messages).
	runs := 0
	for deadline := h.now.Add(time.Minute); h.now.Before(deadline); {
		raw(newsnet.Received{Link: up, Msg: &newsnet.PartitionInfo{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
		for len(pages) > 0 {
			c, l := pages[0], pageLink[0]
			pages, pageLink = pages[1:], pageLink[1:]
			if l != up {
				continue // asked on a link that is gone
			}
			runs++
			raw(newsnet.Received{Link: up, Msg: &newsnet.CatchUpDone{Trail: c.Trail}})
		}
		h.now = h.now.Add(100 * time.Millisecond)
		raw(newsnet.Tick{Now: h.now})
	}
	if h.s.Status().CatchingUp {
		t.Fatalf("still catching up after every page was answered (%d runs):\n%s", runs, h.s.Diagnose())
	}
	// The run under way, the one queued behind it, and the repeat a little
	// after the last join (which may fold into the queued one).
	if runs > 3 {
		t.Errorf("%d catch-up runs after 10 rejoins, want at most 3", runs)
	}
}

// Live items of a source not followed yet wait while a catch-up runs, up
// to a bound. The ones beyond it are not forgotten: once the catch-up
// ends, the latest of them stands for the rest as the stream's edge, and
// the servant asks for the needed items it lacks — also when the catch-up
// brought none of them and no later item will ever show the gap.
// Reference: issue 10 ("nothing lost ... after bursts larger than any queue"); catchup.go (live items of unfollowed sources wait for the catch-up).
func TestDeferredOverflowIsAskedFor(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: "it"})
	var page *newsnet.CatchUp
	raw := func(ev newsnet.Event) []newsnet.Action {
		acts := h.s.Step(ev)
		for _, a := range acts {
			if s, ok := a.(newsnet.Send); ok {
				h.s.Step(newsnet.Written{Link: s.Link, Bytes: newsnet.SizeOf(s.Msg)})
				if c, ok := s.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
					page = c
				}
			}
		}
		return acts
	}
	raw(newsnet.Received{Link: up, Msg: &newsnet.CatchUp{}}) // the tree above re-formed
	if page == nil {
		t.Fatal("no catch-up asked for after the hint")
	}
	const burst = 5000 // beyond what waits in full
	for k := uint64(1); k <= burst; k++ {
		var id [16]byte
		copy(id[:], fmt.Sprint(k))
		if acts := raw(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: id, Category: "it", Source: "src", Count: k}}); find[newsnet.Deliver](acts) != nil {
			t.Fatalf("item %d delivered while the catch-up runs", k)
		}
	}
	// The catch-up ends with nothing: its answer was made before the burst.
	acts := raw(newsnet.Received{Link: up, Msg: &newsnet.CatchUpDone{Trail: page.Trail}})
	delivered := 0
	for _, a := range acts {
		if _, ok := a.(newsnet.Deliver); ok {
			delivered++
		}
	}
	asked := map[uint64]bool{}
	for range 30 {
		h.now = h.now.Add(100 * time.Millisecond)
		acts = append(acts, raw(newsnet.Tick{Now: h.now})...)
		raw(newsnet.Received{Link: up, Msg: &newsnet.PartitionInfo{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
	}
	for _, a := range acts {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.Recover); ok && r.Source == "src" {
				for _, k := range r.Counts {
					asked[k] = true
				}
			}
		}
	}
	if delivered == 0 || delivered >= burst {
		t.Fatalf("%d items delivered when the catch-up ended, want those that waited in full", delivered)
	}
	if first := uint64(delivered) + 1; !asked[first] || !asked[burst] {
		t.Errorf("after the catch-up: asked for %d counts; first lacking %d asked %v, last %d asked %v",
			len(asked), first, asked[first], burst, asked[burst])
	}
}

// A catch-up page that trickles in (its items queued behind a long backlog
// somewhere above) is not silent: it is neither asked for again, which
// would queue a second copy behind the first, nor given up.
// Reference: issue 10 (overload run: pages re-asked behind backlogs, catch-ups given up while they worked).
func TestSlowCatchUpPageIsNotSilent(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: "it"})
	var pages []*newsnet.CatchUp
	raw := func(ev newsnet.Event) {
		for _, a := range h.s.Step(ev) {
			if s, ok := a.(newsnet.Send); ok {
				h.s.Step(newsnet.Written{Link: s.Link, Bytes: newsnet.SizeOf(s.Msg)})
				if c, ok := s.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
					pages = append(pages, c)
				}
			}
		}
	}
	raw(newsnet.Received{Link: up, Msg: &newsnet.CatchUp{}}) // the tree above re-formed
	if len(pages) != 1 {
		t.Fatalf("%d pages asked for after the hint, want 1", len(pages))
	}
	// One item of the page every 3 s for a minute: each gap is shorter than
	// the page timeout, the whole far longer than three of them.
	timeout := 2 * newsnet.DefaultConfig("").LinkTimeout
	for k := uint64(1); k <= 20; k++ {
		for range 30 {
			h.now = h.now.Add(100 * time.Millisecond)
			raw(newsnet.Tick{Now: h.now})
			raw(newsnet.Received{Link: up, Msg: &newsnet.PartitionInfo{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
		}
		var id [16]byte
		copy(id[:], fmt.Sprint(k))
		raw(newsnet.Received{Link: up, Msg: &newsnet.Recovered{Trail: pages[0].Trail, Source: "src",
			Msg: &newsnet.Multicast{ID: id, Category: "it", Source: "src", Count: k}}})
	}
	if len(pages) != 1 {
		t.Errorf("a page arriving an item every 3 s (timeout %v) was asked for %d times", timeout, len(pages))
	}
	if !h.s.Status().CatchingUp {
		t.Errorf("the catch-up was given up while its page arrived")
	}
	// The page ends; so does the repeat queued behind it (asked for after
	// the hint), at its first page.
	for i := 0; i < len(pages) && i < 3; i++ {
		raw(newsnet.Received{Link: up, Msg: &newsnet.CatchUpDone{Trail: pages[i].Trail}})
	}
	if h.s.Status().CatchingUp {
		t.Errorf("still catching up after the pages ended:\n%s", h.s.Diagnose())
	}
}

// A catch-up of a followed source starts after what the servant holds when
// little is missing below it (one lost item in a burst: resending the
// burst would be waste), and at the first missing count when most of the
// range is missing (away for much of a burst, its extent known from an
// edge): asking for thousands of counts a recovery window at a time, their
// categories first, took minutes where a catch-up takes a few pages.
// Reference: issue 10 (overload run: catch-ups asked from count 10,001 while 6,800 counts below were wanted one by one).
func TestCatchUpStartsWhereMostIsMissing(t *testing.T) {
	for _, tc := range []struct {
		name string
		held []uint64 // besides count 1
		want uint64   // where the catch-up asks src from
	}{
		{"one lost in a burst", rangeCounts(3, 5000), 5001},
		{"away for most of it", []uint64{4998, 4999, 5000}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
			up := h.attach("10.0.0.1:7400")
			h.step(newsnet.Subscribe{Category: "it"})
			for _, k := range append([]uint64{1}, tc.held...) {
				var id [16]byte
				copy(id[:], fmt.Sprint(k))
				h.s.Step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: id, Category: "it", Source: "src", Count: k}})
			}
			acts := h.s.Step(newsnet.Received{Link: up, Msg: &newsnet.CatchUp{}}) // the tree above re-formed
			c := sentOn[*newsnet.CatchUp](acts, up)
			if c == nil {
				t.Fatal("no catch-up asked for after the hint")
			}
			for _, k := range c.Known {
				if k.Source == "src" && k.Next != tc.want {
					t.Errorf("catch-up asks src from %d, want %d", k.Next, tc.want)
				}
			}
		})
	}
}

func rangeCounts(lo, hi uint64) []uint64 {
	var out []uint64
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}

// A new seed list reaches the connector without a restart: a servant
// backing off after its seeds failed tries the new list at once, and joins
// a seed of it.
// Reference: DESIGN.md, tree construction, connector (try the seed list in order, back off) and seeds.
func TestNewSeedListUsedByConnector(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	dial := find[newsnet.Dial](h.step(newsnet.Start{}))
	if dial == nil || dial.Addr != "10.0.0.1:7400" {
		t.Fatalf("start: want a dial to the first seed")
	}
	if acts := h.step(newsnet.LinkDown{Link: dial.Link, Reason: "refused"}); find[newsnet.Dial](acts) != nil {
		t.Fatalf("dialed again at once after the only seed failed: %v", acts)
	}
	acts := h.step(newsnet.SetSeeds{Seeds: []newsnet.ServantID{"10.0.0.2:7400"}})
	dial = find[newsnet.Dial](acts)
	if dial == nil || dial.Addr != "10.0.0.2:7400" {
		t.Fatalf("new seeds: %v, want a dial to the new seed at once", acts)
	}
	h.step(newsnet.LinkUp{Link: dial.Link})
	h.step(newsnet.Received{Link: dial.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.2:7400"}}})
	if r := h.s.Role(); r != newsnet.RoleAttached {
		t.Fatalf("role %s, want attached under the new seed", r)
	}
}

// A servant that becomes the first seed is the vertex: attached, it leaves
// its up-servant at once (its root is no seed before it); connecting, it
// abandons its join attempt to what is now a later seed.
// Reference: DESIGN.md, tree construction, seeds (a seed joins the seeds before it; the first reachable seed is the vertex).
func TestBecomingFirstSeedMakesVertex(t *testing.T) {
	self, a, b := newsnet.ServantID("10.0.0.3:7400"), newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.0.2:7400")
	t.Run("attached", func(t *testing.T) {
		h := newHarness(t, self, a)
		up := h.attach(a)
		acts := h.step(newsnet.SetSeeds{Seeds: []newsnet.ServantID{self, a}})
		if !closed(acts, up) || find[newsnet.Dial](acts) != nil {
			t.Fatalf("new seeds: %v, want the uplink closed and no dial", acts)
		}
		if r := h.s.Role(); r != newsnet.RoleVertex {
			t.Fatalf("role %s, want vertex", r)
		}
	})
	t.Run("connecting", func(t *testing.T) {
		h := newHarness(t, self, a, b)
		dial := find[newsnet.Dial](h.step(newsnet.Start{}))
		acts := h.step(newsnet.SetSeeds{Seeds: []newsnet.ServantID{self, a, b}})
		if !closed(acts, dial.Link) || find[newsnet.Dial](acts) != nil {
			t.Fatalf("new seeds: %v, want the attempt abandoned and no dial to a later seed", acts)
		}
		if r := h.s.Role(); r != newsnet.RoleVertex {
			t.Fatalf("role %s, want vertex", r)
		}
	})
}

// A new list that allows a servant's place keeps it: a servant that stays
// a non-seed, or becomes a seed under a tree whose root is a seed before
// it, stays attached.
// Reference: DESIGN.md, tree construction, seeds (a seed joins the seeds before it).
func TestNewSeedListKeepsAllowedPlace(t *testing.T) {
	self, a := newsnet.ServantID("10.0.0.3:7400"), newsnet.ServantID("10.0.0.1:7400")
	for _, seeds := range [][]newsnet.ServantID{{"10.0.0.2:7400"}, {a, self}, nil} {
		h := newHarness(t, self, a)
		up := h.attach(a)
		acts := h.step(newsnet.SetSeeds{Seeds: seeds})
		if closed(acts, up) || find[newsnet.Dial](acts) != nil || h.s.Role() != newsnet.RoleAttached {
			t.Errorf("seeds %v: %v, role %s; want it to stay attached", seeds, acts, h.s.Role())
		}
		// A seed under an earlier seed is not cut off by root silence either.
		h.step(newsnet.Received{Link: up, Msg: &newsnet.PartitionInfo{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{a}}})
		if acts := h.advance(time.Second); closed(acts, up) {
			t.Errorf("seeds %v: uplink closed: %v", seeds, acts)
		}
	}
}

// A vertex that has seeds before it after the change (it had none, or is
// no longer a seed) tries them at once and rejoins under one that answers,
// so a network whose seeds changed does not stay split.
// Reference: DESIGN.md, tree construction, seeds (a vertex that is not the first seed keeps trying the seeds before it).
func TestVertexTriesNewEarlierSeeds(t *testing.T) {
	self, a := newsnet.ServantID("10.0.0.3:7400"), newsnet.ServantID("10.0.0.1:7400")
	for _, seeds := range [][]newsnet.ServantID{{a, self}, {a}} {
		h := newHarness(t, self)
		h.step(newsnet.Start{})
		if r := h.s.Role(); r != newsnet.RoleVertex {
			t.Fatalf("role %s without seeds, want vertex", r)
		}
		acts := h.step(newsnet.SetSeeds{Seeds: seeds})
		dial := find[newsnet.Dial](acts)
		if dial == nil || dial.Addr != a {
			t.Fatalf("seeds %v: %v, want a dial to %s at once", seeds, acts, a)
		}
		if r := h.s.Role(); r != newsnet.RoleVertex {
			t.Fatalf("seeds %v: role %s while trying, want vertex", seeds, r)
		}
		h.step(newsnet.LinkUp{Link: dial.Link})
		h.step(newsnet.Received{Link: dial.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{a}}})
		if r := h.s.Role(); r != newsnet.RoleAttached {
			t.Fatalf("seeds %v: role %s, want attached under %s", seeds, r, a)
		}
	}
}

// Reversing the seed list of a running network, servant by servant, makes
// the new first seed the vertex of one tree again, without restarts, and
// items still reach every subscriber.
// Reference: DESIGN.md, tree construction, seeds (the first reachable seed is the vertex).
func TestSeedListReversedLive(t *testing.T) {
	n := sim.New(31)
	a, b := newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.0.2:7400")
	seeds := []newsnet.ServantID{a, b}
	n.Add(a, seeds)
	n.Add(b, seeds)
	others := []newsnet.ServantID{"10.1.0.1:7400", "10.2.0.1:7400", "10.3.0.1:7400", "10.4.0.1:7400"}
	for _, id := range others {
		n.Add(id, seeds, "it")
	}
	mustConverge(t, n, 30*time.Second)
	if r := n.Node(a).Servant.Role(); r != newsnet.RoleVertex {
		t.Fatalf("A is %s, want vertex", r)
	}
	for _, id := range append([]newsnet.ServantID{b, a}, others...) {
		n.SetSeeds(id, b, a)
		n.RunFor(200 * time.Millisecond)
	}
	mustConverge(t, n, 30*time.Second)
	if r := n.Node(b).Servant.Role(); r != newsnet.RoleVertex {
		t.Fatalf("B is %s after the list was reversed, want vertex", r)
	}
	id := n.Publish(others[0], "it")
	n.RunFor(time.Second)
	if err := n.CheckDelivery(others[0], id, "it"); err != nil {
		t.Fatal(err)
	}
}

// Diagnose says what a servant still waits for: the catch-up under way,
// and per source the next count, what is held above it and what is asked
// for.
// Reference: issue 10 (a stuck servant in a 200-servant run must say which mechanism waits).
func TestDiagnoseSaysWhatWaits(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Subscribe{Category: newsnet.AllCategories})
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{1}, Category: "it", Source: "src", Count: 1}})
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{3}, Category: "it", Source: "src", Count: 3}})
	h.s.Step(newsnet.Received{Link: up, Msg: &newsnet.CatchUp{}}) // a catch-up asked for, unanswered
	d := h.s.Diagnose()
	for _, want := range []string{
		"10.0.0.3:7400: role attached, up \"10.0.0.1:7400\"",
		"catch-up 0: cats [*]",
		"sent true",
		"source src: next 2, held 1 [3..3]",
		"wanted 1 [2..2]",
		"edge src it: count 3",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Diagnose lacks %q:\n%s", want, d)
		}
	}
}
