package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// The case that a firewall on one laptop used to make: the laptop took its
// subnet's slot, and every later laptop of the subnet was redirected to it,
// could not dial it, and stayed connecting. Now the undialable laptop is a
// leaf, the next ones take the slot and receive within seconds.
func TestSecondLaptopOfSubnetJoins(t *testing.T) {
	n := New(11)
	checkEveryStep(t, n)
	seed := newsnet.ServantID("10.0.0.1:17800")
	a := newsnet.ServantID("10.0.5.1:17811")
	b := newsnet.ServantID("10.0.5.2:17812")
	c := newsnet.ServantID("10.0.5.3:17813")
	seeds := []newsnet.ServantID{seed}
	n.Add(seed, seeds, "news")
	n.Firewall(a, true)
	n.Add(a, seeds, "news")
	if !n.RunUntil(30*time.Second, n.Converged) {
		t.Fatalf("laptop A did not settle: %v", n.CheckTree())
	}
	start := n.Now()
	n.Add(b, seeds, "news")
	n.Add(c, seeds, "news")
	if !n.RunUntil(10*time.Second, func() bool { return n.Converged() && n.CheckDialable() == nil }) {
		for _, id := range []newsnet.ServantID{b, c} {
			st := n.Node(id).Servant.Status()
			t.Logf("%s: role %s up %q leaf %v", id, st.Role, st.Up, st.Leaf)
		}
		t.Fatalf("B and C did not attach within 10 s: %v; %v", n.CheckTree(), n.CheckDialable())
	}
	t.Logf("B and C attached in %v", n.Now().Sub(start))
	if st := n.Node(a).Servant.Status(); !st.Leaf || st.Reach != newsnet.ReachUnreachable {
		t.Errorf("A: leaf %v reach %v, want an unreachable leaf", st.Leaf, st.Reach)
	}
	for _, from := range []newsnet.ServantID{seed, a, b} {
		id := n.Publish(from, "news")
		n.RunFor(time.Second)
		if err := n.CheckDelivery(from, id, "news"); err != nil {
			t.Errorf("item from %s: %v", from, err)
		}
	}
}

// A member whose firewall closes while it runs is found out when a joiner
// reports that it could not dial it: the member's up-servant dials it back
// itself, demotes it to a leaf and moves its down-servants up; the joiner
// is placed meanwhile, and nothing is lost.
func TestMemberBecomesUnreachable(t *testing.T) {
	n := New(12)
	checkEveryStep(t, n)
	seed := newsnet.ServantID("10.0.0.1:7400")
	m := newsnet.ServantID("10.0.5.1:7400")
	below := newsnet.ServantID("10.0.5.1:7401")
	seeds := []newsnet.ServantID{seed}
	n.Add(seed, seeds, "news")
	n.Add(m, seeds, "news")
	n.Add(below, seeds, "news")
	if !n.RunUntil(30*time.Second, n.Converged) {
		t.Fatalf("no tree: %v", n.CheckTree())
	}
	if st := n.Node(below).Servant.Status(); st.Up != m {
		t.Fatalf("%s is under %q, want under %s", below, st.Up, m)
	}
	n.Firewall(m, true)
	joiner := newsnet.ServantID("10.0.5.1:7402")
	n.Add(joiner, seeds, "news")
	start := n.Now()
	ok := n.RunUntil(time.Minute, func() bool {
		return n.Converged() && n.Node(m).Servant.Status().Leaf && n.Node(joiner).Servant.Status().Role == newsnet.RoleAttached
	})
	if !ok {
		t.Fatalf("after the firewall closed: m leaf %v, joiner %s; tree %v",
			n.Node(m).Servant.Status().Leaf, n.Node(joiner).Servant.Status().Role, n.CheckTree())
	}
	t.Logf("demoted and joined in %v", n.Now().Sub(start))
	if st := n.Node(below).Servant.Status(); st.Up == m {
		t.Errorf("%s is still below the leaf %s", below, m)
	}
	for _, from := range []newsnet.ServantID{seed, m, below, joiner} {
		id := n.Publish(from, "news")
		n.RunFor(time.Second)
		if err := n.CheckDelivery(from, id, "news"); err != nil {
			t.Errorf("item from %s: %v", from, err)
		}
	}
}

// With a share of the servants behind firewalls (they dial out, nobody
// dials in) the overlay still forms one tree of dialable servants within
// the join timeout plus a round, every leaf has its place within the leaf
// capacity (seeds apart), and every subscriber, leaf or not, receives every
// item of its categories exactly once.
func TestFirewalledShares(t *testing.T) {
	for _, share := range []int{0, 30, 90, 100} {
		t.Run(fmt.Sprintf("%d%%", share), func(t *testing.T) { testFirewalledShare(t, share) })
	}
}

func testFirewalledShare(t *testing.T, share int) {
	const servants, seedCount = 150, 3
	n := New(uint64(100 + share))
	n.Base.LeafCapacity = 4 // small, so that full servants send leaves up
	checkEveryStep(t, n)
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids, seeds []newsnet.ServantID
	for i := range servants {
		id := randomID(r, used)
		ids = append(ids, id)
		if i < seedCount {
			seeds = append(seeds, id)
		} else if r.IntN(100) < share {
			n.Firewall(id, true)
		}
	}
	added := map[newsnet.ServantID]time.Time{}
	attachedIn := map[newsnet.ServantID]time.Duration{}
	for i, id := range ids {
		n.Add(id, seeds, randomSubs(r)...)
		added[id] = n.Now()
		if i < seedCount {
			n.RunFor(time.Second)
			continue
		}
		n.RunFor(100 * time.Millisecond)
		for _, nd := range n.Alive() {
			if _, done := attachedIn[nd.ID]; !done && nd.Servant.Role() == newsnet.RoleAttached {
				attachedIn[nd.ID] = n.Now().Sub(added[nd.ID])
			}
		}
	}
	settled := func() bool { return n.Settled() && n.CheckDialable() == nil }
	if !n.RunUntil(2*time.Minute, settled) {
		t.Fatalf("not settled: tree %v; dialable %v", n.CheckTree(), n.CheckDialable())
	}
	for _, nd := range n.Alive() {
		if _, done := attachedIn[nd.ID]; !done && nd.Servant.Role() == newsnet.RoleAttached {
			attachedIn[nd.ID] = n.Now().Sub(added[nd.ID])
		}
	}
	var slowest time.Duration
	var slowestID newsnet.ServantID
	for id, d := range attachedIn {
		if d > slowest {
			slowest, slowestID = d, id
		}
	}
	bound := n.Base.JoinTimeout + seedCount*n.Base.JoinTimeout
	if slowest > bound {
		t.Errorf("%s took %v to attach, more than the join timeout plus a round (%v)", slowestID, slowest, bound)
	}
	var leaves, most int
	for _, st := range n.Statuses() {
		if st.Leaf {
			leaves++
		}
		if !slices.Contains(seeds, st.ID) {
			most = max(most, len(st.Leaves))
		}
	}
	t.Logf("%d%% firewalled: %d leaves, at most %d on a non-seed, slowest join %v", share, leaves, most, slowest)
	alive := n.Alive()
	for range 40 {
		from := alive[r.IntN(len(alive))]
		cat := testCategories[r.IntN(len(testCategories))]
		id := n.Publish(from.ID, cat)
		n.RunFor(300 * time.Millisecond)
		if err := n.CheckDelivery(from.ID, id, cat); err != nil {
			t.Fatalf("item from %s (firewalled %v): %v", from.ID, n.firewalled[from.ID], err)
		}
	}
}
