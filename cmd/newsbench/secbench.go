package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
)

// securityResult is one row of the security table: one batch mode of a
// security run.
type securityResult struct {
	Setup               string
	N                   int
	Mode                itemMode
	Delivered, Expected int
	// LatP50 and LatP99 are wall-clock delivery latencies of items
	// published pace apart, from before the publisher signs to the
	// subscriber's delivery. Zero in the simulator, where verification
	// takes no virtual time.
	LatP50, LatP99 time.Duration
	// CPUPerItem is the process's CPU time per delivered item; on TCP over
	// a burst of items published back to back, where verification is most
	// of the work. Zero when not measured.
	CPUPerItem time.Duration
	// Rate is deliveries per second of wall time in the TCP burst.
	Rate                    float64
	Verifications, Rejected uint64
}

// publication is one planned item: which publisher, which category.
type publication struct {
	pub int
	cat string
}

// plan draws items publications from the first pubs servants and returns
// them with the number of deliveries they must cause: every servant whose
// subscriptions match the category, except the publisher, which does not
// deliver its own items.
func plan(r *rand.Rand, items, pubs int, subs []newsnet.CategorySet) ([]publication, int) {
	ps := make([]publication, items)
	want := 0
	for i := range ps {
		ps[i] = publication{pub: r.IntN(pubs), cat: benchCategories[r.IntN(len(benchCategories))]}
		for j, s := range subs {
			if j != ps[i].pub && s.Matches(ps[i].cat) {
				want++
			}
		}
	}
	return ps, want
}

// runSimSecurity measures, in the simulator, the CPU each delivered item
// costs with bare messages, signed items and verified items, on one
// converged network of size servants. All of a batch is published at one
// virtual instant and then run for a second, so that timer upkeep (which
// is the same for every batch) stays small against the items' cost.
func runSimSecurity(size, items int, seed uint64) ([]securityResult, error) {
	n := sim.New(seed)
	r := rand.New(rand.NewPCG(seed, 99))
	ids := benchIDs(r, size)
	sec, err := newSecurity(min(size, maxBenchPublishers), func(i int, _ uuid.UUID) string { return string(ids[i]) })
	if err != nil {
		return nil, err
	}
	n.Base.Verify = sec.verify
	var subs []newsnet.CategorySet
	for _, id := range ids {
		s := benchSubs(r)
		subs = append(subs, newsnet.NewCategorySet(s...))
		n.Add(id, ids[:1], s...)
	}
	if !n.RunUntil(30*time.Minute, n.Converged) {
		return nil, fmt.Errorf("sim n=%d did not converge: %v", size, n.CheckTree())
	}
	n.RunFor(quietPeriod)

	var published map[[16]byte]bool
	delivered := 0
	n.Trace = func(_ time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Deliver); ok && published[d.Msg.ID] {
			delivered++
		}
	}
	defer func() { n.Trace = nil }()
	var out []securityResult
	for _, mode := range itemModes {
		ps, want := plan(r, items, len(sec.pubs), subs)
		published, delivered = map[[16]byte]bool{}, 0
		sec.startBatch(mode)
		cpu0, cpuOK := cpuTime()
		for _, p := range ps {
			from := ids[p.pub]
			if mode == bareItems {
				published[n.PublishAt(from, p.cat)] = true
				continue
			}
			m, err := sec.item(p.pub, p.cat, n.Node(from).OwnCount+1, n.Now())
			if err != nil {
				return nil, err
			}
			published[m.ID] = true
			n.PublishMsg(from, m)
		}
		n.RunFor(time.Second)
		cpu1, _ := cpuTime()
		res := securityResult{
			Setup: "sim", N: size, Mode: mode, Delivered: delivered, Expected: want,
			Verifications: sec.verifications.Load(), Rejected: sec.rejected.Load(),
		}
		if cpuOK && delivered > 0 {
			res.CPUPerItem = (cpu1 - cpu0) / time.Duration(delivered)
		}
		out = append(out, res)
	}
	return out, nil
}

// tcpBatch collects the deliveries of one batch of a TCP security run.
type tcpBatch struct {
	mu        sync.Mutex
	published map[[16]byte]time.Time
	lat       []time.Duration
	delivered int
	want      int
	done      chan struct{} // closed at the last wanted delivery
	doneAt    time.Time
	doneCPU   time.Duration
}

func newTCPBatch(want int) *tcpBatch {
	return &tcpBatch{published: map[[16]byte]time.Time{}, want: want, done: make(chan struct{})}
}

func (b *tcpBatch) deliver(id [16]byte, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.published[id]
	if !ok {
		return
	}
	b.lat = append(b.lat, at.Sub(t))
	b.delivered++
	if b.delivered == b.want {
		b.doneAt = at
		b.doneCPU, _ = cpuTime()
		close(b.done)
	}
}

