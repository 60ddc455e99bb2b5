package app

import (
	"context"
	"testing"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// Issue 32 B, the desktop's side: "Join a network" redeems with the key
// the installation saved when it was first opened, so when the answer to
// a first try was lost on its way back (the admin's servant counted the
// use for that key), trying again, even after the app was closed and
// opened again, redeems with the same key and joins; no other use is
// counted.
func TestJoinByInvitationAfterLostAnswer(t *testing.T) {
	admin := openFresh(t)
	if err := admin.Setup(Setup{DisplayName: "Admin", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	inv, err := admin.CreateInvitation(InviteOptions{Uses: 1, Expires: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := Options{DataDir: dir, Listen: "127.0.0.1:0", Logger: testLogger(t)}
	first, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	key := first.Identity().Public
	// The first try, whose answer is lost: the admin's servant counts the
	// use for this installation's key, the app never hears of it.
	code, err := trust.ParseInviteCode(inv.Code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := network.Redeem(context.Background(), code, first.Identity(), "Joiner"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, admin, "the admin's list told of the redemption", func(e Event) bool { return e.Kind == InvitationsChanged })
	if l, _ := admin.Invitations(); l[0].Used != 1 {
		t.Fatalf("used %d", l[0].Used)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if !again.Identity().Public.Equal(key) {
		t.Fatal("the installation's key changed when the app was opened again")
	}
	if err := again.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Joiner"}); err != nil {
		t.Fatalf("joining again with the same key: %v", err)
	}
	if again.NeedsSetup() || again.Network().ID != admin.Network().ID {
		t.Fatalf("not joined: setup needed %v, network %s", again.NeedsSetup(), again.Network().ID)
	}
	if l, _ := admin.Invitations(); l[0].Used != 1 || len(l[0].Redeemed) != 1 {
		t.Fatalf("the retry counted another use: %+v", l[0])
	}
}
