package network

import (
	"strings"
	"testing"

	"newsdesk/trust"
)

// Issue 32 B: a code's seeds are signed. A joiner given a code whose seed
// list was changed on the way (to point it at servants of someone else's
// choosing) refuses it before dialling anything; the code as the admin
// made it still redeems.
func TestRedeemTamperedSeedsNotDialled(t *testing.T) {
	n := newTestNet(t)
	elsewhere := newTrap(t)
	code := n.invite(t, InviteRequest{})
	joiner := newIdentity(t)

	for name, seeds := range map[string][]string{
		"replaced":  {elsewhere.addr},
		"prepended": append([]string{elsewhere.addr}, code.Seeds...),
		"reordered": {code.Seeds[1], code.Seeds[0]},
	} {
		tampered := *code
		tampered.Seeds = seeds
		// Through the text, as a joiner gets it: refused as it is parsed.
		if _, err := trust.ParseInviteCode(tampered.String()); err == nil || !strings.Contains(err.Error(), "seed list is not signed") {
			t.Errorf("%s: parsing the tampered code: %v", name, err)
		}
		// A caller that skips the parse: Redeem checks before dialling.
		_, err := redeem(&tampered, joiner)
		wantReason(t, err, ReasonUnsigned)
		if !strings.Contains(err.Error(), "altered") || !strings.Contains(err.Error(), "ask the admin for a new invitation") {
			t.Errorf("%s: the refusal says %q", name, err)
		}
		elsewhere.untouched(t, name)
	}
	if l := n.uses(t); l[0].Used != 0 {
		t.Fatalf("a tampered code counted a use: %+v", l[0])
	}
	if _, err := redeem(code, joiner); err != nil {
		t.Fatalf("the code as made: %v", err)
	}
}

// A code of the older format (via signed, seed list not sealed) redeems
// when it names no seeds, through via alone; one that names seeds is
// refused, asking for a new code, and nothing is dialled.
func TestRedeemOlderCodeFormat(t *testing.T) {
	n := newTestNet(t)
	elsewhere := newTrap(t)
	code := n.invite(t, InviteRequest{Uses: 2})
	older := func(seeds []string) *trust.InviteCode {
		c := *code
		c.Seeds, c.Seal = seeds, nil
		c.Signature = n.admin.id.Sign(trust.InviteViaSigningBytes(c.Network, c.ID, c.Via))
		return &c
	}
	_, err := redeem(older([]string{elsewhere.addr}), newIdentity(t))
	wantReason(t, err, ReasonUnsigned)
	if !strings.Contains(err.Error(), "older release") || !strings.Contains(err.Error(), "ask the admin for a new invitation") {
		t.Errorf("the refusal says %q", err)
	}
	elsewhere.untouched(t, "an older code with seeds")

	c, err := trust.ParseInviteCode(older(nil).String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := redeem(c, newIdentity(t)); err != nil {
		t.Fatalf("an older code without seeds, through via: %v", err)
	}
	if l := n.uses(t); l[0].Used != 1 {
		t.Fatalf("used %d", l[0].Used)
	}
}
