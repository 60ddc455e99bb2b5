//go:build unix

package node

import (
	"errors"
	"net"
	"sync"
	"syscall"
)

// rawConnOf returns the raw connection of a TCP socket, through which a
// write can be tried without waiting; nil for anything else (a test's
// wrapper).
func rawConnOf(c net.Conn) syscall.RawConn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// writeNow writes as much of b as the socket takes now, without waiting
// for it to take more: n < len(b) with a nil error means the socket's
// buffer is full. An expired write deadline (left by the writer) counts as
// full too: the writer arms its own before it writes the rest. Any other
// error means the connection is broken.
func writeNow(rc syscall.RawConn, b []byte) (n int, err error) {
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true // done, whatever happened: never wait here
			}
		}
	})
	n = max(n, 0)
	switch {
	case err != nil:
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return n, nil
		}
		return n, err
	case werr == syscall.EAGAIN:
		return n, nil
	}
	return n, werr
}

// spillConn is the TCP connection under a TLS link, letting the loop write
// a frame through TLS without waiting. TLS must write a record whole once
// it has encrypted it, so while the loop writes (nonBlocking), what the
// socket does not take at once is kept here, the spill, and reported
// written to TLS; the link's writer sends it (flushSome) before anything
// else, and any write that may wait sends it first too. The spill holds at
// most the records of one direct write (32 KiB of frames, or one larger
// frame): the loop writes directly only when nothing is queued or being
// written on the link.
type spillConn struct {
	net.Conn // the TCP connection
	rc       syscall.RawConn

	mu          sync.Mutex
	nonBlocking bool
	spill       []byte
}

// newSpillConn wraps a TCP connection; nil for anything else.
func newSpillConn(c net.Conn) *spillConn {
	rc := rawConnOf(c)
	if rc == nil {
		return nil
	}
	return &spillConn{Conn: c, rc: rc}
}

func (c *spillConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nonBlocking {
		taken := 0
		if len(c.spill) == 0 { // else b must wait its turn behind the spill
			n, err := writeNow(c.rc, b)
			if err != nil {
				return n, err
			}
			taken = n
		}
		c.spill = append(c.spill, b[taken:]...)
		return len(b), nil
	}
	for len(c.spill) > 0 {
		if _, err := c.flushLocked(len(c.spill)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(b)
}

// flushSome writes up to max bytes of the spill, waiting for the socket
// (within the write deadline), and reports whether some is left.
func (c *spillConn) flushSome(max int) (more bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushLocked(max)
}

func (c *spillConn) flushLocked(max int) (more bool, err error) {
	if len(c.spill) == 0 {
		return false, nil
	}
	n, err := c.Conn.Write(c.spill[:min(max, len(c.spill))])
	c.spill = c.spill[:copy(c.spill, c.spill[n:])]
	if len(c.spill) == 0 && cap(c.spill) > writeBufferSize {
		c.spill = nil // a large frame's spill is not kept for the next
	}
	return len(c.spill) > 0, err
}

// spilled reports whether some of what TLS wrote waits in the spill.
func (c *spillConn) spilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.spill) > 0
}

func (c *spillConn) setNonBlocking(on bool) {
	c.mu.Lock()
	c.nonBlocking = on
	c.mu.Unlock()
}

// directWriter returns how the loop writes to the link without waiting:
// straight to the socket on a plain TCP link, through TLS into spill on a
// TLS link; nil where it cannot (a connection that is not a socket).
func directWriter(conn, raw net.Conn, spill *spillConn) func([]byte) (int, error) {
	if spill != nil {
		return func(b []byte) (int, error) {
			spill.setNonBlocking(true)
			defer spill.setNonBlocking(false)
			if _, err := conn.Write(b); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	if conn != raw {
		return nil
	}
	if rc := rawConnOf(raw); rc != nil {
		return func(b []byte) (int, error) { return writeNow(rc, b) }
	}
	return nil
}
