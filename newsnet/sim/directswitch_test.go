package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Switching to a direct link and back must cost a lossless stream nothing:
// the items still on their way over the slower tree path when the first
// ones arrive directly are waited for, at the subscriber and in its
// subtree (which it relays the direct items to ahead of the tree's
// copies), and not asked for; and when a subscriber's interest ends, its
// subtree gets the items over the tree again without a gap. Issue 14: "a
// lossless stream must cause zero recovery frames".

// switchRun is what one lossless paced run with hot pairs did.
type switchRun struct {
	items, dials, withSubtree, fallbacks int
	recover, recovered, catchUps         int
}

// runLosslessSwitch publishes a paced stream from a few sources to 120
// servants (fanout 4, so subscribers sit three and four hops from the
// sources and have subtrees of their own) with nothing lost: no crash, no
// cut, no drop. Halfway, some subscribers with a direct link and a subtree
// that still wants the items stop subscribing, so their direct links close
// and their subtree falls back to the tree. It checks exactly-once,
// in-order delivery to exactly the subscribers, and returns the counts.
func runLosslessSwitch(t *testing.T, seed uint64) switchRun {
	t.Helper()
	n := New(seed)
	checkEveryStep(t, n)
	n.Base.Fanout = 4
	n.Jitter = 20 * time.Millisecond // the tree path's relays are slow and uneven; the direct link overtakes them
	n.Base.DirectThreshold, n.Base.DirectWindow, n.Base.DirectBudget = 20, 10*time.Second, 8
	r := n.Rand()
	cats := []string{"company", "dept1", "dept2", "dept3"}
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 120 {
		ids = append(ids, randomID(r, used))
	}
	seeds := ids[:2]
	for _, id := range ids {
		subs := []string{"company"}
		for _, c := range cats[1:] {
			if r.IntN(4) == 0 {
				subs = append(subs, c)
			}
		}
		n.Add(id, seeds, subs...)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence before publishing: %v", seed, n.CheckTree())
	}
	n.RunFor(time.Minute) // the catch-ups that follow joining are over
	sources := ids[2:5]
	published := map[[16]byte]publication{}
	var order [][16]byte
	var run switchRun
	before := map[string]int{}
	for _, k := range []string{"Recover", "Recovered", "CatchUp", "CatchUpDone"} {
		before[k] = n.Stats[k]
	}
	n.Trace = func(_ time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Dial); ok && d.Direct {
			run.dials++
		}
	}
	// Subscribers whose interest ends halfway: their subscriptions then hold
	// none of the source's categories, so their direct links close.
	unsubscribed := map[newsnet.ServantID]bool{}
	const rate, span = 30, 60 * time.Second // items per second, all sources
	for i := 0; time.Duration(i)*time.Second/rate < span; i++ {
		src := sources[r.IntN(len(sources))]
		cat := "company"
		if r.IntN(3) == 0 {
			cat = cats[1+r.IntN(len(cats)-1)]
		}
		id := n.Publish(src, cat)
		published[id] = publication{src, cat}
		order = append(order, id)
		if i == rate*int(span/time.Second)/2 {
			for _, nd := range n.Alive() {
				st := nd.Servant.Status()
				if len(unsubscribed) < 3 && len(st.Downs) > 0 && slices.ContainsFunc(st.Direct, func(d newsnet.DirectStatus) bool { return d.Role == newsnet.DirectSubscriber }) {
					unsubscribed[nd.ID] = true
					n.Subscribe(nd.ID) // nothing: a new category would ask for its history
				}
			}
		}
		n.RunFor(time.Second / rate)
	}
	n.RunFor(30 * time.Second)
	n.Trace = nil
	run.items = len(order)
	run.fallbacks = len(unsubscribed)
	run.recover, run.recovered = n.Stats["Recover"]-before["Recover"], n.Stats["Recovered"]-before["Recovered"]
	run.catchUps = n.Stats["CatchUp"] - before["CatchUp"] + n.Stats["CatchUpDone"] - before["CatchUpDone"]
	for _, nd := range n.Alive() {
		if st := nd.Servant.Status(); len(st.Downs) > 0 && st.Counters.DirectReceived > 0 {
			run.withSubtree++
		}
	}
	if err := n.CheckDirect(); err != nil {
		t.Errorf("seed %d: %v", seed, err)
	}
	checkHoldings(t, seed, n, order, published, "on a lossless run", func(nd *Node, id [16]byte, p publication) int {
		if unsubscribed[nd.ID] {
			return min(nd.Delivered[id], 1) // what it got before it stopped: once at most
		}
		if p.source != nd.ID && newsnet.NewCategorySet(nd.Subscriptions...).Matches(p.category) {
			return 1
		}
		return 0
	})
	return run
}

func TestDirectSwitchLosslessCostsNoRecovery(t *testing.T) {
	t.Parallel() // one of the longest: it runs beside the others on a second core
	for _, seed := range scenarioSeeds(2) {
		run := runLosslessSwitch(t, seed)
		t.Logf("seed %d: %d items, %d direct links dialed, %d subscribers with a subtree received directly, %d fell back; %d Recover, %d Recovered and %d catch-up frames",
			seed, run.items, run.dials, run.withSubtree, run.fallbacks, run.recover, run.recovered, run.catchUps)
		if run.dials == 0 || run.withSubtree == 0 || run.fallbacks == 0 {
			t.Errorf("seed %d: the run did not exercise the switch: %s", seed, fmt.Sprint(run))
		}
		if run.recover != 0 || run.recovered != 0 || run.catchUps != 0 {
			t.Errorf("seed %d: a lossless stream cost %d Recover, %d Recovered and %d catch-up frames, want none", seed, run.recover, run.recovered, run.catchUps)
		}
	}
}
