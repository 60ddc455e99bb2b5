package node

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"newsdesk/newsnet"
)

// peer is one established connection. Its reader goroutine decodes frames
// for the loop; its writer goroutine drains a bounded queue the loop fills
// without ever blocking.
//
// Ownership: the loop owns the queue and closes it exactly once, when it
// forgets the link (graceful close, abort, or loss). Any goroutine may call
// fail, which closes the socket at once.
type peer struct {
	id      newsnet.LinkID
	conn    net.Conn      // the TLS connection on a secured node
	raw     net.Conn      // the TCP connection under it; conn on a plain node
	r       *bufio.Reader // positioned after the peer's hello
	addr    string        // remote address, for logs
	inbound bool
	secret  secretID // the network secret the peer proved with (secured only)
	key     string   // the peer's installation key (secured only)
	queue   chan newsnet.Message

	mu      sync.Mutex
	reason  string    // why the runtime failed the link, if it did
	closeBy time.Time // write deadline once a graceful close began
}

func newPeer(id newsnet.LinkID, h handshaken, inbound bool) *peer {
	return &peer{
		id:      id,
		conn:    h.conn,
		raw:     h.raw,
		r:       h.r,
		addr:    h.conn.RemoteAddr().String(),
		inbound: inbound,
		secret:  h.secret,
		key:     h.key,
		queue:   make(chan newsnet.Message, writeQueueLen),
	}
}

// enqueue queues m for the writer without blocking; false means the queue
// is full and the peer is too slow. Loop only.
func (p *peer) enqueue(m newsnet.Message) bool {
	select {
	case p.queue <- m:
		return true
	default:
		return false
	}
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
	close(p.queue)
}

// abort closes the socket now, dropping anything queued. Loop only, once
// per peer.
func (p *peer) abort(reason string) {
	p.fail(reason)
	close(p.queue)
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

// setWriteDeadline arms the deadline for the next batch of writes, never
// beyond the deadline of a graceful close in progress. The mutex orders it
// with closeGracefully so the shorter deadline always wins.
func (p *peer) setWriteDeadline(d time.Time) {
	p.mu.Lock()
	if !p.closeBy.IsZero() && p.closeBy.Before(d) {
		d = p.closeBy
	}
	p.conn.SetWriteDeadline(d)
	p.mu.Unlock()
}

// writeLoop writes queued frames until the loop closes the queue. Frames
// already queued are written in one batch and flushed together. A write
// that makes no progress for writeTimeout fails the link: the peer stopped
// reading. After a graceful close it half-closes the socket; the reader then
// sees the peer's FIN (or a short deadline) and closes the socket.
func (p *peer) writeLoop(writeTimeout time.Duration, log *slog.Logger) {
	bw := bufio.NewWriterSize(p.conn, writeBufferSize)
	var buf []byte
	failed := false
	write := func(m newsnet.Message) {
		if failed {
			return // drain the queue until the loop closes it
		}
		var err error
		buf, err = newsnet.AppendFrame(buf[:0], m)
		if err != nil {
			// An unencodable message is a bug upstream; the stream is still
			// intact because nothing was written, so skip the frame.
			log.Error("dropping unencodable frame", "peer", p.addr, "link", p.id, "err", err)
			return
		}
		if _, err := bw.Write(buf); err != nil {
			p.fail("write: " + err.Error())
			failed = true
		}
	}
	const maxBatch = 256
	for m := range p.queue {
		p.setWriteDeadline(time.Now().Add(writeTimeout))
		write(m)
	batch:
		for range maxBatch - 1 {
			select {
			case m, ok := <-p.queue:
				if !ok {
					break batch
				}
				write(m)
			default:
				break batch
			}
		}
		if !failed {
			if err := bw.Flush(); err != nil {
				p.fail("write: " + err.Error())
				failed = true
			}
		}
	}
	if failed {
		return
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

// readLoop decodes frames and hands them to the loop until the connection
// ends, then reports why. A malformed frame closes the link with a logged
// reason; it never takes the node down.
func (n *Node) readLoop(p *peer) {
	defer n.wg.Done()
	defer p.conn.Close()
	buf := make([]byte, 16<<10) // larger frames allocate their own buffer
	reason := ""
	for {
		m, err := newsnet.ReadFrame(p.r, buf)
		if err != nil {
			reason = n.readFailure(p, err)
			break
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
