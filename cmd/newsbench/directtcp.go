package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
	"newsdesk/trust"
)

// The direct-delivery table's TCP rows (issue 14): the simulated workload
// of directbench.go on real servants on loopback (node.Start), with the
// production defaults of newsnet.DefaultConfig but the 20 ms tick of the
// other TCP tables (tcpCore). Each mode starts a fresh network from the
// same seed (the same addresses and subscriptions), waits until the tree is
// settled, picks the publishers and the hot stream's subscribers by their
// depth as the simulated table does, subscribes the subscribers to "hot"
// (Node.Subscribe), waits again, and publishes for the span.
//
// What is measured, for the hot stream only:
//   - latency from just before Publish to the subscriber's OnDeliver;
//   - links crossed per delivery: Multicast.Hops + 1 at OnDeliver;
//   - frames: every servant's Config.Verify hook sees every multicast
//     frame it receives (tree, direct or retransmitted) before anything
//     else happens to it; a hot frame with Hops 0 was sent by the
//     publisher (tree or direct link), one with Hops > 0 by a relay. The
//     node's Counters.Relayed counts relayed frames of every source, so it
//     cannot tell the hot stream apart;
//   - direct control frames: Counters.DirectFrames summed over the network,
//     sampled once a second; setup is the first sample at least 250 ms
//     after the last subscriber's first direct item (the moment its first
//     cover goes out, which the simulated table takes).

// directHotID is the ID of hot item k: distinct from every other ID the
// run publishes (those end in 0x00).
func directHotID(k int) [16]byte {
	var id [16]byte
	id[0], id[1], id[2], id[3] = byte(k), byte(k>>8), byte(k>>16), byte(k>>24)
	id[15] = 0x14
	return id
}

// directTally is one servant's hot deliveries. OnDeliver runs on the
// servant's loop goroutine; the mutex is for the reads from the benchmark.
type directTally struct {
	mu        sync.Mutex
	sub       bool    // subscribed to the hot stream
	got       []uint8 // deliveries per hot item, saturating
	lastCount uint64
	outOfOrder,
	unwanted int
	lat, latLate      []time.Duration
	hops, hopsLate    int // links crossed, summed
	treeHops          int // Hops+1 of the first hot delivery; -1 before it
	firstDirect       time.Time
	nAll, nLate, dups int
}

type directTCPResult struct {
	Mode                        string
	Items, Deliveries           int
	Complete                    bool
	Missing, Duplicates         int
	OutOfOrder, Unwanted        int
	DirectLinks                 int
	P50, P99, P50Late, P99Late  time.Duration
	HopsAll, HopsLate           float64
	RelayAll, RelayLate         float64
	PublisherFrames             float64
	DirectSent, DirectReceived  uint64 // at the hot publisher; summed over the subscribers
	DirectFrames, Setup         uint64
	SetupPerLink                float64
	CPUPerItem                  time.Duration // the whole process's CPU over the span, per hot item
	Recovery, RelayedAllSources uint64        // network deltas, every source
	PublishLate                 int           // publications that started more than one step late
	LoadBefore, LoadAfter       string
	Converge                    time.Duration
	subsMinDepth, subsMaxDepth  int
	publisherDepth              string
}

