package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// ledger keeps, per link, the bytes a node's core sent (SizeOf of its Send
// actions) and the bytes the runtime reported written, as seen by the
// observe hook, and wakes waiters on every change.
type ledger struct {
	mu      sync.Mutex
	sent    map[newsnet.LinkID]int
	written map[newsnet.LinkID]int
	downAt  map[newsnet.LinkID]time.Time         // LinkDown event or Close action
	downWhy map[newsnet.LinkID]string            // its reason
	dialed  map[newsnet.ServantID]newsnet.LinkID // the latest Dial to each address
	over    []string                             // links reported beyond what was sent
	changed chan struct{}
}

func newLedger() *ledger {
	return &ledger{
		sent:    map[newsnet.LinkID]int{},
		written: map[newsnet.LinkID]int{},
		downAt:  map[newsnet.LinkID]time.Time{},
		downWhy: map[newsnet.LinkID]string{},
		dialed:  map[newsnet.ServantID]newsnet.LinkID{},
		changed: make(chan struct{}, 1),
	}
}

func (l *ledger) observe(ev newsnet.Event, acts []newsnet.Action) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case newsnet.Written:
		l.written[ev.Link] += ev.Bytes
		if l.written[ev.Link] > l.sent[ev.Link] {
			l.over = append(l.over, fmt.Sprintf("link %d: written %d > sent %d", ev.Link, l.written[ev.Link], l.sent[ev.Link]))
		}
	case newsnet.LinkDown:
		if _, ok := l.downAt[ev.Link]; !ok {
			l.downAt[ev.Link], l.downWhy[ev.Link] = now, ev.Reason
		}
	}
	for _, a := range acts {
		switch a := a.(type) {
		case newsnet.Send:
			l.sent[a.Link] += newsnet.SizeOf(a.Msg)
		case newsnet.Close:
			if _, ok := l.downAt[a.Link]; !ok {
				l.downAt[a.Link], l.downWhy[a.Link] = now, a.Reason
			}
		case newsnet.Dial:
			l.dialed[a.Addr] = a.Link
		}
	}
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// wait blocks until cond, checked under the ledger's lock after every
// change, holds, or fails the test after timeout.
func (l *ledger) wait(t *testing.T, timeout time.Duration, what string, cond func(*ledger) error) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		l.mu.Lock()
		err := cond(l)
		l.mu.Unlock()
		if err == nil {
			return
		}
		select {
		case <-l.changed:
		case <-timer.C:
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
	}
}

// balanced reports whether every link's written bytes caught up with its
// sent bytes.
func (l *ledger) balanced() error {
	if len(l.over) > 0 {
		return fmt.Errorf("written beyond sent: %v", l.over)
	}
	for id, s := range l.sent {
		if _, down := l.downAt[id]; !down && l.written[id] != s {
			return fmt.Errorf("link %d: sent %d, written %d", id, s, l.written[id])
		}
	}
	return nil
}

