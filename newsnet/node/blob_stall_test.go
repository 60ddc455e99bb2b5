package node

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// freezeConn is a dialed connection that stops, once armed and after a
// given number of further bytes read, as a laptop's servant does when it
// sleeps (SIGSTOP, a closed lid): for a while it reads nothing and writes
// nothing, and the connection stays open. Data from the peer waits in the
// kernel meanwhile; a write waits for the thaw or its deadline.
type freezeConn struct {
	net.Conn
	mu       sync.Mutex
	after    int64         // bytes still to read before freezing; < 0: not armed
	d        time.Duration // how long it freezes
	until    time.Time     // frozen until
	deadline time.Time     // the write deadline
	closed   bool
	kick     chan struct{}
	frozen   chan struct{} // closed when it froze
}

func (c *freezeConn) arm(after int64, d time.Duration) {
	c.mu.Lock()
	c.after, c.d = after, d
	c.mu.Unlock()
}

// wait blocks while the connection is frozen; writing, it gives up at the
// write deadline.
func (c *freezeConn) wait(writing bool) error {
	for {
		c.mu.Lock()
		until, deadline, closed := c.until, c.deadline, c.closed
		c.mu.Unlock()
		now := time.Now()
		switch {
		case closed:
			return net.ErrClosed
		case writing && !deadline.IsZero() && !now.Before(deadline):
			return os.ErrDeadlineExceeded
		case !now.Before(until):
			return nil
		}
		wait := until.Sub(now)
		if writing && !deadline.IsZero() {
			wait = min(wait, deadline.Sub(now))
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-c.kick:
		}
		timer.Stop()
	}
}

func (c *freezeConn) Read(p []byte) (int, error) {
	if err := c.wait(false); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.after >= 0 {
		if c.after -= int64(n); c.after < 0 {
			c.until = time.Now().Add(c.d)
			close(c.frozen)
		}
	}
	c.mu.Unlock()
	return n, err
}

func (c *freezeConn) Write(b []byte) (int, error) {
	if err := c.wait(true); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

func (c *freezeConn) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *freezeConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	c.signal()
	return c.Conn.SetWriteDeadline(t)
}

func (c *freezeConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	c.signal()
	return c.Conn.SetDeadline(t)
}

func (c *freezeConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.signal()
	return c.Conn.Close()
}

func (c *freezeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// freezeDialer records the connections one node dials, by the address
// dialed.
type freezeDialer struct {
	mu    sync.Mutex
	conns map[string]*freezeConn
}

func (d *freezeDialer) wrap(c net.Conn) net.Conn {
	fc := &freezeConn{Conn: c, after: -1, kick: make(chan struct{}, 1), frozen: make(chan struct{})}
	d.mu.Lock()
	if d.conns == nil {
		d.conns = map[string]*freezeConn{}
	}
	d.conns[c.RemoteAddr().String()] = fc
	d.mu.Unlock()
	return fc
}

func (d *freezeDialer) to(addr newsnet.ServantID) *freezeConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conns[string(addr)]
}

// Over TCP: a relay that goes to sleep mid-transfer. Its connection to
// its up-servant stops (it reads and writes nothing there) after the first
// half MiB of the picture arrived, for less than the link timeout but more
// than the transfer timeout (the link stays, the transfers ask again), and
// for longer than the link timeout (the links drop, the subtree re-forms,
// the relay rejoins). Every subscriber ends with the picture whole and
// verified, none counts it lost, and the up-servant never has more than
// its link buffer queued toward the sleeper.
func TestBlobRelaySleepsOverTCP(t *testing.T) {
	for _, c := range []struct {
		name  string
		sleep time.Duration
	}{
		{"shorter than the link timeout", 2500 * time.Millisecond},
		{"longer than the link timeout", 8 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) { testBlobRelaySleeps(t, c.sleep) })
	}
}

func testBlobRelaySleeps(t *testing.T, sleep time.Duration) {
	log := newTestLog(t)
	var attached itemBlobs
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := overlayCore(seeds...) // link timeout 5 s
		c.Fanout = 2               // a deep tree: relays with subscribers below
		c.Blob.Refs = attached.refs
		c.Blob.Timeout = time.Second
		return c
	}
	pubKeep := newMemKeeper()
	pub := startNode(t, Config{Protocol: core(), Logger: log, Blobs: pubKeep})
	nodes := []*overlayNode{{Node: pub}}
	type sub struct {
		n      *Node
		keep   *memKeeper
		dialer *freezeDialer
		lost   chan newsnet.BlobLost
	}
	var subs []*sub
	for range 7 {
		s := &sub{keep: newMemKeeper(), dialer: &freezeDialer{}, lost: make(chan newsnet.BlobLost, 4)}
		c := core(pub.Addr())
		c.Subscriptions = []string{"photos"}
		s.n = startNode(t, Config{Protocol: c, Logger: log, Blobs: s.keep, wrapDial: s.dialer.wrap, OnBlob: func(a newsnet.Action) {
			if l, ok := a.(newsnet.BlobLost); ok {
				s.lost <- l
			}
		}})
		subs = append(subs, s)
		nodes = append(nodes, &overlayNode{Node: s.n, subs: newsnet.CategorySet{"photos"}})
	}
	waitFor(t, time.Minute, "one tree with converged routing", func() error { return checkOverlay(nodes) })

	// The relay: the first subscriber with subscribers below it.
	var relay *sub
	for _, s := range subs {
		if len(s.n.Status().Downs) > 0 {
			relay = s
			break
		}
	}
	if relay == nil {
		t.Fatal("no servant below the publisher has servants below it (fanout 2)")
	}
	up := relay.n.Status().Up
	conn := relay.dialer.to(up)
	if conn == nil {
		t.Fatalf("the relay %s dialed no connection to its up-servant %s", relay.n.Addr(), up)
	}
	var upNode *Node
	for _, on := range nodes {
		if on.Addr() == up {
			upNode = on.Node
		}
	}
	conn.arm(512<<10, sleep)

	data := randomBytes(7, 3<<20+17)
	ref := pubKeep.put(data)
	m := newMsg("photos")
	attached.attach(m, ref)
	if _, err := pub.Publish(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.frozen:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay never read half a MiB from its up-servant: the picture did not pass it")
	}
	// While it sleeps, what its up-servant queued toward it stays within
	// the link buffer: chunks go out only as earlier ones are written.
	limit := core().LinkBuffer
	for end := time.Now().Add(sleep); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if l, ok := linkTo(upNode.Status(), relay.n.Addr()); ok && l.Queued > limit {
			t.Errorf("the up-servant has %d bytes queued toward the sleeping relay, more than the link buffer %d", l.Queued, limit)
			break
		}
	}
	waitFor(t, 2*time.Minute, "the picture whole at every subscriber", func() error {
		for _, s := range subs {
			if !bytes.Equal(s.keep.whole(ref.Hash), data) {
				return fmt.Errorf("%s lacks it (relay %s)", s.n.Addr(), relay.n.Addr())
			}
		}
		return nil
	})
	for _, s := range subs {
		select {
		case l := <-s.lost:
			t.Errorf("%s counted a blob lost (total %d)", s.n.Addr(), l.Total)
		default:
		}
	}
	t.Logf("relay %s slept %v; subscribers whole; its downs now %v", relay.n.Addr(), sleep, relay.n.Status().Downs)
}
