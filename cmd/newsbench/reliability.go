package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// The reliability measurements of issue 4 (JP3679935B2 on the tree), all in
// the simulator so that losses, churn and sizes are repeatable.

// reliabilityNetwork builds servants under an archive seed, each subscribing
// to "company" and to each other category with probability 1/5.
func reliabilityNetwork(seed uint64, servants, categories int) (*sim.Network, []newsnet.ServantID, []string) {
	n := sim.New(seed)
	r := rand.New(rand.NewPCG(seed, 5))
	cats := []string{"company"}
	for i := 1; i < categories; i++ {
		cats = append(cats, fmt.Sprintf("dept%d", i))
	}
	ids := benchIDs(r, servants)
	for i, id := range ids {
		if i == 0 {
			n.Add(id, ids[:1], newsnet.AllCategories)
			continue
		}
		subs := []string{"company"}
		for _, c := range cats[1:] {
			if r.IntN(5) == 0 {
				subs = append(subs, c)
			}
		}
		n.Add(id, ids[:1], subs...)
	}
	if !n.RunUntil(10*time.Minute, n.Converged) {
		panic("reliability network did not converge")
	}
	return n, ids, cats
}

// streamResult is what a stream of items under (optional) churn produced.
type streamResult struct {
	latP50, latP99             time.Duration
	needed, skipped            uint64 // missed counts classified needed / not needed
	askedMsgs, askedClasses    uint64 // counts asked for (retries included)
	histP50, histP99, histMean int    // history bytes per message
}

// runStream publishes items from a few sources, optionally crashing and
// restarting relays meanwhile, and measures delivery latency, gap
// classification and history sizes.
func runStream(seed uint64, churn bool) streamResult {
	n, ids, cats := reliabilityNetwork(seed, 300, 20)
	r := rand.New(rand.NewPCG(seed, 6))
	sources := ids[1:11]
	others := ids[11:]
	published := map[[16]byte]time.Time{}
	// Latency counts servants that were up from the publication on: one that
	// was down gets the item when it returns, which says nothing of the
	// protocol's speed.
	upSince := map[newsnet.ServantID]time.Time{}
	var lat []time.Duration
	var hist []int
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		switch a := a.(type) {
		case newsnet.Deliver:
			if t, ok := published[a.Msg.ID]; ok && !upSince[id].After(t) {
				lat = append(lat, at.Sub(t))
			}
		case newsnet.Send:
			if m, ok := a.Msg.(*newsnet.Multicast); ok && m.Source != "" && len(hist) < 100000 {
				hist = append(hist, historyBytes(m))
			}
		}
	}
	for i := range 3000 {
		src := sources[r.IntN(len(sources))]
		published[n.Publish(src, cats[r.IntN(len(cats))])] = n.Now()
		if churn && i%10 == 9 {
			victim := others[r.IntN(len(others))]
			if n.Node(victim).Alive {
				n.Crash(victim)
				upSince[victim] = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
			} else {
				n.Restart(victim)
				upSince[victim] = n.Now()
			}
		}
		n.RunFor(20 * time.Millisecond)
	}
	for _, id := range others {
		if !n.Node(id).Alive {
			n.Restart(id)
			upSince[id] = n.Now()
		}
	}
	n.RunFor(2 * time.Minute)
	var res streamResult
	for _, nd := range n.Alive() {
		c := nd.Servant.Status().Counters
		res.needed += c.GapNeeded
		res.skipped += c.GapSkipped
		res.askedMsgs += c.AskedMessages
		res.askedClasses += c.AskedClasses
	}
	res.latP50, res.latP99 = percentile(lat, 50), percentile(lat, 99)
	res.histP50, res.histP99, res.histMean = intPercentile(hist, 50), intPercentile(hist, 99), mean(hist)
	return res
}

// historyBytes is what m's history adds on the wire to an empty one.
func historyBytes(m *newsnet.Multicast) int {
	runs := m.HistoryRuns()
	n := uvarintLen(uint64(len(runs))) - 1
	for _, r := range runs {
		n += uvarintLen(uint64(r.Short)) + uvarintLen(uint64(r.Len))
	}
	return n
}

func uvarintLen(v uint64) int {
	return len(binary.AppendUvarint(nil, v))
}

// runCatchUp stops one subscriber, publishes items until it has missed
// `missed` items of its categories, restarts it, and measures the virtual
// time until it holds them all and the bytes sent to it meanwhile.
func runCatchUp(seed uint64, missed int) (took time.Duration, bytes int, got int) {
	n, ids, _ := reliabilityNetwork(seed, 50, 10)
	src, sub := ids[1], ids[2]
	n.Subscribe(sub, "company")
	if !n.RunUntil(time.Minute, n.Converged) {
		panic("catch-up network did not converge")
	}
	n.Stop(sub)
	for range missed {
		n.Publish(src, "company")
		n.RunFor(time.Millisecond)
	}
	n.RunFor(5 * time.Second)
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && n.Peer(id, s.Link) == sub {
			b, _ := newsnet.EncodeMessage(s.Msg)
			bytes += len(b) + 4
		}
	}
	start := n.Now()
	n.Restart(sub)
	nd := n.Node(sub)
	n.RunUntil(10*time.Minute, func() bool { return len(nd.Order[string(src)]) >= missed })
	return n.Now().Sub(start), bytes, len(nd.Order[string(src)])
}

func intPercentile(xs []int, p float64) int {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x)
	}
	return int(percentile(ds, p))
}

func mean(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	t := 0
	for _, x := range xs {
		t += x
	}
	return t / len(xs)
}

// printReliability runs the reliability measurements and prints their table.
func printReliability(w io.Writer, seed uint64) {
	calm := runStream(seed, false)
	churn := runStream(seed, true)
	took, bytes, got := runCatchUp(seed, 10000)

	fmt.Fprintln(w, "| measure | result |")
	fmt.Fprintln(w, "|---|---|")
	ours := float64(churn.askedMsgs+churn.askedClasses) / float64(max(churn.needed, 1))
	naive := float64(churn.needed+churn.skipped) / float64(max(churn.needed, 1))
	fmt.Fprintf(w, "| retransmission requests per lost needed item (churn) | %.2f (naive \"every missing count\": %.1f, %.0f× more) |\n", ours, naive, naive/ours)
	fmt.Fprintf(w, "| missed counts under churn: needed / skipped without a request | %d / %d |\n", churn.needed, churn.skipped)
	fmt.Fprintf(w, "| history bytes per message p50 / p99 (mean) | %d / %d (%d) |\n", calm.histP50, calm.histP99, calm.histMean)
	fmt.Fprintf(w, "| catch-up of %d missed items: time / bytes to the servant | %v / %.1f MB (%d items back) |\n", 10000, took.Round(time.Millisecond), float64(bytes)/1e6, got)
	fmt.Fprintf(w, "| delivery latency p50 / p99, no churn | %v / %v |\n", calm.latP50.Round(100*time.Microsecond), calm.latP99.Round(100*time.Microsecond))
	fmt.Fprintf(w, "| delivery latency p50 / p99, a servant crashes or restarts every 200 ms (servants up throughout) | %v / %v |\n", churn.latP50.Round(100*time.Microsecond), churn.latP99.Round(100*time.Microsecond))
}
