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

// tcpCluster is a set of real servants on loopback addresses 127.x.y.z
// (all of 127/8 is loopback on Linux, which gives the tree subnets to
// follow).
type tcpCluster struct {
	nodes []*node.Node
	subs  [][]string // each node's subscriptions, in nodes' order
	flood bool
}

// startTCP starts size servants, the first one the seed of the others.
// configure, if set, completes servant i's configuration before it starts.
func startTCP(ctx context.Context, r *rand.Rand, size int, flood bool, configure func(i int, cfg *node.Config) error) (*tcpCluster, error) {
	c := &tcpCluster{flood: flood}
	var seeds []newsnet.ServantID
	for i, id := range benchIDs(r, size) {
		host := "127" + string(id)[len("10"):len(id)-len(":7400")]
		cfg := node.Config{
			Listen:   host + ":0",
			Protocol: tcpCore(seeds, flood),
		}
		if configure != nil {
			if err := configure(i, &cfg); err != nil {
				c.close()
				return nil, err
			}
		}
		nd, err := node.Start(ctx, cfg)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("servant %d: %w", i, err)
		}
		c.nodes = append(c.nodes, nd)
		subs := benchSubs(r)
		c.subs = append(c.subs, subs)
		if err := nd.SetSubscriptions(subs); err != nil {
			c.close()
			return nil, err
		}
		if i == 0 {
			seeds = []newsnet.ServantID{nd.Addr()}
		}
	}
	return c, nil
}

func (c *tcpCluster) close() {
	for _, nd := range c.nodes {
		nd.Close()
	}
}

func (c *tcpCluster) statuses() []newsnet.Status {
	sts := make([]newsnet.Status, 0, len(c.nodes))
	for _, nd := range c.nodes {
		sts = append(sts, nd.Status())
	}
	return sts
}

func (c *tcpCluster) settled() bool {
	sts := c.statuses()
	if c.flood {
		return sim.CheckTreeOf(sts) == nil
	}
	return sim.ConvergedOf(sts)
}

func (c *tcpCluster) controlTotal() uint64 {
	var n uint64
	for _, nd := range c.nodes {
		n += nd.Status().Counters.ControlFrames
	}
	return n
}

// settle waits, as the simulation does, until the tree is settled and then
// quiet for a while, and returns the time to the last change of the
// control-frame count after start and the control frames sent since base.
func (c *tcpCluster) settle(start time.Time, base uint64) (time.Duration, uint64, error) {
	last, lastAt := base, start
	quietSince := time.Time{}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if n := c.controlTotal(); n != last {
			last, lastAt, quietSince = n, time.Now(), time.Time{}
		} else if c.settled() {
			if quietSince.IsZero() {
				quietSince = time.Now()
			} else if time.Since(quietSince) >= quietPeriod {
				return lastAt.Sub(start), last - base, nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, 0, fmt.Errorf("not settled after 2m: %v", sim.CheckTreeOf(c.statuses()))
}

// runTCP starts size real servants on loopback and measures what runSim
// measures, in wall-clock time.
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

	start := time.Now()
	c, err := startTCP(ctx, r, size, flood, func(_ int, cfg *node.Config) error {
		cfg.OnDeliver = onDeliver
		if !secure {
			return nil
		}
		id, err := trust.GenerateIdentity()
		if err != nil {
			return err
		}
		cfg.Security = &node.Security{Identity: id, Secrets: func() [][]byte { return [][]byte{secret} }}
		return nil
	})
	if err != nil {
		return res, err
	}
	defer c.close()
	if res.JoinConverge, _, err = c.settle(start, 0); err != nil {
		return res, fmt.Errorf("join: %w", err)
	}

	sts := c.statuses()
	nodes := c.nodes
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
	c.nodes = append(nodes[:victim], nodes[victim+1:]...)
	base := c.controlTotal()
	start = time.Now()
	victimNode.Close()
	var churn uint64
	if res.Reconverge, churn, err = c.settle(start, base); err != nil {
		return res, fmt.Errorf("re-join: %w", err)
	}
	res.Churn = int(churn)
	return res, nil
}
