package newsnet_test

// Tests straight from the specification: one per worked example of
// JP4353827B2, each citing its figure or paragraph. Servant IDs of the form
// "0.0.0.0:N" have ID value N, which reproduces the small integers of the
// patent's figures (fanout N = 10 there).

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// small returns the servant ID whose ID value is v (1 ≤ v ≤ 65535).
func small(v int) newsnet.ServantID { return newsnet.ServantID(fmt.Sprintf("0.0.0.0:%d", v)) }

func figureNetwork(t *testing.T, fanout int) *sim.Network {
	t.Helper()
	n := sim.New(1)
	n.Base.Fanout = fanout
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with sim.New(%d)", n.Seed)
		}
	})
	return n
}

func mustConverge(t *testing.T, n *sim.Network, within time.Duration) {
	t.Helper()
	if !n.RunUntil(within, n.Converged) {
		t.Fatalf("no convergence within %v: tree: %v; routing: %v", within, n.CheckTree(), n.CheckRouting())
	}
}

func downsOf(n *sim.Network, id newsnet.ServantID) []newsnet.ServantID {
	return n.Node(id).Servant.Status().Downs
}

// The partition of a range is [N^x·y, N^x·(y+1)−1] for the smallest x ≥ 1
// with ⌊vmin/N^x⌋ = ⌊vmax/N^x⌋ = y, split into N slots of width N^(x−1):
// [1,2] widened by 91 gives [1,91], partition [0,99], slots [0,9] … [90,99].
// Reference: JP4353827B2, "Calculation method" and Fig. 16.
func TestPartitionOfWidenedRange(t *testing.T) {
	if p := newsnet.ComputePartition(1, 2, 10); p.Lo != 0 || p.Hi != 9 {
		t.Fatalf("partition of [1,2] = %v, want [0,9]", p)
	}
	p := newsnet.ComputePartition(1, 91, 10)
	if p.Lo != 0 || p.Hi != 99 || p.SlotWidth != 10 {
		t.Fatalf("partition of [1,91] = %v width %d, want [0,99] width 10", p, p.SlotWidth)
	}
	for i := 0; i < 10; i++ {
		lo, hi := p.SlotRange(i)
		if lo != uint64(10*i) || hi != uint64(10*i+9) {
			t.Errorf("slot %d = [%d,%d], want [%d,%d]", i, lo, hi, 10*i, 10*i+9)
		}
	}
	if p := newsnet.ComputePartition(10, 19, 10); p.Lo != 10 || p.Hi != 19 {
		t.Errorf("partition of [10,19] = %v, want [10,19]", p)
	}
}

// A listener widens its range with the connector's ID value: [1,2] with 91
// gives [1,91]; [18,19] with 10 gives [10,19]; a value inside leaves it.
// Reference: JP4353827B2, Fig. 4, S205.
func TestListenerWidensRange(t *testing.T) {
	for _, tc := range []struct {
		self      int
		downs     []int
		joiner    int
		wantRange [2]uint64
	}{
		{self: 1, downs: []int{2}, joiner: 91, wantRange: [2]uint64{1, 91}},
		{self: 18, downs: []int{19}, joiner: 10, wantRange: [2]uint64{10, 19}},
		{self: 18, downs: []int{10}, joiner: 19, wantRange: [2]uint64{10, 19}},
	} {
		n := figureNetwork(t, 10)
		n.Add(small(tc.self), nil)
		for _, d := range tc.downs {
			n.Add(small(d), []newsnet.ServantID{small(tc.self)})
		}
		n.Add(small(tc.joiner), []newsnet.ServantID{small(tc.self)})
		mustConverge(t, n, 10*time.Second)
		if got := n.Node(small(tc.self)).Servant.Status().Range; got != tc.wantRange {
			t.Errorf("%d with %v + %d: range %v, want %v", tc.self, tc.downs, tc.joiner, got, tc.wantRange)
		}
	}
}

