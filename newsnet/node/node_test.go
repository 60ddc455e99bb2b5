package node

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// fastCore is a valid protocol config with short timers, so runtime tests
// see heartbeats, timeouts and rejoins in well under a second.
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
	return c
}

// Diagnostics for timing-dependent failures, off by default:
//
//	NODE_TEST_LOG=1    print every node's full debug log, even on success
//	NODE_TEST_TRACE=1  print why each waitFor poll was not yet satisfied
var (
	dumpLogs   = os.Getenv("NODE_TEST_LOG") != ""
	traceWaits = os.Getenv("NODE_TEST_TRACE") != ""
)

// testLog collects the log of every node in a test and prints its tail if
// the test fails, so a flaky run explains itself without flooding a green one.
type testLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func newTestLog(t *testing.T) *slog.Logger {
	l := &testLog{}
	t.Cleanup(func() {
		if !t.Failed() && !dumpLogs {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		lines := strings.Split(strings.TrimSpace(l.buf.String()), "\n")
		if len(lines) > 300 && !dumpLogs {
			lines = lines[len(lines)-300:]
		}
		t.Logf("last %d log lines:\n%s", len(lines), strings.Join(lines, "\n"))
	})
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// deliveries records what OnDeliver saw, per message ID.
type deliveries struct {
	mu   sync.Mutex
	seen map[[16]byte]int
	msgs []*newsnet.Multicast
}

func (d *deliveries) add(m *newsnet.Multicast) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = make(map[[16]byte]int)
	}
	d.seen[m.ID]++
	d.msgs = append(d.msgs, m)
}

func (d *deliveries) count(id [16]byte) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[id]
}

func startNode(t *testing.T, cfg Config) *Node {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	n, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// waitFor polls cond until it reports success or timeout passes; the last
// explanation of failure goes into the test failure.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if traceWaits {
			t.Logf("%s: %v", time.Now().Format("15:04:05.000"), err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var msgSeq struct {
	sync.Mutex
	n uint64
}

func newMsg(category string) *newsnet.Multicast {
	msgSeq.Lock()
	msgSeq.n++
	seq := msgSeq.n
	msgSeq.Unlock()
	// A UUIDv7 as the application makes them (newsnet.PublishedAt reads
	// the time back), with the sequence number below.
	var id [16]byte
	binary.BigEndian.PutUint64(id[:8], uint64(time.Now().UnixMilli())<<16)
	binary.BigEndian.PutUint64(id[8:], seq)
	id[6] = id[6]&0x0f | 0x70
	id[8] = id[8]&0x3f | 0x80
	return &newsnet.Multicast{ID: id, Category: category, Source: "test", Payload: fmt.Appendf(nil, "item %d", seq)}
}

func linkTo(st newsnet.Status, peer newsnet.ServantID) (newsnet.LinkStatus, bool) {
	for _, l := range st.Links {
		if l.Peer == peer {
			return l, true
		}
	}
	return newsnet.LinkStatus{}, false
}

// A joiner attaches under the vertex, routing sets flow both ways, a
// publication reaches the subscriber, and one nobody wants is suppressed.
func TestTwoNodes(t *testing.T) {
	log := newTestLog(t)
	var vd, jd deliveries
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, OnDeliver: vd.add})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, OnDeliver: jd.add})

	if got := v.Status().Role; got != newsnet.RoleVertex {
		t.Fatalf("first node role = %s, want vertex", got)
	}
	waitFor(t, 5*time.Second, "joiner attached", func() error {
		js, vs := j.Status(), v.Status()
		if js.Up != v.Addr() || !slices.Equal(vs.Downs, []newsnet.ServantID{j.Addr()}) {
			return fmt.Errorf("joiner up=%q, vertex downs=%v", js.Up, vs.Downs)
		}
		return nil
	})

	if err := j.Subscribe("it"); err != nil {
		t.Fatal(err)
	}
	if err := v.SetSubscriptions([]string{"hr"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "routing sets", func() error {
		vl, _ := linkTo(v.Status(), j.Addr())
		jl, _ := linkTo(j.Status(), v.Addr())
		if !vl.Received.Equal(newsnet.CategorySet{"it"}) || !jl.Received.Equal(newsnet.CategorySet{"hr"}) {
			return fmt.Errorf("vertex received %v, joiner received %v", vl.Received, jl.Received)
		}
		return nil
	})

	ctx := context.Background()
	m := newMsg("it")
	if p, err := v.Publish(ctx, m); err != nil || p.Links != 1 {
		t.Fatalf("Publish(it) = %d, %v; want 1 link", p.Links, err)
	} else if p.ID != m.ID || p.Count != 1 || p.Queued {
		t.Errorf("Publish(it) reported %+v, want count 1, sent", p)
	}
	waitFor(t, 5*time.Second, "delivery to joiner", func() error {
		if jd.count(m.ID) != 1 {
			return fmt.Errorf("delivered %d times", jd.count(m.ID))
		}
		return nil
	})
	jd.mu.Lock()
	got := jd.msgs[0]
	jd.mu.Unlock()
	// The core stamps the publisher's source (Config.Source, by default its
	// ID) and count.
	if got.Category != "it" || got.Source != string(v.Addr()) || got.Count != 1 || !bytes.Equal(got.Payload, m.Payload) {
		t.Errorf("delivered %+v, want %+v from %s, count 1", got, m, v.Addr())
	}

	up := newMsg("hr")
	if p, err := j.Publish(ctx, up); err != nil || p.Links != 1 {
		t.Fatalf("joiner Publish(hr) = %d, %v; want 1 link", p.Links, err)
	}
	waitFor(t, 5*time.Second, "delivery to vertex", func() error {
		if vd.count(up.ID) != 1 {
			return fmt.Errorf("delivered %d times", vd.count(up.ID))
		}
		return nil
	})

	none := newMsg("sales")
	if p, err := v.Publish(ctx, none); err != nil || p.Links != 0 {
		t.Fatalf("Publish(sales) = %d, %v; want 0 links (suppressed)", p.Links, err)
	}
	if c := v.Status().Counters.Suppressed; c != 1 {
		t.Errorf("suppressed counter = %d, want 1", c)
	}
}

