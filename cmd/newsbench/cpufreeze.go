package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// The paced stress rows' latency tail is bounded below by the machine: a
// shared virtual machine takes its CPUs away now and then, and a run that
// keeps them three-quarters busy needs about four times a freeze to work
// off what queued meanwhile. So the stress table measures that floor in
// the same run: one goroutine per CPU spins reading the clock, and every
// gap between two reads longer than freezeGap is a freeze.

const freezeGap = time.Millisecond

// freezeStats is what a freeze probe saw.
type freezeStats struct {
	Window time.Duration
	CPUs   int
	Gaps   []time.Duration // ascending
}

// measureFreezes spins on every CPU for d and returns the gaps.
func measureFreezes(d time.Duration) freezeStats {
	st := freezeStats{Window: d, CPUs: runtime.GOMAXPROCS(0)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range st.CPUs {
		wg.Go(func() {
			var mine []time.Duration
			last := time.Now()
			for last.Before(end) {
				now := time.Now()
				if g := now.Sub(last); g > freezeGap {
					mine = append(mine, g)
				}
				last = now
			}
			mu.Lock()
			st.Gaps = append(st.Gaps, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(st.Gaps)
	return st
}

// String is one line for the report.
func (st freezeStats) String() string {
	n := len(st.Gaps)
	perSec := float64(n) / st.Window.Seconds() / float64(st.CPUs)
	if n == 0 {
		return fmt.Sprintf("CPU freezes over %v: none longer than %v on %d CPUs", st.Window, freezeGap, st.CPUs)
	}
	return fmt.Sprintf("CPU freezes over %v, one spinning goroutine per CPU (%d): %.1f per second per CPU longer than %v, median %v, p90 %v, longest %v",
		st.Window, st.CPUs, perSec, freezeGap, st.Gaps[n/2].Round(10*time.Microsecond), st.Gaps[n*9/10].Round(10*time.Microsecond), st.Gaps[n-1].Round(10*time.Microsecond))
}
