package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// The direct-delivery table (issue 14): a simulated network with five
// publishers, one of them hot (a stream to subscribers deep in the tree),
// measured with direct delivery off and on in the same run.

type directOptions struct {
	N           int           // servants
	Subscribers int           // of the hot stream, each at depth >= MinDepth
	MinDepth    int           // depth of the hot stream's subscribers
	Rate        int           // hot items per second
	Span        time.Duration // virtual time the publishers publish for
	Seed        uint64
}

type directResult struct {
	Mode              string
	Items, Deliveries int
	Complete          bool
	DirectLinks       int
	HopsAll, HopsLate float64 // mean links crossed per hot delivery: whole run, last half
	// RelayAll and RelayLate: frames of hot items sent by servants other
	// than the hot publisher, per hot item; PublisherFrames: those the hot
	// publisher sent (tree and direct).
	RelayAll, RelayLate, PublisherFrames float64
	// DirectFrames: requests, answers, hellos and covers (refreshes
	// included); Setup: those up to the last subscriber's first cover.
	DirectFrames, Setup int
	SetupPerLink        float64
}

func runDirect(o directOptions, mode string, threshold, budget int) directResult {
	n := sim.New(o.Seed)
	n.Base.DirectThreshold, n.Base.DirectBudget = threshold, budget
	r := rand.New(rand.NewPCG(o.Seed, 14))
	ids := benchIDs(r, o.N)
	seeds := ids[:1]
	for _, id := range ids {
		n.Add(id, seeds, benchSubs(r)...)
	}
	if !n.RunUntil(30*time.Minute, n.Settled) {
		panic(fmt.Sprintf("direct bench: n=%d did not converge: %v", o.N, n.CheckTree()))
	}
	depth := sim.DepthsOf(n.Statuses())
	var deep, shallow []newsnet.ServantID
	for _, id := range ids[1:] {
		switch d := depth[id]; {
		case d >= o.MinDepth:
			deep = append(deep, id)
		case d >= 1:
			shallow = append(shallow, id)
		}
	}
	if len(deep) < o.Subscribers || len(shallow) < 5 {
		panic(fmt.Sprintf("direct bench: %d servants at depth >= %d, %d above: too few", len(deep), o.MinDepth, len(shallow)))
	}
	hot, others, subs := shallow[0], shallow[1:5], deep[:o.Subscribers]
	isSub := map[newsnet.ServantID]bool{}
	for _, id := range subs {
		isSub[id] = true
		n.Subscribe(id, append(n.Node(id).Subscriptions, "hot")...)
	}
	n.RunUntil(time.Minute, n.Settled)

	res := directResult{Mode: mode}
	late := false
	var hopsAll, hopsLate, nAll, nLate, relayAll, relayLate, pub int
	var setupDone time.Time
	var directAt []time.Time
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		switch a := a.(type) {
		case newsnet.Send:
			switch m := a.Msg.(type) {
			case *newsnet.Multicast:
				switch {
				case m.Source != string(hot):
				case id == hot:
					pub++
				default:
					relayAll++
					if late {
						relayLate++
					}
				}
			case *newsnet.DirectRequest, *newsnet.DirectAnswer, *newsnet.DirectHello, *newsnet.DirectCover:
				directAt = append(directAt, at)
				if c, ok := m.(*newsnet.DirectCover); ok && isSub[id] && len(c.Categories) > 0 && !seenCover[id] {
					seenCover[id] = true
					setupDone = at
				}
			}
		case newsnet.Deliver:
			if a.Msg.Source != string(hot) || !isSub[id] {
				return
			}
			h := int(a.Msg.Hops) + 1
			hopsAll += h
			nAll++
			if late {
				hopsLate += h
				nLate++
			}
		}
	}
	var hotIDs [][16]byte
	start := n.Now()
	step := time.Second / time.Duration(o.Rate)
	lateItems := 0
	for n.Now().Sub(start) < o.Span {
		late = n.Now().Sub(start) >= o.Span/2
		hotIDs = append(hotIDs, n.Publish(hot, "hot"))
		if late {
			lateItems++
		}
		if len(hotIDs)%o.Rate == 0 { // the others: one item a second each
			for _, p := range others {
				n.Publish(p, benchCategories[r.IntN(len(benchCategories))])
			}
		}
		n.RunFor(step)
	}
	n.RunFor(10 * time.Second)
	n.Trace = nil
	clear(seenCover)

	res.Items, res.Complete = len(hotIDs), true
	for _, id := range subs {
		nd := n.Node(id)
		got := nd.Order[string(hot)]
		if len(got) != len(hotIDs) || !slices.IsSorted(got) {
			res.Complete = false
		}
		for _, m := range hotIDs {
			if nd.Delivered[m] != 1 {
				res.Complete = false
			}
		}
		res.Deliveries += len(got)
		res.DirectLinks += len(nd.Servant.Status().Direct)
	}
	res.HopsAll = float64(hopsAll) / float64(max(nAll, 1))
	res.HopsLate = float64(hopsLate) / float64(max(nLate, 1))
	res.RelayAll = float64(relayAll) / float64(max(res.Items, 1))
	res.RelayLate = float64(relayLate) / float64(max(lateItems, 1))
	res.PublisherFrames = float64(pub) / float64(max(res.Items, 1))
	res.DirectFrames = len(directAt)
	for _, at := range directAt {
		if !at.After(setupDone) {
			res.Setup++
		}
	}
	if res.DirectLinks > 0 {
		res.SetupPerLink = float64(res.Setup) / float64(res.DirectLinks)
	}
	return res
}

// seenCover marks the subscribers whose first cover went out.
var seenCover = map[newsnet.ServantID]bool{}

func directMain(w io.Writer, o directOptions) {
	fmt.Fprintf(w, "Direct delivery: sim, %d servants, 5 publishers, one hot: %d items/s of \"hot\" for %v to %d subscribers at depth >= %d; the others 1 item/s each.\n\n",
		o.N, o.Rate, o.Span, o.Subscribers, o.MinDepth)
	fmt.Fprintln(w, "| mode | hot items | delivered once, in order | direct links | links crossed per hot delivery (all / last half) | relay frames per hot item (all / last half) | publisher frames per hot item | direct control frames: setup / in all | setup frames per direct link |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	def := newsnet.DefaultConfig("")
	for _, run := range []struct {
		mode              string
		threshold, budget int
	}{
		{"off (DirectThreshold 0)", 0, def.DirectBudget},
		{fmt.Sprintf("on, defaults (%d items / %v, budget %d)", newsnet.SuggestedDirectThreshold, def.DirectWindow, def.DirectBudget), newsnet.SuggestedDirectThreshold, def.DirectBudget},
		{fmt.Sprintf("on, budget %d", o.Subscribers), newsnet.SuggestedDirectThreshold, o.Subscribers},
	} {
		start := time.Now()
		r := runDirect(o, run.mode, run.threshold, run.budget)
		fmt.Fprintf(os.Stderr, "direct n=%d %s: %v wall\n", o.N, run.mode, time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(w, "| %s | %d | %v (%d deliveries) | %d | %.2f / %.2f | %.2f / %.2f | %.2f | %d / %d | %.1f |\n",
			r.Mode, r.Items, r.Complete, r.Deliveries, r.DirectLinks, r.HopsAll, r.HopsLate, r.RelayAll, r.RelayLate,
			r.PublisherFrames, r.Setup, r.DirectFrames, r.SetupPerLink)
	}
}
