package demo

import (
	"bytes"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// pipe returns the two ends of an in-memory connection whose writes do not
// wait for the peer to read (net.Pipe's do): the invitation protocol's ends
// both close their TLS sessions with an alert that nobody reads, which
// would hold each net.Pipe end for its write deadline. Deadlines work as on
// a socket (os.ErrDeadlineExceeded).
func pipe() (net.Conn, net.Conn) {
	ab, ba := newHalf(), newHalf()
	return &pipeEnd{in: ba, out: ab}, &pipeEnd{in: ab, out: ba}
}

// half is one direction of a pipe: what one end wrote and the other has
// not read yet.
type half struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	closed  bool          // no more writes: the reader gets EOF once buf is read
	changed chan struct{} // closed (and replaced) on every change
}

func newHalf() *half { return &half{changed: make(chan struct{})} }

// signal wakes the waiters. With mu held.
func (h *half) signal() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *half) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		h.signal()
	}
}

// pipeEnd is one end of a pipe.
type pipeEnd struct {
	in, out *half

	mu                          sync.Mutex
	readDeadline, writeDeadline time.Time
	deadlineChanged             chan struct{}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

func (p *pipeEnd) LocalAddr() net.Addr  { return pipeAddr{} }
func (p *pipeEnd) RemoteAddr() net.Addr { return pipeAddr{} }

func (p *pipeEnd) deadlines() (read, write time.Time, changed chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deadlineChanged == nil {
		p.deadlineChanged = make(chan struct{})
	}
	return p.readDeadline, p.writeDeadline, p.deadlineChanged
}

func (p *pipeEnd) setDeadlines(read, write *time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if read != nil {
		p.readDeadline = *read
	}
	if write != nil {
		p.writeDeadline = *write
	}
	if p.deadlineChanged != nil {
		close(p.deadlineChanged)
		p.deadlineChanged = nil
	}
}

func (p *pipeEnd) SetDeadline(t time.Time) error      { p.setDeadlines(&t, &t); return nil }
func (p *pipeEnd) SetReadDeadline(t time.Time) error  { p.setDeadlines(&t, nil); return nil }
func (p *pipeEnd) SetWriteDeadline(t time.Time) error { p.setDeadlines(nil, &t); return nil }

func (p *pipeEnd) Read(b []byte) (int, error) {
	for {
		dl, _, dlChanged := p.deadlines()
		p.in.mu.Lock()
		switch {
		case p.in.buf.Len() > 0:
			n, _ := p.in.buf.Read(b)
			p.in.mu.Unlock()
			return n, nil
		case p.in.closed:
			p.in.mu.Unlock()
			return 0, io.EOF
		}
		changed := p.in.changed
		p.in.mu.Unlock()
		if err := wait(changed, dlChanged, dl); err != nil {
			return 0, err
		}
	}
}

// wait waits for a change of the data or of the deadline, or until the
// deadline dl (zero: none) passes.
func wait(changed, dlChanged <-chan struct{}, dl time.Time) error {
	var expired <-chan time.Time
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-changed:
	case <-dlChanged:
	case <-expired:
		return os.ErrDeadlineExceeded
	}
	return nil
}

func (p *pipeEnd) Write(b []byte) (int, error) {
	if _, dl, _ := p.deadlines(); !dl.IsZero() && !time.Now().Before(dl) {
		return 0, os.ErrDeadlineExceeded
	}
	p.out.mu.Lock()
	defer p.out.mu.Unlock()
	if p.out.closed {
		return 0, io.ErrClosedPipe
	}
	p.out.buf.Write(b)
	p.out.signal()
	return len(b), nil
}

// Close ends both directions: the peer reads what was written, then EOF,
// and its writes fail.
func (p *pipeEnd) Close() error {
	p.out.close()
	p.in.close()
	return nil
}