// Start refuses a wildcard listen address without an advertised one, and
// uses the advertised address as the ID when given.
func TestStartAddresses(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		if _, err := Start(context.Background(), Config{Listen: listen}); err == nil || !strings.Contains(err.Error(), "--advertise") {
			t.Errorf("Start(%q) error = %v, want one asking for --advertise", listen, err)
		}
	}
	if _, err := Start(context.Background(), Config{Listen: "nonsense"}); err == nil {
		t.Error("Start(nonsense) succeeded")
	}
	n := startNode(t, Config{Listen: "0.0.0.0:0", Advertise: "127.0.0.1:7400"})
	if n.Addr() != "127.0.0.1:7400" || n.Status().ID != "127.0.0.1:7400" {
		t.Errorf("advertised node ID = %s / %s", n.Addr(), n.Status().ID)
	}
	n.Close()
	if _, err := n.Publish(context.Background(), newMsg("x")); err != ErrClosed {
		t.Errorf("Publish after Close = %v, want ErrClosed", err)
	}
	if st := n.Status(); st.Role != newsnet.RoleStopped {
		t.Errorf("Status after Close: role %s, want stopped", st.Role)
	}
}

// rawConn is a hand-driven peer for feeding a node bytes no servant would send.
type rawConn struct {
	t testing.TB
	net.Conn
}

func dialRaw(t testing.TB, addr newsnet.ServantID) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", string(addr), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, Conn: c}
}

// hello completes the handshake.
func (c *rawConn) hello() {
	c.t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := newsnet.WriteHello(c, newsnet.OwnHello("test")); err != nil {
		c.t.Fatal(err)
	}
	if _, err := newsnet.ReadHello(c); err != nil {
		c.t.Fatal(err)
	}
}

// join sends a join request for id and reads until the accept.
func (c *rawConn) join(id newsnet.ServantID) {
	c.t.Helper()
	if err := newsnet.WriteFrame(c, &newsnet.JoinRequest{From: id}); err != nil {
		c.t.Fatal(err)
	}
	for {
		m, err := newsnet.ReadFrame(c, nil)
		if err != nil {
			c.t.Fatalf("waiting for join accept: %v", err)
		}
		if _, ok := m.(*newsnet.JoinAccept); ok {
			return
		}
	}
}

// expectClosed reads (and discards) until the node closes the connection.
func (c *rawConn) expectClosed(what string) {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.Copy(io.Discard, c) // nil at EOF; a reset is a close too
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		c.t.Errorf("%s: connection not closed by the node", what)
	}
}

// Bad hellos and malformed frames from raw clients close those connections
// and nothing else: an attached joiner stays attached and new joiners are
// still accepted.
func TestBadPeersAreDropped(t *testing.T) {
	log := newTestLog(t)
	v := startNode(t, Config{Protocol: fastCore(), Logger: log})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log})
	attached := func() error {
		if st := j.Status(); st.Up != v.Addr() {
			return fmt.Errorf("joiner up = %q", st.Up)
		}
		return nil
	}
	waitFor(t, 5*time.Second, "joiner attached", attached)

	t.Run("not a servant", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		c.expectClosed("http client")
	})
	t.Run("wrong version", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		newsnet.WriteHello(c, newsnet.Hello{Min: 99, Max: 99})
		c.expectClosed("version 99")
	})
	t.Run("silent client", func(t *testing.T) {
		// A client that completes the hello but never asks to join is closed
		// by the core after JoinTimeout.
		c := dialRaw(t, v.Addr())
		c.hello()
		c.expectClosed("no join request")
	})
	t.Run("unknown frame type", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		c.hello()
		c.Write([]byte{0, 0, 0, 3, 200, 1, 2})
		c.expectClosed("type 200")
	})
	t.Run("oversize frame", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		c.hello()
		c.Write([]byte{0xff, 0xff, 0xff, 0xff})
		c.expectClosed("4 GiB frame")
	})
	t.Run("garbage after join", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		c.hello()
		c.join("127.0.0.1:9")
		c.Write([]byte{0, 0, 0, 2, byte(9), 0x80}) // a multicast with a truncated ID
		c.expectClosed("bad multicast")
		waitFor(t, 5*time.Second, "raw joiner removed", func() error {
			if downs := v.Status().Downs; slices.Contains(downs, "127.0.0.1:9") {
				return fmt.Errorf("downs = %v", downs)
			}
			return nil
		})
	})

	if err := attached(); err != nil {
		t.Fatalf("bad peers disturbed a good link: %v", err)
	}
	k := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log})
	waitFor(t, 5*time.Second, "another joiner attached", func() error {
		if st := k.Status(); st.Role != newsnet.RoleAttached {
			return fmt.Errorf("role %s", st.Role)
		}
		return nil
	})
}