// When the range [3,7] (partition [0,9]) with down-servants 3, 4 and 7 is
// widened by 91, the partition becomes [0,99] and 3, 4, 7 share the slot
// [0,9]: the listener keeps one and disconnects the links to 4 and 7, which
// then rejoin under the holder.
// Reference: JP4353827B2, Fig. 4, S207.
func TestWidenedPartitionDropsExtraDownlinks(t *testing.T) {
	n := figureNetwork(t, 10)
	listener := small(5)
	n.Add(listener, nil)
	for _, v := range []int{3, 4, 7} {
		n.Add(small(v), []newsnet.ServantID{listener})
	}
	mustConverge(t, n, 10*time.Second)
	if got := downsOf(n, listener); !slices.Equal(got, []newsnet.ServantID{small(3), small(4), small(7)}) {
		t.Fatalf("downs before the widening = %v, want 3, 4, 7", got)
	}
	var moved []newsnet.ServantID
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && id == listener {
			if r, ok := s.Msg.(*newsnet.JoinRedirect); ok && r.To == small(3) {
				moved = append(moved, n.Peer(id, s.Link))
			}
		}
	}
	n.Add(small(91), []newsnet.ServantID{listener})
	n.RunFor(50 * time.Millisecond)
	n.Trace = nil
	st := n.Node(listener).Servant.Status()
	if st.Partition.Lo != 0 || st.Partition.Hi != 99 {
		t.Fatalf("partition after 91 joined = %v, want [0,99]", st.Partition)
	}
	if !slices.Equal(moved, []newsnet.ServantID{small(4), small(7)}) {
		t.Fatalf("links dropped in favour of 3: %v, want 4 and 7", moved)
	}
	mustConverge(t, n, 20*time.Second)
	if got := downsOf(n, listener); !slices.Equal(got, []newsnet.ServantID{small(3), small(91)}) {
		t.Errorf("downs after convergence = %v, want 3 and 91", got)
	}
	if got := n.Node(small(4)).Servant.Status().Up; got != small(3) {
		t.Errorf("4 rejoined under %s, want 3 (the slot holder)", got)
	}
}

// fig2A builds the logical network of Fig. 2A: seed 3 with down-servants 5,
// 13 and 90; 90 with down-servants 92, 95 and 99.
func fig2A(t *testing.T) *sim.Network {
	n := figureNetwork(t, 10)
	seeds := []newsnet.ServantID{small(3)}
	for _, v := range []int{3, 5, 13, 90, 92, 95, 99} {
		n.Add(small(v), seeds)
		n.RunFor(50 * time.Millisecond)
	}
	mustConverge(t, n, 10*time.Second)
	if got := downsOf(n, small(3)); !slices.Equal(got, []newsnet.ServantID{small(5), small(13), small(90)}) {
		t.Fatalf("Fig. 2A: downs of 3 = %v, want 5, 13, 90", got)
	}
	if got := downsOf(n, small(90)); !slices.Equal(got, []newsnet.ServantID{small(92), small(95), small(99)}) {
		t.Fatalf("Fig. 2A: downs of 90 = %v, want 92, 95, 99", got)
	}
	return n
}

// In the network of Fig. 2A a connector with ID value 6 falls in the slot
// [0,9] held by 5 and is told to connect to 5; a connector with value 21
// finds the slot [20,29] empty and is accepted.
// Reference: JP4353827B2, Fig. 2A and Fig. 4, S209-S215.
func TestFig2AJoins(t *testing.T) {
	n := fig2A(t)
	var redirects []newsnet.ServantID
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && id == small(3) {
			if r, ok := s.Msg.(*newsnet.JoinRedirect); ok {
				redirects = append(redirects, r.To)
			}
		}
	}
	n.Add(small(6), []newsnet.ServantID{small(3)})
	mustConverge(t, n, 10*time.Second)
	if !slices.Equal(redirects, []newsnet.ServantID{small(5)}) {
		t.Errorf("6 was redirected to %v, want 5", redirects)
	}
	if up := n.Node(small(6)).Servant.Status().Up; up != small(5) {
		t.Errorf("6 attached under %s, want 5", up)
	}
	redirects = nil
	n.Add(small(21), []newsnet.ServantID{small(3)})
	mustConverge(t, n, 10*time.Second)
	if len(redirects) != 0 {
		t.Errorf("21 was redirected to %v, want OK at once", redirects)
	}
	if up := n.Node(small(21)).Servant.Status().Up; up != small(3) {
		t.Errorf("21 attached under %s, want 3", up)
	}
}

