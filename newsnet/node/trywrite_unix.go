//go:build unix

package node

import (
	"errors"
	"net"
	"syscall"
)

// directWriter returns the raw connection of a plain TCP link, through
// which the loop writes without waiting; nil for a TLS link (conn is not
// raw: its records must go out whole, in order) or a connection that is not
// a socket (a test's wrapper).
func directWriter(conn, raw net.Conn) syscall.RawConn {
	if conn != raw {
		return nil
	}
	tc, ok := raw.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// tryWrite writes as much of b as the socket takes now, without waiting
// for it to take more: n < len(b) with a nil error means the socket's
// buffer is full. An expired write deadline (left by the writer) counts as
// full too, as the writer arms its own before writing the rest. Any other
// error means the connection is broken. Loop only, while it holds
// sendQueue.claimDirect.
func (p *peer) tryWrite(b []byte) (n int, err error) {
	var werr error
	err = p.direct.Write(func(fd uintptr) bool {
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
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return n, nil
		}
		return n, err
	case werr == syscall.EAGAIN:
		return n, nil
	}
	return n, werr
}
