package simnode_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
	"newsdesk/newsnet/sim/simnode"
)

// servant is what an application uses of a running servant (app's
// servantNode); both implementations must behave alike through it.
type servant interface {
	Addr() newsnet.ServantID
	Status() newsnet.Status
	PublishBatch(ctx context.Context, ms []*newsnet.Multicast) ([]newsnet.Published, error)
	SetSubscriptions(categories []string) error
	SetSeeds(seeds []newsnet.ServantID) error
	Reauthenticate()
	Reach(id [16]byte) (newsnet.ReachTotals, bool)
	Read(id [16]byte, source string) error
	MustRead(id [16]byte, source string, identity []byte) error
	Acknowledge(id [16]byte, source string, proof []byte) error
	Close() error
}

var (
	_ servant = (*node.Node)(nil)
	_ servant = (*simnode.Node)(nil)
)

// fastCore is a valid protocol config with short timers.
func fastCore(seeds ...newsnet.ServantID) newsnet.Config {
	c := newsnet.DefaultConfig("")
	c.Seeds = seeds
	c.TickInterval = 20 * time.Millisecond
	c.HeartbeatInterval = 100 * time.Millisecond
	c.LinkTimeout = 400 * time.Millisecond
	c.JoinTimeout = time.Second
	c.PartitionInterval = 100 * time.Millisecond
	c.RootSilence = time.Second
	c.SeedProbeInterval = 300 * time.Millisecond
	c.BackoffMin = 50 * time.Millisecond
	c.BackoffMax = 500 * time.Millisecond
	c.ReportPeriod = 100 * time.Millisecond
	return c
}

// host records what a servant reports through its callbacks.
type host struct {
	mu        sync.Mutex
	delivered []*newsnet.Multicast
	published []newsnet.Published
	progress  map[string]uint64
	reach     []newsnet.ReachUpdated
}

func (h *host) config(listen string, core newsnet.Config) node.Config {
	h.progress = map[string]uint64{}
	return node.Config{
		Listen:   listen,
		Protocol: core,
		OnDeliver: func(m *newsnet.Multicast) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.delivered = append(h.delivered, m)
		},
		OnPublished: func(p newsnet.Published) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.published = append(h.published, p)
		},
		OnProgress: func(source string, next uint64) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.progress[source] = next
		},
		OnReach: func(u newsnet.ReachUpdated) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.reach = append(h.reach, u)
		},
	}
}

func (h *host) got() ([]*newsnet.Multicast, []newsnet.Published, map[string]uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.delivered), slices.Clone(h.published), h.progress
}