// When 90 leaves, its down-servants read the sibling list "92, 95, 99": 92,
// the first, reconnects through the seed servant 3; 95 and 99 connect to 92.
// Reference: JP4353827B2, Fig. 2B and Fig. 5, S301-S311.
func TestFig2BUplinkRecovery(t *testing.T) {
	n := fig2A(t)
	if got := n.Node(small(95)).Servant.Status().Siblings; !slices.Equal(got, []newsnet.ServantID{small(92), small(95), small(99)}) {
		t.Fatalf("sibling list of 95 = %v, want 92, 95, 99", got)
	}
	firstDial := map[newsnet.ServantID]newsnet.ServantID{}
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Dial); ok {
			if _, seen := firstDial[id]; !seen {
				firstDial[id] = d.Addr
			}
		}
	}
	n.Crash(small(90))
	mustConverge(t, n, 10*time.Second)
	want := map[newsnet.ServantID]newsnet.ServantID{small(92): small(3), small(95): small(92), small(99): small(92)}
	for id, target := range want {
		if firstDial[id] != target {
			t.Errorf("%s first connected to %s, want %s", id, firstDial[id], target)
		}
		if up := n.Node(id).Servant.Status().Up; up != target {
			t.Errorf("%s is attached under %s, want %s", id, up, target)
		}
	}
}

// Figs. 11-13: the news system's departments. Seeds 192.168.1.1 and
// 192.168.1.2 in the sending department P; receiving departments S1
// (192.168.11.0/24) and S2 (192.168.12.0/24); N = 16 and the 6-byte ID value
// addr<<16|port.
func newsIP(last string) newsnet.ServantID { return newsnet.ServantID("192.168." + last + ":7400") }

func fig13(t *testing.T) *sim.Network {
	n := figureNetwork(t, 16)
	n.WireCheck = true
	seeds := []newsnet.ServantID{newsIP("1.1"), newsIP("1.2")}
	subs := map[string][]string{ // Fig. 12
		"11.1": {"X"}, "11.2": {"X"}, "11.3": {"Y"}, "11.4": {"X"},
		"12.1": {"Y"}, "12.2": {"Y"}, "12.3": {"Y"},
	}
	// The join order that yields Fig. 13: the first servant of each subnet
	// takes the subnet's slot at the vertex, the others are redirected to it.
	for _, ip := range []string{"1.1", "1.2", "11.4", "12.2", "1.3", "1.4", "11.1", "11.2", "11.3", "12.1", "12.3"} {
		n.Add(newsIP(ip), seeds, subs[ip]...)
		n.RunFor(50 * time.Millisecond)
	}
	mustConverge(t, n, 20*time.Second)
	for up, downs := range map[string][]string{
		"1.1": {"1.2", "11.4", "12.2"}, "1.2": {"1.3", "1.4"},
		"11.4": {"11.1", "11.2", "11.3"}, "12.2": {"12.1", "12.3"},
	} {
		var want []newsnet.ServantID
		for _, d := range downs {
			want = append(want, newsIP(d))
		}
		if got := downsOf(n, newsIP(up)); !slices.Equal(got, want) {
			t.Fatalf("Fig. 13: downs of %s = %v, want %v", up, got, want)
		}
	}
	return n
}

