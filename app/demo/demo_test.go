package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/storage"
	"newsdesk/trust"
)

// The demo mode opens the real application over the simulated network:
// attached to the tree, the data set stored, the seeds probed through the
// simulated network, and the reach of the reader's posts reported by the
// colleagues' servants.
func TestOpen(t *testing.T) {
	d, err := Open(context.Background(), "1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	a := d.App
	waitFor(t, "attached", func() bool { return a.Status().Connected })
	if a.NeedsSetup() {
		t.Error("the wizard shows")
	}
	es, _, err := a.Newest(nil, 500, "")
	if err != nil || len(es) != 292 { // the retracted post is not listed
		t.Fatalf("Newest: %d items, %v; want 292", len(es), err)
	}
	// The new office's photo and floor plan are here whole.
	var office app.Entry
	for _, e := range es {
		if strings.HasPrefix(e.Item.Title, "Our new office in Lisbon") {
			office = e
		}
	}
	if len(office.Attachments) != 2 || office.Attachments[0].State != app.BlobWhole || !office.Attachments[0].IsImage() ||
		office.Attachments[1].State != app.BlobWhole || office.Attachments[1].Name != "floor-plan.pdf" {
		t.Errorf("the office item's attachments: %+v", office.Attachments)
	}
	now := time.Now()
	for _, e := range es {
		if !e.Read && now.Sub(e.Item.Created) > 30*time.Hour {
			t.Errorf("an old item is unread: %q", e.Item.Title)
		}
	}
	for i, want := range []bool{true, true, false} {
		if p := a.Probe(context.Background(), Seeds[i]); p.OK != want {
			t.Errorf("probe of %s = %+v, want OK %v", Seeds[i], p, want)
		}
	}
	posts, _, err := a.MyPosts(10, "")
	if err != nil || len(posts) != 4 {
		t.Fatalf("MyPosts: %d, %v", len(posts), err)
	}
	var drill app.Entry
	retracted := 0
	for _, p := range posts {
		if p.Item.MustRead {
			drill = p
		}
		if p.Retracted != nil {
			retracted++
		}
	}
	if retracted != 1 {
		t.Errorf("%d posts retracted, want 1", retracted)
	}
	// The colleagues hold membership certificates, so their confirmations
	// count as verified, and those who have not confirmed are named.
	waitFor(t, "the must-read post confirmed", func() bool {
		r, err := a.Reach(drill.Item.ID)
		return err == nil && r.Acknowledged > 0 && len(r.Pending) > 0
	})
	// The newsroom publishes, and the reader gets what it publishes.
	r, err := d.others[0].Publish(app.Draft{Category: "company", Title: "Canteen closed on Friday"})
	if err != nil {
		t.Fatalf("the newsroom's Publish: %v", err)
	}
	waitFor(t, "the newsroom's item", func() bool { _, err := a.Item(r.ID); return err == nil })
	if c, err := a.NetworkCensus(); err != nil || len(c.Subscribers) == 0 {
		t.Errorf("NetworkCensus = %+v, %v; want the subscribers counted", c, err)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 20s", what)
		}
	}
}

// The wizard mode is a new installation on the simulated network, with
// Dana Whitfield's installation elsewhere on it, which made an invitation
// for the reader and one it revoked.
func TestOpenWizard(t *testing.T) {
	d, err := Open(context.Background(), "wizard")
	if err != nil {
		t.Fatal(err)
	}
	if !d.App.NeedsSetup() || d.App.Settings().Listen != demoListen {
		t.Errorf("no wizard, or not on the demo's port: %+v", d.App.Settings())
	}
	for _, code := range []string{d.Invitation, d.Revoked} {
		c, err := app.ParseInviteCode(code)
		if err != nil || c.Via != Admin || !slices.Equal(c.Seeds, Seeds) {
			t.Errorf("invitation code %q: %+v, %v; want one through %s naming the seeds", code, c, err, Admin)
		}
	}
	file := filepath.Join(t.TempDir(), "codes")
	if err := d.WriteInvitations(file); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "invitation "+d.Invitation+"\nrevoked "+d.Revoked+"\n" {
		t.Errorf("the invitations file: %q, %v", b, err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	if _, err := os.Stat(d.root); !os.IsNotExist(err) {
		t.Errorf("the demo's directory after Close: %v", err)
	}
}

// The wizard's reader redeems the revoked code and is refused for that
// reason, then the demo's invitation over the simulated network: it gets
// the network's definition and a membership certificate from Dana's
// servant, its servant attaches, and once it subscribes the network's
// news arrives, the last week's (caught up from the newsroom's archive)
// and new.
func TestWizardJoins(t *testing.T) {
	d, err := Open(context.Background(), "wizard")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	a, admin := d.App, d.others[len(d.others)-1]
	ctx := context.Background()
	s := app.Setup{DisplayName: "Sam Carter"}

	err = a.JoinByInvitation(ctx, d.Revoked, s)
	if re, ok := errors.AsType[*network.RedeemError](err); !ok || re.Reason != network.ReasonRevoked {
		t.Fatalf("the revoked code: %v, want a refusal as revoked", err)
	}
	if !a.NeedsSetup() {
		t.Fatal("set up after a refusal")
	}

	if err := a.JoinByInvitation(ctx, d.Invitation, s); err != nil {
		t.Fatalf("the invitation: %v", err)
	}
	if a.NeedsSetup() || a.Network().ID != admin.Network().ID {
		t.Fatalf("after joining: setup needed %v, network %s; want %s", a.NeedsSetup(), a.Network().ID, admin.Network().ID)
	}
	l, err := admin.Invitations()
	if err != nil || len(l) != 2 || l[0].Used != 1 || l[1].State != "revoked" || l[1].Used != 0 {
		t.Fatalf("Dana's invitations after the joins: %+v, %v", l, err)
	}
	waitFor(t, "attached", func() bool { return a.Status().Connected })
	if err := a.SetSubscriptions(readerSubscriptions); err != nil {
		t.Fatal(err)
	}
	week := time.Now().Add(-6 * 24 * time.Hour)
	waitFor(t, "the news of the last week", func() bool {
		es, _, err := a.Newest(nil, 500, "")
		if err != nil || len(es) == 0 {
			return false
		}
		// Newest first: the oldest listed was caught up, not published
		// since the reader joined.
		return es[len(es)-1].Item.Created.Before(week)
	})
	r, err := d.others[0].Publish(app.Draft{Category: "company", Title: "Canteen closed on Friday"})
	if err != nil {
		t.Fatalf("the newsroom's Publish: %v", err)
	}
	waitFor(t, "the newsroom's item", func() bool { _, err := a.Item(r.ID); return err == nil })

	// The membership certificate Dana's servant gave, as the store keeps
	// it.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(filepath.Join(d.root, "reader"))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := st.Setting(app.MemberCertSetting)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, err := trust.ParseMemberCert(v)
	if err != nil || admin.Network().VerifyMemberCert(c) != nil {
		t.Errorf("the reader's membership certificate %q: %v", v, err)
	}
}