// runDirectTCP runs one mode of the TCP table on a fresh network of size
// servants.
func runDirectTCP(o directOptions, size int, mode string, minHops, budget int, secure bool) (directTCPResult, error) {
	res := directTCPResult{Mode: mode, LoadBefore: loadAverage()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := rand.New(rand.NewPCG(o.Seed, 14))
	step := time.Second / time.Duration(o.Rate)
	items := int(o.Span / step)
	index := make(map[[16]byte]int, items) // read-only once built
	for k := range items {
		index[directHotID(k)] = k
	}
	late := items / 2
	pubAt := make([]atomic.Int64, items)
	var relayAll, relayLate, pubFrames atomic.Int64
	verify := func(m *newsnet.Multicast) string {
		if m.Category != "hot" {
			return ""
		}
		k, ok := index[m.ID]
		if !ok {
			return ""
		}
		if m.Hops == 0 {
			pubFrames.Add(1)
		} else {
			relayAll.Add(1)
			if k >= late {
				relayLate.Add(1)
			}
		}
		return ""
	}
	var secret []byte
	if secure {
		var err error
		if secret, err = trust.NewSecret(); err != nil {
			return res, err
		}
	}

	var tallies []*directTally
	start := time.Now()
	c, err := startTCP(ctx, r, size, false, func(_ int, cfg *node.Config) error {
		t := &directTally{got: make([]uint8, items), treeHops: -1}
		tallies = append(tallies, t)
		cfg.Protocol.DirectMinHops, cfg.Protocol.DirectBudget = minHops, budget
		cfg.Protocol.DirectThreshold = newsnet.SuggestedDirectThreshold // opted in; "off" is minHops out of reach
		cfg.Protocol.Verify = verify
		cfg.OnDeliver = func(m *newsnet.Multicast) {
			now := time.Now()
			if m.Category != "hot" {
				return
			}
			k, ok := index[m.ID]
			t.mu.Lock()
			defer t.mu.Unlock()
			switch {
			case !ok || !t.sub:
				t.unwanted++
				return
			case t.got[k] > 0:
				t.dups++
				t.got[k] = min(t.got[k], 254) + 1
				return
			}
			t.got[k] = 1
			if m.Count < t.lastCount {
				t.outOfOrder++
			}
			t.lastCount = max(t.lastCount, m.Count)
			h := int(m.Hops) + 1
			if t.treeHops < 0 {
				t.treeHops = h
			}
			// A copy with Hops 0 came straight from the publisher: over a
			// direct link, unless the publisher is our tree neighbour.
			if h == 1 && t.treeHops > 1 && t.firstDirect.IsZero() {
				t.firstDirect = now
			}
			d := now.Sub(time.Unix(0, pubAt[k].Load()))
			t.lat = append(t.lat, d)
			t.hops += h
			t.nAll++
			if k >= late {
				t.latLate = append(t.latLate, d)
				t.hopsLate += h
				t.nLate++
			}
		}
		if secure {
			id, err := trust.GenerateIdentity()
			if err != nil {
				return err
			}
			cfg.Security = &node.Security{Identity: id, Secrets: func() [][]byte { return [][]byte{secret} }}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	defer func() { closeAll(c.nodes) }()
	if res.Converge, _, err = c.settle(start, 0); err != nil {
		return res, fmt.Errorf("join: %w", err)
	}

	// Publishers at depth 1-2, subscribers at depth >= MinDepth, in the
	// servants' order, as the simulated table picks them.
	depth := sim.DepthsOf(c.statuses())
	var deep, shallow []int
	for i, nd := range c.nodes[1:] {
		switch d := depth[nd.Addr()]; {
		case d >= o.MinDepth:
			deep = append(deep, i+1)
		case d >= 1:
			shallow = append(shallow, i+1)
		}
	}
	if len(deep) < o.Subscribers || len(shallow) < 5 {
		return res, fmt.Errorf("%d servants at depth >= %d, %d above: too few", len(deep), o.MinDepth, len(shallow))
	}
	hot, others, subs := c.nodes[shallow[0]], shallow[1:5], deep[:o.Subscribers]
	res.publisherDepth = fmt.Sprint(depth[hot.Addr()])
	res.subsMinDepth = 1 << 30
	for _, i := range subs {
		tallies[i].mu.Lock()
		tallies[i].sub = true
		tallies[i].mu.Unlock()
		if err := c.nodes[i].Subscribe("hot"); err != nil {
			return res, err
		}
		d := depth[c.nodes[i].Addr()]
		res.subsMinDepth, res.subsMaxDepth = min(res.subsMinDepth, d), max(res.subsMaxDepth, d)
	}
	if _, _, err := c.settle(time.Now(), c.controlTotal()); err != nil {
		return res, fmt.Errorf("after subscribing: %w", err)
	}
	before := c.statuses()

	// Sample the network's direct control frames once a second.
	type sample struct {
		at     time.Time
		frames uint64
	}
	var samples []sample
	sampleStop, sampleDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampleDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-sampleStop:
				return
			case <-tick.C:
			}
			var f uint64
			for _, nd := range c.nodes {
				f += nd.Status().Counters.DirectFrames
			}
			samples = append(samples, sample{time.Now(), f})
		}
	}()

	cpu0, cpuOK := cpuTime()
	first := time.Now()
	other := uint32(0)
	for k := range items {
		at := first.Add(time.Duration(k) * step)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		} else if -d > step {
			res.PublishLate++
		}
		pubAt[k].Store(time.Now().UnixNano())
		if _, err := hot.Publish(ctx, &newsnet.Multicast{ID: directHotID(k), Category: "hot"}); err != nil {
			close(sampleStop)
			<-sampleDone
			return res, fmt.Errorf("publish: %w", err)
		}
		if (k+1)%o.Rate == 0 { // the others: one item a second each
			for _, i := range others {
				other++
				m := &newsnet.Multicast{Category: benchCategories[r.IntN(len(benchCategories))]}
				m.ID[0], m.ID[1], m.ID[2], m.ID[3], m.ID[14] = byte(other), byte(other>>8), byte(other>>16), byte(other>>24), 0x4f
				if _, err := c.nodes[i].Publish(ctx, m); err != nil {
					close(sampleStop)
					<-sampleDone
					return res, fmt.Errorf("publish: %w", err)
				}
			}
		}
	}
	cpu1, _ := cpuTime()
	// Wait for the last items (10 s at most, as the simulated table runs
	// on for 10 s), then a second for duplicates to show.
	want := items * len(subs)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		n := 0
		for _, i := range subs {
			tallies[i].mu.Lock()
			n += tallies[i].nAll
			tallies[i].mu.Unlock()
		}
		if n >= want {
			break
		}
	}
	time.Sleep(time.Second)
	close(sampleStop)
	<-sampleDone
	after := c.statuses()
	res.LoadAfter = loadAverage()

	res.Items, res.Complete = items, true
	var lat, latLate []time.Duration
	var hops, hopsLate, nAll, nLate int
	var setupDone time.Time
	for _, t := range tallies {
		t.mu.Lock()
		res.Unwanted += t.unwanted
		if t.sub {
			for _, g := range t.got {
				if g == 0 {
					res.Missing++
				}
			}
			res.Duplicates += t.dups
			res.OutOfOrder += t.outOfOrder
			res.Deliveries += t.nAll
			lat, latLate = append(lat, t.lat...), append(latLate, t.latLate...)
			hops, hopsLate, nAll, nLate = hops+t.hops, hopsLate+t.hopsLate, nAll+t.nAll, nLate+t.nLate
			if t.firstDirect.After(setupDone) {
				setupDone = t.firstDirect
			}
		}
		t.mu.Unlock()
	}
	res.Complete = res.Missing == 0 && res.Duplicates == 0 && res.OutOfOrder == 0 && res.Unwanted == 0
	res.P50, res.P99 = percentile(lat, 50), percentile(lat, 99)
	res.P50Late, res.P99Late = percentile(latLate, 50), percentile(latLate, 99)
	res.HopsAll = float64(hops) / float64(max(nAll, 1))
	res.HopsLate = float64(hopsLate) / float64(max(nLate, 1))
	res.RelayAll = float64(relayAll.Load()) / float64(max(items, 1))
	res.RelayLate = float64(relayLate.Load()) / float64(max(items-late, 1))
	res.PublisherFrames = float64(pubFrames.Load()) / float64(max(items, 1))
	if cpuOK {
		res.CPUPerItem = (cpu1 - cpu0) / time.Duration(max(items, 1))
	}

	isSub := map[int]bool{}
	for _, i := range subs {
		isSub[i] = true
	}
	var base uint64
	for i := range after {
		b, a := before[i].Counters, after[i].Counters
		base += b.DirectFrames
		res.DirectFrames += a.DirectFrames - b.DirectFrames
		res.Recovery += a.RecoveryFrames - b.RecoveryFrames
		res.RelayedAllSources += a.Relayed - b.Relayed
		if c.nodes[i] == hot {
			res.DirectSent = a.DirectSent - b.DirectSent
		}
		if isSub[i] {
			res.DirectReceived += a.DirectReceived - b.DirectReceived
			for _, d := range after[i].Direct {
				if d.Role == newsnet.DirectSubscriber {
					res.DirectLinks++
				}
			}
		}
	}
	if !setupDone.IsZero() {
		res.Setup = res.DirectFrames // no sample late enough: the whole run
		for _, s := range samples {
			if !s.at.Before(setupDone.Add(250 * time.Millisecond)) {
				res.Setup = s.frames - base
				break
			}
		}
	}
	if res.DirectLinks > 0 {
		res.SetupPerLink = float64(res.Setup) / float64(res.DirectLinks)
	}
	return res, nil
}

