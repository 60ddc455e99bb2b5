package fakebackend

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"newsdesk/app"
	"newsdesk/trust"
)

// Redeem has someone join with an invitation code at their own computer:
// a second application, new, redeems it (app.App.JoinByInvitation) at
// this one's servant, over a loopback connection with TLS as on the network.
// It returns once this servant has served every connection of it, with
// the joiner's refusal if there was one.
func (b *Backend) Redeem(code, name string) error {
	b.t.Helper()
	var serving sync.WaitGroup
	dial := func(_ context.Context, addr string) (net.Conn, error) {
		sv := b.servant()
		if addr != Self || sv == nil || sv.cfg.Security == nil || sv.cfg.Security.Invitations == nil {
			return nil, fmt.Errorf("dial %s: %w", addr, errNoNetwork)
		}
		client, server, err := socketPair()
		if err != nil {
			return nil, err
		}
		serving.Go(func() {
			defer server.Close()
			server.SetDeadline(time.Now().Add(5 * time.Second)) // the node's bound on a handshake
			tc := tls.Server(server, trust.TLSConfigFor(b.Identity(), true, trust.ALPN, trust.InviteALPN))
			if tc.Handshake() != nil || tc.ConnectionState().NegotiatedProtocol != trust.InviteALPN {
				return
			}
			sv.cfg.Security.Invitations(tc)
		})
		return client, nil
	}
	joiner := newBackend(b.t, b.now(), dial)
	joiner.open(nil)
	err := joiner.App.JoinByInvitation(context.Background(), code, app.Setup{DisplayName: name})
	serving.Wait()
	return err
}

// socketPair returns the two ends of a loopback TCP connection: unlike
// net.Pipe's, their writes do not wait for the peer to read (both ends of
// the invitation protocol close their TLS sessions with an alert nobody
// reads).
func socketPair() (net.Conn, net.Conn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	a := <-ch
	if a.err != nil {
		client.Close()
		return nil, nil, a.err
	}
	return client, a.c, nil
}
