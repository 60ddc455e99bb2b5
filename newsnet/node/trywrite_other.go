//go:build !unix

package node

import "net"

// spillConn is not used without a non-blocking write: every frame goes
// through the link's writer.
type spillConn struct{ net.Conn }

func newSpillConn(net.Conn) *spillConn                                   { return nil }
func (*spillConn) flushSome(int) (bool, error)                           { return false, nil }
func (*spillConn) spilled() bool                                         { return false }
func directWriter(_, _ net.Conn, _ *spillConn) func([]byte) (int, error) { return nil }
