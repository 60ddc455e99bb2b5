package sim

import (
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Issue 15, audiences: a message for the servants of one network range
// reaches exactly the subscribers inside it, and its frames cross only
// the links on the tree paths from its publisher to them: an office-only
// item never leaves the office's subtree except on the path from the
// publisher. Servants outside neither deliver it nor ask for it when a
// later message reveals the gap; a servant inside that lost it asks and
// gets it.

var audienceSubnets = []string{"10.1.1", "10.1.4", "10.1.5", "10.2.5", "192.168.7"}

// buildAudienceNetwork joins six servants per subnet, every one
// subscribed to "news", and waits for one tree whose subnets each lie in
// one subtree (tree optimization done).
func buildAudienceNetwork(t *testing.T, seed uint64) (*Network, []newsnet.ServantID) {
	t.Helper()
	n := New(seed)
	checkEveryStep(t, n)
	n.WireCheck = true
	n.Base.Fanout = 4
	var ids []newsnet.ServantID
	for _, sub := range audienceSubnets {
		for i := range 6 {
			ids = append(ids, newsnet.ServantID(fmt.Sprintf("%s.%d:7400", sub, 10+7*i)))
		}
	}
	n.Rand().Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	for _, id := range ids {
		n.Add(id, ids[:2], "news")
		n.RunFor(50 * time.Millisecond)
	}
	settled := func() bool { return n.Converged() && len(apart(n.Statuses(), subnetOf)) == 0 }
	if !n.RunUntil(5*time.Minute, settled) {
		t.Fatalf("seed %d: no settled tree: %v; subnets apart: %v", seed, n.CheckTree(), apart(n.Statuses(), subnetOf))
	}
	return n, ids
}

func addrOf(id newsnet.ServantID) netip.Addr {
	host, _, _ := net.SplitHostPort(string(id))
	return netip.MustParseAddr(host)
}

// treePaths returns the servants on the tree paths from a to each of bs.
func treePaths(sts []newsnet.Status, a newsnet.ServantID, bs []newsnet.ServantID) map[newsnet.ServantID]bool {
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, s := range sts {
		up[s.ID] = s.Up
	}
	ancestors := func(x newsnet.ServantID) []newsnet.ServantID {
		var out []newsnet.ServantID
		for ; x != ""; x = up[x] {
			out = append(out, x)
		}
		return out
	}
	on := map[newsnet.ServantID]bool{}
	fromA := ancestors(a)
	for _, b := range bs {
		fromB := ancestors(b)
		inB := map[newsnet.ServantID]bool{}
		for _, x := range fromB {
			inB[x] = true
		}
		for _, x := range fromA { // a up to the lowest common ancestor
			on[x] = true
			if inB[x] {
				break
			}
		}
		for _, x := range fromB { // and b up to it
			on[x] = true
			if on[x] && contains(fromA, x) {
				break
			}
		}
	}
	return on
}

func contains(ids []newsnet.ServantID, id newsnet.ServantID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestAudienceReachesOnlyItsRange(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			n, ids := buildAudienceNetwork(t, seed)
			office := netip.MustParsePrefix("10.1.4.0/24")
			var publisher newsnet.ServantID
			var inside []newsnet.ServantID
			for _, id := range ids {
				switch {
				case office.Contains(addrOf(id)):
					inside = append(inside, id)
				case publisher == "" && netip.MustParsePrefix("10.2.5.0/24").Contains(addrOf(id)):
					publisher = id
				}
			}
			allowed := treePaths(n.Statuses(), publisher, inside)

			item := [16]byte{0xa0, byte(seed)}
			var crossed []string
			n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
				if mc, ok := m.(*newsnet.Multicast); ok && mc.ID == item && (!allowed[from] || !allowed[to]) {
					crossed = append(crossed, fmt.Sprintf("%s→%s", from, to))
				}
				return true
			}
			n.PublishMsg(publisher, &newsnet.Multicast{ID: item, Category: "news", Payload: []byte("office"),
				Audience: []netip.Prefix{office}})
			n.RunFor(5 * time.Second)
			if len(crossed) > 0 {
				logTree(t, n)
				t.Errorf("frames of the office item crossed links off the paths from %s to the office: %v", publisher, crossed)
			}
			for _, id := range ids {
				want := 0
				if office.Contains(addrOf(id)) {
					want = 1
				}
				if got := n.Node(id).Delivered[item]; got != want {
					t.Errorf("%s delivered the office item %d times, want %d", id, got, want)
				}
			}

			// A later item for everyone reveals the gap to the servants
			// outside: they take the office item as foreign and ask for
			// nothing.
			recovers := n.Stats["Recover"]
			everyone := [16]byte{0xb0, byte(seed)}
			n.PublishMsg(publisher, &newsnet.Multicast{ID: everyone, Category: "news", Payload: []byte("all")})
			n.RunFor(10 * time.Second)
			if err := n.CheckDelivery(publisher, everyone, "news"); err != nil {
				t.Error(err)
			}
			if got := n.Stats["Recover"] - recovers; got != 0 {
				t.Errorf("%d retransmission requests after an item for everyone; servants outside the audience asked for the office item", got)
			}
		})
	}
}

