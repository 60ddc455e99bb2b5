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

// The census table (issue 30): what the network census costs, and how fast
// the vertex's census shows a change, on a simulated network in virtual
// time. In a quiet network (no items) every servant sends only heartbeats
// and the census in its reach report frames; the table gives both per
// servant and report period, measured over the same window, so the census's
// cost reads as a ratio to the heartbeats every link pays anyway. Then 100
// servants (or 1 %) leave at once, and the time until the vertex's census
// counts the servants left is measured.

type censusOptions struct {
	N    int
	Seed uint64
}

type censusResult struct {
	N, Leavers int
	Quiet      censusWindow // 10 report periods of a settled network
	Change     censusWindow // the 3 minutes after the servants left
	ToVertex   time.Duration
	Wall       time.Duration
}

// censusWindow is what one window of virtual time cost, per servant and
// report period.
type censusWindow struct {
	Reports, WithCensus, Up, Pings      float64 // frames
	ReportBytes, CensusBytes, PingBytes float64
}

func censusMain(w io.Writer, o censusOptions) {
	start := time.Now()
	res := runCensus(o)
	res.Wall = time.Since(start).Round(time.Second)
	fmt.Fprintf(os.Stderr, "census n=%d: %v wall\n", o.N, res.Wall)
	fmt.Fprintln(w, "| N | window | report frames | with a census | up with a subtree census | census bytes | ping frames | ping bytes | census ÷ ping bytes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, row := range []struct {
		name string
		c    censusWindow
	}{{"quiet, 10 periods", res.Quiet}, {fmt.Sprintf("%d leave, next 3 min", res.Leavers), res.Change}} {
		c := row.c
		fmt.Fprintf(w, "| %d | %s | %.3f | %.3f | %.3f | %.1f | %.2f | %.1f | %.3f |\n",
			res.N, row.name, c.Reports, c.WithCensus, c.Up, c.CensusBytes, c.Pings, c.PingBytes, c.CensusBytes/c.PingBytes)
	}
	fmt.Fprintf(w, "\nThe vertex's census counted the %d servants gone %v after they left.\n", res.Leavers, res.ToVertex)
}

func runCensus(o censusOptions) censusResult {
	n := sim.New(o.Seed)
	r := rand.New(rand.NewPCG(o.Seed, 30))
	ids := benchIDs(r, o.N)
	for i, id := range ids {
		n.Add(id, ids[:2], benchSubs(r)...)
		if i%100 == 99 {
			n.RunFor(200 * time.Millisecond)
		}
	}
	if !n.RunUntil(60*time.Minute, n.Settled) {
		panic(fmt.Sprintf("census n=%d did not converge: %v", o.N, n.CheckTree()))
	}
	n.RunFor(3 * time.Minute) // the censuses settle and go down once
	res := censusResult{N: o.N}
	measure := func(run func()) censusWindow {
		var c censusWindow
		from := n.Now()
		n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
			s, ok := a.(newsnet.Send)
			if !ok {
				return
			}
			switch m := s.Msg.(type) {
			case *newsnet.ReachReport:
				c.Reports++
				size := newsnet.SizeOf(m)
				c.ReportBytes += float64(size)
				if m.Subtree != nil || m.Network != nil {
					c.WithCensus++
					bare := *m
					bare.Subtree, bare.Network = nil, nil
					c.CensusBytes += float64(size - newsnet.SizeOf(&bare))
				}
				if m.Subtree != nil {
					c.Up++
				}
			case *newsnet.Ping:
				c.Pings++
				c.PingBytes += float64(newsnet.SizeOf(m))
			}
		}
		run()
		n.Trace = nil
		per := float64(o.N) * float64(n.Now().Sub(from)) / float64(n.Base.ReportPeriod)
		for _, f := range []*float64{&c.Reports, &c.WithCensus, &c.Up, &c.Pings, &c.ReportBytes, &c.CensusBytes, &c.PingBytes} {
			*f /= per
		}
		return c
	}
	res.Quiet = measure(func() { n.RunFor(10 * n.Base.ReportPeriod) })

	res.Leavers = min(100, max(1, o.N/100))
	left := 0
	for _, i := range r.Perm(len(ids) - 2) {
		if left == res.Leavers {
			break
		}
		n.Close(ids[2+i])
		left++
	}
	want := uint64(o.N - left)
	shown := func() bool {
		for _, nd := range n.Alive() {
			if nd.Servant.Role() == newsnet.RoleVertex {
				_, network := nd.Servant.Census()
				return network.Servants == want
			}
		}
		return false
	}
	res.Change = measure(func() {
		from := n.Now()
		if !n.RunUntil(30*time.Minute, shown) {
			panic(fmt.Sprintf("census n=%d: the vertex never counted %d servants", o.N, want))
		}
		res.ToVertex = n.Now().Sub(from)
		n.RunFor(3*time.Minute - res.ToVertex)
	})
	return res
}
