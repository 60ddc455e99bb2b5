package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
	"newsdesk/trust"
)

// tcpCore is the default protocol configuration with a finer tick, so that
// timer-driven steps do not dominate what is measured on loopback.
func tcpCore(seeds []newsnet.ServantID, flood bool) newsnet.Config {
	c := newsnet.DefaultConfig("")
	c.Seeds = seeds
	c.TickInterval = 20 * time.Millisecond
	c.Flood = flood
	return c
}

// runTCP starts size real servants on loopback addresses 127.x.y.z (all of
// 127/8 is loopback on Linux, which gives the tree subnets to follow), and
// measures what runSim measures, in wall-clock time.
func runTCP(size, items int, flood, secure bool) (result, error) {
	res := result{Setup: "tcp", N: size, Mode: mode(flood)}
	var secret []byte
	if secure {
		res.Setup = "tcp+tls"
		var err error
		if secret, err = trust.NewSecret(); err != nil {
			return res, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := rand.New(rand.NewPCG(7, 7))

	var mu sync.Mutex
	published := map[[16]byte]time.Time{}
	var lat []time.Duration
	onDeliver := func(m *newsnet.Multicast) {
		now := time.Now()
		mu.Lock()
		lat = append(lat, now.Sub(published[m.ID]))
		mu.Unlock()
	}

	var nodes []*node.Node
	defer func() {
		for _, nd := range nodes {
			nd.Close()
		}
	}()
	start := time.Now()
	var seeds []newsnet.ServantID
	for i, id := range benchIDs(r, size) {
		host := "127" + string(id)[len("10"):len(id)-len(":7400")]
		cfg := node.Config{
			Listen:    host + ":0",
			Core:      tcpCore(seeds, flood),
			OnDeliver: onDeliver,
		}
		if secure {
			id, err := trust.GenerateIdentity()
			if err != nil {
				return res, err
			}
			cfg.Security = &node.Security{Identity: id, Secrets: func() [][]byte { return [][]byte{secret} }}
		}
		nd, err := node.Start(ctx, cfg)
		if err != nil {
			return res, fmt.Errorf("servant %d: %w", i, err)
		}
		if err := nd.SetSubscriptions(benchSubs(r)); err != nil {
			return res, err
		}
		if i == 0 {
			seeds = []newsnet.ServantID{nd.Addr()}
		}
		nodes = append(nodes, nd)
	}
	statuses := func() []newsnet.Status {
		sts := make([]newsnet.Status, 0, len(nodes))
		for _, nd := range nodes {
			sts = append(sts, nd.Status())
		}
		return sts
	}
	settled := func() bool {
		sts := statuses()
		if flood {
			return sim.CheckTreeOf(sts) == nil
		}
		return sim.ConvergedOf(sts)
	}
	// As in the simulation: settled and then quiet for a while, timed to the
	// last change of the control-frame count.
	controlTotal := func() uint64 {
		var c uint64
		for _, nd := range nodes {
			c += nd.Status().Counters.ControlFrames
		}
		return c
	}
	settle := func(start time.Time, base uint64) (time.Duration, uint64, error) {
		last, lastAt := base, start
		quietSince := time.Time{}
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if c := controlTotal(); c != last {
				last, lastAt, quietSince = c, time.Now(), time.Time{}
			} else if settled() {
				if quietSince.IsZero() {
					quietSince = time.Now()
				} else if time.Since(quietSince) >= quietPeriod {
					return lastAt.Sub(start), last - base, nil
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		return 0, 0, fmt.Errorf("not settled after 2m: %v", sim.CheckTreeOf(statuses()))
	}
	var err error
	if res.JoinConverge, _, err = settle(start, 0); err != nil {
		return res, fmt.Errorf("join: %w", err)
	}

	sts := statuses()
	control := uint64(0)
	for _, s := range sts {
		control += s.Counters.ControlFrames
	}
	res.ControlPerJoin = float64(control) / float64(size)
	depths := sim.DepthsOf(sts)
	total := 0
	for _, d := range depths {
		total += d
		res.DepthMax = max(res.DepthMax, d)
	}
	res.DepthMean = float64(total) / float64(len(depths))

	frames := func() uint64 {
		var f uint64
		for _, nd := range nodes {
			f += nd.Status().Counters.MulticastFrames
		}
		return f
	}
	before, minimum := frames(), 0
	for i := range items {
		from := nodes[r.IntN(len(nodes))]
		cat := benchCategories[r.IntN(len(benchCategories))]
		minimum += sim.MinimumFramesOf(sts, from.Addr(), cat)
		m := &newsnet.Multicast{Category: cat, Source: string(from.Addr())}
		m.ID[0], m.ID[1], m.ID[2] = byte(i), byte(i>>8), 0xbe
		mu.Lock()
		published[m.ID] = time.Now()
		mu.Unlock()
		if _, err := from.Publish(ctx, m); err != nil {
			return res, err
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(time.Second)
	res.FrameRatio = float64(frames()-before) / float64(max(minimum, 1))
	mu.Lock()
	res.LatP50, res.LatP99 = percentile(lat, 50), percentile(lat, 99)
	mu.Unlock()

	// Stop the non-vertex servant with the most down-servants. Its own
	// frames are not counted: it is gone.
	victim, most := -1, -1
	for i, nd := range nodes {
		if st := nd.Status(); st.Up != "" && len(st.Downs) > most {
			victim, most = i, len(st.Downs)
		}
	}
	victimNode := nodes[victim]
	nodes = append(nodes[:victim], nodes[victim+1:]...)
	base := controlTotal()
	start = time.Now()
	victimNode.Close()
	var churn uint64
	if res.Reconverge, churn, err = settle(start, base); err != nil {
		return res, fmt.Errorf("re-join: %w", err)
	}
	res.Churn = int(churn)
	return res, nil
}