// conformance runs one scenario over a pair of servants that start makes:
// the reader attaches to the publisher, learns nothing it did not
// subscribe to, gets what it did, and both refuse what the TCP node
// refuses; closed, a servant fails with node.ErrClosed and reports role
// "stopped". within waits for a condition on the implementation's clock.
func conformance(t *testing.T, start func(node.Config) (servant, error), within func(time.Duration, string, func() error)) {
	var ph, rh host
	pub, err := start(ph.config("127.0.0.1:0", fastCore()))
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	rcore := fastCore(pub.Addr())
	rcore.Subscriptions = []string{"it"}
	rcore.Source = "reader"
	reader, err := start(rh.config("127.0.0.1:0", rcore))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if pub.Addr() == reader.Addr() || !strings.HasPrefix(string(pub.Addr()), "127.0.0.1:") {
		t.Fatalf("addresses %s and %s", pub.Addr(), reader.Addr())
	}

	within(5*time.Second, "the publisher to learn the reader's subscription", func() error {
		for _, l := range pub.Status().Links {
			if l.Peer == reader.Addr() && slices.Equal(l.Received, newsnet.CategorySet{"it"}) {
				return nil
			}
		}
		return fmt.Errorf("publisher's links %+v", pub.Status().Links)
	})
	if st := reader.Status(); st.Role != newsnet.RoleAttached || st.Up != pub.Addr() {
		t.Errorf("reader: role %s under %q", st.Role, st.Up)
	}

	hr := &newsnet.Multicast{ID: [16]byte{1}, Category: "hr", Payload: []byte("not for the reader")}
	it := &newsnet.Multicast{ID: [16]byte{2}, Category: "it", Payload: []byte("for the reader")}
	reports, err := pub.PublishBatch(context.Background(), []*newsnet.Multicast{hr, it})
	var links []int
	for _, r := range reports {
		links = append(links, r.Links)
	}
	if err != nil || !slices.Equal(links, []int{0, 1}) {
		t.Fatalf("PublishBatch = %v, %v; want links [0 1]", links, err)
	}
	if reports[0].ID != hr.ID || reports[0].Count != 1 || reports[1].ID != it.ID || reports[1].Count != 2 || reports[1].Queued {
		t.Errorf("PublishBatch reported %+v, want counts 1 and 2, sent", reports)
	}
	within(5*time.Second, "the item on the reader", func() error {
		if d, _, _ := rh.got(); len(d) != 1 {
			return fmt.Errorf("%d delivered", len(d))
		}
		return nil
	})
	d, _, progress := rh.got()
	if d[0].ID != it.ID || string(d[0].Payload) != "for the reader" || d[0].Count != 2 {
		t.Errorf("delivered %+v", d[0])
	}
	if progress[d[0].Source] != 3 {
		t.Errorf("reader's progress %v: want 3 for %s (count 1 not needed, 2 delivered)", progress, d[0].Source)
	}
	// The reader confirms it as must-read; the publisher's reach says so,
	// in Reach and in its last OnReach report.
	src := d[0].Source
	for _, err := range []error{reader.Read(it.ID, src), reader.MustRead(it.ID, src, []byte("reader")),
		reader.Acknowledge(it.ID, src, []byte("reader's proof"))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := reader.MustRead(it.ID, src, nil); err == nil {
		t.Error("MustRead accepted an empty identity")
	}
	if err := reader.Acknowledge(it.ID, src, make([]byte, newsnet.MaxIdentityBytes+1)); err == nil {
		t.Error("Acknowledge accepted an oversized proof")
	}
	within(5*time.Second, "the reach at the publisher", func() error {
		r, ok := pub.Reach(it.ID)
		ph.mu.Lock()
		var last newsnet.ReachUpdated
		if len(ph.reach) > 0 {
			last = ph.reach[len(ph.reach)-1]
		}
		ph.mu.Unlock()
		got := fmt.Sprintf("%v %d %d %d %d %q %q | %x %d", ok, r.Subscribers, r.Delivered, r.Read, r.Acknowledged, r.Pending, r.Acks,
			last.ID[:1], last.Acknowledged)
		if want := `true 1 1 1 1 [] ["reader's proof"] | 02 1`; got != want {
			return fmt.Errorf("reach %s, want %s", got, want)
		}
		return nil
	})
	if _, ok := pub.Reach(hr.ID); !ok {
		t.Error("the publisher does not track its item nobody subscribes to")
	}

	_, p, _ := ph.got()
	if len(p) != 2 || p[0].Count != 1 || p[0].Links != 0 || p[1].Count != 2 || p[1].Links != 1 || p[1].Queued {
		t.Errorf("published reports %+v", p)
	}

	if _, err := pub.PublishBatch(context.Background(), []*newsnet.Multicast{{ID: [16]byte{3}}}); err == nil {
		t.Error("PublishBatch accepted an empty category")
	}
	if err := reader.SetSubscriptions([]string{""}); err == nil {
		t.Error("SetSubscriptions accepted an empty category")
	}
	if err := reader.SetSubscriptions([]string{"hr"}); err != nil {
		t.Fatal(err)
	}
	if st := reader.Status(); !slices.Equal(st.Subscriptions, []string{"hr"}) {
		t.Errorf("subscriptions %v", st.Subscriptions)
	}
	reader.Reauthenticate() // plain links: nothing to do

	// A servant started without seeds is a vertex of its own; given the
	// publisher as its seed, it joins it without a restart.
	var lh host
	late, err := start(lh.config("127.0.0.1:0", fastCore()))
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	within(5*time.Second, "the servant without seeds to be a vertex", func() error {
		if st := late.Status(); st.Role != newsnet.RoleVertex {
			return fmt.Errorf("role %s", st.Role)
		}
		return nil
	})
	if err := late.SetSeeds([]newsnet.ServantID{"no port"}); err == nil {
		t.Error("SetSeeds accepted an invalid seed")
	}
	if err := late.SetSeeds([]newsnet.ServantID{pub.Addr()}); err != nil {
		t.Fatal(err)
	}
	// The seed places it by its ID: under itself, or under the reader
	// when the late servant's ID falls in the reader's partition (ports
	// are random, so either happens).
	within(5*time.Second, "the servant to join its new seed", func() error {
		if st := late.Status(); st.Role != newsnet.RoleAttached || st.Up != pub.Addr() && st.Up != reader.Addr() {
			return fmt.Errorf("role %s under %q", st.Role, st.Up)
		}
		return nil
	})
	if err := late.Close(); err != nil {
		t.Fatal(err)
	}
	if err := late.SetSeeds(nil); !errors.Is(err, node.ErrClosed) {
		t.Errorf("SetSeeds after Close = %v, want node.ErrClosed", err)
	}

	if err := reader.Close(); err != nil {
		t.Fatal(err)
	}
	if st := reader.Status(); st.Role != newsnet.RoleStopped {
		t.Errorf("closed reader: role %s", st.Role)
	}
	if _, err := reader.PublishBatch(context.Background(), []*newsnet.Multicast{it}); !errors.Is(err, node.ErrClosed) {
		t.Errorf("PublishBatch after Close = %v, want node.ErrClosed", err)
	}
	within(5*time.Second, "the publisher to see the reader go", func() error {
		if st := pub.Status(); len(st.Downs) != 0 {
			return fmt.Errorf("downs %v", st.Downs)
		}
		return nil
	})
}

// poll waits for cond on the clock at hand (real, or a bubble's).
func poll(t *testing.T) func(time.Duration, string, func() error) {
	return func(limit time.Duration, what string, cond func() error) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			err := cond()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s: %v", what, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestConformanceTCP(t *testing.T) {
	conformance(t, func(cfg node.Config) (servant, error) {
		return node.Start(context.Background(), cfg)
	}, poll(t))
}

func TestConformanceSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := simnode.New(1)
		defer w.Close()
		start := time.Now()
		conformance(t, func(cfg node.Config) (servant, error) {
			return w.Start(context.Background(), cfg)
		}, poll(t))
		t.Logf("%v of virtual time", time.Since(start))
		w.Do(func(n *sim.Network) {
			if v := n.Violations(); v != nil {
				t.Errorf("violations: %v", v)
			}
		})
	})
}

