package network

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
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
