//go:build unix

package node

import (
	"bufio"
	"crypto/tls"
	"log/slog"
	"net"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

// The loop writes a frame itself only when nothing is queued before it and
// the writer holds nothing, and never once the queue is ended or dead; what
// the socket did not take goes first in the queue, with the offset already
// written, and on a dead queue it is dropped and counted as written.
func TestSendQueueDirectClaim(t *testing.T) {
	var q sendQueue
	q.init()
	if !q.claimDirect() {
		t.Fatal("claim refused on an idle, empty queue")
	}
	if q.claimDirect() {
		t.Fatal("claimed twice")
	}
	f := newFrame(make([]byte, 100))
	f.retain()
	q.endDirect([]queued{{frame: f, size: 7, off: 40}}, 1<<20)
	if q.claimDirect() {
		t.Fatal("claimed with a frame's rest queued")
	}
	batch, ok := q.take(nil, 1<<20)
	if !ok || len(batch) != 1 || batch[0].off != 40 {
		t.Fatalf("take = %+v, %v; want the rest from offset 40", batch, ok)
	}
	if q.claimDirect() {
		t.Fatal("claimed while the writer holds a batch")
	}
	q.report(batch[0].size)
	batch[0].frame.release()
	q.idle()
	if !q.claimDirect() {
		t.Fatal("claim refused once the writer is idle again")
	}
	q.endDirect(nil, 1<<20)

	f.retain()
	if r := q.push(queued{frame: f, size: 7}, 1<<20); r != pushed {
		t.Fatalf("push = %v", r)
	}
	if q.claimDirect() {
		t.Fatal("claimed ahead of a queued frame")
	}
	q.drop()
	if q.claimDirect() {
		t.Fatal("claimed on a dead queue")
	}
	q.takeWritten()
	var ended sendQueue
	ended.init()
	ended.end()
	if ended.claimDirect() {
		t.Fatal("claimed on an ended queue")
	}

	// A rest handed back after the link died is dropped with it.
	var dead sendQueue
	dead.init()
	if !dead.claimDirect() {
		t.Fatal("claim refused")
	}
	dead.drop()
	f.retain()
	dead.endDirect([]queued{{frame: f, size: 9, off: 1}}, 1<<20)
	if got := dead.takeWritten(); got != 9 {
		t.Errorf("written = %d, want 9", got)
	}
	if n := f.refs.Load(); n != 1 {
		t.Errorf("frame holds %d references, want only the test's", n)
	}
}

// Frames the loop writes itself and frames its writer writes once the
// socket is full reach the peer whole and in order, and each is reported
// written exactly once: a peer that stops reading, so that direct writes
// come back short or find no room, and then reads everything. Over TLS the
// loop's writes leave what the socket did not take in the spill, which the
// writer sends first.
func TestDirectWritesKeepOrderWhenTheSocketFills(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "TLS"}[secure], func(t *testing.T) {
			testDirectWritesKeepOrder(t, secure)
		})
	}
}

func testDirectWritesKeepOrder(t *testing.T, secure bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	in, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer in.Close()
	// Small buffers, so the socket fills after a few frames.
	out.(*net.TCPConn).SetWriteBuffer(64 << 10)
	in.(*net.TCPConn).SetReadBuffer(64 << 10)

	h := handshaken{conn: out, raw: out}
	var from net.Conn = in
	if secure {
		h.spill = newSpillConn(out)
		if h.spill == nil {
			t.Fatal("no spill under TLS on a TCP connection")
		}
		ids := make([]*trust.Identity, 2)
		for i := range ids {
			if ids[i], err = trust.GenerateIdentity(); err != nil {
				t.Fatal(err)
			}
		}
		client := tls.Client(h.spill, trust.TLSConfig(ids[0], false))
		server := tls.Server(in, trust.TLSConfig(ids[1], true))
		done := make(chan error, 1)
		go func() { done <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		h.conn, from = client, server
	}
	h.r = bufio.NewReader(h.conn)
	p := newPeer(1, h, false)
	if p.direct == nil {
		t.Fatal("no direct writes on a TCP connection")
	}
	n := &Node{
		log:      slog.New(slog.DiscardHandler),
		wrote:    make(chan struct{}, 1),
		frames:   make(map[frameKey]encoded),
		queueCap: 64 << 20,
	}
	p.q.wakeAt = 1 << 62 // the test collects the counter itself
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		p.writeLoop(10*time.Second, func() {})
	}()

	wantBytes := 0
	// send is one step of the loop that sends m; the iteration ends (and
	// what it held is written) when end is set.
	send := func(m *newsnet.Multicast, end bool) {
		n.send(p, m)
		wantBytes += newsnet.SizeOf(m)
		// The end of the loop's step: its frame cache lets go.
		for _, e := range n.frames {
			e.frame.release()
		}
		clear(n.frames)
		if end {
			n.flushHeld()
		}
	}
	r := bufio.NewReader(from)
	buf := make([]byte, 64<<10)
	from.SetReadDeadline(time.Now().Add(10 * time.Second))

	// A lone frame larger than the socket takes at once, with nothing after
	// it to push its rest out.
	send(&newsnet.Multicast{Category: "x", Source: "s", Count: 1, Payload: make([]byte, 200<<10)}, true)
	if msg, err := newsnet.ReadFrame(r, buf); err != nil {
		t.Fatalf("lone frame: %v", err)
	} else if m, ok := msg.(*newsnet.Multicast); !ok || len(m.Payload) != 200<<10 {
		t.Fatalf("lone frame: got %T", msg)
	}

	// While the peer reads nothing, send far more than the socket holds,
	// from small frames to ones larger than a writer's piece, in
	// iterations of up to five frames written together.
	sizes := []int{10, 1 << 10, 5 << 10, 40 << 10}
	const items = 200
	for i := range items {
		m := &newsnet.Multicast{Category: "x", Source: "s", Count: uint64(i + 1), Payload: make([]byte, sizes[i%len(sizes)])}
		m.Payload[0] = byte(i)
		send(m, i%5 == 4 || i == items-1)
	}
	p.q.mu.Lock()
	backlog := p.q.head < len(p.q.items) || p.q.writing
	p.q.mu.Unlock()
	if !backlog {
		t.Fatal("the socket never filled: the test did not reach the writer's path")
	}

	for i := range items {
		msg, err := newsnet.ReadFrame(r, buf)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		m, ok := msg.(*newsnet.Multicast)
		if !ok {
			t.Fatalf("frame %d: got %T", i, msg)
		}
		if m.Count != uint64(i+1) || len(m.Payload) != sizes[i%len(sizes)] || m.Payload[0] != byte(i) {
			t.Fatalf("frame %d: count %d, %d bytes; want count %d, %d bytes", i, m.Count, len(m.Payload), i+1, sizes[i%len(sizes)])
		}
	}
	p.q.end()
	<-writerDone
	if got := p.q.takeWritten(); got != wantBytes {
		t.Errorf("reported written %d bytes, want %d (every frame once)", got, wantBytes)
	}
	if len(n.pending) != 0 {
		t.Errorf("the loop queued events %v: no write failed", n.pending)
	}
}
