package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"newsdesk/newsnet"
)

var simSeed = flag.Uint64("sim.seed", 0, "replay one randomized simulation with this seed")

// categories used by the randomized runs; "sales" also exercises parent
// subscriptions ("sales/emea" items reach "sales" subscribers).
var testCategories = []string{"company", "it", "hr", "facilities", "sales", "sales/emea", "sales/apac", "eng"}

// scenario describes one randomized run.
type scenario struct {
	servants int
	seeds    int
	faults   int           // fault events injected while the tree forms and runs
	span     time.Duration // virtual time over which faults are spread
	items    int           // items published after quiescence
	// id picks a servant's address; nil means randomID.
	id func(r *rand.Rand, used map[newsnet.ServantID]bool) newsnet.ServantID
	// firewalled is the percentage of servants, seeds apart, that nobody
	// can dial (Network.Firewall); when set, faults also turn firewalls
	// on and off while the network runs.
	firewalled int
}

// randomID picks an address in one of a few subnets, as a company network
// would have, so partitions and slots are exercised at several levels.
func randomID(r *rand.Rand, used map[newsnet.ServantID]bool) newsnet.ServantID {
	for {
		id := newsnet.ServantID(fmt.Sprintf("10.%d.%d.%d:%d", r.IntN(3), r.IntN(8), 1+r.IntN(250), 7400+r.IntN(3)))
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

// randomMixedID picks an IPv4 address as randomID does, or an IPv6 address
// in one of a few /64s, or a host name.
func randomMixedID(r *rand.Rand, used map[newsnet.ServantID]bool) newsnet.ServantID {
	for {
		var id newsnet.ServantID
		switch k := r.IntN(10); {
		case k < 5:
			return randomID(r, used)
		case k < 9:
			id = newsnet.ServantID(fmt.Sprintf("[2001:db8:%d:%d::%x]:%d", r.IntN(2), r.IntN(3), 1+r.IntN(4000), 7400+r.IntN(3)))
		default:
			id = newsnet.ServantID(fmt.Sprintf("host%d.example.com:%d", r.IntN(50), 7400+r.IntN(3)))
		}
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

func randomSubs(r *rand.Rand) []string {
	var subs []string
	for _, c := range testCategories {
		if r.IntN(4) == 0 {
			subs = append(subs, c)
		}
	}
	return subs
}

// runScenario builds a network, injects random faults while it forms, heals
// every cut, waits for quiescence and checks every invariant, then publishes
// items and checks exactly-once delivery to exactly the subscribers.
func runScenario(t *testing.T, seed uint64, sc scenario) {
	t.Helper()
	n := New(seed)
	checkEveryStep(t, n)
	n.WireCheck = true
	if sc.firewalled > 0 {
		// Dial-backs find firewalls changed while running this often.
		n.Base.ReachProbeInterval = time.Minute
	}
	defer func() {
		if t.Failed() {
			t.Logf("replay: go test ./newsnet/sim -run '%s' -sim.seed %d", t.Name(), seed)
		}
	}()
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	randomID := randomID
	if sc.id != nil {
		randomID = sc.id
	}
	var seeds []newsnet.ServantID
	for range sc.seeds {
		seeds = append(seeds, randomID(r, used))
	}
	var ids []newsnet.ServantID
	for i := range sc.servants {
		var id newsnet.ServantID
		if i < len(seeds) {
			id = seeds[i]
		} else {
			id = randomID(r, used)
			n.Firewall(id, r.IntN(100) < sc.firewalled)
		}
		ids = append(ids, id)
	}
	// Joins spread over the first part of the run, faults over all of it.
	joinEvery := sc.span / 2 / time.Duration(sc.servants)
	faultEvery := sc.span / time.Duration(sc.faults+1)
	joined, nextFault := 0, n.Now().Add(faultEvery)
	start := n.Now()
	for n.Now().Sub(start) < sc.span {
		for joined < len(ids) && n.Now().Sub(start) >= time.Duration(joined)*joinEvery {
			n.Add(ids[joined], seeds, randomSubs(r)...)
			joined++
		}
		if !n.Now().Before(nextFault) && joined > 1 {
			if sc.firewalled > 0 && r.IntN(5) == 0 {
				toggleFirewall(n, r, ids[len(seeds):joined])
			} else {
				injectFault(n, r, ids[:joined])
			}
			nextFault = nextFault.Add(faultEvery)
		}
		n.RunFor(n.Base.TickInterval)
	}
	for ; joined < len(ids); joined++ {
		n.Add(ids[joined], seeds, randomSubs(r)...)
	}
	// Quiescence: heal the network; keep at least one seed alive.
	n.HealAll()
	if !anyAlive(n, seeds) {
		n.Restart(seeds[r.IntN(len(seeds))])
	}
	// Links black-holed by a cut look alive until heartbeats expire them,
	// and frames on a slowed path (up to 4s) still arrive late until those
	// sent before the heal are through: a link whose frames took that long
	// may still time out.
	n.RunFor(n.Base.LinkTimeout + 5*time.Second)
	settled := n.Settled
	if sc.firewalled > 0 {
		// A firewall changed at the end is found by the next dial-back.
		settled = func() bool { return n.Settled() && n.CheckDialable() == nil }
	}
	if !n.RunUntil(5*time.Minute, settled) {
		for _, st := range n.Statuses() {
			if st.CatchingUp {
				t.Logf("%s role=%s up=%s is still catching up", st.ID, st.Role, st.Up)
			}
		}
		t.Fatalf("seed %d: no convergence: tree: %v; routing: %v; dialable: %v", seed, n.CheckTree(), n.CheckRouting(), n.CheckDialable())
	}
	alive := n.Alive()
	for range sc.items {
		from := alive[r.IntN(len(alive))]
		cat := testCategories[r.IntN(len(testCategories))]
		id := n.Publish(from.ID, cat)
		n.RunFor(200 * time.Millisecond)
		if err := n.CheckDelivery(from.ID, id, cat); err != nil {
			for _, nd := range n.Alive() {
				st := nd.Servant.Status()
				t.Logf("%s up=%s subs=%v catchingUp=%v links=%+v", nd.ID, st.Up, st.Subscriptions, st.CatchingUp, st.Links)
			}
			t.Logf("from %s", from.ID)
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	if err := n.CheckTree(); err != nil {
		t.Fatalf("seed %d: tree broke while idle: %v", seed, err)
	}
}

// toggleFirewall turns the firewall of one of ids on or off: a laptop
// whose firewall rule was removed, or added, while it runs.
func toggleFirewall(n *Network, r *rand.Rand, ids []newsnet.ServantID) {
	if len(ids) == 0 {
		return
	}
	id := ids[r.IntN(len(ids))]
	n.Firewall(id, !n.firewalled[id])
}

func anyAlive(n *Network, ids []newsnet.ServantID) bool {
	for _, id := range ids {
		if n.Node(id).Alive {
			return true
		}
	}
	return false
}

// injectFault applies one random fault: crash, silent vanish, clean stop,
// restart, broken link, black-holed pair, slow path, or a subscription
// change.
func injectFault(n *Network, r *rand.Rand, ids []newsnet.ServantID) {
	id := ids[r.IntN(len(ids))]
	nd := n.Node(id)
	switch k := r.IntN(10); {
	case !nd.Alive:
		n.Restart(id)
	case k < 2:
		n.Crash(id)
	case k < 3:
		n.Vanish(id)
	case k < 4:
		n.Stop(id)
	case k < 6:
		if st := nd.Servant.Status(); st.Up != "" {
			n.CutLink(id, st.Up)
		}
	case k < 7:
		if st := nd.Servant.Status(); st.Up != "" {
			n.Cut(id, st.Up) // healed at quiescence
		}
	case k < 8:
		if st := nd.Servant.Status(); st.Up != "" {
			// A slow path, up to beyond the join timeout.
			n.Delay(id, st.Up, time.Duration(r.IntN(4000))*time.Millisecond)
		}
	default:
		n.Subscribe(id, randomSubs(r)...)
	}
}

func scenarioSeeds(count int) []uint64 {
	if *simSeed != 0 {
		return []uint64{*simSeed}
	}
	seeds := make([]uint64, count)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// After random joins, crashes, silent failures, clean leaves, restarts, link
// cuts and subscription changes, the overlay settles into one tree with
// correct routing sets, and items reach exactly their subscribers once.
func TestRandomFaultsSmall(t *testing.T) {
	for _, seed := range scenarioSeeds(100) {
		runScenario(t, seed, scenario{servants: 60, seeds: 2, faults: 40, span: 30 * time.Second, items: 20})
	}
}

// The same with IPv4, IPv6 and host-name servants mixed (issue 11, defect 7).
func TestRandomFaultsMixedFamilies(t *testing.T) {
	for _, seed := range scenarioSeeds(100) {
		runScenario(t, seed, scenario{servants: 60, seeds: 2, faults: 40, span: 30 * time.Second, items: 20, id: randomMixedID})
	}
}

// The same with servants behind firewalls, some of them turned on or off
// while running: leaves take their places and move, and nothing is lost.
// At 100 % every servant but the seeds is a leaf.
func TestRandomFaultsFirewalled(t *testing.T) {
	t.Parallel() // one of the longest: it runs beside the others on a second core
	for _, share := range []int{30, 90, 100} {
		t.Run(fmt.Sprintf("%d%%", share), func(t *testing.T) {
			for _, seed := range scenarioSeeds(10) {
				runScenario(t, seed, scenario{servants: 80, seeds: 2, faults: 60, span: 40 * time.Second, items: 20, firewalled: share})
			}
		})
	}
}

func TestRandomFaultsMedium(t *testing.T) {
	for _, seed := range scenarioSeeds(4) {
		runScenario(t, seed, scenario{servants: 400, seeds: 3, faults: 150, span: 60 * time.Second, items: 30})
	}
}

func TestRandomFaultsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 servants")
	}
	for _, seed := range scenarioSeeds(1) {
		runScenario(t, seed, scenario{servants: 2000, seeds: 3, faults: 400, span: 90 * time.Second, items: 30})
	}
}

// checkEveryStep fails t at its end if n broke an invariant at any step
// (Network.Violations), even one that healed before the end.
func checkEveryStep(t testing.TB, n *Network) {
	t.Cleanup(func() {
		for _, v := range n.Violations() {
			t.Errorf("invariant broken at %s", v)
		}
	})
}