func (r *directTCPResult) summary() string {
	return fmt.Sprintf("converge=%v publisher depth %s, subscribers depth %d-%d; complete=%v deliveries=%d missing=%d dup=%d outOfOrder=%d unwanted=%d directLinks=%d p50=%v p99=%v late p50=%v p99=%v hops=%.2f/%.2f relay=%.2f/%.2f publisher=%.2f directSent=%d directReceived=%d directFrames=%d setup=%d recovery=%d relayedAllSources=%d cpu/item=%v publishLate=%d load before%s, after%s",
		r.Converge.Round(time.Millisecond), r.publisherDepth, r.subsMinDepth, r.subsMaxDepth,
		r.Complete, r.Deliveries, r.Missing, r.Duplicates, r.OutOfOrder, r.Unwanted, r.DirectLinks,
		roundDur(r.P50), roundDur(r.P99), roundDur(r.P50Late), roundDur(r.P99Late), r.HopsAll, r.HopsLate,
		r.RelayAll, r.RelayLate, r.PublisherFrames, r.DirectSent, r.DirectReceived, r.DirectFrames, r.Setup,
		r.Recovery, r.RelayedAllSources, r.CPUPerItem.Round(time.Microsecond), r.PublishLate, r.LoadBefore, r.LoadAfter)
}

