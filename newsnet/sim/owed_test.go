package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Owed items (issue 23): every item published after a servant attached is
// owed to it, also when the servant first meets the item's source long
// after, at a count above 1 (newsnet/owed.go).

// owedNet is a network of servants in a few subnets (so relays have
// subtrees), with random subscriptions, no archive, and dated item IDs.
type owedNet struct {
	*Network
	ids       []newsnet.ServantID
	cats      []string
	published []stressItem
	source    newsnet.ServantID // the publisher of published
}

func newOwedNet(t *testing.T, seed uint64, servants int) *owedNet {
	t.Helper()
	n := New(seed)
	checkEveryStep(t, n)
	o := &owedNet{Network: n, cats: []string{"hr", "it", "sales", "eng"}}
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	for range servants {
		id := newsnet.ServantID(fmt.Sprintf("10.0.%d.%d:7400", r.IntN(3), 1+r.IntN(250)))
		if used[id] {
			continue
		}
		used[id] = true
		o.ids = append(o.ids, id)
		var subs []string
		for _, c := range o.cats {
			if r.IntN(2) == 0 {
				subs = append(subs, c)
			}
		}
		n.Add(id, o.ids[:1], subs...)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	return o
}

// below returns the servants in id's subtree, id excluded.
func (o *owedNet) below(id newsnet.ServantID) []newsnet.ServantID {
	var out []newsnet.ServantID
	for _, nd := range o.Alive() {
		if slices.Contains(nd.Servant.Status().RootPath, id) {
			out = append(out, nd.ID)
		}
	}
	return out
}

// publish publishes count items from the source, one every gap, the
// categories in turn, running the network meanwhile.
func (o *owedNet) publish(count int, gap time.Duration) {
	for i := range count {
		cat := o.cats[i%len(o.cats)]
		id := o.ItemID()
		o.PublishMsg(o.source, &newsnet.Multicast{ID: id, Category: cat, Payload: make([]byte, 256)})
		o.published = append(o.published, stressItem{id, cat})
		o.RunFor(gap)
	}
}

// missing lists, per live subscriber, how many items of its categories it
// does not hold.
func (o *owedNet) missing() map[newsnet.ServantID]int {
	out := map[newsnet.ServantID]int{}
	for _, nd := range o.Alive() {
		subs := newsnet.NewCategorySet(nd.Subscriptions...)
		for _, it := range o.published {
			if nd.ID != o.source && subs.Matches(it.cat) && nd.Delivered[it.id] == 0 {
				out[nd.ID]++
			}
		}
	}
	return out
}

func (o *owedNet) complete() bool { return len(o.missing()) == 0 }

// check asserts that every live subscriber holds every item of its
// categories exactly once, in source order, with nothing counted lost.
func (o *owedNet) check(t *testing.T, seed uint64) {
	t.Helper()
	for id, k := range o.missing() {
		st := o.Node(id).Servant
		t.Errorf("seed %d: %s misses %d items (lost %d)\n%s", seed, id, k, st.Status().Counters.Lost, st.Diagnose())
	}
	for _, nd := range o.Alive() {
		for _, it := range o.published {
			if got := nd.Delivered[it.id]; got > 1 {
				t.Errorf("seed %d: %s holds a %s item %d times", seed, nd.ID, it.cat, got)
			}
		}
		for src, counts := range nd.Order {
			if !slices.IsSorted(counts) {
				t.Errorf("seed %d: %s delivered %s's items out of order", seed, nd.ID, src)
			}
		}
		if lost := nd.Servant.Status().Counters.Lost; lost != 0 {
			t.Errorf("seed %d: %s recorded %d losses", seed, nd.ID, lost)
		}
	}
}

// A relay with a subtree below it freezes (odd seeds: it stops reading
// and sending on every link, as a laptop whose lid closed; even seeds: it
// stops reading its uplink only), and a brand-new source outside that
// subtree publishes its first items meanwhile. Once the relay wakes, every
// subscriber, the relay's subtree included, holds every item exactly once
// and in order, with no archive and nothing counted lost: the servants
// that first meet the source at a count above 1 find the counts owed to
// them. 200 seeds.
func TestNewSourceBehindStalledRelay(t *testing.T) {
	t.Parallel() // one of the longest: it runs beside the others on a second core
	seeds := scenarioSeeds(200)
	if testing.Short() {
		seeds = seeds[:40]
	}
	var probes, settledLate uint64
	for _, seed := range seeds {
		o := newOwedNet(t, seed, 30)
		// The relay: the non-vertex servant with the most below it.
		var relay newsnet.ServantID
		var under []newsnet.ServantID
		for _, id := range o.ids[1:] {
			if b := o.below(id); len(b) > len(under) {
				relay, under = id, b
			}
		}
		if relay == "" {
			t.Fatalf("seed %d: no relay with a subtree in %d servants", seed, len(o.ids))
		}
		// The source: a servant outside that subtree, not the vertex, that
		// never published.
		for _, id := range o.ids[1:] {
			if id != relay && !slices.Contains(under, id) {
				o.source = id
				break
			}
		}
		if o.source == "" {
			o.source = o.ids[0]
		}
		freeze := 8 * time.Second
		st := o.Node(relay).Servant.Status()
		if seed%2 == 1 {
			for _, l := range st.Links {
				o.Stall(l.Peer, relay, freeze)
				o.Stall(relay, l.Peer, freeze)
			}
		} else {
			o.Stall(st.Up, relay, freeze)
		}
		// The first items go out during the freeze; the last ones after
		// it, when the relay's subtree has re-formed or caught up, so
		// that some servants first meet the source at a high count.
		r := o.Rand()
		o.RunFor(time.Duration(200+r.IntN(1000)) * time.Millisecond)
		o.publish(150+r.IntN(150), time.Duration(30+r.IntN(50))*time.Millisecond)
		if !o.RunUntil(3*time.Minute, o.complete) {
			t.Errorf("seed %d: not complete 3 minutes after the freeze of %s (%d below it)", seed, relay, len(under))
		}
		o.RunFor(5 * time.Second)
		o.check(t, seed)
		for _, nd := range o.Alive() {
			if c := nd.Servant.Status().Counters; c.AskedOwed > 0 {
				probes += c.AskedOwed
				settledLate++
			}
		}
	}
	t.Logf("%d seeds: %d servants probed for owed counts, %d probes in all", len(seeds), settledLate, probes)
	if settledLate == 0 {
		t.Errorf("no servant ever met the source late: the test tests nothing")
	}
}

// A servant that joins long after a source's items were published is not
// owed them: meeting the source at a count above 1, it takes the source
// from its first item published since it attached, and asks for none of
// the older ones, not even those its history window describes. No
// archive, so nothing brings them as catch-up either.
func TestFreshJoinerNotOwedOldHistory(t *testing.T) {
	n := New(7)
	checkEveryStep(t, n)
	vertex, pub := newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.1.1:7400")
	n.Add(vertex, []newsnet.ServantID{vertex})
	n.Add(pub, []newsnet.ServantID{vertex})
	n.RunUntil(time.Minute, n.Converged)
	var old [][16]byte
	for range 30 {
		old = append(old, n.Publish(pub, "hr"))
	}
	n.RunFor(10 * time.Minute) // well beyond ClockSkew
	joiner := newsnet.ServantID("10.0.2.1:7400")
	n.Add(joiner, []newsnet.ServantID{vertex}, "hr")
	n.RunUntil(time.Minute, n.Converged)
	fresh := n.Publish(pub, "hr")
	n.RunFor(30 * time.Second)
	nd := n.Node(joiner)
	if nd.Delivered[fresh] != 1 {
		t.Errorf("the joiner holds the item published after it joined %d times, want 1\n%s", nd.Delivered[fresh], nd.Servant.Diagnose())
	}
	for i, id := range old {
		if nd.Delivered[id] != 0 {
			t.Errorf("the joiner was delivered item %d, published 10 minutes before it joined", i+1)
		}
	}
	c := nd.Servant.Status().Counters
	if c.Lost != 0 || c.AskedMessages != 0 {
		t.Errorf("the joiner counted %d lost and asked for %d messages; want none", c.Lost, c.AskedMessages)
	}
	if c.AskedOwed == 0 {
		t.Errorf("the joiner did not look for the counts owed to it")
	}
}

// The items of a new source that passed the relay's subtree by while the
// relay was frozen, and that nobody holds any more (the publisher is gone,
// no relay keeps a cache), are counted lost by the servants below: they
// meet the source through its leading edge, cannot find which of its
// counts they are owed, fall back to what the edge's history describes,
// and give those up as lost. Nothing is given up silently.
func TestOwedItemsWithoutHolderCountedLost(t *testing.T) {
	n := New(11)
	checkEveryStep(t, n)
	n.Base.RelayCache = 0
	vertex := newsnet.ServantID("10.0.0.1:7400")
	pub := newsnet.ServantID("10.0.1.1:7400")
	relay := newsnet.ServantID("10.0.2.1:7400")
	leaves := []newsnet.ServantID{"10.0.2.2:7400", "10.0.2.3:7400"}
	n.Add(vertex, []newsnet.ServantID{vertex})
	n.Add(pub, []newsnet.ServantID{vertex})
	n.RunUntil(time.Minute, n.Converged)
	n.Add(relay, []newsnet.ServantID{vertex})
	n.RunUntil(time.Minute, n.Converged)
	for _, l := range leaves {
		n.Add(l, []newsnet.ServantID{vertex}, "it")
	}
	if !n.RunUntil(time.Minute, n.Converged) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	for _, l := range leaves {
		if up := n.Node(l).Servant.Status().Up; up != relay {
			t.Fatalf("%s is attached under %s, want the relay %s", l, up, relay)
		}
	}
	n.Stall(vertex, relay, 6*time.Second)
	const items = 20
	for range items {
		n.Publish(pub, "it")
	}
	n.RunFor(100 * time.Millisecond)
	n.Crash(pub)
	n.RunFor(5 * time.Minute)
	for _, l := range leaves {
		nd := n.Node(l)
		c := nd.Servant.Status().Counters
		held := 0
		for range nd.Delivered {
			held++
		}
		t.Logf("%s: holds %d, lost %d, probes %d, asked %d messages", l, held, c.Lost, c.AskedOwed, c.AskedMessages)
		if uint64(held)+c.Lost != items {
			t.Errorf("%s holds %d items and counted %d lost, want %d in all\n%s", l, held, c.Lost, items, nd.Servant.Diagnose())
		}
	}
}
