package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// openFresh opens an App on a fresh data directory as the desktop app's
// first run does (no network given, the servant not started), listening
// on loopback.
func openFresh(t *testing.T) *App {
	t.Helper()
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// The quick start of issue 13 over TCP and TLS: one app starts a new
// network, its admin makes an invitation, a second app joins with the code
// alone (no file copied), becomes a member and receives items. A second
// redemption of the one-use code is refused and changes nothing.
func TestJoinByInvitation(t *testing.T) {
	admin := openFresh(t)
	if err := admin.Setup(Setup{DisplayName: "Admin", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	first, err := admin.CreateInvitation(InviteOptions{Uses: 0})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := admin.CreateInvitation(InviteOptions{Uses: 1, Expires: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if inv.UsesLeft != 1 || inv.State != "active" || inv.Code == "" {
		t.Fatalf("invitation %+v", inv)
	}

	joiner := openFresh(t)
	if err := joiner.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Joiner"}); err != nil {
		t.Fatal(err)
	}
	if joiner.NeedsSetup() || joiner.Network().ID != admin.Network().ID || !slices.Equal(joiner.Seeds(), admin.Network().Seeds) {
		t.Fatalf("joiner: setup needed %v, network %s (want %s), seeds %v", joiner.NeedsSetup(), joiner.Network().ID, admin.Network().ID, joiner.Seeds())
	}
	// The admin's list of invitations follows the redemption as it
	// happens, without being asked again.
	waitEvent(t, admin, "InvitationsChanged on the admin's side", func(e Event) bool { return e.Kind == InvitationsChanged })
	// Issue 32 C: the joiner holds the certificate the admin's servant
	// signed for its key, so its confirmations count as verified.
	if c := joiner.memberCert(); c == nil || !c.Key.Equal(joiner.identity.Public) {
		t.Fatalf("the joiner holds no membership certificate: %+v", c)
	}
	waitFor(t, "the joiner attached to the admin's servant", func() error {
		if st := joiner.ServantStatus(); !st.Connected || st.Up != admin.currentNode().Addr() {
			return fmt.Errorf("joiner status %+v", st.Status)
		}
		return nil
	})
	if err := joiner.SetSubscriptions([]string{"it"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the admin to learn of the subscriber", func() error {
		for _, l := range admin.Status().Links {
			if slices.Contains(l.Received, "it") {
				return nil
			}
		}
		return fmt.Errorf("admin links %+v", admin.Status().Links)
	})
	r, err := admin.Publish(Draft{Category: "it", Title: "Welcome"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, joiner, "the item on the joiner", itemsEvent(ItemsArrived, r.ID))

	l, err := admin.Invitations()
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[1].Used != 1 || l[1].UsesLeft != 0 || l[1].State != "used up" || l[1].Code != "" ||
		!slices.Equal(l[1].Redeemed, []string{trust.PublicKeyString(joiner.Identity().Public)}) {
		t.Fatalf("invitations after the redemption: %+v", l)
	}

	// Used up: a third app is refused, and nothing changes on either side.
	late := openFresh(t)
	own := late.Network()
	err = late.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Late"})
	if re, ok := errors.AsType[*network.RedeemError](err); !ok || re.Reason != network.ReasonUsedUp {
		t.Fatalf("a used-up code: %v", err)
	}
	if !late.NeedsSetup() || late.Network().ID != own.ID || len(late.Seeds()) != 0 || late.Addr() != "" {
		t.Errorf("the refused joiner changed: setup needed %v, network %s, seeds %v, running at %q",
			late.NeedsSetup(), late.Network().ID, late.Seeds(), late.Addr())
	}
	if l2, _ := admin.Invitations(); l2[1].Used != 1 {
		t.Errorf("used %d after the refusal", l2[1].Used)
	}

	// Revoked: refused with the reason, and listed as revoked.
	if err := admin.RevokeInvitation(first.ID); err != nil {
		t.Fatal(err)
	}
	err = late.JoinByInvitation(context.Background(), first.Code, Setup{DisplayName: "Late"})
	if re, ok := errors.AsType[*network.RedeemError](err); !ok || re.Reason != network.ReasonRevoked {
		t.Fatalf("a revoked code: %v", err)
	}
	if !late.NeedsSetup() {
		t.Error("the refused joiner is set up")
	}
	if l, _ = admin.Invitations(); l[0].State != "revoked" || l[0].UsesLeft != 0 {
		t.Errorf("revoked invitation listed as %+v", l[0])
	}
}

// Only admins make invitations, and only with a running servant; the
// expiry takes Go durations and days.
func TestCreateInvitationRefusals(t *testing.T) {
	a := openFresh(t)
	if _, err := a.CreateInvitation(InviteOptions{}); !errors.Is(err, ErrNotRunning) {
		t.Errorf("without a servant: %v", err)
	}
	member := openApp(t, Options{Start: true})
	if _, err := member.CreateInvitation(InviteOptions{}); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a member: %v", err)
	}
	if err := member.RevokeInvitation("AAAAAAAAAAAA"); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a member's revoke: %v", err)
	}
	for s, want := range map[string]time.Duration{"168h": 168 * time.Hour, "7d": 7 * 24 * time.Hour, " 90m ": 90 * time.Minute} {
		if got, err := ParseInviteExpiry(s); err != nil || got != want {
			t.Errorf("ParseInviteExpiry(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "7", "d", "-1d", "soon"} {
		if _, err := ParseInviteExpiry(s); err == nil {
			t.Errorf("ParseInviteExpiry(%q) accepted", s)
		}
	}
}

// A publisher invitation makes the joiner a publisher in its categories:
// the admin's servant signs the next definition with the joiner's key
// among the publishers, and the joiner starts with that version.
func TestJoinByPublisherInvitation(t *testing.T) {
	admin := openFresh(t)
	if err := admin.Setup(Setup{DisplayName: "Admin", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	before := admin.Network().Version
	inv, err := admin.CreateInvitation(InviteOptions{Publisher: true, Categories: []string{"it"}})
	if err != nil {
		t.Fatal(err)
	}
	joiner := openFresh(t)
	if err := joiner.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "IT desk"}); err != nil {
		t.Fatal(err)
	}
	sn := joiner.Network()
	p, ok := sn.Publisher(joiner.Identity().Public)
	if !ok || p.Name != "IT desk" || !slices.Equal(p.Categories, []string{"it"}) || sn.Version != before+1 {
		t.Fatalf("joiner's definition v%d (admin's was v%d), publisher %+v %v", sn.Version, before, p, ok)
	}
	if err := joiner.MayPublish("it"); err != nil {
		t.Errorf("may not publish in it: %v", err)
	}
	if err := joiner.MayPublish("hr"); err == nil {
		t.Error("may publish in hr")
	}
	if got := admin.Network(); got.Version != sn.Version {
		t.Errorf("admin holds v%d", got.Version)
	}
}