// directTCPMain runs and prints the TCP table: the three modes of the
// simulated table, each on a fresh network, with one line per run on
// stderr.
func directTCPMain(w io.Writer, o directOptions, size int, secure bool) error {
	setup := "plain TCP"
	if secure {
		setup = "TLS 1.3 with the membership proof"
	}
	fmt.Fprintf(w, "Direct delivery: %d servants on loopback (%s), 5 publishers, one hot: %d items/s of \"hot\" for %v to %d subscribers at depth >= %d; the others 1 item/s each.\n\n",
		size, setup, o.Rate, o.Span, o.Subscribers, o.MinDepth)
	fmt.Fprintln(w, "| mode | hot items | publisher depth / subscribers' depths | delivered once, in order | direct links | latency p50 / p99 (all) | latency p50 / p99 (last half) | links crossed per hot delivery (all / last half) | relay frames per hot item (all / last half) | publisher frames per hot item | items sent / received directly | direct control frames: setup / in all | setup frames per direct link | process CPU per hot item (all servants, all traffic) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	// Off is DirectMinHops out of reach (no source is ever far enough, so
	// no servant asks), as docs/benchmarks.md's table was measured; DirectThreshold
	// 0 does the same since node.Start keeps that zero.
	def := newsnet.DefaultConfig("")
	for _, run := range []struct {
		mode            string
		minHops, budget int
	}{
		{"off (DirectMinHops out of reach)", math.MaxInt32, def.DirectBudget},
		{fmt.Sprintf("on, defaults (%d items / %v, budget %d)", newsnet.SuggestedDirectThreshold, def.DirectWindow, def.DirectBudget), def.DirectMinHops, def.DirectBudget},
		{fmt.Sprintf("on, budget %d", o.Subscribers), def.DirectMinHops, o.Subscribers},
	} {
		start := time.Now()
		r, err := runDirectTCP(o, size, run.mode, run.minHops, run.budget, secure)
		if err != nil {
			return fmt.Errorf("%s: %w", run.mode, err)
		}
		fmt.Fprintf(os.Stderr, "direct tcp n=%d %s (%v wall): %s\n", size, run.mode, time.Since(start).Round(time.Second), r.summary())
		fmt.Fprintf(w, "| %s | %d | %s / %d–%d | %v (%d deliveries) | %d | %v / %v | %v / %v | %.2f / %.2f | %.2f / %.2f | %.2f | %d / %d | %d / %d | %.1f | %v |\n",
			r.Mode, r.Items, r.publisherDepth, r.subsMinDepth, r.subsMaxDepth, r.Complete, r.Deliveries, r.DirectLinks,
			roundDur(r.P50), roundDur(r.P99), roundDur(r.P50Late), roundDur(r.P99Late),
			r.HopsAll, r.HopsLate, r.RelayAll, r.RelayLate, r.PublisherFrames,
			r.DirectSent, r.DirectReceived, r.Setup, r.DirectFrames, r.SetupPerLink,
			r.CPUPerItem.Round(time.Microsecond))
	}
	return nil
}
