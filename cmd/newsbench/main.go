// Command newsbench measures the overlay and prints a markdown table: join
// convergence, tree depth, control frames per join, frames per item against
// the minimum, delivery latency and re-convergence after a failure, for the
// routing of JP4353827B2 and for a flooding baseline measured in the same
// run. Simulated sizes run in virtual time; the TCP size runs real servants
// on loopback. A second table measures security end to end: signed items,
// verified by every servant on receipt, against unsigned messages on the
// same network. A third, the stress table, publishes bursts and paced
// streams of 1 KiB items from one seed to 200 loopback servants and checks
// that every run delivers everything exactly once.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	sizes := flag.String("sim", "100,1000,10000", "simulated network sizes")
	tcpSize := flag.Int("tcp", 200, "servants in the TCP run on loopback (0 skips it)")
	items := flag.Int("items", 200, "items published per run")
	seed := flag.Uint64("seed", 1, "seed of the simulated runs")
	secSim := flag.Int("security-sim", 1000, "servants in the simulated security run: CPU per delivered item with signed and verified items (0 skips it)")
	secTCP := flag.Int("security-tcp", 200, "servants in the TCP+TLS security run: latency, CPU and throughput with signed and verified items (0 skips it)")
	secPace := flag.Duration("security-pace", 50*time.Millisecond, "time between items in the latency batches of the TCP security run (shorter, and servants verifying on a few shared cores queue up)")
	reliability := flag.Bool("reliability", true, "also measure retransmission, history size, catch-up and latency under churn")
	stress := flag.Bool("stress", true, "also run the stress table (issue 10): bursts and paced publishing to loopback servants, completeness, latency, recovery traffic")
	stressOnly := flag.Bool("stress-only", false, "run the stress table alone")
	var so stressOptions
	flag.IntVar(&so.N, "stress-n", 200, "servants in the stress runs")
	flag.IntVar(&so.Items, "stress-items", 2000, "items of 1 KiB the seed publishes per stress run")
	flag.IntVar(&so.BurstRuns, "stress-runs", 10, "burst runs (a fresh network each)")
	flag.IntVar(&so.PacedRuns, "stress-paced-runs", 5, "paced runs each over plain TCP and over TLS (a fresh network each)")
	flag.IntVar(&so.PaceRate, "stress-rate", 500, "items per second in the paced stress runs")
	flag.DurationVar(&so.Deadline, "stress-deadline", time.Minute, "time from the first publication by which a stress run must be complete")
	flag.StringVar(&so.CPUProfile, "stress-cpuprofile", "", "write a CPU profile of each stress run's publishing window (first publication to last delivery) to `file`, with \"-<mode>-<run>\" added before the extension")
	flag.DurationVar(&so.Tick, "stress-tick", 0, "core tick interval in the stress runs (0: the default, as measured in docs/benchmarks.md)")
	var do directOptions
	flag.IntVar(&do.N, "direct", 0, "servants in the simulated direct-delivery table (0 skips it, 1000 as in docs/benchmarks.md)")
	flag.IntVar(&do.Subscribers, "direct-subscribers", 30, "subscribers of the hot stream in the direct-delivery table")
	flag.IntVar(&do.Rate, "direct-rate", 20, "hot items per second in the direct-delivery table")
	flag.DurationVar(&do.Span, "direct-span", time.Minute, "time the publishers publish for in the direct-delivery table (virtual in the simulated rows, wall-clock in the TCP rows)")
	directTCP := flag.Int("direct-tcp", 0, "servants on loopback in the direct-delivery table's TCP rows (0 skips them, 200 as in docs/benchmarks.md: three fresh networks of -direct-span each, some 4 minutes at the default span)")
	directTLS := flag.Bool("direct-tls", false, "run the direct-delivery table's TCP rows over TLS 1.3 with the membership proof instead of plain TCP")
	directOnly := flag.Bool("direct-only", false, "run the direct-delivery table alone (the simulated rows if -direct is set, the TCP rows if -direct-tcp is)")
	var ro reachOptions
	flag.IntVar(&ro.N, "reach", 0, "servants in the simulated reach-report table (0 skips it, 1000 as in docs/benchmarks.md)")
	reachOnly := flag.Bool("reach-only", false, "run the reach-report table alone")
	var co censusOptions
	flag.IntVar(&co.N, "census", 10000, "servants in the simulated network-census table")
	censusOnly := flag.Bool("census-only", false, "run the network-census table alone")
	var lo leafOptions
	flag.IntVar(&lo.N, "leaves", 0, "servants in the simulated leaf table: 0 %, 50 % and 90 % of them undialable (0 skips it, 1000 as in docs/benchmarks.md)")
	leavesOnly := flag.Bool("leaves-only", false, "run the leaf table alone")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this `file`")
	flag.Parse()
	so.Seed = *seed
	ro.Seed, ro.Items = *seed, *items
	lo.Seed, lo.Items = *seed, *items
	do.Seed, do.MinDepth = *seed, 3
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "newsbench: %v\n", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	runDirectTables := func() {
		if do.N > 0 {
			directMain(os.Stdout, do)
		}
		if *directTCP > 0 {
			if do.N > 0 {
				fmt.Println()
			}
			if err := directTCPMain(os.Stdout, do, *directTCP, *directTLS); err != nil {
				fmt.Fprintf(os.Stderr, "newsbench: direct tcp: %v\n", err)
				os.Exit(1)
			}
		}
	}
	co.Seed = *seed
	if *reachOnly {
		reachMain(os.Stdout, ro)
		return
	}
	if *censusOnly {
		censusMain(os.Stdout, co)
		return
	}
	if *leavesOnly {
		leafMain(os.Stdout, lo)
		return
	}
	if *directOnly {
		runDirectTables()
		return
	}
	if *stressOnly {
		stressMain(so)
		return
	}

	var results []result
	var simSizes []string
	if *sizes != "" { // so that -sim "" runs the other tables alone
		simSizes = strings.Split(*sizes, ",")
	}
	for _, f := range simSizes {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			fmt.Fprintf(os.Stderr, "newsbench: bad size %q\n", f)
			os.Exit(2)
		}
		for _, flood := range []bool{false, true} {
			start := time.Now()
			r := runSim(n, *items, *seed, flood)
			fmt.Fprintf(os.Stderr, "sim n=%d %s: %v wall\n", n, r.Mode, time.Since(start).Round(time.Millisecond))
			results = append(results, r)
		}
	}
	if *tcpSize > 0 {
		// Routing and flooding over plain TCP, then routing over TLS 1.3 with
		// the membership proof (issue 6), all in the same run.
		for _, run := range []struct{ flood, secure bool }{{false, false}, {true, false}, {false, true}} {
			r, err := runTCP(*tcpSize, *items, run.flood, run.secure)
			if err != nil {
				fmt.Fprintf(os.Stderr, "newsbench: tcp: %v\n", err)
				os.Exit(1)
			}
			results = append(results, r)
		}
	}
	printTable(os.Stdout, results)

	var secResults []securityResult
	if *secSim > 0 {
		start := time.Now()
		rs, err := runSimSecurity(*secSim, *items, *seed)
		if err != nil {
			fmt.Fprintf(os.Stderr, "newsbench: security: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "security sim n=%d: %v wall\n", *secSim, time.Since(start).Round(time.Millisecond))
		secResults = append(secResults, rs...)
	}
	if *secTCP > 0 {
		start := time.Now()
		rs, err := runTCPSecurity(*secTCP, *items, *secPace)
		if err != nil {
			fmt.Fprintf(os.Stderr, "newsbench: security: tcp: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "security tcp n=%d: %v wall\n", *secTCP, time.Since(start).Round(time.Millisecond))
		secResults = append(secResults, rs...)
	}
	if len(secResults) > 0 {
		fmt.Println()
		printSecurity(os.Stdout, secResults)
	}
	if *reliability {
		fmt.Println()
		printReliability(os.Stdout, *seed)
	}
	if do.N > 0 || *directTCP > 0 {
		fmt.Println()
		runDirectTables()
	}
	if ro.N > 0 {
		fmt.Println()
		reachMain(os.Stdout, ro)
	}
	if lo.N > 0 {
		fmt.Println()
		leafMain(os.Stdout, lo)
	}
	if *stress {
		fmt.Println()
		stressMain(so)
	}
}
