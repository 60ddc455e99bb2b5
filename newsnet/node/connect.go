package node

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"newsdesk/newsnet"
)

// dial connects to addr for the core's join attempt on link and reports the
// outcome to the loop. Dial and handshake together get within, or
// Protocol.JoinTimeout when the core did not say.
func (n *Node) dial(link newsnet.LinkID, addr newsnet.ServantID, within time.Duration) {
	defer n.wg.Done()
	ctx, cancel := context.WithTimeout(n.ctx, cmp.Or(within, n.core.JoinTimeout))
	defer cancel()
	conn, err := n.dialFrom(ctx, string(addr))
	var p *peer
	if err == nil {
		if n.wrapDial != nil {
			conn = n.wrapDial(conn)
		}
		deadline, _ := ctx.Deadline()
		h, herr := n.handshake(ctx, conn, deadline, true)
		if herr != nil {
			h.raw.Close()
			n.refused(herr, string(addr), false)
			err = herr
		} else {
			p = newPeer(link, h, false)
		}
	}
	select {
	case n.dialed <- dialed{link: link, peer: p, err: err}:
	case <-n.ctx.Done():
		if p != nil {
			p.raw.Close()
		}
	}
}

// dialFrom dials addr from this servant's advertised address when that is
// an address of this computer, so that the connection comes from where
// the servant says it is: what up-servants judge audiences by for a leaf
// (newsnet/audience.go). A computer with several addresses (a VPN beside
// its LAN) would otherwise connect from whichever its routes pick. Where
// binding fails, it dials as the system chooses.
func (n *Node) dialFrom(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	if ip := n.sourceIP(); ip.IsValid() {
		bound := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0))}
		if conn, err := bound.DialContext(ctx, "tcp", addr); err == nil || ctx.Err() != nil {
			return conn, err
		}
	}
	return d.DialContext(ctx, "tcp", addr)
}

// sourceIP is the advertised address when it is one of this computer's
// (checked once), the zero Addr otherwise.
func (n *Node) sourceIP() netip.Addr {
	n.sourceOnce.Do(func() {
		ap, err := netip.ParseAddrPort(string(n.id))
		if err != nil {
			return
		}
		ip := ap.Addr().Unmap()
		if ip.IsLoopback() {
			n.source = ip
			return
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return
		}
		for _, a := range addrs {
			if pfx, err := netip.ParsePrefix(a.String()); err == nil && pfx.Addr().Unmap() == ip {
				n.source = ip
				return
			}
		}
	})
	return n.source
}

// acceptLoop accepts connections and runs each one's handshake in its own
// goroutine, so a client that connects and stays silent delays nobody.
func (n *Node) acceptLoop() {
	defer n.wg.Done()
	var backoff time.Duration
	for {
		conn, err := n.ln.Accept()
		if err != nil {
			if n.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors or similar: wait a little and retry
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			n.log.Warn("accept failed", "err", err, "retry", backoff)
			select {
			case <-time.After(backoff):
			case <-n.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		n.wg.Add(1)
		go n.acceptHandshake(conn)
	}
}

// acceptHandshake secures an accepted connection (on a secured node),
// exchanges hellos and hands it to the loop, or closes it with a logged and
// counted reason.
func (n *Node) acceptHandshake(conn net.Conn) {
	defer n.wg.Done()
	h, err := n.handshake(n.ctx, conn, time.Now().Add(n.hsTimeout), false)
	if err != nil {
		h.raw.Close()
		n.refused(err, conn.RemoteAddr().String(), true)
		return
	}
	p := newPeer(0, h, true)
	select {
	case n.accepted <- accepted{peer: p}:
	case <-n.ctx.Done():
		conn.Close()
	}
}

// remoteAddr is the IP address conn comes from, the zero Addr when it is
// not a TCP connection.
func remoteAddr(conn net.Conn) netip.Addr {
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr()
	}
	return netip.Addr{}
}
