package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
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

// quietCounters waits until no servant is catching up and the network's
// recovery frames stopped changing for a second, and returns the summed
// counters: the baseline the run's counters are measured from.
func (c *tcpCluster) quietCounters(limit time.Duration) (newsnet.Counters, error) {
	deadline := time.Now().Add(limit)
	var last newsnet.Counters
	stable := 0
	for time.Now().Before(deadline) {
		sts := c.statuses()
		busy := false
		for _, s := range sts {
			busy = busy || s.CatchingUp
		}
		cur := sumCounters(sts)
		if !busy && cur.RecoveryFrames == last.RecoveryFrames && cur.AskedMessages == last.AskedMessages {
			stable++
		} else {
			stable = 0
		}
		last = cur
		if stable >= 5 {
			return cur, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return last, fmt.Errorf("recovery traffic did not stop within %v of settling", limit)
}

func sumCounters(sts []newsnet.Status) newsnet.Counters {
	var t newsnet.Counters
	for _, s := range sts {
		c := s.Counters
		t.Delivered += c.Delivered
		t.Lost += c.Lost
		t.Withheld += c.Withheld
		t.BacklogDropped += c.BacklogDropped
		t.GapNeeded += c.GapNeeded
		t.GapSkipped += c.GapSkipped
		t.AskedMessages += c.AskedMessages
		t.AskedClasses += c.AskedClasses
		t.MulticastFrames += c.MulticastFrames
		t.ControlFrames += c.ControlFrames
		t.PeriodicFrames += c.PeriodicFrames
		t.RecoveryFrames += c.RecoveryFrames
		t.EdgeFrames += c.EdgeFrames
	}
	return t
}

// subCounters returns a − b for the fields sumCounters fills in.
func subCounters(a, b newsnet.Counters) newsnet.Counters {
	return newsnet.Counters{
		Delivered:       a.Delivered - b.Delivered,
		Lost:            a.Lost - b.Lost,
		Withheld:        a.Withheld - b.Withheld,
		BacklogDropped:  a.BacklogDropped - b.BacklogDropped,
		GapNeeded:       a.GapNeeded - b.GapNeeded,
		GapSkipped:      a.GapSkipped - b.GapSkipped,
		AskedMessages:   a.AskedMessages - b.AskedMessages,
		AskedClasses:    a.AskedClasses - b.AskedClasses,
		MulticastFrames: a.MulticastFrames - b.MulticastFrames,
		ControlFrames:   a.ControlFrames - b.ControlFrames,
		PeriodicFrames:  a.PeriodicFrames - b.PeriodicFrames,
		RecoveryFrames:  a.RecoveryFrames - b.RecoveryFrames,
		EdgeFrames:      a.EdgeFrames - b.EdgeFrames,
	}
}

// stressPlan is what one run publishes: item k has ID ids[k], category
// cats[k] and source count k+1.
type stressPlan struct {
	ids     [][16]byte
	cats    []string
	index   map[[16]byte]int // read-only once built
	payload []byte           // the same 1 KiB for every item; nobody modifies it
	pubAt   []atomic.Int64   // UnixNano just before Publish was called
}

func newStressPlan(r *rand.Rand, items int) *stressPlan {
	p := &stressPlan{index: make(map[[16]byte]int, items), pubAt: make([]atomic.Int64, items)}
	now := time.Now()
	for k := range items {
		id, err := news.NewID(now)
		if err != nil {
			panic(err) // crypto/rand failed
		}
		p.ids = append(p.ids, id)
		p.index[id] = k
		p.cats = append(p.cats, stressCategories[r.IntN(len(stressCategories))])
	}
	p.payload = make([]byte, 1024)
	for i := range p.payload {
		p.payload[i] = byte(r.IntN(256))
	}
	return p
}

// stressTracker counts every delivery of a run, per servant and item.
type stressTracker struct {
	plan   *stressPlan
	nodes  []*nodeTally // every servant's, the publisher's (subscribed to nothing) first
	want   int
	wanted atomic.Int64 // first deliveries of wanted items
	lastAt atomic.Int64 // UnixNano of the delivery that completed the run
	done   chan struct{}
}

// nodeTally is one servant's deliveries. Its OnDeliver runs on that
// servant's loop goroutine; the mutex is for the final read.
type nodeTally struct {
	mu                               sync.Mutex
	subs                             newsnet.CategorySet
	got                              []uint8 // deliveries per item, saturating
	lat                              []time.Duration
	duplicates, unwanted, outOfOrder int
	lastCount                        uint64
}

func (t *stressTracker) publishedAt(k int, at time.Time) { t.plan.pubAt[k].Store(at.UnixNano()) }

func (t *stressTracker) deliver(nt *nodeTally, m *newsnet.Multicast, now time.Time) {
	k, ok := t.plan.index[m.ID]
	nt.mu.Lock()
	defer nt.mu.Unlock()
	switch {
	case !ok:
		nt.unwanted++
		return
	case nt.got[k] > 0:
		nt.duplicates++
		if nt.got[k] < 255 {
			nt.got[k]++
		}
		return
	}
	nt.got[k] = 1
	if !nt.subs.Matches(m.Category) {
		nt.unwanted++
		return
	}
	if m.Count < nt.lastCount {
		nt.outOfOrder++
	}
	nt.lastCount = max(nt.lastCount, m.Count)
	nt.lat = append(nt.lat, now.Sub(time.Unix(0, t.plan.pubAt[k].Load())))
	if t.wanted.Add(1) == int64(t.want) {
		t.lastAt.Store(now.UnixNano())
		close(t.done)
	}
}

// results sums the tallies: first deliveries of wanted items, duplicates,
// unwanted deliveries, deliveries out of source order, and all latencies.
func (t *stressTracker) results() (delivered, duplicates, unwanted, outOfOrder int, lat []time.Duration) {
	for _, nt := range t.nodes {
		nt.mu.Lock()
		delivered += len(nt.lat)
		duplicates += nt.duplicates
		unwanted += nt.unwanted
		outOfOrder += nt.outOfOrder
		lat = append(lat, nt.lat...)
		nt.mu.Unlock()
	}
	return delivered, duplicates, unwanted, outOfOrder, lat
}

// memArchive is the publisher's store: what it published, by source and
// count, as the app's store keeps it (without history, Tops or Prev; the
// core looks items up again to send a link what it withheld, or to answer
// a retransmission request). It keeps no catch-up history.
type memArchive struct {
	mu   sync.Mutex
	msgs map[memKey]*newsnet.Multicast
}

type memKey struct {
	source string
	count  uint64
}

var _ newsnet.Archive = (*memArchive)(nil)

// put stores m before it is published, as the app stores and numbers a
// publication before handing it to the servant.
func (a *memArchive) put(source string, m *newsnet.Multicast) {
	stored := &newsnet.Multicast{ID: m.ID, Category: m.Category, Source: source, Count: m.Count, Payload: m.Payload}
	a.mu.Lock()
	a.msgs[memKey{source, m.Count}] = stored
	a.mu.Unlock()
}

// Lookup implements newsnet.Archive.
func (a *memArchive) Lookup(source string, count uint64) *newsnet.Multicast {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.msgs[memKey{source, count}]
}

// CatchUp implements newsnet.Archive: the publisher is no archive servant.
func (a *memArchive) CatchUp(newsnet.CategorySet, map[string]uint64, time.Time, int) []*newsnet.Multicast {
	return nil
}

// linkLog is the servants' slog handler: it counts the links closed or
// lost while counting is on, by reason, from the node's "closing link"
// (the core closed it), "link lost" (the connection failed) and
// "closing link: …" (the runtime closed it) records. Everything else is
// discarded.
type linkLog struct {
	mu      sync.Mutex
	on      bool
	tooSlow int
	other   map[string]int
}

func (h *linkLog) count(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on = on
	if on {
		h.tooSlow, h.other = 0, map[string]int{}
	}
}

func (h *linkLog) result() (int, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tooSlow, maps.Clone(h.other)
}

func (h *linkLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *linkLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *linkLog) WithGroup(string) slog.Handler            { return h }

func (h *linkLog) Handle(_ context.Context, r slog.Record) error {
	var reason string
	switch {
	case r.Message == "closing link", r.Message == "link lost":
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "reason" {
				reason = a.Value.String()
				return false
			}
			return true
		})
	case strings.HasPrefix(r.Message, "closing link: "):
		// The runtime's own closes: a send queue over its hard cap (and,
		// before flow control, "peer too slow" when a queue filled).
		reason = strings.TrimPrefix(r.Message, "closing link: ")
	default:
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return nil
	}
	switch {
	case strings.Contains(reason, "too slow"), strings.Contains(reason, "hard cap"), strings.Contains(reason, "over its cap"),
		strings.HasPrefix(reason, "write:"):
		h.tooSlow++
	case reason == "closed by peer", strings.HasPrefix(reason, "read:"):
		// The far end of a link its peer closed: counted there.
	default:
		h.other[reason]++
	}
	return nil
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

// roundDur keeps three or four significant digits.
func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}

func medianFloat(s []float64) float64 {
	s = slices.Clone(s)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
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
