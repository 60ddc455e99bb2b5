package node

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A direct link between a hot pair is dialed and secured as a tree link:
// both ends prove the network secret over TLS 1.3, and the subscriber
// then receives the publisher's items over it, each once.
func TestSecureDirectLink(t *testing.T) {
	log := newTestLog(t)
	secrets := newSecretList([]byte("s3cret"))
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := fastCore(seeds...)
		c.DirectThreshold, c.DirectWindow, c.DirectMinHops = 5, 10*time.Second, 2
		return c
	}
	var ad deliveries
	v := startNode(t, Config{Protocol: core(), Logger: log, Security: newSecurity(t, secrets)})
	a := startNode(t, Config{Protocol: core(v.Addr()), Logger: log, OnDeliver: ad.add, Security: newSecurity(t, secrets)})
	waitFor(t, 10*time.Second, "the subscriber attached", func() error { return attachedTo(a, v) })
	// The publisher must sit beside the subscriber under the vertex, two
	// hops away. Its slot follows from its address, and an address in the
	// subscriber's slot is redirected below the subscriber. Ephemeral ports
	// come close to the last one handed out, so the publisher listens on a
	// port far from the subscriber's; should it still land below the
	// subscriber, it starts again on another.
	_, aPort, _ := net.SplitHostPort(string(a.Addr()))
	base, _ := strconv.Atoi(aPort)
	var b *Node
	for attempt := 1; b == nil; attempt++ {
		n := startFarFrom(t, base+attempt*7919, Config{Protocol: core(v.Addr()), Logger: log, Security: newSecurity(t, secrets)})
		// Attached, and dialed back: a candidate closed with its up-servant's
		// dial-back in flight would count as a refused handshake there.
		waitFor(t, 10*time.Second, "the publisher attached and dialed back", func() error {
			st := n.Status()
			if st.Reach == newsnet.ReachUnknown {
				return fmt.Errorf("not dialed back yet (up %q)", st.Up)
			}
			if st.Up == a.Addr() {
				return nil
			}
			return attachedTo(n, v)
		})
		switch {
		case n.Status().Up == v.Addr():
			b = n
		case attempt == 5:
			t.Fatalf("the publisher landed below the subscriber %d times", attempt)
		default:
			n.Close()
		}
	}
	if err := a.Subscribe("it"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "routing", func() error {
		bl, _ := linkTo(b.Status(), v.Addr())
		if !bl.Received.Equal(newsnet.CategorySet{"it"}) {
			return fmt.Errorf("publisher's uplink received %v", bl.Received)
		}
		return nil
	})
	var ids [][16]byte
	publish := func() {
		m := newMsg("it")
		if _, err := b.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
		time.Sleep(20 * time.Millisecond)
	}
	for range 10 {
		publish()
	}
	waitFor(t, 10*time.Second, "direct link", func() error {
		if d := a.Status().Direct; len(d) != 1 || d[0].Peer != b.Addr() || d[0].Role != newsnet.DirectSubscriber {
			return fmt.Errorf("subscriber's direct links %+v", d)
		}
		if d := b.Status().Direct; len(d) != 1 || d[0].Peer != a.Addr() || d[0].Role != newsnet.DirectPublisher {
			return fmt.Errorf("publisher's direct links %+v", d)
		}
		return nil
	})
	for range 10 {
		publish()
	}
	waitFor(t, 10*time.Second, "every item once", func() error {
		for i, id := range ids {
			if got := ad.count(id); got != 1 {
				return fmt.Errorf("item %d delivered %d times", i, got)
			}
		}
		return nil
	})
	if got := a.Status().Counters.DirectReceived; got == 0 {
		t.Errorf("no item arrived directly")
	}
	want := sha256.Sum256([]byte("s3cret"))
	if got := peerSecrets(t, a); !slices.Equal(got, []secretID{want, want}) {
		t.Errorf("subscriber's links (tree and direct) proven with %x, want the secret twice", got)
	}
	for _, n := range []*Node{v, a, b} {
		if st := n.SecurityStats(); len(st) != 0 {
			t.Errorf("%s refused handshakes: %v", n.Addr(), st)
		}
	}
}

// startFarFrom starts a node on the first free port from port on (wrapped
// into 20000–60000), so that its ID lies far from another's.
func startFarFrom(t *testing.T, port int, cfg Config) *Node {
	t.Helper()
	for i := range 100 {
		p := 20000 + (port+i*131)%40000
		cfg.Listen = fmt.Sprintf("127.0.0.1:%d", p)
		if n, err := Start(context.Background(), cfg); err == nil {
			t.Cleanup(func() { n.Close() })
			return n
		}
	}
	t.Fatal("no free port for the node")
	return nil
}