// A servant inside the audience that lost the message finds the gap
// through the chains of the next message and asks for it.
func TestAudienceLossRecoveredInside(t *testing.T) {
	n, ids := buildAudienceNetwork(t, 7)
	office := netip.MustParsePrefix("10.1.4.0/24")
	var publisher, victim newsnet.ServantID
	for _, id := range ids {
		switch {
		case victim == "" && office.Contains(addrOf(id)):
			victim = id
		case publisher == "" && netip.MustParsePrefix("192.168.7.0/24").Contains(addrOf(id)):
			publisher = id
		}
	}
	item := [16]byte{0xc0}
	n.Filter = func(_, to newsnet.ServantID, m newsnet.Message) bool {
		mc, ok := m.(*newsnet.Multicast)
		return !ok || mc.ID != item || to != victim
	}
	n.PublishMsg(publisher, &newsnet.Multicast{ID: item, Category: "news", Payload: []byte("office"),
		Audience: []netip.Prefix{office}})
	n.RunFor(5 * time.Second)
	if got := n.Node(victim).Delivered[item]; got != 0 {
		t.Fatalf("the dropped frame was delivered %d times", got)
	}
	n.Filter = nil
	n.PublishMsg(publisher, &newsnet.Multicast{ID: [16]byte{0xc1}, Category: "news", Payload: []byte("all")})
	if !n.RunUntil(time.Minute, func() bool { return n.Node(victim).Delivered[item] == 1 }) {
		t.Fatalf("%s never recovered the office item it lost", victim)
	}
	for _, id := range ids {
		want := 0
		if office.Contains(addrOf(id)) {
			want = 1
		}
		if got := n.Node(id).Delivered[item]; got != want {
			t.Errorf("%s delivered the office item %d times, want %d", id, got, want)
		}
	}
}