// Scenario 1: 192.168.12.4 (category X) starts, connects to the first seed
// 192.168.1.1, whose range grows to [192.168.1.1, 192.168.12.4] while its
// partition stays [192.168.0.0, 192.168.15.255]; the slot
// [192.168.12.0, 192.168.12.255] is held by 192.168.12.2, so 12.4 is told to
// connect there, and 12.2 answers OK.
// Reference: JP4353827B2, Figs. 13-14, 17(b).
func TestNewsScenario1Join(t *testing.T) {
	n := fig13(t)
	var redirects []newsnet.ServantID
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.JoinRedirect); ok {
				redirects = append(redirects, id, r.To)
			}
		}
	}
	vertex := n.Node(newsIP("1.1")).Servant
	n.Add(newsIP("12.4"), []newsnet.ServantID{newsIP("1.1"), newsIP("1.2")}, "X")
	mustConverge(t, n, 10*time.Second)
	if want := []newsnet.ServantID{newsIP("1.1"), newsIP("12.2")}; !slices.Equal(redirects, want) {
		t.Fatalf("redirects = %v, want 192.168.1.1 -> 192.168.12.2", redirects)
	}
	st := vertex.Status()
	if st.Range != [2]uint64{newsnet.IDValue(newsIP("1.1")), newsnet.IDValue(newsIP("12.4"))} {
		t.Errorf("range of 192.168.1.1 = %v, want [192.168.1.1, 192.168.12.4]", st.Range)
	}
	wantPart := newsnet.Partition{Lo: 192<<40 | 168<<32, Hi: 192<<40 | 168<<32 | 15<<24 | 255<<16 | 0xffff}
	if st.Partition.Lo != wantPart.Lo || st.Partition.Hi != wantPart.Hi {
		t.Errorf("partition of 192.168.1.1 = %v, want [192.168.0.0, 192.168.15.255]", st.Partition)
	}
	lo, hi := st.Partition.SlotRange(st.Partition.Slot(newsnet.IDValue(newsIP("12.4"))))
	if lo != 192<<40|168<<32|12<<24 || hi != 192<<40|168<<32|12<<24|0xffffff {
		t.Errorf("slot of 192.168.12.4 = [%d,%d], want [192.168.12.0, 192.168.12.255]", lo, hi)
	}
	s2 := n.Node(newsIP("12.2")).Servant.Status()
	if s2.Partition.Lo != 192<<40|168<<32|12<<24 || s2.Partition.Hi != 192<<40|168<<32|12<<24|15<<16|0xffff {
		t.Errorf("partition of 192.168.12.2 = %v, want [192.168.12.0, 192.168.12.15]", s2.Partition)
	}
	if up := n.Node(newsIP("12.4")).Servant.Status().Up; up != newsIP("12.2") {
		t.Errorf("12.4 attached under %s, want 192.168.12.2", up)
	}
}