// runTCPSecurity starts size servants over TLS 1.3 with the membership
// proof, every one a publisher of one network definition and verifying
// through Config.Verify, and publishes each mode's items twice: pace
// apart for latency, then back to back for CPU and throughput. All the
// servants share this machine's cores, so pace must leave them idle most of
// the time: otherwise the latency measures the queue of verifications that
// on a real network would run on as many computers as there are servants.
func runTCPSecurity(size, items int, pace time.Duration) ([]securityResult, error) {
	sec, err := newSecurity(size, func(_ int, src uuid.UUID) string { return src.String() })
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := rand.New(rand.NewPCG(7, 8))

	// cur is the batch the delivery callbacks, on every node's loop
	// goroutine, report to while the benchmark swaps batches.
	var cur atomic.Pointer[tcpBatch]
	c, err := startTCP(ctx, r, size, false, func(i int, cfg *node.Config) error {
		cfg.OnDeliver = func(m *newsnet.Multicast) {
			now := time.Now()
			if b := cur.Load(); b != nil {
				b.deliver(m.ID, now)
			}
		}
		cfg.Protocol.Source = sec.pubs[i].source.String()
		cfg.Protocol.Verify = sec.verify
		cfg.Security = &node.Security{Identity: sec.pubs[i].id, Secrets: func() [][]byte { return [][]byte{sec.net.Secret} }}
		return nil
	})
	if err != nil {
		return nil, err
	}
	defer c.close()
	if _, _, err := c.settle(time.Now(), 0); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	subs := make([]newsnet.CategorySet, len(c.subs))
	for i, s := range c.subs {
		subs[i] = newsnet.NewCategorySet(s...)
	}
	counts := make([]uint64, size) // each servant's last source count

	publish := func(b *tcpBatch, mode itemMode, p publication) error {
		from := c.nodes[p.pub]
		counts[p.pub]++
		start := time.Now()
		var m *newsnet.Multicast
		if mode == bareItems {
			id, err := news.NewID(start)
			if err != nil {
				return err
			}
			m = &newsnet.Multicast{ID: id, Category: p.cat, Count: counts[p.pub]}
		} else {
			var err error
			if m, err = sec.item(p.pub, p.cat, counts[p.pub], start); err != nil {
				return err
			}
		}
		b.mu.Lock()
		b.published[m.ID] = start
		b.mu.Unlock()
		_, err := from.Publish(ctx, m)
		return err
	}
	wait := func(b *tcpBatch, d time.Duration) (time.Time, time.Duration) {
		select {
		case <-b.done:
			return b.doneAt, b.doneCPU
		case <-time.After(d):
			cpu, _ := cpuTime()
			return time.Now(), cpu
		}
	}

	var out []securityResult
	for _, mode := range itemModes {
		sec.startBatch(mode)
		res := securityResult{Setup: "tcp+tls", N: size, Mode: mode}

		ps, want := plan(r, items, size, subs)
		b := newTCPBatch(want)
		cur.Store(b)
		for _, p := range ps {
			if err := publish(b, mode, p); err != nil {
				return nil, err
			}
			time.Sleep(pace)
		}
		wait(b, time.Second)
		b.mu.Lock()
		res.LatP50, res.LatP99 = percentile(b.lat, 50), percentile(b.lat, 99)
		res.Delivered, res.Expected = b.delivered, b.want
		b.mu.Unlock()

		ps, want = plan(r, items, size, subs)
		b = newTCPBatch(want)
		cur.Store(b)
		cpu0, cpuOK := cpuTime()
		start := time.Now()
		for _, p := range ps {
			if err := publish(b, mode, p); err != nil {
				return nil, err
			}
		}
		end, cpu1 := wait(b, 30*time.Second)
		cur.Store(nil)
		b.mu.Lock()
		if b.delivered > 0 {
			res.Rate = float64(b.delivered) / end.Sub(start).Seconds()
			if cpuOK {
				res.CPUPerItem = (cpu1 - cpu0) / time.Duration(b.delivered)
			}
		}
		res.Delivered += b.delivered
		res.Expected += b.want
		b.mu.Unlock()

		res.Verifications, res.Rejected = sec.verifications.Load(), sec.rejected.Load()
		out = append(out, res)
	}
	return out, nil
}

func printSecurity(w io.Writer, rs []securityResult) {
	fmt.Fprintln(w, "| setup | N | items | delivered / expected | latency p50 / p99 | × baseline | CPU per delivered item | × baseline | deliveries/s | × baseline | verifications per delivery | rejected |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	var base securityResult
	for _, r := range rs {
		if r.Mode == bareItems {
			base = r
		}
		lat, latX := "— (virtual time)", "—"
		if r.LatP50 > 0 {
			lat = fmt.Sprintf("%v / %v", r.LatP50.Round(10*time.Microsecond), r.LatP99.Round(10*time.Microsecond))
			latX = fmt.Sprintf("%s / %s", ratio(float64(r.LatP50), float64(base.LatP50)), ratio(float64(r.LatP99), float64(base.LatP99)))
		}
		cpu, cpuX := "n/a", "—"
		if r.CPUPerItem > 0 {
			cpu = r.CPUPerItem.Round(100 * time.Nanosecond).String()
			cpuX = ratio(float64(r.CPUPerItem), float64(base.CPUPerItem))
		}
		rate, rateX := "—", "—"
		if r.Rate > 0 {
			rate = fmt.Sprintf("%.0f", r.Rate)
			rateX = ratio(r.Rate, base.Rate)
		}
		perDelivery := 0.0
		if r.Delivered > 0 {
			perDelivery = float64(r.Verifications) / float64(r.Delivered)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d / %d | %s | %s | %s | %s | %s | %s | %.2f | %d |\n",
			r.Setup, r.N, r.Mode, r.Delivered, r.Expected, lat, latX, cpu, cpuX, rate, rateX, perDelivery, r.Rejected)
	}
}

// ratio prints x against the baseline b, or — without a baseline.
func ratio(x, b float64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", x/b)
}
