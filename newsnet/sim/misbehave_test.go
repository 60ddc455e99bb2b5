package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// One member among 200 runs a modified servant: all the while the sources
// publish, it floods every servant it is linked to with repair requests
// for thousands of counts, catch-up requests, reach reports full of
// made-up items and identities, and edges of made-up sources. Its
// neighbours' budgets hold it, they close its links and refuse it for a
// while, and every honest subscriber still holds every item of its
// categories exactly once, in source order.
func TestOneMisbehavingServantAmong200(t *testing.T) {
	t.Parallel() // one of the longest: it runs beside the others on a second core
	for _, seed := range scenarioSeeds(2) {
		runMisbehaving(t, seed)
	}
}

func runMisbehaving(t *testing.T, seed uint64) {
	n := New(seed)
	checkEveryStep(t, n)
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 200 {
		ids = append(ids, randomID(r, used))
	}
	seeds := ids[:2]
	cats := []string{"company", "sales", "it"}
	for i, id := range ids {
		subs := []string{"company"}
		if i == 0 {
			subs = []string{newsnet.AllCategories}
		} else if r.IntN(3) == 0 {
			subs = append(subs, cats[1+r.IntN(2)])
		}
		n.Add(id, seeds, subs...)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	sources := ids[2:5]
	attacker := ids[100]
	// Pick an attacker that relays for others, so that its neighbours
	// closing it costs its subtree a re-formed tree too.
	for _, id := range ids[5:] {
		if st := n.Node(id).Servant.Status(); len(st.Downs) > 0 {
			attacker = id
			break
		}
	}
	flood := func() {
		st := n.Node(attacker).Servant.Status()
		trail := []newsnet.ServantID{attacker}
		counts := make([]uint64, newsnet.MaxCounts)
		for i := range counts {
			counts[i] = uint64(i + 1)
		}
		junk := make([][]byte, 64)
		for i := range junk {
			junk[i] = fmt.Appendf(nil, "junk-%03d-%s", i, attacker)
		}
		for _, l := range st.Links {
			for _, src := range sources {
				n.Inject(attacker, l.Peer, &newsnet.Recover{Source: string(src), Counts: counts, Trail: trail})
			}
			for i := range 30 {
				n.Inject(attacker, l.Peer, &newsnet.Recover{Source: fmt.Sprintf("made-up-%d", i), Counts: counts[:512], Search: true, Trail: trail})
			}
			n.Inject(attacker, l.Peer, &newsnet.CatchUp{Categories: newsnet.NewCategorySet(newsnet.AllCategories), Trail: trail})
			for range 8 {
				var items []newsnet.ItemReach
				for k := range 64 {
					var id [16]byte
					copy(id[:], fmt.Sprintf("fake%04d%04d", r.IntN(10000), k))
					items = append(items, newsnet.ItemReach{ID: id, Delivered: 1000, Acknowledged: 1000, Pending: junk})
				}
				n.Inject(attacker, l.Peer, &newsnet.ReachReport{Sources: []newsnet.SourceReach{{Source: string(sources[0]), Category: "company", Items: items}}})
			}
			for range 10 {
				n.Inject(attacker, l.Peer, &newsnet.LatestHeader{Source: fmt.Sprintf("made-up-%08d", r.IntN(1e8)), Category: "company", Count: 1 << 16})
			}
		}
	}
	published := map[[16]byte]publication{}
	var order [][16]byte
	for i := range 300 {
		src := sources[r.IntN(len(sources))]
		cat := cats[r.IntN(len(cats))]
		id := n.ItemID()
		n.PublishMsg(src, &newsnet.Multicast{ID: id, Category: cat, Payload: make([]byte, 512)})
		published[id] = publication{src, cat}
		order = append(order, id)
		if i%20 == 0 {
			flood()
		}
		n.RunFor(50 * time.Millisecond)
	}
	// Refused by its neighbours, the attacker may sit alone as a tree of
	// its own: it is not part of the network any more. Its misconduct
	// counted, it leaves, and the honest servants settle.
	n.RunFor(10 * time.Second)
	refused, banned := uint64(0), 0
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		for _, c := range st.Misconduct.Counts {
			refused += c
		}
		if slices.Contains(st.Misconduct.Banned, attacker) {
			banned++
		}
	}
	t.Logf("seed %d: attacker %s; %d misconduct counts; refused by %d servants", seed, attacker, refused, banned)
	if refused == 0 || banned == 0 {
		t.Errorf("seed %d: the attacker's misconduct counted %d times, refused by %d servants", seed, refused, banned)
	}
	n.Crash(attacker)
	if !n.RunUntil(5*time.Minute, n.Converged) {
		for _, nd := range n.Alive() {
			if st := nd.Servant.Status(); len(st.Misconduct.Counts) > 0 {
				t.Logf("%s: %+v", nd.ID, st.Misconduct)
			}
		}
		t.Fatalf("seed %d: no convergence after the stream: %v", seed, n.CheckTree())
	}
	n.RunFor(3 * time.Minute)
	honest := func(nd *Node, id [16]byte, p publication) int {
		if p.source != nd.ID && newsnet.NewCategorySet(nd.Subscriptions...).Matches(p.category) {
			return 1
		}
		return 0
	}
	// Holdings, not the loss counts: the attacker's made-up edges name
	// sources nobody can retransmit, and servants that need them count
	// them lost (a real source's loss must never go unsaid, and an edge
	// cannot tell the two apart).
	checkHoldings(t, seed, n, order, published, "", honest)
}
