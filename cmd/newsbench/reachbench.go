package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// The reach table (issue 15): what reach reports cost and how fast the
// publisher learns its reach, on a simulated network in virtual time.
//
// One servant (the vertex) publishes items of 1 KiB in random categories
// of benchCategories, paced or in a burst; every servant that stores an
// item opens it with probability 1/3 at a random time within a minute, as
// readers do. Report frames are all ReachReport frames sent from the first
// publication until the reports settle (the census's included), per item
// and servant; bytes are SizeOf units, as flow control counts them.

// reachOptions configures the reach table.
type reachOptions struct {
	N, Items int
	Seed     uint64
}

// reachResult is one row of the reach table.
type reachResult struct {
	Mode                   string
	Period                 time.Duration
	N, Items               int
	FramesPerItemServant   float64
	ItemFramesPerServant   float64 // frames that carried item totals
	Reach99P50, Reach99P99 time.Duration
	Unreached              int // items whose delivered count never reached 99 %
	ReportBytesPerItem     float64
	ItemBytesPerItem       float64
	PublisherMostPerPeriod int
	PublisherLinks         int
}

// reachMain measures paced and burst runs at the default report period,
// and a paced run at a short one, and prints the table.
func reachMain(w io.Writer, o reachOptions) {
	var rs []reachResult
	period := newsnet.DefaultConfig("").ReportPeriod
	for _, run := range []struct{ pace, period time.Duration }{
		{time.Second, period}, {50 * time.Millisecond, period}, {time.Second, time.Second},
	} {
		start := time.Now()
		rs = append(rs, runReach(o, run.pace, run.period))
		fmt.Fprintf(os.Stderr, "reach n=%d pace %v period %v: %v wall\n", o.N, run.pace, run.period, time.Since(start).Round(time.Millisecond))
	}
	printReach(w, rs)
}

// reads holds the reads due, by the tick they fall in.
type reads map[time.Time][]pendingRead

type pendingRead struct {
	id   newsnet.ServantID
	item [16]byte
}

func runReach(o reachOptions, pace, period time.Duration) reachResult {
	n := sim.New(o.Seed)
	n.Base.ReportPeriod = period
	r := rand.New(rand.NewPCG(o.Seed, 15))
	ids := benchIDs(r, o.N)
	for _, id := range ids {
		subs := benchSubs(r)
		if id == ids[0] {
			subs = nil
		}
		n.Add(id, ids[:1], subs...)
	}
	if !n.RunUntil(30*time.Minute, n.Settled) {
		panic(fmt.Sprintf("reach n=%d did not converge: %v", o.N, n.CheckTree()))
	}
	n.RunFor(5 * n.Base.ReportPeriod) // the census settles
	pub := ids[0]
	res := reachResult{Mode: fmt.Sprintf("1 item / %v", pace), Period: period, N: o.N, Items: o.Items}

	published := map[[16]byte]time.Time{}
	reached := map[[16]byte]time.Duration{}
	due := reads{}
	var frames, itemFrames, reportBytes, itemBytes int
	perPeriod := map[int64]int{}
	start := n.Now()
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		switch a := a.(type) {
		case newsnet.Send:
			switch m := a.Msg.(type) {
			case *newsnet.ReachReport:
				frames++
				reportBytes += newsnet.SizeOf(m)
				if len(m.Sources) > 0 {
					itemFrames++
				}
				if n.Peer(id, a.Link) == pub {
					perPeriod[int64(at.Sub(start)/n.Base.ReportPeriod)]++
				}
			case *newsnet.Multicast, *newsnet.Recovered:
				itemBytes += newsnet.SizeOf(m)
			}
		case newsnet.Deliver:
			if r.IntN(3) == 0 {
				tick := at.Add(time.Duration(r.Int64N(int64(time.Minute)))).Truncate(n.Base.TickInterval).Add(n.Base.TickInterval)
				due[tick] = append(due[tick], pendingRead{id, a.Msg.ID})
			}
		case newsnet.ReachUpdated:
			if _, done := reached[a.ID]; !done && a.Subscribers > 0 && a.Delivered*100 >= a.Subscribers*99 {
				reached[a.ID] = at.Sub(published[a.ID])
			}
		}
	}
	payload := make([]byte, 1<<10)
	for range o.Items {
		var id [16]byte
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		cat := benchCategories[r.IntN(len(benchCategories))]
		published[id] = n.Now()
		n.PublishMsg(pub, &newsnet.Multicast{ID: id, Category: cat, Payload: payload})
		due.run(n, n.Now().Add(pace))
	}
	due.run(n, n.Now().Add(2*time.Minute))
	n.RunFor(10 * n.Base.ReportPeriod)
	n.Trace = nil

	items := float64(o.Items)
	res.FramesPerItemServant = float64(frames) / items / float64(o.N)
	res.ItemFramesPerServant = float64(itemFrames) / items / float64(o.N)
	res.ReportBytesPerItem = float64(reportBytes) / items
	res.ItemBytesPerItem = float64(itemBytes) / items
	var lat []time.Duration
	for id := range published {
		if d, ok := reached[id]; ok {
			lat = append(lat, d)
		} else {
			res.Unreached++
		}
	}
	res.Reach99P50, res.Reach99P99 = percentile(lat, 50), percentile(lat, 99)
	for _, k := range perPeriod {
		res.PublisherMostPerPeriod = max(res.PublisherMostPerPeriod, k)
	}
	res.PublisherLinks = len(n.Node(pub).Servant.Status().Links)
	return res
}

// run runs the network until end, tick by tick, making the readers due
// meanwhile open their items.
func (due reads) run(n *sim.Network, end time.Time) {
	for n.Now().Before(end) {
		n.RunFor(n.Base.TickInterval)
		now := n.Now().Truncate(n.Base.TickInterval)
		for _, rd := range due[now] {
			n.Read(rd.id, rd.item)
		}
		delete(due, now)
	}
}

func printReach(w io.Writer, rs []reachResult) {
	fmt.Fprintln(w, "| N | items | publishing | report period | report frames per item per servant (with item totals) | publisher's delivered at 99 % of subscribers p50/p99 | report bytes per item | item bytes per item | report ÷ item bytes | publisher: most report frames in one period / tree links |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		note := ""
		if r.Unreached > 0 {
			note = fmt.Sprintf(" (%d items never)", r.Unreached)
		}
		fmt.Fprintf(w, "| %d | %d | %s | %v | %.3f (%.3f) | %v / %v%s | %.0f | %.0f | %.3f | %d / %d |\n",
			r.N, r.Items, r.Mode, r.Period, r.FramesPerItemServant, r.ItemFramesPerServant,
			r.Reach99P50.Round(10*time.Millisecond), r.Reach99P99.Round(10*time.Millisecond), note,
			r.ReportBytesPerItem, r.ItemBytesPerItem, r.ReportBytesPerItem/r.ItemBytesPerItem,
			r.PublisherMostPerPeriod, r.PublisherLinks)
	}
}