// After 12.4 joins, multicast routing information flows only where a union
// changed: 12.4→12.2 {X} (AR11), 12.2→12.4 {X,Y} (AR12), 12.2→1.1 {X,Y}
// (AR13), 1.1→11.4 {X,Y} (AR14); nothing to 12.1, 12.3 or 1.2, whose sent
// sets did not change. 12.2 then holds self {Y} (Fig. 17(d)), sent {X,Y} on
// L1-L4 (Fig. 17(e)) and received L1 {X}, L2 {Y}, L3 {Y}, L4 {X,Y}
// (Fig. 17(f)).
// Reference: JP4353827B2, Figs. 7, 8, 14 and 17(d)-(f).
func TestNewsScenario1RoutingInformation(t *testing.T) {
	n := fig13(t)
	type flow struct {
		from, to newsnet.ServantID
		set      string
	}
	var flows []flow
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.RoutingInfo); ok {
				flows = append(flows, flow{id, n.Peer(id, s.Link), fmt.Sprint(r.Categories)})
			}
		}
	}
	n.Add(newsIP("12.4"), []newsnet.ServantID{newsIP("1.1"), newsIP("1.2")}, "X")
	mustConverge(t, n, 10*time.Second)
	want := []flow{
		{newsIP("12.4"), newsIP("12.2"), "[X]"},
		{newsIP("12.2"), newsIP("12.4"), "[X Y]"},
		{newsIP("12.2"), newsIP("1.1"), "[X Y]"},
		{newsIP("1.1"), newsIP("11.4"), "[X Y]"},
	}
	slices.SortFunc(flows, func(a, b flow) int { return compareFlows(a.from, a.to, b.from, b.to) })
	slices.SortFunc(want, func(a, b flow) int { return compareFlows(a.from, a.to, b.from, b.to) })
	if !slices.Equal(flows, want) {
		t.Fatalf("routing information sent:\n got %v\nwant %v", flows, want)
	}
	st := n.Node(newsIP("12.2")).Servant.Status()
	if !st.Subscriptions.Equal(newsnet.CategorySet{"Y"}) {
		t.Errorf("Fig. 17(d): self = %v, want {Y}", st.Subscriptions)
	}
	wantRecv := map[newsnet.ServantID]string{
		newsIP("12.4"): "[X]", newsIP("12.3"): "[Y]", newsIP("12.1"): "[Y]", newsIP("1.1"): "[X Y]",
	}
	for _, l := range st.Links {
		if fmt.Sprint(l.Sent) != "[X Y]" {
			t.Errorf("Fig. 17(e): sent to %s = %v, want {X,Y}", l.Peer, l.Sent)
		}
		if got := fmt.Sprint(l.Received); got != wantRecv[l.Peer] {
			t.Errorf("Fig. 17(f): received from %s = %v, want %v", l.Peer, got, wantRecv[l.Peer])
		}
	}
	if len(st.Links) != 4 {
		t.Errorf("12.2 has %d links, want 4 (L1-L4)", len(st.Links))
	}
}

func compareFlows(a1, a2, b1, b2 newsnet.ServantID) int {
	if a1 != b1 {
		if a1 < b1 {
			return -1
		}
		return 1
	}
	if a2 < b2 {
		return -1
	} else if a2 > b2 {
		return 1
	}
	return 0
}

// Scenario 2: news of category X sent from 192.168.1.4 travels
// 1.4→1.2→1.1→{11.4, 12.2}, 11.4→{11.1, 11.2}, 12.2→12.4 and is shown
// exactly at 11.1, 11.2, 11.4 and 12.4; 11.3, 12.1 and 12.3 (category Y)
// never see it.
// Reference: JP4353827B2, Figs. 9 and 15.
func TestNewsScenario2Delivery(t *testing.T) {
	n := fig13(t)
	n.Add(newsIP("12.4"), []newsnet.ServantID{newsIP("1.1"), newsIP("1.2")}, "X")
	mustConverge(t, n, 10*time.Second)
	var hops []string
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if _, ok := s.Msg.(*newsnet.Multicast); ok {
				hops = append(hops, string(id)[8:len(id)-5]+">"+string(n.Peer(id, s.Link))[8:len(n.Peer(id, s.Link))-5])
			}
		}
	}
	id := n.Publish(newsIP("1.4"), "X")
	n.RunFor(time.Second)
	slices.Sort(hops)
	want := []string{"1.1>11.4", "1.1>12.2", "1.2>1.1", "1.4>1.2", "11.4>11.1", "11.4>11.2", "12.2>12.4"}
	if !slices.Equal(hops, want) {
		t.Errorf("hops = %v, want %v", hops, want)
	}
	if err := n.CheckDelivery(newsIP("1.4"), id, "X"); err != nil {
		t.Error(err)
	}
	for _, ip := range []string{"11.1", "11.2", "11.4", "12.4"} {
		if n.Node(newsIP(ip)).Delivered[id] != 1 {
			t.Errorf("192.168.%s did not show the news", ip)
		}
	}
}
