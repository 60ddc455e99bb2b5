package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// result is one row of the table.
type result struct {
	Setup          string // "sim" or "tcp"
	N              int
	Mode           string // "routing" or "flood"
	JoinConverge   time.Duration
	DepthMax       int
	DepthMean      float64
	ControlPerJoin float64
	FrameRatio     float64 // multicast frames / minimum frames, over all items
	LatP50, LatP99 time.Duration
	Reconverge     time.Duration
	Churn          int // control frames sent while re-converging
	Note           string
}

func printTable(w io.Writer, rs []result) {
	fmt.Fprintln(w, "| setup | N | mode | join convergence | depth max/mean | control frames/join | frames per item ÷ minimum | latency p50/p99 | re-convergence after kill | control frames to heal |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %d | %s | %v | %d / %.2f | %.2f | %.2f | %v / %v | %v | %d |\n",
			r.Setup, r.N, r.Mode, r.JoinConverge.Round(time.Millisecond), r.DepthMax, r.DepthMean,
			r.ControlPerJoin, r.FrameRatio, r.LatP50.Round(10*time.Microsecond), r.LatP99.Round(10*time.Microsecond),
			r.Reconverge.Round(time.Millisecond), r.Churn)
	}
}

// percentile returns the p-th percentile (0..100) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
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
