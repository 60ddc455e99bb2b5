package network

import (
	"context"
	"errors"
	"testing"
)

// Issue 32 C: the admin's servant certifies a key that redeemed one of its
// invitations, and no other: a member cannot have keys it made up
// certified (its confirmations of must-read items would count), nor can
// an outsider without the network secret. Another servant than the
// admin's cannot certify.
func TestCertifyOnlyRedeemedKeys(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	x := newIdentity(t)
	sn, err := Redeem(context.Background(), n.only(code, n.seedA.addr), x, "Bo")
	if err != nil {
		t.Fatal(err)
	}
	secret := sn.Secret
	c, err := Certify(context.Background(), n.admin.addr, x, sn, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Key.Equal(x.Public) || sn.VerifyMemberCert(c) != nil {
		t.Fatalf("certificate %+v", c)
	}

	made := newIdentity(t)
	_, err = Certify(context.Background(), n.admin.addr, made, sn, secret)
	wantReason(t, err, ReasonUnknown)

	_, err = Certify(context.Background(), n.admin.addr, x, sn, []byte("not the secret, not the secret!!"))
	wantReason(t, err, ReasonNotMember)

	if _, err := Certify(context.Background(), n.seedA.addr, x, sn, secret); !errors.Is(err, ErrNotCertified) {
		t.Fatalf("a seed that is not an admin's servant: %v", err)
	}
}

// An admin admits a member's key that is not on record (its invitation was
// forgotten before certificates existed): its next certify request
// succeeds. A revoked key is never admitted, and a servant that is not an
// admin's admits nothing.
func TestAdmitForgottenMember(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	x := newIdentity(t)
	sn, err := Redeem(context.Background(), n.only(code, n.seedA.addr), x, "Bo")
	if err != nil {
		t.Fatal(err)
	}
	old := newIdentity(t) // a member from before certificates, not on record
	_, err = Certify(context.Background(), n.admin.addr, old, sn, sn.Secret)
	wantReason(t, err, ReasonUnknown)
	if err := n.seedA.iv.Admit(old.Public); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a seed that is not an admin's servant admits: %v", err)
	}
	if err := n.admin.iv.Admit(old.Public); err != nil {
		t.Fatal(err)
	}
	c, err := Certify(context.Background(), n.admin.addr, old, sn, sn.Secret)
	if err != nil || !c.Key.Equal(old.Public) || sn.VerifyMemberCert(c) != nil {
		t.Fatalf("after admitting: %+v, %v", c, err)
	}

	revoked := newIdentity(t)
	def := n.admin.iv.k.Definition()
	next := def.Clone()
	next.Revoked = append(next.Revoked, revoked.Public)
	signed, err := n.admin.id.SignNetwork(next)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.admin.iv.k.Replace(signed); err != nil {
		t.Fatal(err)
	}
	if err := n.admin.iv.Admit(revoked.Public); !errors.Is(err, ErrRevokedMember) {
		t.Errorf("a revoked key admitted: %v", err)
	}
}
