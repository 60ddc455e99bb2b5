package node

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"newsdesk/newsnet"
)

// peer is one established connection. Its reader goroutine decodes frames
// for the loop; its writer goroutine drains the link's send queue, which
// the loop fills without ever blocking.
//
// Ownership: the loop pushes onto the queue and ends it exactly once, when
// it forgets the link (graceful close, abort, or loss). Any goroutine may
// call fail, which closes the socket at once.
type peer struct {
	id      newsnet.LinkID
	conn    net.Conn      // the TLS connection on a secured node
	raw     net.Conn      // the TCP connection under it; conn on a plain node
	r       *bufio.Reader // positioned after the peer's hello
	addr    string        // remote address, for logs
	inbound bool
	secret  secretID      // the network secret the peer proved with (secured only)
	key     string        // the peer's installation key (secured only)
	hello   newsnet.Hello // the peer's hello: its wire versions and release
	wire    uint16        // the wire version the link runs at
	q       sendQueue
	// direct writes a frame without waiting (it returns how much of the
	// frame the socket or TLS took), so the loop can send a frame itself
	// when the writer is idle; nil where the connection offers no such
	// write (a wrapped connection, a platform without it), and every frame
	// goes through the writer.
	direct func([]byte) (int, error)
	// spill, on a TLS link, holds what TLS wrote during a direct write and
	// the socket did not take at once; the writer sends it first.
	spill *spillConn
	// held are the frames the loop holds for its direct write at the end
	// of its iteration (Node.flush); while there are any, the loop holds
	// q's direct claim. Loop only.
	held []queued

	mu      sync.Mutex
	reason  string    // why the runtime failed the link, if it did
	closeBy time.Time // write deadline once a graceful close began
}

func newPeer(id newsnet.LinkID, h handshaken, inbound bool) *peer {
	p := &peer{
		id:      id,
		conn:    h.conn,
		raw:     h.raw,
		r:       h.r,
		addr:    h.conn.RemoteAddr().String(),
		inbound: inbound,
		secret:  h.secret,
		key:     h.key,
		hello:   h.hello,
		wire:    h.wire,
	}
	p.spill = h.spill
	p.direct = directWriter(h.conn, h.raw, h.spill)
	p.q.init()
	return p
}

// closeGracefully lets the writer flush what is queued (within
// flushTimeout), half-close the socket and wait briefly for the peer's FIN,
// so frames sent just before the close (a redirect, a reset) arrive. Loop
// only, once per peer.
func (p *peer) closeGracefully() {
	p.mu.Lock()
	p.closeBy = time.Now().Add(flushTimeout)
	p.conn.SetWriteDeadline(p.closeBy)
	p.mu.Unlock()
	p.q.end()
}

// abort closes the socket now, dropping anything queued. Loop only, once
// per peer.
func (p *peer) abort(reason string) {
	p.fail(reason)
	p.q.drop()
}

// fail records the first reason the runtime gave up on the link and closes
// the socket, which ends both goroutines. Safe from any goroutine. It closes
// the TCP connection, not the TLS one, so it never waits to send a TLS
// close_notify to a peer that stopped reading.
func (p *peer) fail(reason string) {
	p.mu.Lock()
	if p.reason == "" {
		p.reason = reason
	}
	p.mu.Unlock()
	p.raw.Close()
}

func (p *peer) failReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reason
}

// setWriteDeadline arms the deadline for the next write (the zero time
// disarms it), never beyond the deadline of a graceful close in progress.
// The mutex orders it with closeGracefully so the shorter deadline always
// wins.
func (p *peer) setWriteDeadline(d time.Time) {
	p.mu.Lock()
	if !p.closeBy.IsZero() && (d.IsZero() || p.closeBy.Before(d)) {
		d = p.closeBy
	}
	p.conn.SetWriteDeadline(d)
	p.mu.Unlock()
}

