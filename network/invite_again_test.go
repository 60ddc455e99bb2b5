package network

import (
	"context"
	"slices"
	"testing"

	"newsdesk/trust"
)

// editPublishers publishes, at the admin's servant, the next definition
// with the publishers edit returns, signed by the admin.
func (n *testNet) editPublishers(t *testing.T, edit func([]trust.Publisher) []trust.Publisher) *trust.SignedNetwork {
	t.Helper()
	cur := n.admin.k.Definition()
	next := cur.Network.Clone()
	next.Version = cur.Version + 1
	next.Publishers = edit(slices.Clone(cur.Publishers))
	sn, err := n.admin.id.SignNetwork(next)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.admin.k.Publish(sn); err != nil {
		t.Fatal(err)
	}
	return sn
}

// Issue 32 B: a publisher the admin removed does not restore itself by
// redeeming its old publisher code again with its own key. A repeat
// redemption by the same key hands over the definition held now and adds
// or restores nothing: no new version is signed, and no use is counted.
func TestRedeemAgainRestoresNoPublisher(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{Publisher: true, Categories: []string{"it"}})
	x := newIdentity(t)
	if _, err := Redeem(context.Background(), n.only(code, n.seedA.addr), x, "Helpdesk"); err != nil {
		t.Fatal(err)
	}
	removed := n.editPublishers(t, func(ps []trust.Publisher) []trust.Publisher {
		return slices.DeleteFunc(ps, func(p trust.Publisher) bool { return p.Key.Equal(x.Public) })
	})
	if _, ok := removed.Publisher(x.Public); ok {
		t.Fatal("the edit kept the publisher")
	}
	for _, at := range []string{n.seedB.addr, n.admin.addr} {
		sn, err := Redeem(context.Background(), n.only(code, at), x, "Mallory")
		if err != nil {
			t.Fatalf("redeem again at %s: %v", at, err)
		}
		if p, ok := sn.Publisher(x.Public); ok {
			t.Fatalf("redeem again at %s: the definition lists the removed key as publisher %q", at, p.Name)
		}
		if sn.Version != removed.Version {
			t.Fatalf("redeem again at %s: version %d, want the current %d", at, sn.Version, removed.Version)
		}
	}
	if got := n.admin.k.Definition(); got.Version != removed.Version {
		t.Fatalf("the admin's servant signed version %d after the repeat redemptions", got.Version)
	}
	if _, ok := n.admin.k.Definition().Publisher(x.Public); ok {
		t.Fatal("the removed publisher is back at the admin's servant")
	}
	if l := n.uses(t); l[0].Used != 1 {
		t.Fatalf("used %d after the repeats, want 1", l[0].Used)
	}
}

// A member whose rights changed after it joined keeps the current ones
// when it redeems its code again: the admin narrowed a publisher's
// categories, and the repeat redemption neither widens them back nor
// renames it.
func TestRedeemAgainKeepsCurrentRights(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{Publisher: true})
	x := newIdentity(t)
	if _, err := Redeem(context.Background(), n.only(code, n.seedA.addr), x, "Helpdesk"); err != nil {
		t.Fatal(err)
	}
	narrowed := n.editPublishers(t, func(ps []trust.Publisher) []trust.Publisher {
		for i := range ps {
			if ps[i].Key.Equal(x.Public) {
				ps[i].Categories = []string{"it"}
			}
		}
		return ps
	})
	sn, err := Redeem(context.Background(), n.only(code, n.seedB.addr), x, "Newsroom")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := sn.Publisher(x.Public)
	if !ok || p.Name != "Helpdesk" || !slices.Equal(p.Categories, []string{"it"}) || sn.Version != narrowed.Version {
		t.Fatalf("after the repeat: %+v (%v), version %d, want Helpdesk in [it] at version %d", p, ok, sn.Version, narrowed.Version)
	}
}