// A servant's ID comes from its addresses as on TCP; a busy one and a
// wildcard without an advertised address are refused.
func TestStartAddresses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := simnode.New(1)
		defer w.Close()
		start := func(listen, advertise string) (*simnode.Node, error) {
			return w.Start(context.Background(), node.Config{Listen: listen, Advertise: newsnet.ServantID(advertise), Protocol: fastCore()})
		}
		a, err := start("10.0.0.1:7400", "")
		if err != nil || a.Addr() != "10.0.0.1:7400" {
			t.Fatalf("Start = %v, %v", a, err)
		}
		if _, err := start("10.0.0.1:7400", ""); err == nil || !strings.Contains(err.Error(), "in use") {
			t.Errorf("a second servant on 10.0.0.1:7400: %v", err)
		}
		if _, err := start("0.0.0.0:7400", ""); err == nil || !strings.Contains(err.Error(), "wildcard") {
			t.Errorf("a wildcard listen address: %v", err)
		}
		b, err := start("0.0.0.0:7400", "10.0.0.2:7400")
		if err != nil || b.Addr() != "10.0.0.2:7400" {
			t.Errorf("advertised: %v, %v", b, err)
		}
		c, err := start("127.0.0.1:0", "")
		d, err2 := start("127.0.0.1:0", "")
		if err != nil || err2 != nil || c.Addr() == d.Addr() {
			t.Errorf("port 0: %v %v, %v %v", c, err, d, err2)
		}
		// Closed, its address is free again (Running says so), and the
		// new servant is a new incarnation.
		if !w.Running("10.0.0.1:7400") || w.Running("10.0.0.9:7400") {
			t.Error("Running: not as started")
		}
		a.Close()
		if w.Running("10.0.0.1:7400") {
			t.Error("Running after Close")
		}
		a2, err := start("10.0.0.1:7400", "")
		if err != nil || a2.Status().Role == newsnet.RoleStopped {
			t.Errorf("restart on 10.0.0.1:7400: %v", err)
		}
		for _, n := range []*simnode.Node{a2, b, c, d} {
			n.Close()
		}
	})
}
