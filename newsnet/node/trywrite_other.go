//go:build !unix

package node

import (
	"errors"
	"net"
	"syscall"
)

// directWriter returns nil: without a non-blocking write every frame goes
// through the link's writer.
func directWriter(conn, raw net.Conn) syscall.RawConn { return nil }

func (p *peer) tryWrite(b []byte) (int, error) {
	return 0, errors.New("node: direct writes are not supported here")
}
