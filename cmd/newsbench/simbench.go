package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

var benchCategories = []string{"company", "it", "hr", "facilities", "sales", "sales/emea", "sales/apac", "eng"}

// benchIDs returns n distinct addresses spread over a /16 the way a company
// network's hosts are, all on one port.
func benchIDs(r *rand.Rand, n int) []newsnet.ServantID {
	seen := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for len(ids) < n {
		id := newsnet.ServantID(fmt.Sprintf("10.%d.%d.%d:7400", r.IntN(4), r.IntN(64), 1+r.IntN(254)))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

func benchSubs(r *rand.Rand) []string {
	var subs []string
	for _, c := range benchCategories {
		if r.IntN(4) == 0 {
			subs = append(subs, c)
		}
	}
	return subs
}

// controlFrames are the frames a join costs; periodic traffic (partition
// messages, pings) and multicast payload are not counted.
var controlFrames = []string{"JoinRequest", "JoinAccept", "JoinRedirect", "JoinRefuse", "Siblings", "Reset", "RoutingInfo"}

func runSim(size, items int, seed uint64, flood bool) result {
	n := sim.New(seed)
	n.Base.Flood = flood
	r := rand.New(rand.NewPCG(seed, 99))
	ids := benchIDs(r, size)
	seeds := ids[:1]
	settled := n.Converged
	if flood {
		settled = func() bool { return n.CheckTree() == nil }
	}
	res := result{Setup: "sim", N: size, Mode: mode(flood)}

	// Convergence is measured to the last control frame sent, which is exact,
	// rather than to the tick on which the check first passes; and the run
	// goes on for a quiet period so that delayed healing (tree optimization
	// resets on the next partition message) is counted too.
	var lastControl time.Time
	controlSince := 0
	n.Trace = func(at time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && isControl(s.Msg) {
			lastControl = at
			controlSince++
		}
	}
	settle := func(start time.Time) time.Duration {
		lastControl = start
		for {
			if !n.RunUntil(30*time.Minute, settled) {
				panic(fmt.Sprintf("sim n=%d did not converge: %v", size, n.CheckTree()))
			}
			quiet := lastControl
			n.RunFor(quietPeriod)
			if lastControl == quiet && settled() {
				return lastControl.Sub(start)
			}
		}
	}
	start := n.Now()
	for _, id := range ids {
		n.Add(id, seeds, benchSubs(r)...)
	}
	res.JoinConverge = settle(start)
	control := 0
	for _, k := range controlFrames {
		control += n.Stats[k]
	}
	res.ControlPerJoin = float64(control) / float64(size)
	depths := sim.DepthsOf(n.Statuses())
	total := 0
	for _, d := range depths {
		total += d
		res.DepthMax = max(res.DepthMax, d)
	}
	res.DepthMean = float64(total) / float64(len(depths))

	// Items: frames against the minimum, and virtual delivery latency.
	published := map[[16]byte]time.Time{}
	var lat []time.Duration
	n.Trace = func(at time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Deliver); ok {
			lat = append(lat, at.Sub(published[d.Msg.ID]))
		}
	}
	alive := n.Alive()
	sts := n.Statuses()
	before, minimum := n.Stats["Multicast"], 0
	for range items {
		from := alive[r.IntN(len(alive))]
		cat := benchCategories[r.IntN(len(benchCategories))]
		minimum += sim.MinimumFramesOf(sts, from.ID, cat)
		published[n.PublishAt(from.ID, cat)] = n.Now()
		n.RunFor(n.Base.TickInterval)
	}
	n.RunFor(2 * time.Second)
	n.Trace = nil
	res.FrameRatio = float64(n.Stats["Multicast"]-before) / float64(max(minimum, 1))
	res.LatP50, res.LatP99 = percentile(lat, 50), percentile(lat, 99)

	// Kill the non-vertex servant with the most down-servants.
	var victim newsnet.ServantID
	most := -1
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		if st.Up != "" && len(st.Downs) > most {
			victim, most = nd.ID, len(st.Downs)
		}
	}
	n.Trace = func(at time.Time, _ newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok && isControl(s.Msg) {
			lastControl = at
			controlSince++
		}
	}
	n.Crash(victim)
	controlSince = 0
	res.Reconverge = settle(n.Now())
	res.Churn = controlSince
	res.Note = fmt.Sprintf("killed a servant with %d downs", most)
	return res
}

// quietPeriod is how long a settled network must stay free of control
// frames to count as converged: three partition intervals, so a reset
// triggered by the next tree optimization message is seen.
var quietPeriod = 3 * newsnet.DefaultConfig("").PartitionInterval

// isControl reports whether m is a tree-construction frame: not payload,
// not periodic upkeep, not recovery (catch-up after joining is measured in
// the reliability table).
func isControl(m newsnet.Message) bool {
	switch m.(type) {
	case *newsnet.Multicast, *newsnet.Ping, *newsnet.PartitionInfo,
		*newsnet.Recover, *newsnet.Recovered, *newsnet.CatchUp, *newsnet.ReachReport:
		return false
	}
	return true
}

func mode(flood bool) string {
	if flood {
		return "flood"
	}
	return "routing"
}
