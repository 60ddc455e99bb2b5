package network

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
)

// A Dialer makes every connection of a redemption and a certificate
// request: the joiner's to the seed, the seed's relay to via (SetDialer)
// and the joiner's request for its certificate. The demo mode reaches its
// simulated servants this way (app/demo).
func TestRedeemAndCertifyThroughDialer(t *testing.T) {
	n := newTestNet(t)
	var mu sync.Mutex
	var dialed []string
	dial := func(name string) Dialer {
		return func(ctx context.Context, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, name+"→"+addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}
	}
	n.seedA.iv.SetDialer(dial("seed"))
	code := n.invite(t, InviteRequest{})
	x := newIdentity(t)
	sn, err := dial("joiner").Redeem(context.Background(), n.only(code, n.seedA.addr), x, "Bo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial("joiner").Certify(context.Background(), n.admin.addr, x, sn, sn.Secret); err != nil {
		t.Fatal(err)
	}
	want := []string{"joiner→" + n.seedA.addr, "seed→" + n.admin.addr, "joiner→" + n.admin.addr}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(dialed, want) {
		t.Errorf("dialed %q, want %q", dialed, want)
	}

	// A dialer's failure is a connection failure, as TCP's: the joiner
	// reached no servant of the code.
	refused := Dialer(func(context.Context, string) (net.Conn, error) { return nil, errors.New("connection refused") })
	_, err = refused.Redeem(context.Background(), n.only(code, n.seedA.addr), newIdentity(t), "Cy")
	wantReason(t, err, ReasonNoSeed)
}