// A down-servant that stops reading and writing without closing its socket
// is dropped once nothing arrived for LinkTimeout.
func TestHeartbeatDropsSilentDown(t *testing.T) {
	core := fastCore()
	v := startNode(t, Config{Protocol: core, Logger: newTestLog(t)})
	c := dialRaw(t, v.Addr())
	c.hello()
	const ghost = newsnet.ServantID("127.0.0.1:9")
	c.join(ghost)
	silentSince := time.Now()
	// Nobody answers the dial-back at the ghost's address: it is a leaf.
	if leaves := v.Status().Leaves; !slices.Contains(leaves, ghost) {
		t.Fatalf("leaves = %v, want the raw joiner", leaves)
	}
	// From here on the raw peer neither reads nor writes.
	waitFor(t, core.LinkTimeout+5*time.Second, "silent down dropped", func() error {
		if st := v.Status(); len(st.Downs)+len(st.Leaves) != 0 {
			return fmt.Errorf("downs = %v, leaves %v", st.Downs, st.Leaves)
		}
		return nil
	})
	switch took := time.Since(silentSince); {
	case took < core.LinkTimeout-core.TickInterval:
		t.Errorf("dropped after %v, before the link timeout %v", took, core.LinkTimeout)
	case took > core.LinkTimeout+2*time.Second: // generous: a loaded machine stalls
		t.Errorf("dropped after %v, long after the link timeout %v", took, core.LinkTimeout)
	}
	c.expectClosed("silent down")
}

// An up-servant that accepts the join and then goes silent is detected the
// same way from below: the joiner loses its uplink and goes back to its seeds.
func TestHeartbeatDropsSilentUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fake := newsnet.ServantID(ln.Addr().String())
	served := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		ln.Close() // later dials are refused: the joiner stays unattached
		if err != nil {
			served <- nil
			return
		}
		newsnet.WriteHello(c, newsnet.OwnHello("test"))
		newsnet.ReadHello(c)
		newsnet.ReadFrame(c, nil) // the join request
		newsnet.WriteFrame(c, &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{fake}})
		served <- c // and silence
	}()
	defer func() {
		if c := <-served; c != nil {
			c.Close()
		}
	}()

	core := fastCore(fake)
	j := startNode(t, Config{Protocol: core, Logger: newTestLog(t)})
	waitFor(t, 5*time.Second, "attached under the fake", func() error {
		if st := j.Status(); st.Up != fake {
			return fmt.Errorf("up = %q, role %s", st.Up, st.Role)
		}
		return nil
	})
	waitFor(t, core.LinkTimeout+5*time.Second, "silent uplink dropped", func() error {
		if st := j.Status(); st.Up != "" {
			return fmt.Errorf("still attached to %s", st.Up)
		}
		return nil
	})
}

// A subscription set beyond newsnet.CheckSubscriptions' limits is refused
// and leaves the subscriptions as they were (issue 11, defect 5).
func TestSetSubscriptionsLimit(t *testing.T) {
	n := startNode(t, Config{Protocol: fastCore(), Logger: newTestLog(t)})
	if err := n.SetSubscriptions([]string{"it"}); err != nil {
		t.Fatal(err)
	}
	many := make([]string, newsnet.MaxCategories+1)
	for i := range many {
		many[i] = fmt.Sprintf("c%d", i)
	}
	if err := n.SetSubscriptions(many); err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Errorf("SetSubscriptions of %d categories: %v", len(many), err)
	}
	if got := n.Status().Subscriptions; !got.Equal(newsnet.CategorySet{"it"}) {
		t.Errorf("after a refused set: %.5v", got)
	}
	if err := n.SetSubscriptions(many[:newsnet.MaxCategories]); err != nil {
		t.Errorf("SetSubscriptions of %d categories: %v", newsnet.MaxCategories, err)
	}
	if got := n.Status().Subscriptions; len(got) != newsnet.MaxCategories {
		t.Errorf("%d subscriptions, want %d", len(got), newsnet.MaxCategories)
	}
}
