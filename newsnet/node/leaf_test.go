package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// freePort returns a port nothing listens on at 127.0.0.1 right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The five-process case of a laptop that others cannot dial, over TCP. A
// seed; laptop A listens on 127.0.0.1 but advertises 127.0.0.5, where
// nothing listens (its inbound port is blocked); laptops B and C are in
// A's subnet. A is a leaf; B and C attach and receive within seconds,
// and A publishes and receives through its uplink.
func TestTCPUndialableLaptopLeavesItsSubnetOpen(t *testing.T) {
	log := newTestLog(t)
	seed := startNode(t, Config{Listen: "127.0.0.1:0", Protocol: overlayCore(), Logger: log})
	subscriber := func(listen string, advertise newsnet.ServantID) (*Node, *deliveries) {
		core := overlayCore(seed.Addr())
		core.Subscriptions = []string{"it"}
		got := &deliveries{}
		return startNode(t, Config{Listen: listen, Advertise: advertise, Protocol: core, Logger: log, OnDeliver: got.add}), got
	}
	port := freePort(t)
	a, gotA := subscriber(fmt.Sprintf("127.0.0.1:%d", port), newsnet.ServantID(fmt.Sprintf("127.0.0.5:%d", port)))
	waitFor(t, 20*time.Second, "A attached as a leaf", func() error {
		if st := a.Status(); st.Role != newsnet.RoleAttached || !st.Leaf || st.Reach != newsnet.ReachUnreachable {
			return fmt.Errorf("A: role %s leaf %v reach %v", st.Role, st.Leaf, st.Reach)
		}
		return nil
	})
	start := time.Now()
	b, gotB := subscriber("127.0.0.5:0", "")
	c, gotC := subscriber("127.0.0.5:0", "")
	waitFor(t, 20*time.Second, "B and C attached with slots", func() error {
		for _, n := range []*Node{b, c} {
			if st := n.Status(); st.Role != newsnet.RoleAttached || st.Leaf {
				return fmt.Errorf("%s: role %s leaf %v", n.Addr(), st.Role, st.Leaf)
			}
		}
		return nil
	})
	t.Logf("B and C attached %v after they started", time.Since(start).Round(time.Millisecond))
	nodes := []*overlayNode{{Node: seed}, {Node: a, subs: newsnet.NewCategorySet("it")},
		{Node: b, subs: newsnet.NewCategorySet("it")}, {Node: c, subs: newsnet.NewCategorySet("it")}}
	waitFor(t, 20*time.Second, "one tree with converged routing", func() error { return checkOverlay(nodes) })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, from := range []*Node{seed, a} {
		m := newMsg("it")
		if _, err := from.Publish(ctx, m); err != nil {
			t.Fatalf("publish from %s: %v", from.Addr(), err)
		}
		waitFor(t, 20*time.Second, "the item from "+string(from.Addr())+" delivered", func() error {
			for name, got := range map[string]*deliveries{"A": gotA, "B": gotB, "C": gotC} {
				want := 1
				if from == a && name == "A" {
					want = 0
				}
				if n := got.count(m.ID); n != want {
					return fmt.Errorf("%s holds it %d times, want %d", name, n, want)
				}
			}
			return nil
		})
	}
}

// proxy forwards the connections made to its address to target, until it
// is closed: an advertised address that stops answering when closed, as a
// laptop's does when a firewall rule goes or the port forward is removed.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

func startProxy(t *testing.T, listen, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { io.Copy(out, in); out.Close() }()
		go func() { io.Copy(in, out); in.Close() }()
	}
}

// close stops answering; the connections made through it stay up, as
// established connections do when a firewall starts dropping new ones.
func (p *proxy) close() {
	if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		panic(err)
	}
}

// A member whose advertised address stops answering while it runs keeps
// its links. The next joiner of its slot cannot dial it and says so to the
// servant that sent it there; that servant dials the member back, demotes
// it to a leaf and moves its down-servant up. The joiner attaches, and
// items reach everyone.
func TestTCPAdvertisedAddressStopsAnswering(t *testing.T) {
	log := newTestLog(t)
	seed := startNode(t, Config{Listen: "127.0.0.1:0", Protocol: overlayCore(), Logger: log})
	core := func() newsnet.Config {
		c := overlayCore(seed.Addr())
		c.Subscriptions = []string{"it"}
		return c
	}
	// M listens on 127.0.0.1 and is dialed through its "port forward" on
	// 127.0.0.6.
	mPort := freePort(t)
	front := fmt.Sprintf("127.0.0.6:%d", mPort)
	// The forward first: the seed dials M back there as soon as M joins.
	fwd := startProxy(t, front, fmt.Sprintf("127.0.0.1:%d", mPort))
	gotM := &deliveries{}
	m := startNode(t, Config{Listen: fmt.Sprintf("127.0.0.1:%d", mPort), Advertise: newsnet.ServantID(front),
		Protocol: core(), Logger: log, OnDeliver: gotM.add})
	waitFor(t, 20*time.Second, "M attached with a slot", func() error {
		if st := m.Status(); st.Role != newsnet.RoleAttached || st.Leaf {
			return fmt.Errorf("M: role %s leaf %v reach %v", st.Role, st.Leaf, st.Reach)
		}
		return nil
	})
	gotBelow := &deliveries{}
	below := startNode(t, Config{Listen: "127.0.0.6:0", Protocol: core(), Logger: log, OnDeliver: gotBelow.add})
	waitFor(t, 20*time.Second, "a servant below M", func() error {
		if st := below.Status(); st.Up != m.Addr() || st.Leaf {
			return fmt.Errorf("below: up %q leaf %v", st.Up, st.Leaf)
		}
		return nil
	})

	fwd.close()
	gotJoiner := &deliveries{}
	joiner := startNode(t, Config{Listen: "127.0.0.6:0", Protocol: core(), Logger: log, OnDeliver: gotJoiner.add})
	nodes := []*overlayNode{{Node: seed}, {Node: m, subs: newsnet.NewCategorySet("it")},
		{Node: below, subs: newsnet.NewCategorySet("it")}, {Node: joiner, subs: newsnet.NewCategorySet("it")}}
	waitFor(t, 30*time.Second, "M demoted, the joiner attached, one tree", func() error {
		if st := m.Status(); !st.Leaf {
			return fmt.Errorf("M is not a leaf (reach %v)", st.Reach)
		}
		return checkOverlay(nodes)
	})
	if st := below.Status(); st.Up == m.Addr() {
		t.Errorf("%s is still below the leaf M", below.Addr())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msg := newMsg("it")
	if _, err := seed.Publish(ctx, msg); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the item delivered to all three", func() error {
		for name, got := range map[string]*deliveries{"M": gotM, "below": gotBelow, "joiner": gotJoiner} {
			if n := got.count(msg.ID); n != 1 {
				return fmt.Errorf("%s holds it %d times", name, n)
			}
		}
		return nil
	})
}