// TestAudienceReachCountsSubscribersInside: the subscribers a publisher's
// reach report gives for an item with an audience are the subscribers
// inside the audience, counted per item, not the whole category's census:
// once the network is quiet they equal the true number of online
// subscribers inside, a publisher inside not counting itself (as the
// census does not), and they follow servants going offline, coming back
// (their hosts pass the audience back in Config.Reach) and unsubscribing.
func TestAudienceReachCountsSubscribersInside(t *testing.T) {
	n, ids := buildAudienceNetwork(t, 4)
	office := []netip.Prefix{netip.MustParsePrefix("10.1.4.0/24")}
	region := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("192.168.7.0/24")}
	var outsider, insider newsnet.ServantID // publishers outside and inside the office
	var others []newsnet.ServantID          // office servants that publish nothing
	for _, id := range ids {
		switch {
		case outsider == "" && netip.MustParsePrefix("10.2.5.0/24").Contains(addrOf(id)):
			outsider = id
		case insider == "" && office[0].Contains(addrOf(id)):
			insider = id
		case office[0].Contains(addrOf(id)):
			others = append(others, id)
		}
	}
	type published struct {
		from     newsnet.ServantID
		id       [16]byte
		audience []netip.Prefix
		want     uint64 // subscribers inside at the start, counted by hand
	}
	items := []published{
		{outsider, [16]byte{0xd0}, office, 6},
		{insider, [16]byte{0xd1}, office, 5},
		{outsider, [16]byte{0xd2}, region, 24},
		{outsider, [16]byte{0xd3}, nil, 29}, // no audience: the census
	}
	for _, it := range items {
		n.PublishMsg(it.from, &newsnet.Multicast{ID: it.id, Category: "news", Payload: []byte("reach"), Audience: it.audience})
	}
	allRight := func() bool {
		for _, it := range items {
			if n.CheckReach(it.from, it.id, "news") != nil {
				return false
			}
		}
		return true
	}
	check := func(stage string) {
		t.Helper()
		n.RunUntil(10*n.Base.ReportPeriod, allRight)
		for _, it := range items {
			if err := n.CheckReach(it.from, it.id, "news"); err != nil {
				t.Errorf("%s: %v", stage, err)
			}
			if it.audience == nil {
				continue // the census, checked against TrueReach above
			}
			got, _ := n.Node(it.from).Servant.Reach(it.id)
			if want := n.AudienceSubscribers(it.from, "news", it.audience); got.Subscribers != want {
				t.Errorf("%s: item %x from %s: %d subscribers, want %d", stage, it.id[:1], it.from, got.Subscribers, want)
			}
		}
	}
	check("quiet")
	for _, it := range items {
		if got, _ := n.Node(it.from).Servant.Reach(it.id); got.Subscribers != it.want {
			t.Errorf("item %x from %s: %d subscribers, want %d", it.id[:1], it.from, got.Subscribers, it.want)
		}
	}

	n.Crash(others[0])
	n.RunFor(n.Base.LinkTimeout + 5*time.Second)
	n.RunUntil(5*time.Minute, n.Settled)
	check("one office servant offline")
	n.Restart(others[0])
	n.RunUntil(5*time.Minute, n.Settled)
	check("back online")
	n.Subscribe(others[1], "sport")
	check("one office servant unsubscribed")
	if got, _ := n.Node(outsider).Servant.Reach(items[0].id); got.Subscribers != 5 {
		t.Errorf("after one unsubscribed: %d subscribers in the office, want 5", got.Subscribers)
	}
	if v := n.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}

// A member advertises an address inside the office while it cannot be
// dialed there and its connections come from outside (a modified servant,
// or `--advertise` set to an address it does not listen on). Nobody could
// dial it back, so it is a leaf, and a leaf counts as inside only when its
// connection comes from inside too: the office item never goes to it.
func TestAudienceNotForUnverifiedLeaf(t *testing.T) {
	n, ids := buildAudienceNetwork(t, 11)
	office := netip.MustParsePrefix("10.1.4.0/24")
	liar := newsnet.ServantID("10.1.4.200:7400")
	n.Firewall(liar, true)
	n.ConnectFrom(liar, netip.MustParseAddr("10.9.9.9"))
	n.Add(liar, ids[:2], "news")
	if !n.RunUntil(5*time.Minute, n.Converged) {
		t.Fatalf("no convergence with the liar: %v", n.CheckTree())
	}
	if st := n.Node(liar).Servant.Status(); !st.Leaf {
		t.Fatalf("the liar holds a slot: %+v", st)
	}
	var publisher newsnet.ServantID
	for _, id := range ids {
		if netip.MustParsePrefix("192.168.7.0/24").Contains(addrOf(id)) {
			publisher = id
			break
		}
	}
	item := [16]byte{0xd0}
	var leaked []string
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if mc, ok := m.(*newsnet.Multicast); ok && mc.ID == item && to == liar {
			leaked = append(leaked, fmt.Sprintf("%s→%s", from, to))
		}
		return true
	}
	n.PublishMsg(publisher, &newsnet.Multicast{ID: item, Category: "news", Payload: []byte("office"), Audience: []netip.Prefix{office}})
	n.RunFor(5 * time.Second)
	for _, id := range ids {
		if office.Contains(addrOf(id)) && n.Node(id).Delivered[item] != 1 {
			t.Errorf("%s inside the office delivered the office item %d times", id, n.Node(id).Delivered[item])
		}
	}
	if len(leaked) > 0 {
		t.Errorf("the office item went to the leaf connecting from outside: %v", leaked)
	}
	if got := n.Node(liar).Delivered[item]; got != 0 {
		t.Errorf("the liar delivered the office item %d times", got)
	}
}
