package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/trust"
)

// The stress table is issue 10's benchmark: the workload that used to lose
// items silently. 200 real servants on loopback (node.Start, TCP), the seed
// (the vertex) the only publisher, 4 categories each servant takes with
// probability 1/3, 2,000 items of 1 KiB. Every run starts a fresh network
// with the production defaults of newsnet.DefaultConfig (100 ms tick, 1 MiB
// link buffer), waits until the tree is settled and quiet, and then
// publishes:
//
//   - burst: all items back to back, as fast as node.Publish takes them
//     (it waits while the servant is backlogged: that is the back-pressure);
//   - paced: one item every 1/rate, over plain TCP and over TLS 1.3 with the
//     membership proof.
//
// A run is complete when every subscriber has delivered every item of its
// categories, and none twice, within the deadline. Counters are taken after
// the network settled and again after the run, so the catch-up done at join
// is not counted as recovery.

// stressCategories are the four categories of the workload.
var stressCategories = []string{"company", "it", "hr", "sales"}

// stressSubs draws a servant's subscriptions: each category with
// probability 1/3.
func stressSubs(r *rand.Rand) []string {
	var subs []string
	for _, c := range stressCategories {
		if r.IntN(3) == 0 {
			subs = append(subs, c)
		}
	}
	return subs
}

// stressOptions configures the stress table.
type stressOptions struct {
	N, Items  int
	BurstRuns int
	PacedRuns int
	PaceRate  int // items per second in the paced runs
	Deadline  time.Duration
	// Tick replaces the core's TickInterval when non-zero (a diagnostic:
	// the table is measured with the defaults).
	Tick time.Duration
	Seed uint64
	Log  io.Writer // one line per run
	// CPUProfile, when set, names the files of CPU profiles taken from the
	// first publication to the last delivery of each run (the file name
	// gets "-<mode>-<run>" before its extension): a profile of the whole
	// command is mostly starting and settling the network.
	CPUProfile string
}

// stressMode is one row of the table: how items are published and over
// which links.
type stressMode struct {
	Name   string
	Pace   time.Duration // between publications; 0 is a burst
	Secure bool
	Runs   int
}

// stressRun is what one run measured.
type stressRun struct {
	Want, Delivered int // first deliveries of wanted items, and how many were wanted
	// Duplicates are second deliveries of an item to one servant; Unwanted
	// are deliveries of a category the servant did not subscribe to (or of
	// an item that was never published); OutOfOrder are deliveries of a
	// count below one already delivered from the same source.
	Duplicates, Unwanted, OutOfOrder int
	Complete                         bool
	Rate                             float64       // wanted deliveries ÷ (last delivery − first publish)
	Elapsed                          time.Duration // first publish to last delivery (or to the deadline)
	PublishTime                      time.Duration // first publish to the return of the last Publish call
	Lat                              []time.Duration
	LatP50, LatP99                   time.Duration
	// CPUPerDelivery is the process's CPU time (all 200 servants) from the
	// first publication to the last delivery, per wanted delivery; zero
	// when not measured. With the machine's cores it tells how close to
	// saturation a run was.
	CPUPerDelivery time.Duration
	// GCs and GCPause: garbage collections during the run and their total
	// stop-the-world pause.
	GCs     uint32
	GCPause time.Duration
	// TooSlow are links closed because a peer was too slow: the core's
	// "peer too slow" (no progress for LinkTimeout), a send queue over the
	// runtime's hard cap, or a write that timed out. OtherDrops are the
	// other links closed or lost while items flowed, by reason.
	TooSlow    int
	OtherDrops map[string]int
	// CountMismatch counts publications the core numbered differently from
	// what the archive stored them under (a benchmark bug if not zero).
	CountMismatch int
	// Deltas of the servants' counters summed over the network, from after
	// the network settled to the end of the run.
	Counters newsnet.Counters
}