// Every frame the core sends is reported back as Written exactly once, in
// the core's SizeOf units: once traffic stops, each link's written bytes
// equal its sent bytes, and they never exceed them on the way. Frames of
// every size take part, from pings to ones larger than a write.
func TestWrittenMatchesSent(t *testing.T) {
	log := newTestLog(t)
	vl, jl := newLedger(), newLedger()
	var vd, jd deliveries
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, OnDeliver: vd.add, observe: vl.observe})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, OnDeliver: jd.add, observe: jl.observe})
	waitFor(t, 5*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
	if err := v.Subscribe("x"); err != nil {
		t.Fatal(err)
	}
	if err := j.Subscribe("x"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "routing sets", func() error {
		if l, _ := linkTo(v.Status(), j.Addr()); !l.Received.Equal(newsnet.CategorySet{"x"}) {
			return fmt.Errorf("vertex received %v", l.Received)
		}
		if l, _ := linkTo(j.Status(), v.Addr()); !l.Received.Equal(newsnet.CategorySet{"x"}) {
			return fmt.Errorf("joiner received %v", l.Received)
		}
		return nil
	})

	ctx := context.Background()
	sizes := []int{0, 10, 1 << 10, 31 << 10, 40 << 10, 100 << 10}
	var ids [][16]byte
	for i := range 200 {
		for _, from := range []*Node{v, j} {
			m := newMsg("x")
			m.Payload = make([]byte, sizes[i%len(sizes)])
			ids = append(ids, m.ID)
			if _, err := from.Publish(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitFor(t, 10*time.Second, "every item delivered", func() error {
		for k, id := range ids {
			if d := []*deliveries{&jd, &vd}[k%2]; d.count(id) != 1 {
				return fmt.Errorf("item %d delivered %d times", k, d.count(id))
			}
		}
		return nil
	})
	for name, l := range map[string]*ledger{"vertex": vl, "joiner": jl} {
		l.wait(t, 5*time.Second, name+"'s written bytes", func(l *ledger) error {
			if len(l.sent) == 0 {
				return errors.New("nothing sent")
			}
			return l.balanced()
		})
	}
}

// Frames that can no longer be written because the link failed count as
// written too (dropped with the link), so the core never waits for them.
func TestSendQueueReportsEveryFrame(t *testing.T) {
	var q sendQueue
	q.init()
	f := newFrame(make([]byte, 100))
	for range 3 {
		f.retain()
		if r := q.push(queued{frame: f, size: 7}, 1<<20); r != pushed {
			t.Fatalf("push = %v", r)
		}
	}
	batch, ok := q.take(nil, 150) // one frame past the first would exceed 150
	if !ok || len(batch) != 1 {
		t.Fatalf("take = %d frames, %v; want 1", len(batch), ok)
	}
	q.report(batch[0].size)
	batch[0].frame.release()
	q.drop() // the writer failed: the two still queued are dropped
	if got := q.takeWritten(); got != 3*7 {
		t.Errorf("written = %d, want %d", got, 3*7)
	}
	if r := q.push(queued{frame: f, size: 7}, 1<<20); r != dropped {
		t.Errorf("push after drop = %v, want dropped", r)
	}
	if f.refs.Load() != 1 {
		t.Errorf("frame holds %d references, want only the test's", f.refs.Load())
	}
	if _, ok := q.take(nil, 1<<20); ok {
		t.Error("take after drop succeeded")
	}
}

// The hard cap refuses a frame that would take the queue past it; frames
// never block the pusher, and the FIFO order holds across compaction.
func TestSendQueueCapAndOrder(t *testing.T) {
	var q sendQueue
	q.init()
	frames := make([]*frame, 100)
	for i := range frames {
		frames[i] = newFrame([]byte{byte(i)})
	}
	limit := 10 * (64 + queuedOverhead)
	next, got := 0, 0
	for round := range 20 {
		for next < len(frames) {
			r := q.push(queued{frame: frames[next], size: 1}, limit)
			if r == overCap {
				break
			}
			if r != pushed {
				t.Fatalf("push = %v", r)
			}
			next++
		}
		if next < len(frames) && q.bytes+64+queuedOverhead <= limit {
			t.Fatalf("round %d: refused below the cap (%d bytes queued)", round, q.bytes)
		}
		batch, ok := q.take(nil, 3) // three one-byte frames
		if !ok {
			t.Fatal("take failed")
		}
		for _, e := range batch {
			if int(e.frame.b[0]) != got {
				t.Fatalf("took frame %d, want %d", e.frame.b[0], got)
			}
			got++
		}
	}
	q.end()
	for {
		batch, ok := q.take(nil, 1<<20)
		if !ok {
			break
		}
		got += len(batch)
	}
	if got != next {
		t.Errorf("took %d frames of %d pushed", got, next)
	}
}

// stallConn wraps a dialed connection so that a test can make this side's
// writes slow (rate bytes/s) or stop them entirely, as a peer that reads
// slowly or not at all would. It honours write deadlines like a socket.
type stallConn struct {
	net.Conn

	mu        sync.Mutex
	deadline  time.Time
	rate      int  // bytes per second; 0: as fast as the socket
	stalled   bool // writes block until the deadline
	stalledAt time.Time
	kick      chan struct{} // deadline changed or closed
	closed    bool
}

func newStallConn(c net.Conn) *stallConn { return &stallConn{Conn: c, kick: make(chan struct{}, 1)} }

func (c *stallConn) set(f func(*stallConn)) {
	c.mu.Lock()
	f(c)
	c.mu.Unlock()
	c.signal()
}

func (c *stallConn) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *stallConn) SetWriteDeadline(t time.Time) error {
	c.set(func(c *stallConn) { c.deadline = t })
	return c.Conn.SetWriteDeadline(t)
}

func (c *stallConn) SetDeadline(t time.Time) error {
	c.set(func(c *stallConn) { c.deadline = t })
	return c.Conn.SetDeadline(t)
}

func (c *stallConn) Close() error {
	c.set(func(c *stallConn) { c.closed = true })
	return c.Conn.Close()
}

func (c *stallConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Write waits as the mode says, then writes. A wait that reaches the
// deadline fails with a timeout, writing nothing.
func (c *stallConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	var until time.Time
	switch {
	case c.stalled:
		if c.stalledAt.IsZero() {
			c.stalledAt = time.Now()
		}
	case c.rate > 0:
		until = time.Now().Add(time.Duration(len(b)) * time.Second / time.Duration(c.rate))
	}
	c.mu.Unlock()
	for {
		c.mu.Lock()
		stalled, deadline, closed := c.stalled, c.deadline, c.closed
		c.mu.Unlock()
		now := time.Now()
		switch {
		case closed:
			return 0, net.ErrClosed
		case !deadline.IsZero() && !now.Before(deadline):
			return 0, os.ErrDeadlineExceeded
		case !stalled && !now.Before(until):
			return c.Conn.Write(b)
		}
		wait := time.Hour
		if !stalled {
			wait = until.Sub(now)
		}
		if !deadline.IsZero() {
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

// stallDialer records the connections a node dials.
type stallDialer struct {
	mu    sync.Mutex
	conns []*stallConn
}

func (d *stallDialer) wrap(c net.Conn) net.Conn {
	sc := newStallConn(c)
	d.mu.Lock()
	d.conns = append(d.conns, sc)
	d.mu.Unlock()
	return sc
}

func (d *stallDialer) last() *stallConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conns[len(d.conns)-1]
}

// uplink returns the ID of the link the ledger's node dialed to addr last.
func (l *ledger) uplink(addr newsnet.ServantID) newsnet.LinkID {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dialed[addr]
}

// A peer that reads slowly but steadily keeps its link through a burst that
// takes several link timeouts to get through: the write deadline follows
// the progress of the writes, not the size of the burst.
func TestSlowSteadyPeerIsKept(t *testing.T) {
	log := newTestLog(t)
	var vd deliveries
	jl := newLedger()
	var dialer stallDialer
	core := fastCore()
	v := startNode(t, Config{Protocol: core, Logger: log, OnDeliver: vd.add})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, wrapDial: dialer.wrap, observe: jl.observe})
	waitFor(t, 5*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
	if err := v.Subscribe("x"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "routing set", func() error {
		if l, _ := linkTo(j.Status(), v.Addr()); !l.Received.Equal(newsnet.CategorySet{"x"}) {
			return fmt.Errorf("joiner received %v", l.Received)
		}
		return nil
	})
	up := jl.uplink(v.Addr())

	// 400 KiB/s: a 32 KiB write takes 80ms, a fifth of the link timeout;
	// the whole burst, about 600 KiB, takes 1.5s, almost four timeouts.
	const items = 600
	dialer.last().set(func(c *stallConn) { c.rate = 400 << 10 })
	start := time.Now()
	var ids [][16]byte
	for range items {
		m := newMsg("x")
		m.Payload = make([]byte, 1<<10)
		ids = append(ids, m.ID)
		if _, err := j.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "the burst delivered", func() error {
		for k, id := range ids {
			if vd.count(id) != 1 {
				return fmt.Errorf("item %d delivered %d times", k, vd.count(id))
			}
		}
		return nil
	})
	took := time.Since(start)
	if took < 2*core.LinkTimeout {
		t.Errorf("the burst took %v: the throttle did not hold it back", took)
	}
	jl.mu.Lock()
	downAt, down := jl.downAt[up]
	jl.mu.Unlock()
	if down {
		t.Errorf("the slow link went down %v into the burst", downAt.Sub(start))
	}
	if st := j.Status(); st.Up != v.Addr() {
		t.Errorf("joiner up = %q after the burst", st.Up)
	}
}

// A peer that stops reading entirely is closed about Protocol.LinkTimeout after
// its writes stopped, even though it keeps sending (its heartbeats arrive)
// and has no timeout of its own to close the link first.
func TestStalledPeerIsClosed(t *testing.T) {
	log := newTestLog(t)
	jl := newLedger()
	var dialer stallDialer
	vcore := fastCore()
	vcore.LinkTimeout = 30 * time.Second // the vertex never gives up first
	v := startNode(t, Config{Protocol: vcore, Logger: log})
	core := fastCore(v.Addr())
	j := startNode(t, Config{Protocol: core, Logger: log, wrapDial: dialer.wrap, observe: jl.observe})
	waitFor(t, 5*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
	up := jl.uplink(v.Addr())
	conn := dialer.last()

	conn.set(func(c *stallConn) { c.stalled = true })
	// The joiner's heartbeats write within HeartbeatInterval; the first
	// blocked write starts the clock.
	jl.wait(t, 10*time.Second, "the stalled link closed", func(l *ledger) error {
		if _, ok := l.downAt[up]; !ok {
			return errors.New("link still up")
		}
		return nil
	})
	jl.mu.Lock()
	downAt := jl.downAt[up]
	jl.mu.Unlock()
	conn.mu.Lock()
	stalledAt := conn.stalledAt
	conn.mu.Unlock()
	if stalledAt.IsZero() {
		t.Fatal("closed before any write was stalled")
	}
	took := downAt.Sub(stalledAt)
	t.Logf("closed %v after the first stalled write (link timeout %v)", took, core.LinkTimeout)
	switch {
	case took < core.LinkTimeout-core.TickInterval:
		t.Errorf("closed after %v, before the link timeout %v", took, core.LinkTimeout)
	case took > core.LinkTimeout+2*core.TickInterval+500*time.Millisecond: // slack for a loaded machine
		t.Errorf("closed after %v, long after the link timeout %v", took, core.LinkTimeout)
	}
	// The node stayed responsive throughout and goes on.
	if _, err := j.Publish(context.Background(), newMsg("x")); err != nil {
		t.Errorf("Publish after the stall: %v", err)
	}
}

// While the servant is backlogged, Publish waits: it gives up with the
// context's error (and the item is never published), or publishes once the
// backlog clears, in the order the calls came; Close ends waiting calls
// with ErrClosed.
func TestPublishWaitsWhileBacklogged(t *testing.T) {
	n, backlogged, publishedIDs := startBackloggable(t)
	backlogged.Store(true)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	dropped := newMsg("x")
	if _, err := n.Publish(ctx, dropped); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Publish while backlogged = %v, want %v", err, context.DeadlineExceeded)
	}

	// parked reports the messages of the calls the loop holds back.
	parked := func() (ms []*newsnet.Multicast) {
		n.do(func(*newsnet.Servant) {
			for _, p := range n.parked {
				if p.state.Load() == parkWaiting {
					ms = append(ms, p.m)
				}
			}
		})
		return ms
	}
	if ms := parked(); len(ms) != 0 {
		t.Fatalf("%d calls parked after the abandoned one", len(ms))
	}

	type result struct {
		i   int
		err error
	}
	results := make(chan result)
	msgs := []*newsnet.Multicast{newMsg("x"), newMsg("x"), newMsg("x")}
	for i, m := range msgs {
		go func() {
			_, err := n.Publish(context.Background(), m)
			results <- result{i, err}
		}()
		// Park them in order: wait until the loop has taken this one.
		waitFor(t, 5*time.Second, "call parked", func() error {
			if ms := parked(); len(ms) != i+1 || ms[i] != m {
				return fmt.Errorf("%d parked", len(ms))
			}
			return nil
		})
	}
	select {
	case r := <-results:
		t.Fatalf("Publish %d returned %v while backlogged", r.i, r.err)
	case <-time.After(50 * time.Millisecond):
	}
	backlogged.Store(false)
	for range msgs {
		if r := <-results; r.err != nil {
			t.Errorf("Publish %d = %v after the backlog cleared", r.i, r.err)
		}
	}
	got := publishedIDs()
	want := [][16]byte{msgs[0].ID, msgs[1].ID, msgs[2].ID}
	if !slices.Equal(got, want) {
		t.Errorf("published %x, want %x (in call order, without the abandoned one)", got, want)
	}

	backlogged.Store(true)
	go func() {
		_, err := n.Publish(context.Background(), newMsg("x"))
		results <- result{0, err}
	}()
	waitFor(t, 5*time.Second, "call parked", func() error {
		if ms := parked(); len(ms) != 1 {
			return fmt.Errorf("%d parked", len(ms))
		}
		return nil
	})
	n.Close()
	if r := <-results; !errors.Is(r.err, ErrClosed) {
		t.Errorf("Publish parked at Close = %v, want ErrClosed", r.err)
	}
}

// startBackloggable starts a node whose backlog the test switches on and
// off, and returns it with the switch and the IDs published so far, in
// order.
func startBackloggable(t *testing.T) (*Node, *atomic.Bool, func() [][16]byte) {
	t.Helper()
	backlogged := new(atomic.Bool)
	var mu sync.Mutex
	var published [][16]byte
	n := startNode(t, Config{
		Protocol:   fastCore(),
		Logger:     newTestLog(t),
		backlogged: func(*newsnet.Servant) bool { return backlogged.Load() },
		OnPublished: func(p newsnet.Published) {
			mu.Lock()
			published = append(published, p.ID)
			mu.Unlock()
		},
	})
	return n, backlogged, func() [][16]byte {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(published)
	}
}

// PublishBatch publishes in order in one hand-off; while backlogged the
// whole batch waits, and a context that ends cancels the rest of it, so
// what was published is a prefix.
func TestPublishBatch(t *testing.T) {
	n, backlogged, got := startBackloggable(t)
	ids := func(ms []*newsnet.Multicast) (out [][16]byte) {
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	first := []*newsnet.Multicast{newMsg("x"), newMsg("x"), newMsg("x")}
	links, err := n.PublishBatch(context.Background(), first)
	if err != nil || len(links) != 3 {
		t.Fatalf("PublishBatch = %v, %v", links, err)
	}
	if !slices.Equal(got(), ids(first)) {
		t.Fatalf("published %x, want %x", got(), ids(first))
	}

	bad := []*newsnet.Multicast{newMsg("x"), nil}
	if _, err := n.PublishBatch(context.Background(), bad); err == nil {
		t.Fatal("a batch with an invalid message was accepted")
	}
	if len(got()) != 3 {
		t.Fatal("part of a refused batch was published")
	}

	backlogged.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	links, err = n.PublishBatch(ctx, []*newsnet.Multicast{newMsg("x"), newMsg("x")})
	if !errors.Is(err, context.DeadlineExceeded) || len(links) != 0 {
		t.Fatalf("PublishBatch while backlogged = %v, %v; want nothing published and %v", links, err, context.DeadlineExceeded)
	}
	second := []*newsnet.Multicast{newMsg("x"), newMsg("x")}
	done := make(chan error, 1)
	go func() {
		_, err := n.PublishBatch(context.Background(), second)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("PublishBatch returned %v while backlogged", err)
	case <-time.After(50 * time.Millisecond):
	}
	backlogged.Store(false)
	n.do(func(*newsnet.Servant) {}) // the loop releases parked calls after each event
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := append(ids(first), ids(second)...); !slices.Equal(got(), want) {
		t.Errorf("published %x, want %x (the abandoned batch left out)", got(), want)
	}
}

// A core config with only the seeds set is completed with every default,
// including those the core adds later (link buffer, recover window), but
// not where zero is a setting of its own; a field set by the host is kept.
func TestCoreConfigDefaults(t *testing.T) {
	c := coreConfig(newsnet.Config{LinkBuffer: 64 << 10}, "127.0.0.1:7400")
	if err := c.Validate(); err != nil {
		t.Fatalf("completed config invalid: %v", err)
	}
	d := newsnet.DefaultConfig("127.0.0.1:7400")
	if c.LinkTimeout != d.LinkTimeout || c.LinkBacklog != d.LinkBacklog || c.CatchUpLimit != d.CatchUpLimit {
		t.Errorf("defaults not applied: %+v", c)
	}
	if c.LinkBuffer != 64<<10 {
		t.Errorf("link buffer = %d, want the host's 64 KiB", c.LinkBuffer)
	}
	if got, want := queueCap(c), 4*(64<<10)+8<<20; got != want {
		t.Errorf("queue cap = %d, want %d", got, want)
	}
	// Where zero is a setting, it stays: direct delivery is off.
	if c.DirectThreshold != 0 || c.DirectBudget != 0 {
		t.Errorf("direct delivery threshold %d, budget %d; want 0 and 0 (off) as the host set them", c.DirectThreshold, c.DirectBudget)
	}
	for name := range zeroIsASetting {
		if _, ok := reflect.TypeFor[newsnet.Config]().FieldByName(name); !ok {
			t.Errorf("zeroIsASetting names %s, which newsnet.Config does not have", name)
		}
	}
}

// A send queue that reaches its hard cap (which the core's flow control
// never lets happen) closes that link with an error and reports it to the
// core; the node goes on.
func TestQueueOverCapClosesLink(t *testing.T) {
	log := newTestLog(t)
	jl := newLedger()
	var dialer stallDialer
	v := startNode(t, Config{Protocol: fastCore(), Logger: log})
	core := fastCore(v.Addr())
	core.LinkTimeout = 30 * time.Second // the stall must not end the link first
	core.HeartbeatInterval = time.Second
	core.RootSilence = time.Minute
	j := startNode(t, Config{Protocol: core, Logger: log, wrapDial: dialer.wrap, observe: jl.observe, queueCap: 16 << 10})
	waitFor(t, 5*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
	if err := v.Subscribe("x"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "routing set", func() error {
		if l, _ := linkTo(j.Status(), v.Addr()); !l.Received.Equal(newsnet.CategorySet{"x"}) {
			return fmt.Errorf("joiner received %v", l.Received)
		}
		return nil
	})
	up := jl.uplink(v.Addr())
	dialer.last().set(func(c *stallConn) { c.stalled = true })
	for range 40 { // 40 KiB: the writer holds at most 32 KiB, the queue 16 KiB
		m := newMsg("x")
		m.Payload = make([]byte, 1<<10)
		if _, err := j.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	jl.wait(t, 5*time.Second, "the link closed", func(l *ledger) error {
		if _, ok := l.downAt[up]; !ok {
			return errors.New("link still up")
		}
		return nil
	})
	jl.mu.Lock()
	why := jl.downWhy[up]
	jl.mu.Unlock()
	if why != "send queue over its cap" {
		t.Errorf("link closed with %q, want the queue cap", why)
	}
	if _, err := j.Publish(context.Background(), newMsg("x")); err != nil {
		t.Errorf("Publish after the close: %v", err)
	}
}

// An item queued behind attachments' chunks is taken before them: chunks
// wait in the bulk lane, in their own order, and a dropped queue reports
// both lanes written.
func TestSendQueueItemsBeforeChunks(t *testing.T) {
	var q sendQueue
	q.init()
	push := func(b byte, bulk bool) {
		if r := q.push(queued{frame: newFrame([]byte{b}), size: 1, bulk: bulk}, 1<<20); r != pushed {
			t.Fatalf("push = %v", r)
		}
	}
	push('a', true)
	push('b', true)
	push('X', false)
	push('c', true)
	var order []byte
	for range 4 {
		batch, ok := q.take(nil, 1)
		if !ok {
			t.Fatal("take failed")
		}
		for _, e := range batch {
			order = append(order, e.frame.b[0])
			e.frame.release()
		}
		q.idle()
	}
	if string(order) != "Xabc" {
		t.Errorf("taken in the order %q, want the item first, then the chunks in theirs: Xabc", order)
	}
	if q.claimDirect() {
		q.endDirect(nil, 1<<20)
	} else {
		t.Error("an empty queue refused the loop's direct write")
	}
	push('d', true)
	if q.claimDirect() {
		t.Error("the loop may write directly while a chunk waits")
	}
	push('Y', false)
	q.drop()
	if got := q.takeWritten(); got != 2 {
		t.Errorf("a dropped queue reported %d bytes written, want the 2 queued in both lanes", got)
	}
}
