package trust

import (
	"crypto/ed25519"
	"errors"
	"slices"
	"testing"
)

// Two admins sign version 6 at once: every servant ends with the same one,
// whichever it held first; a rival by a non-admin, a tampered one, or
// another version is refused.
func TestAcceptRival(t *testing.T) {
	v5 := signedExample(t)
	n := next(v5, 0)
	n.Admins = append(n.Admins, secondAdmin.Public)
	n.Version++
	base, err := adminID.SignNetwork(n) // version 6 with two admins
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id *Identity, edit func(*Network)) *SignedNetwork {
		n := next(base, 1)
		edit(n)
		sn, err := id.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	x := mk(adminID, func(n *Network) { n.Name = "Renamed" })
	y := mk(secondAdmin, func(n *Network) { n.Seeds = []string{"10.9.9.9:7400"} })
	winner, loser := x, y
	if x.AcceptRival(y) == nil {
		winner, loser = y, x
	}
	if err := loser.AcceptRival(winner); err != nil {
		t.Fatalf("the winner does not replace the loser: %v", err)
	}
	if err := winner.AcceptRival(loser); !errors.Is(err, ErrLosesTie) {
		t.Errorf("the loser replaces the winner: %v", err)
	}
	if err := winner.AcceptRival(winner); !errors.Is(err, ErrLosesTie) {
		t.Errorf("the definition held as its own rival: %v", err)
	}

	forged := mk(outsiderID, func(n *Network) { n.Name = "Mine now" })
	if err := loser.AcceptRival(forged); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a rival signed by a non-admin: %v", err)
	}
	tampered := *winner
	tampered.Name = "Tampered"
	if err := loser.AcceptRival(&tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a tampered rival: %v", err)
	}
	if err := loser.AcceptRival(base); !errors.Is(err, ErrNotNewer) {
		t.Errorf("another version as a rival: %v", err)
	}

	// One rival removes the other's signer: it wins wherever it arrives,
	// and the removed admin's rival never replaces it, whatever its
	// signature.
	removed := mk(adminID, func(n *Network) {
		n.Admins = slices.DeleteFunc(n.Admins, func(k ed25519.PublicKey) bool { return k.Equal(secondAdmin.Public) })
	})
	other := mk(secondAdmin, func(n *Network) { n.Fanout = 8 })
	if err := other.AcceptRival(removed); err != nil {
		t.Errorf("the rival that removes the other's signer does not replace it: %v", err)
	}
	if err := removed.AcceptRival(other); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a removed admin's rival: %v, want ErrNotAdmin", err)
	}
	revoking := mk(adminID, func(n *Network) {
		n.Admins = slices.DeleteFunc(n.Admins, func(k ed25519.PublicKey) bool { return k.Equal(secondAdmin.Public) })
		n.Revoked = append(n.Revoked, secondAdmin.Public)
	})
	// The revoked admin could try contents until its signature is lower:
	// the signer check comes first, so no signature helps.
	comeback := mk(secondAdmin, func(n *Network) { n.Name = "Back again" })
	if err := revoking.AcceptRival(comeback); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a revoked admin's rival: %v", err)
	}
}
