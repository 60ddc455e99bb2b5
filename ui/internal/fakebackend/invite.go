package fakebackend

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"newsdesk/app"
	"newsdesk/trust"
)

// NewJoiner opens the application of a first run (NewUnset) on someone
// else's computer, which reaches this servant alone, over a loopback
// connection with TLS as on the network: its JoinByInvitation redeems
// this installation's invitations (app.App.JoinByInvitation).
func (b *Backend) NewJoiner() *Backend {
	b.t.Helper()
	j := newBackend(b.t, b.now(), b.inviteDial)
	j.open(nil)
	return j
}

// Redeem has someone join with an invitation code at their own computer:
// a joiner (NewJoiner) redeems it. It returns once this servant has
// served every connection of it, with the joiner's refusal if there was
// one.
func (b *Backend) Redeem(code, name string) error {
	b.t.Helper()
	err := b.NewJoiner().App.JoinByInvitation(context.Background(), code, app.Setup{DisplayName: name})
	b.serving.Wait()
	return err
}

// inviteDial is a joiner's connection to this servant (addr Self) for the
// invitation protocol, served as the node serves one (its Invitations).
func (b *Backend) inviteDial(_ context.Context, addr string) (net.Conn, error) {
	sv := b.servant()
	if addr != Self || sv == nil || sv.cfg.Security == nil || sv.cfg.Security.Invitations == nil {
		return nil, fmt.Errorf("dial %s: %w", addr, errNoNetwork)
	}
	client, server, err := socketPair()
	if err != nil {
		return nil, err
	}
	b.serving.Go(func() {
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
