package network

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"newsdesk/trust"
)

// trap is a listener that records every connection reaching it and
// never answers: the address a forged via names.
type trap struct {
	ln       net.Listener
	addr     string
	accepted chan net.Addr // the remote address of each connection, in order
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln := listen(t)
	tr := &trap{ln: ln, addr: ln.Addr().String(), accepted: make(chan net.Addr, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.accepted <- c.RemoteAddr()
			c.Close()
		}
	}()
	return tr
}

// untouched fails the test if any connection reached the trap so far. It
// connects a sentinel and waits for the trap to accept it: connections
// are accepted in the order they were made, so any made before (a seed's
// dial completes its TCP handshake before the seed answers) is accepted
// first.
func (tr *trap) untouched(t *testing.T, what string) {
	t.Helper()
	c, err := net.Dial("tcp", tr.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sentinel := c.LocalAddr().String()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case a := <-tr.accepted:
			if a.String() == sentinel {
				return
			}
			t.Fatalf("%s: a connection from %s reached the forged address", what, a)
		case <-timeout:
			t.Fatalf("%s: the sentinel connection was not accepted", what)
		}
	}
}

// A code whose via the bearer changed makes no seed dial it: the joiner
// refuses it before dialling anything, and a seed asked directly (by a
// joiner that skips its own check) refuses it without dialling, whether
// the signature is left as it was, re-made with the bearer's own key or a
// member's (not an admin's), or missing. The valid code still redeems
// through the same relaying seed afterwards.
func TestRedeemForgedViaNotDialled(t *testing.T) {
	n := newTestNet(t)
	forgedAt, seedTrap := newTrap(t), newTrap(t)
	code := n.invite(t, InviteRequest{})
	joiner := newIdentity(t)

	changed := *code
	changed.Via = forgedAt.addr

	// The joiner's own check: nothing is dialled, not even the seeds.
	atTrap := changed
	atTrap.Seeds = []string{seedTrap.addr}
	_, err := redeem(&atTrap, joiner)
	wantReason(t, err, ReasonViaUnsigned)
	if !strings.Contains(err.Error(), "altered") || !strings.Contains(err.Error(), "ask the admin for a new invitation") {
		t.Errorf("the joiner's refusal says %q", err)
	}
	seedTrap.untouched(t, "the joiner's check")
	forgedAt.untouched(t, "the joiner's check")

	bearer := newIdentity(t)
	selfSigned := changed
	selfSigned.Sign(bearer)
	memberSigned := changed
	memberSigned.Sign(n.seedB.id)
	unsigned := changed
	unsigned.Signer, unsigned.Signature = nil, nil
	for _, c := range []struct {
		name string
		code *trust.InviteCode
		ask  func(*trust.InviteCode) error
	}{
		// Straight to the seed: redeemAt does not check the signature.
		{"via changed, signature kept", &changed, func(c *trust.InviteCode) error {
			_, err := redeemAt(context.Background(), nil, n.seedA.addr, c, joiner, "")
			return err
		}},
		{"unsigned", &unsigned, func(c *trust.InviteCode) error {
			_, err := redeemAt(context.Background(), nil, n.seedA.addr, c, joiner, "")
			return err
		}},
		// Consistent codes: the joiner's check passes, the seed refuses,
		// and the refusal is definitive (via is not asked either).
		{"re-signed by the bearer", &selfSigned, func(c *trust.InviteCode) error {
			_, err := redeem(onlySigned(c, n.seedA.addr, bearer), joiner)
			return err
		}},
		{"signed by a member, not an admin", &memberSigned, func(c *trust.InviteCode) error {
			_, err := redeem(onlySigned(c, n.seedB.addr, n.seedB.id), joiner)
			return err
		}},
	} {
		err := c.ask(c.code)
		wantReason(t, err, ReasonViaUnsigned)
		if !strings.Contains(err.Error(), "does not contact "+forgedAt.addr) || !strings.Contains(err.Error(), "ask the admin for a new invitation") {
			t.Errorf("%s: the seed's refusal says %q", c.name, err)
		}
		forgedAt.untouched(t, c.name)
	}
	if l := n.uses(t); l[0].Used != 0 {
		t.Fatalf("a forged code counted a use: %+v", l[0])
	}

	// The code as the admin made it redeems through the relaying seed.
	sn, err := redeem(n.only(code, n.seedA.addr), joiner)
	if err != nil {
		t.Fatal(err)
	}
	if sn.ID != n.def.ID {
		t.Fatalf("joined %s", sn.ID)
	}
	if l := n.uses(t); l[0].Used != 1 {
		t.Fatalf("used %d", l[0].Used)
	}
	forgedAt.untouched(t, "the valid code")
}

// The servant holding the invitation checks via's signature on a relayed
// claim too (a member relaying a forged via gets nothing).
func TestRelayForgedViaRefused(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	conn, err := dialInvite(context.Background(), nil, n.admin.addr, n.seedA.id)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exp, err := trust.ExporterValue(conn.ConnectionState())
	if err != nil {
		t.Fatal(err)
	}
	joiner := newIdentity(t)
	req := request{Kind: kindRelay, Network: code.Network.String(), ID: code.ID, Via: "192.0.2.1:7400",
		Admin: code.Signer, Sig: code.Signature,
		Proof:    trust.InvitationProof(code.Token, trust.RoleJoiner, code.ID, code.Network, exp, joiner.Public),
		Exporter: exp, Key: trust.PublicKeyString(joiner.Public),
		Member: trust.LinkProof(n.def.Secret, exp, trust.RoleClient)}
	if err := writeFrame(conn, req); err != nil {
		t.Fatal(err)
	}
	var ans answer
	if err := readFrame(conn, &ans, maxFrameBytes); err != nil {
		t.Fatal(err)
	}
	if ans.OK || ans.Reason != ReasonViaUnsigned || len(ans.Definition) != 0 {
		t.Fatalf("a relayed forged via: %+v", ans)
	}
	if l := n.uses(t); l[0].Used != 0 {
		t.Fatal("a use was counted")
	}
}