// runStress measures every row of the stress table.
func runStress(o stressOptions) ([]stressRow, error) {
	pace := time.Second / time.Duration(max(o.PaceRate, 1))
	modes := []stressMode{
		{Name: "burst, plain TCP", Runs: o.BurstRuns},
		{Name: fmt.Sprintf("paced %d/s, plain TCP", o.PaceRate), Pace: pace, Runs: o.PacedRuns},
		{Name: fmt.Sprintf("paced %d/s, TLS", o.PaceRate), Pace: pace, Secure: true, Runs: o.PacedRuns},
	}
	var rows []stressRow
	for _, m := range modes {
		if m.Runs <= 0 {
			continue
		}
		row := stressRow{Mode: m, N: o.N, Items: o.Items}
		for k := range m.Runs {
			start := time.Now()
			r, err := runStressOnce(o, m, stressProfilePath(o.CPUProfile, m, k+1))
			if err != nil {
				return nil, fmt.Errorf("%s run %d: %w", m.Name, k+1, err)
			}
			if o.Log != nil {
				fmt.Fprintf(o.Log, "stress %s run %d/%d (%v wall%s): %s\n", m.Name, k+1, m.Runs,
					time.Since(start).Round(time.Second), loadAverage(), r.summary())
			}
			r.Lat = nil // keep the percentiles only
			row.Runs = append(row.Runs, r)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (r *stressRun) summary() string {
	c := r.Counters
	s := fmt.Sprintf("complete=%v delivered=%d/%d dup=%d unwanted=%d outOfOrder=%d rate=%.0f/s elapsed=%v publish=%v p50=%v p99=%v cpu/delivery=%v gc=%d/%v tooSlow=%d lost=%d withheld=%d backlogDropped=%d recovery=%d asked=%d/%d edges=%d gapNeeded=%d frames=%d/%d/%d",
		r.Complete, r.Delivered, r.Want, r.Duplicates, r.Unwanted, r.OutOfOrder, r.Rate,
		r.Elapsed.Round(time.Millisecond), r.PublishTime.Round(time.Millisecond),
		roundDur(r.LatP50), roundDur(r.LatP99), r.CPUPerDelivery.Round(100*time.Nanosecond),
		r.GCs, r.GCPause.Round(10*time.Microsecond), r.TooSlow, c.Lost, c.Withheld, c.BacklogDropped, c.RecoveryFrames, c.AskedMessages, c.AskedClasses, c.EdgeFrames, c.GapNeeded,
		c.MulticastFrames, c.PeriodicFrames, c.ControlFrames)
	if len(r.OtherDrops) > 0 {
		s += fmt.Sprintf(" otherDrops=%v", r.OtherDrops)
	}
	if r.CountMismatch > 0 {
		s += fmt.Sprintf(" COUNT-MISMATCH=%d", r.CountMismatch)
	}
	return s
}

// runStressOnce starts a fresh network, publishes the items as m says and
// measures the run.
func runStressOnce(o stressOptions, m stressMode, profile string) (*stressRun, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The same seed every run: the same addresses, subscriptions and
	// categories, so runs differ only in timing, as repeated runs of one
	// network would.
	r := rand.New(rand.NewPCG(o.Seed, 10))
	var secret []byte
	if m.Secure {
		var err error
		if secret, err = trust.NewSecret(); err != nil {
			return nil, err
		}
	}

	links := &linkLog{}
	logger := slog.New(links)
	archive := &memArchive{msgs: map[memKey]*newsnet.Multicast{}}
	source := uuid.NewString()
	plan := newStressPlan(r, o.Items)
	tr := &stressTracker{plan: plan, done: make(chan struct{})}
	var mismatch atomic.Int64

	c := &tcpCluster{}
	defer func() { closeAll(c.nodes) }()
	var seeds []newsnet.ServantID
	for i, id := range benchIDs(r, o.N) {
		host := "127" + string(id)[len("10"):len(id)-len(":7400")]
		subs := stressSubs(r)
		core := newsnet.DefaultConfig("")
		core.Seeds = seeds
		core.Subscriptions = subs
		if o.Tick > 0 {
			core.TickInterval = o.Tick
		}
		nt := &nodeTally{subs: newsnet.NewCategorySet(subs...), got: make([]uint8, o.Items)}
		if i == 0 {
			// The publisher must deliver nothing: its own items are not
			// delivered to it, and no one else publishes.
			nt.subs = newsnet.NewCategorySet()
		}
		tr.nodes = append(tr.nodes, nt)
		cfg := node.Config{
			Listen:    host + ":0",
			Protocol:  core,
			Logger:    logger,
			OnDeliver: func(msg *newsnet.Multicast) { tr.deliver(nt, msg, time.Now()) },
		}
		if i == 0 {
			// The publisher: its store answers what the relay caches no
			// longer hold, as the app's does.
			cfg.Protocol.Source = source
			cfg.Protocol.Archive = archive
			cfg.OnPublished = func(p newsnet.Published) {
				if k, ok := plan.index[p.ID]; ok && p.Count != uint64(k+1) {
					mismatch.Add(1)
				}
			}
		}
		if m.Secure {
			ident, err := trust.GenerateIdentity()
			if err != nil {
				return nil, err
			}
			cfg.Security = &node.Security{Identity: ident, Secrets: func() [][]byte { return [][]byte{secret} }}
		}
		nd, err := node.Start(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("servant %d: %w", i, err)
		}
		c.nodes = append(c.nodes, nd)
		c.subs = append(c.subs, subs)
		if i == 0 {
			seeds = []newsnet.ServantID{nd.Addr()}
		}
	}
	if _, _, err := c.settle(time.Now(), 0); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	before, err := c.quietCounters(30 * time.Second)
	if err != nil {
		return nil, err
	}
	for _, nt := range tr.nodes {
		for _, cat := range plan.cats {
			if nt.subs.Matches(cat) {
				tr.want++
			}
		}
	}

	// Publish.
	links.count(true)
	pub := c.nodes[0]
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	stopProfile, err := startProfile(profile)
	if err != nil {
		return nil, err
	}
	defer stopProfile()
	cpu0, cpuOK := cpuTime()
	first := time.Now()
	pctx, pcancel := context.WithDeadline(ctx, first.Add(o.Deadline))
	defer pcancel()
	var publishErr error
	for k := range o.Items {
		if m.Pace > 0 {
			time.Sleep(time.Until(first.Add(time.Duration(k) * m.Pace)))
		}
		msg := &newsnet.Multicast{ID: plan.ids[k], Category: plan.cats[k], Count: uint64(k + 1), Payload: plan.payload}
		archive.put(source, msg)
		tr.publishedAt(k, time.Now())
		if _, err := pub.Publish(pctx, msg); err != nil {
			publishErr = err
			break
		}
	}
	publishTime := time.Since(first)

	res := &stressRun{Want: tr.want, PublishTime: publishTime}
	var cpu1 time.Duration
	select {
	case <-tr.done:
		cpu1, _ = cpuTime()
		stopProfile()
		// Give duplicates and late recovery traffic a moment to show.
		time.Sleep(2 * time.Second)
	case <-time.After(time.Until(first.Add(o.Deadline))):
		cpu1, _ = cpuTime()
	}
	links.count(false)
	after := sumCounters(c.statuses())
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)

	res.Delivered, res.Duplicates, res.Unwanted, res.OutOfOrder, res.Lat = tr.results()
	last := time.Unix(0, tr.lastAt.Load())
	inTime := res.Delivered == res.Want && !last.After(first.Add(o.Deadline))
	res.Complete = inTime && res.Duplicates == 0 && res.Unwanted == 0 && publishErr == nil
	if inTime {
		res.Elapsed = last.Sub(first)
		res.Rate = float64(res.Delivered) / res.Elapsed.Seconds()
	} else {
		res.Elapsed = o.Deadline
	}
	res.LatP50, res.LatP99 = percentile(res.Lat, 50), percentile(res.Lat, 99)
	if cpuOK && res.Delivered > 0 {
		res.CPUPerDelivery = (cpu1 - cpu0) / time.Duration(res.Delivered)
	}
	res.TooSlow, res.OtherDrops = links.result()
	res.CountMismatch = int(mismatch.Load())
	res.GCs, res.GCPause = ms1.NumGC-ms0.NumGC, time.Duration(ms1.PauseTotalNs-ms0.PauseTotalNs)
	res.Counters = subCounters(after, before)
	if publishErr != nil && o.Log != nil {
		fmt.Fprintf(o.Log, "stress %s: publishing stopped: %v\n", m.Name, publishErr)
	}
	return res, nil
}

// closeAll stops the servants in parallel: one at a time, each waiting up
// to a second for its links to flush, would take minutes.
func closeAll(nodes []*node.Node) {
	var wg sync.WaitGroup
	for _, nd := range nodes {
		wg.Go(func() { nd.Close() })
	}
	wg.Wait()
}

// stressRow is one row of the stress table: the runs of one mode.
type stressRow struct {
	Mode     stressMode
	N, Items int
	Runs     []*stressRun
}

func printStress(w io.Writer, rows []stressRow) {
	fmt.Fprintln(w, "| run | N | items | runs complete | deliveries/s median (min–max, complete runs) | latency p50 / p99 (median of runs) | CPU per delivery (median) | links closed as too slow | other links dropped | lost | withheld / dropped from backlog | recovery frames per 1,000 delivered | asked messages / classes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, row := range rows {
		var rates []float64
		var p50s, p99s, cpus []time.Duration
		complete, tooSlow, other, delivered := 0, 0, 0, 0
		var sum newsnet.Counters
		for _, r := range row.Runs {
			if r.Complete {
				complete++
				rates = append(rates, r.Rate)
			}
			p50s, p99s = append(p50s, r.LatP50), append(p99s, r.LatP99)
			if r.CPUPerDelivery > 0 {
				cpus = append(cpus, r.CPUPerDelivery)
			}
			tooSlow += r.TooSlow
			for _, n := range r.OtherDrops {
				other += n
			}
			delivered += r.Delivered
			c := r.Counters
			sum.Lost += c.Lost
			sum.Withheld += c.Withheld
			sum.BacklogDropped += c.BacklogDropped
			sum.RecoveryFrames += c.RecoveryFrames
			sum.AskedMessages += c.AskedMessages
			sum.AskedClasses += c.AskedClasses
		}
		rate := "—"
		if len(rates) > 0 {
			slices.Sort(rates)
			rate = fmt.Sprintf("%.0f (%.0f–%.0f)", medianFloat(rates), rates[0], rates[len(rates)-1])
		}
		perK := 0.0
		if delivered > 0 {
			perK = float64(sum.RecoveryFrames) * 1000 / float64(delivered)
		}
		fmt.Fprintf(w, "| %s | %d | %d × 1 KiB | %d/%d | %s | %v / %v | %v | %d | %d | %d | %d / %d | %.2f | %d / %d |\n",
			row.Mode.Name, row.N, row.Items, complete, len(row.Runs), rate,
			roundDur(percentile(p50s, 50)), roundDur(percentile(p99s, 50)),
			percentile(cpus, 50).Round(100*time.Nanosecond), tooSlow, other, sum.Lost, sum.Withheld, sum.BacklogDropped, perK, sum.AskedMessages, sum.AskedClasses)
	}
}

// loadAverage returns ", load …" with the machine's load averages where
// /proc/loadavg has them: the machine is shared, and a run's numbers mean
// little without it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return ", load " + strings.Join(f[:3], " ")
	}
	return ""
}

// stressMain runs and prints the stress table, with one line per run on
// stderr.
func stressMain(o stressOptions) {
	o.Log = os.Stderr
	start := time.Now()
	freezes := measureFreezes(5 * time.Second) // cpufreeze.go: the machine's floor, before the runs
	rows, err := runStress(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "newsbench: stress: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "stress: %v wall\n", time.Since(start).Round(time.Second))
	printStress(os.Stdout, rows)
	fmt.Fprintf(os.Stdout, "\n%s\n", freezes)
}