// write writes b in pieces of at most writeBufferSize, arming the deadline
// afresh before each: the link fails only when one piece makes no progress
// for timeout, so a peer that reads slowly but steadily is kept.
func (p *peer) write(b []byte, timeout time.Duration) error {
	for len(b) > 0 {
		n := min(len(b), writeBufferSize)
		p.setWriteDeadline(time.Now().Add(timeout))
		if _, err := p.conn.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// flushSpill writes what TLS wrote during a direct write and the socket
// did not take, in pieces of at most writeBufferSize, each with a fresh
// deadline, as write does.
func (p *peer) flushSpill(timeout time.Duration) error {
	if p.spill == nil {
		return nil
	}
	for {
		p.setWriteDeadline(time.Now().Add(timeout))
		more, err := p.spill.flushSome(writeBufferSize)
		if err != nil || !more {
			return err
		}
	}
}

// writeLoop writes queued frames until the loop ends the queue. The loop
// writes a frame itself when nothing is queued before it and the socket
// takes it whole at once (Node.send): the writer, and its wake-up, are for
// what the socket could not take at once. It takes
// frames in batches of up to writeBufferSize bytes, copies them into one
// buffer and writes that (a larger frame is written on its own), then
// reports the batch's SizeOf bytes as written (sendQueue.written), waking
// the loop once the unreported bytes are worth a Written event of their own
// (the loop collects the rest on its next tick). A write error fails the link; what is
// still queued, and whatever the loop queues until it hears of the loss,
// is reported as written too (dropped with the link), so the core's count
// of unwritten bytes stays exact. After a graceful close the writer
// half-closes the socket; the reader then sees the peer's FIN (or a short
// deadline) and closes the socket.
func (p *peer) writeLoop(timeout time.Duration, wake func()) {
	buf := make([]byte, 0, writeBufferSize)
	var batch []queued
	for {
		var ok bool
		batch, ok = p.q.take(batch[:0], writeBufferSize)
		if !ok {
			if p.q.isDead() {
				return // aborted or lost: the socket is closed already
			}
			break
		}
		err := p.writeBatch(batch, buf, timeout)
		if err == nil && p.direct != nil {
			// The loop's direct writes never wait, but an expired
			// deadline would fail them: disarm it before going idle.
			p.setWriteDeadline(time.Time{})
		}
		p.q.idle()
		size := 0
		for i, e := range batch {
			size += e.size
			e.frame.release()
			batch[i] = queued{}
		}
		if p.q.report(size) {
			wake()
		}
		if err != nil {
			p.fail("write: " + err.Error())
			p.q.drop()
			wake()
			return
		}
	}
	// Graceful close: everything is flushed. Send our FIN and give the peer
	// a moment to answer with its own before the reader closes the socket;
	// closing with unread data would send a reset that can destroy frames
	// the peer has not read yet.
	if tc, ok := p.conn.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		p.conn.SetReadDeadline(time.Now().Add(flushTimeout))
	} else {
		p.conn.Close()
	}
}

// writeBatch writes the frames of batch, small ones gathered in buf, after
// what a direct write left in the spill.
func (p *peer) writeBatch(batch []queued, buf []byte, timeout time.Duration) error {
	if err := p.flushSpill(timeout); err != nil {
		return err
	}
	buf = buf[:0]
	for _, e := range batch {
		b := e.frame.b[e.off:]
		if len(buf)+len(b) > cap(buf) && len(buf) > 0 {
			if err := p.write(buf, timeout); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if len(b) > cap(buf) {
			if err := p.write(b, timeout); err != nil {
				return err
			}
			continue
		}
		buf = append(buf, b...)
	}
	return p.write(buf, timeout)
}

// readLoop decodes frames and hands them to the loop until the connection
// ends, then reports why. A malformed frame closes the link with a logged
// reason; it never takes the node down.
func (n *Node) readLoop(p *peer) {
	defer n.wg.Done()
	defer p.conn.Close()
	buf := make([]byte, 16<<10) // larger frames allocate their own buffer
	reason := ""
	for {
		m, err := newsnet.ReadFrameAt(p.r, buf, p.wire)
		if err != nil {
			reason = n.readFailure(p, err)
			break
		}
		// Without waiting first: a full channel is rare, and a select that
		// can wait costs more than the send on every frame.
		select {
		case n.fromPeers <- fromPeer{link: p.id, msg: m}:
			continue
		default:
		}
		select {
		case n.fromPeers <- fromPeer{link: p.id, msg: m}:
		case <-n.ctx.Done():
			return
		}
	}
	select {
	case n.fromPeers <- fromPeer{link: p.id, reason: reason}:
	case <-n.ctx.Done():
	}
}

// readFailure classifies a ReadFrame error into the reason reported to the
// core, logging protocol violations.
func (n *Node) readFailure(p *peer, err error) string {
	if r := p.failReason(); r != "" {
		return r // we closed it ourselves
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		return "closed by peer"
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return "read: " + err.Error()
	}
	// Anything else is a frame the codec refused: the peer is broken or
	// hostile. Drop the link, keep the node.
	n.log.Warn("closing link after a bad frame", "peer", p.addr, "link", p.id, "err", err)
	p.fail("bad frame: " + err.Error())
	return "bad frame: " + err.Error()
}
