package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// The leaf table: a simulated network in which a share of the servants
// cannot be dialed (sim.Network.Firewall: they dial out, nobody dials in),
// as employees' laptops behind firewalls and home routers. Those servants
// are leaves below the tree of dialable ones (newsnet/leaf.go). Per share:
// the tree's depth, the most leaves on a servant that is not a seed, the
// time from start to attached, and, for items published by random
// servants, the multicast frames against the minimum on the tree as it is
// (leaves included: one frame per subscribed leaf), the links each item
// crossed to a subscriber and whether every subscriber got every item exactly once.

// leafOptions configures the leaf table.
type leafOptions struct {
	N, Items int
	Seed     uint64
}

// leafResult is one row of the leaf table.
type leafResult struct {
	Share, N, Leaves   int
	DepthP50, DepthMax int
	MostLeaves         int // on a servant that is not a seed
	Capacity           int
	SeedLeaves         int // the most on a seed
	JoinP50, JoinP99   time.Duration
	FrameRatio         float64
	HopsP50, HopsMax   int
	Complete, Items    int
}

// leafMain measures 0 %, 50 % and 90 % undialable servants and prints the
// table.
func leafMain(w io.Writer, o leafOptions) {
	var rs []leafResult
	for _, share := range []int{0, 50, 90} {
		start := time.Now()
		rs = append(rs, runLeaves(o, share))
		fmt.Fprintf(os.Stderr, "leaves n=%d %d%%: %v wall\n", o.N, share, time.Since(start).Round(time.Millisecond))
	}
	printLeaves(w, rs)
}

func runLeaves(o leafOptions, share int) leafResult {
	n := sim.New(o.Seed)
	r := rand.New(rand.NewPCG(o.Seed, 24))
	ids := benchIDs(r, o.N)
	seeds := ids[:3]
	res := leafResult{Share: share, N: o.N, Items: o.Items, Capacity: newsnet.DefaultLeafCapacity(n.Base.Fanout)}

	added := map[newsnet.ServantID]time.Time{}
	attached := map[newsnet.ServantID]time.Time{}
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		if note, ok := a.(newsnet.Note); ok && strings.HasPrefix(note.Text, "attached under") {
			if _, seen := attached[id]; !seen {
				attached[id] = at
			}
		}
	}
	for i, id := range ids {
		if i >= len(seeds) && r.IntN(100) < share {
			n.Firewall(id, true)
		}
		n.Add(id, seeds, benchSubs(r)...)
		added[id] = n.Now()
		n.RunFor(10 * time.Millisecond) // a company's morning: one start every 10 ms
	}
	if !n.RunUntil(30*time.Minute, n.Settled) {
		panic(fmt.Sprintf("leaves n=%d %d%%: no convergence: %v", o.N, share, n.CheckTree()))
	}
	var joins []time.Duration
	for id, at := range attached {
		joins = append(joins, at.Sub(added[id]))
	}
	res.JoinP50, res.JoinP99 = percentile(joins, 50), percentile(joins, 99)

	sts := n.Statuses()
	var depths []int
	for _, d := range sim.DepthsOf(sts) {
		depths = append(depths, d)
	}
	res.DepthP50, res.DepthMax = intPercentile(depths, 50), slices.Max(depths)
	for _, st := range sts {
		if st.Leaf {
			res.Leaves++
		}
		if slices.Contains(seeds, st.ID) {
			res.SeedLeaves = max(res.SeedLeaves, len(st.Leaves))
			continue
		}
		res.MostLeaves = max(res.MostLeaves, len(st.Leaves))
	}

	// Items from random servants, leaves included.
	var hops []int
	n.Trace = func(_ time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Deliver); ok {
			hops = append(hops, int(d.Msg.Hops)+1) // links crossed
		}
	}
	alive := n.Alive()
	before, minimum := n.Stats["Multicast"], 0
	type sent struct {
		from newsnet.ServantID
		id   [16]byte
		cat  string
	}
	var items []sent
	for range o.Items {
		from := alive[r.IntN(len(alive))]
		cat := benchCategories[r.IntN(len(benchCategories))]
		minimum += sim.MinimumFramesOf(sts, from.ID, cat)
		items = append(items, sent{from.ID, n.PublishAt(from.ID, cat), cat})
		n.RunFor(n.Base.TickInterval)
	}
	n.RunFor(5 * time.Second)
	n.Trace = nil
	res.FrameRatio = float64(n.Stats["Multicast"]-before) / float64(max(minimum, 1))
	res.HopsP50, res.HopsMax = intPercentile(hops, 50), slices.Max(hops)
	for _, it := range items {
		if n.CheckDelivery(it.from, it.id, it.cat) == nil {
			res.Complete++
		}
	}
	return res
}

func printLeaves(w io.Writer, rs []leafResult) {
	fmt.Fprintln(w, "| N | undialable | leaves | depth p50 / max | most leaves on a non-seed (capacity) | most on a seed | join p50 / p99 | frames per item ÷ minimum | links crossed p50 / max | items complete |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %d %% | %d | %d / %d | %d (%d) | %d | %v / %v | %.2f | %d / %d | %d of %d |\n",
			r.N, r.Share, r.Leaves, r.DepthP50, r.DepthMax, r.MostLeaves, r.Capacity, r.SeedLeaves,
			r.JoinP50.Round(time.Millisecond), r.JoinP99.Round(time.Millisecond), r.FrameRatio,
			r.HopsP50, r.HopsMax, r.Complete, r.Items)
	}
}
