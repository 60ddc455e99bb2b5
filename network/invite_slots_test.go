package network

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/trust"
)

// idleRedemption opens a redemption connection to addr from the loopback
// address from (TLS done, trust.InviteALPN chosen) and sends nothing.
func idleRedemption(t *testing.T, from, addr string) *tls.Conn {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := tls.DialWithDialer(d, "tcp", addr, trust.TLSConfigFor(newIdentity(t), false, trust.InviteALPN))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Issue 32 A: an outsider holding idle redemption connections blocks no
// join. Many connections that never send a request, from many addresses
// (more than there are slots, at the admin's servant and at every seed),
// take no slot: a slot is taken only once a request has been read. A
// real join through a seed, relayed to the admin's servant, succeeds at
// once, well before the idle connections time out.
func TestIdleRedemptionConnectionsBlockNoJoin(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	for _, at := range []string{n.admin.addr, n.seedA.addr, n.seedB.addr} {
		for i := range 4 * maxRedemptions {
			idleRedemption(t, fmt.Sprintf("127.0.0.%d", 2+i%(2*maxRedemptions)), at)
		}
	}
	start := time.Now()
	if _, err := redeem(n.only(code, n.seedA.addr), newIdentity(t)); err != nil {
		t.Fatalf("a join while %d idle connections are held at each servant: %v", 4*maxRedemptions, err)
	}
	if took := time.Since(start); took >= requestTimeout {
		t.Fatalf("the join took %v: it waited for idle connections (request timeout %v)", took, requestTimeout)
	}
	t.Logf("join through a seed with %d idle connections held at each servant: %v", 4*maxRedemptions, time.Since(start))
}

// One address holds at most maxUnreadPerAddress redemption connections
// that have not sent their request; more are answered "busy" at once, and
// an idle one is closed after requestTimeout, with an answer saying why.
func TestRedemptionConnectionsPerAddress(t *testing.T) {
	n := newTestNet(t)
	var held []*tls.Conn
	for range maxUnreadPerAddress {
		held = append(held, idleRedemption(t, "127.0.0.2", n.admin.addr))
	}
	// Those are accepted and waiting: the next from that address is
	// refused at once; another address is not.
	waitUntil(t, "the idle connections counted", func() bool { return n.admin.iv.unread.count("127.0.0.2") == maxUnreadPerAddress })
	over := idleRedemption(t, "127.0.0.2", n.admin.addr)
	over.SetDeadline(time.Now().Add(requestTimeout / 2))
	var ans answer
	if err := readFrame(over, &ans, maxFrameBytes); err != nil || ans.OK || ans.Reason != ReasonBusy {
		t.Fatalf("connection %d from one address: %+v, %v; want busy at once", maxUnreadPerAddress+1, ans, err)
	}
	code := n.invite(t, InviteRequest{})
	if _, err := redeem(n.only(code, n.seedA.addr), newIdentity(t)); err != nil {
		t.Fatalf("a join from another address: %v", err)
	}
	// An idle connection is answered and let go after requestTimeout.
	start := time.Now()
	held[0].SetDeadline(time.Now().Add(5 * requestTimeout))
	if err := readFrame(held[0], &ans, maxFrameBytes); err != nil || ans.OK || ans.Reason != ReasonBadRequest {
		t.Fatalf("an idle connection: %+v, %v", ans, err)
	}
	if took := time.Since(start); took > requestTimeout+time.Second {
		t.Fatalf("an idle connection was held %v", took)
	}
	waitUntil(t, "the idle connections let go", func() bool { return n.admin.iv.unread.count("127.0.0.2") == 0 })
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not after 10s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// The per-address limit counts an IPv4 address, and an IPv6 /64 (one
// host commonly holds a whole /64), whatever the port.
func TestAddressKey(t *testing.T) {
	key := func(s string) string {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return addressKey(a)
	}
	for _, c := range []struct{ a, b string }{
		{"192.0.2.1:1", "192.0.2.1:2"},
		{"[::ffff:192.0.2.1]:1", "192.0.2.1:2"},
		{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:ffff::9]:2"},
		{"[fe80::1%1]:1", "[fe80::2%1]:1"},
	} {
		if key(c.a) != key(c.b) {
			t.Errorf("%s (%s) and %s (%s) counted apart", c.a, key(c.a), c.b, key(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"192.0.2.1:1", "192.0.2.2:1"},
		{"[2001:db8:1:2::1]:1", "[2001:db8:1:3::1]:1"},
		{"[fe80::1%1]:1", "[2001:db8:1:3::1]:1"},
	} {
		if key(c.a) == key(c.b) {
			t.Errorf("%s and %s counted together (%s)", c.a, c.b, key(c.a))
		}
	}
}

// A stream of bad requests from one address writes one log line a
// minute, the next saying how many were not written; other addresses
// are not held back; and the addresses remembered are bounded.
func TestRefusedRedemptionLogLimit(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	l := newLineLimit(time.Minute, 3)
	if ok, _ := l.allow("a", t0); !ok {
		t.Fatal("the first line of a was not allowed")
	}
	for i := range 20 {
		if ok, _ := l.allow("a", t0.Add(time.Duration(i)*time.Second)); ok {
			t.Fatalf("line %d of a within the minute allowed", i+2)
		}
	}
	if ok, _ := l.allow("b", t0); !ok {
		t.Fatal("b held back by a")
	}
	if ok, quiet := l.allow("a", t0.Add(time.Minute)); !ok || quiet != 20 {
		t.Fatalf("a after a minute: %v, %d not logged, want true, 20", ok, quiet)
	}
	l.allow("c", t0)
	if ok, _ := l.allow("d", t0.Add(time.Second)); ok {
		t.Fatal("a fourth address remembered beyond the bound")
	}
	if ok, _ := l.allow("d", t0.Add(2*time.Minute)); !ok {
		t.Fatal("d not allowed once older addresses were forgotten")
	}
}

// Through Serve: 20 bad requests from one address, one line.
func TestRefusedRedemptionsLoggedOncePerAddress(t *testing.T) {
	var buf syncBuffer
	n := newTestNetLogged(t, slog.New(slog.NewTextHandler(&buf, nil)))
	for range 20 {
		c := idleRedemption(t, "127.0.0.2", n.admin.addr)
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if err := writeFrame(c, request{Kind: kindRedeem, Network: "x"}); err != nil {
			t.Fatal(err)
		}
		var ans answer
		if err := readFrame(c, &ans, maxFrameBytes); err != nil || ans.Reason != ReasonBadRequest {
			t.Fatalf("%+v, %v", ans, err)
		}
		c.Close()
	}
	if got := strings.Count(buf.String(), "invitation redemption refused"); got != 1 {
		t.Fatalf("%d log lines for 20 bad requests from one address:\n%s", got, buf.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A seed's relay to via is bounded by the relay timeout as a whole, not
// only its dial: an admin's servant that accepts the relay and then says
// nothing (a laptop gone to sleep) does not hold the seed's slot, or the
// joiner, for longer.
func TestRelayToStalledViaBounded(t *testing.T) {
	n := newTestNet(t)
	ln := listen(t)
	stalled := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		tc := tls.Server(c, trust.TLSConfigFor(n.admin.id, true, trust.InviteALPN))
		if tc.Handshake() != nil {
			c.Close()
			return
		}
		stalled <- c // read nothing, answer nothing
	}()
	t.Cleanup(func() {
		select {
		case c := <-stalled:
			c.Close()
		default:
		}
	})
	code := n.invite(t, InviteRequest{})
	code.Via = ln.Addr().String()
	code.Sign(n.admin.id)
	n.seedA.iv.relayTimeout = time.Second
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := redeemAt(ctx, nil, n.seedA.addr, code, newIdentity(t), "")
	wantReason(t, err, ReasonUnreachable)
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("the relay to a stalled via took %v, relay timeout 1s", took)
	}
}
