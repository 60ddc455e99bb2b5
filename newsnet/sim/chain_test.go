package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// chainCategories mixes top-level and deeper categories, so subscriptions
// to a parent, to a sub-level and to a leaf all meet items of their own
// and of sibling branches.
var chainCategories = []string{"hr", "hr/payroll", "hr/payroll/eu", "hr/benefits", "it", "it/ops", "sales", "sales/emea", "sales/emea/uk", "eng"}

// The chain fields against the obviously correct answer: one source
// publishes random categories; a subscriber with random subscriptions
// (parents, sub-levels, leaves) gets every item routed to it, or, in the
// lossy runs, misses a random fifth of them. Whatever the mix:
//   - lossless: not one recovery request (every gap is classified from
//     the chains, whatever its length), and every item of its categories
//     delivered once, in order;
//   - lossy: every missed item of its categories is asked for and
//     delivered in order, and nothing outside them is ever asked for as a
//     message.
func TestChainClassificationMatchesModel(t *testing.T) {
	for _, seed := range scenarioSeeds(40) {
		for _, lossy := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed%d/lossy=%v", seed, lossy), func(t *testing.T) {
				checkChainRun(t, seed, lossy)
			})
		}
	}
}

func checkChainRun(t *testing.T, seed uint64, lossy bool) {
	n := New(seed)
	checkEveryStep(t, n)
	r := n.Rand()
	pub, sub := newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.0.2:7400")
	var subs []string
	for len(subs) == 0 {
		for _, c := range chainCategories {
			if r.IntN(4) == 0 {
				subs = append(subs, c)
			}
		}
	}
	n.Add(pub, []newsnet.ServantID{pub})
	n.Add(sub, []newsnet.ServantID{pub}, subs...)
	if !n.RunUntil(time.Minute, n.Settled) {
		t.Fatal("no tree")
	}
	wanted := newsnet.NewCategorySet(subs...)
	categoryOf := map[uint64]string{}
	var badAsks []string
	asked := 0
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && id == sub {
			if req, ok := s.Msg.(*newsnet.Recover); ok {
				asked += len(req.Counts)
				for _, k := range req.Counts {
					if c := categoryOf[k]; !req.CategoriesOnly && !wanted.Matches(c) {
						badAsks = append(badAsks, fmt.Sprintf("#%d %s", k, c))
					}
				}
			}
		}
	}
	var mine []uint64
	// One item the subscriber surely gets first: what is lost before a
	// source is followed at all is catch-up's business, not the chain's.
	n.Publish(pub, subs[0])
	categoryOf[1] = subs[0]
	mine = append(mine, 1)
	n.RunFor(100 * time.Millisecond)
	if lossy {
		n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
			_, isItem := m.(*newsnet.Multicast)
			return !isItem || to != sub || r.IntN(5) != 0
		}
	}
	// Runs of one category of random length, some far beyond the history
	// window, so the chains have to do the work.
	for count := uint64(1); count < 600; {
		c := chainCategories[r.IntN(len(chainCategories))]
		for range 1 + r.IntN(150) {
			count++
			categoryOf[count] = c
			if wanted.Matches(c) {
				mine = append(mine, count)
			}
			n.Publish(pub, c)
		}
		n.RunFor(10 * time.Millisecond)
	}
	n.Filter = nil
	n.Publish(pub, subs[0]) // a last item of ours, so that every loss shows as a gap
	mine = append(mine, uint64(len(categoryOf)+1))
	n.RunFor(2 * time.Minute)

	got := n.Node(sub).Order[string(pub)]
	if !slices.Equal(got, mine) {
		t.Errorf("subscriptions %v: delivered %d items, want %d in order (first difference at %d)", subs, len(got), len(mine), firstDiff(got, mine))
	}
	if len(badAsks) > 0 {
		t.Errorf("subscriptions %v: asked for items it does not need: %v", subs, badAsks[:min(5, len(badAsks))])
	}
	if !lossy && asked != 0 {
		t.Errorf("subscriptions %v: %d counts asked for on a lossless stream, want 0", subs, asked)
	}
	if lost := n.Node(sub).Servant.Status().Counters.Lost; lost != 0 {
		t.Errorf("subscriptions %v: %d recorded lost", subs, lost)
	}
}

func firstDiff(a, b []uint64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
