package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
	goqr "github.com/piglig/go-qr"

	"newsdesk/app"
	"newsdesk/trust"
)

// Admin → Invitations: "Invite…" asks what the invitation allows, makes it
// and shows its code as text with a copy button and as a QR code that
// reads back as the code; the list shows uses left, and Revoke ends one.
func TestInvitationsScreen(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3) // Admin
	h.sync()
	if !slices.Contains(h.u.adminTabs.Items, h.u.invitesTab) {
		t.Fatalf("an admin is not offered Invitations: %d admin tabs", len(h.u.adminTabs.Items))
	}
	h.u.adminTabs.Select(h.u.invitesTab)
	h.sync()
	v := h.u.invites
	if !v.empty.Visible() {
		t.Error("no note while there are no invitations")
	}

	h.tap(v.invite)
	form := h.win.Canvas().Overlays().Top()
	if form == nil {
		t.Fatal("Invite… opened no dialog")
	}
	uses := find[*widget.Entry](form, func(*widget.Entry) bool { return true })
	h.typeInto(uses, "3")
	h.tap(find[*widget.Check](form, func(c *widget.Check) bool { return c.Text == "may publish" }))
	cats := find[*widget.CheckGroup](form, func(*widget.CheckGroup) bool { return true })
	cats.SetSelected([]string{"it"})
	h.tap(button(form, "Create"))
	h.sync()

	shown := h.win.Canvas().Overlays().Top()
	if shown == nil || v.lastCode == "" {
		t.Fatal("the code is not shown")
	}
	code, err := app.ParseInviteCode(v.lastCode)
	if err != nil {
		t.Fatalf("shown code %q: %v", v.lastCode, err)
	}
	cl := find[*widget.Label](shown, func(l *widget.Label) bool { return l.Text == v.lastCode })
	if cl == nil {
		t.Fatal("the code is not shown as text")
	}
	// Issue 26: every line of the code shows; none is cut off.
	if !cl.Selectable || cl.Wrapping != fyne.TextWrapBreak || cl.Truncation != fyne.TextTruncateOff || cl.Size().Height < cl.MinSize().Height {
		t.Errorf("the code's label: selectable %v, wrapping %v, %v high for %v of text", cl.Selectable, cl.Wrapping, cl.Size().Height, cl.MinSize().Height)
	}
	if one := widget.NewLabel("x").MinSize().Height; cl.MinSize().Height < 2*one {
		t.Errorf("the code takes %v, one line %v: not wrapped into lines", cl.MinSize().Height, one)
	}
	h.tap(button(shown, "Copy code"))
	if got := h.a.Clipboard().Content(); got != v.lastCode {
		t.Errorf("clipboard %q", got)
	}
	img := find[*canvas.Image](shown, func(i *canvas.Image) bool { return i.Image != nil && i.Image.Bounds().Dx() > 100 })
	if img == nil || img.Image == nil {
		t.Fatal("no QR code")
	}
	if text, err := goqr.Decode(img.Image); err != nil || text != v.lastCode {
		t.Fatalf("the QR code reads %q, %v", text, err)
	}
	h.tap(button(shown, "Done"))

	l, _ := b.Invitations()
	if len(l) != 1 || l[0].ID != code.ID || l[0].Uses != 3 || !l[0].Publisher || !slices.Equal(l[0].Categories, []string{"it"}) {
		t.Fatalf("invitation made %+v", l)
	}
	if v.empty.Visible() || !hasLabel(v.list, "active: 3 of 3 uses left") {
		t.Errorf("list %q", labels(v.list))
	}
	if !slices.ContainsFunc(labels(v.list), func(s string) bool { return strings.HasPrefix(s, "publisher in it · expires") }) {
		t.Errorf("list %q", labels(v.list))
	}

	revoke := find[*widget.Button](v.list, func(b *widget.Button) bool { return b.Text == "Revoke" && !b.Disabled() })
	h.tap(revoke)
	h.tap(button(h.win.Canvas().Overlays().Top(), "Yes"))
	h.sync()
	if l, _ := b.Invitations(); l[0].State != "revoked" {
		t.Fatalf("after Revoke: %+v", l[0])
	}
	if !slices.ContainsFunc(labels(v.list), func(s string) bool { return strings.HasPrefix(s, "revoked") }) {
		t.Errorf("list after revoking %q", labels(v.list))
	}
	if r := find[*widget.Button](v.list, func(b *widget.Button) bool { return b.Text == "Revoke" }); r == nil || !r.Disabled() {
		t.Error("a revoked invitation can be revoked again")
	}
}

// A member who is no admin is not offered Invitations.
func TestInvitationsAdminsOnly(t *testing.T) {
	b := newFake(t)
	asMember(t, b, trust.Publisher{Name: "Newsroom", Key: b.Identity().Public})
	h := newHarness(t, b)
	h.sync()
	if slices.Contains(h.u.adminTabs.Items, h.u.invitesTab) {
		t.Error("a member is offered Invitations")
	}
}

// The QR code of a long code (every seed a code may carry) still reads back.
func TestQRImageLongCode(t *testing.T) {
	id, _ := trust.NewInviteID()
	tok, _ := trust.NewInviteToken()
	c := &trust.InviteCode{ID: id, Token: tok, Via: "newsdesk-admin.headquarters.example.com:7400"}
	for i := range trust.MaxInviteSeeds {
		c.Seeds = append(c.Seeds, strings.Repeat("s", 40)+string(rune('a'+i))+".example.com:7400")
	}
	signer, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	c.SignVia(signer)
	if _, err := trust.ParseInviteCode(c.String()); err != nil {
		t.Fatal(err)
	}
	img, err := qrImage(c.String())
	if err != nil {
		t.Fatal(err)
	}
	if text, err := goqr.Decode(img); err != nil || text != c.String() {
		t.Fatalf("reads %q, %v", text, err)
	}
}

// Issue 26: the invitations list shows a redemption as it happens, without
// switching screens.
func TestInvitationsRefreshOnRedemption(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	inv, err := b.CreateInvitation(app.InviteOptions{Uses: 1})
	if err != nil {
		t.Fatal(err)
	}
	h.u.tabs.Select(h.u.adminTab)
	h.u.adminTabs.Select(h.u.invitesTab)
	h.sync()
	v := h.u.invites
	if len(v.invites) != 1 || v.invites[0].State != "active" {
		t.Fatalf("listed %+v", v.invites)
	}
	if err := b.Redeem(inv.Code, "Joiner"); err != nil {
		t.Fatalf("redeeming: %v", err)
	}
	h.sync()
	if len(v.invites) != 1 || v.invites[0].State != "used up" || !hasLabel(v.content, "used up (1 of 1 used)") {
		t.Errorf("after the redemption: %+v", v.invites)
	}
}

// Issue 26: when no seed of the network answers, the admin is told which
// seeds were tried, and may make the invitation anyway.
func TestInviteWhenNoSeedAnswers(t *testing.T) {
	b := newFake(t)
	b.PresetNetwork(nextVersion(t, b.Identity(), b.Network(), func(n *trust.Network) { n.Seeds = []string{"192.0.2.7:7400"} }))
	b.SetProbe(func(addr string) app.Probe {
		return app.Probe{Addr: addr, Problem: "connection refused", Kind: app.ProbeRefused}
	})
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.sync()
	h.u.adminTabs.Select(h.u.invitesTab)
	h.sync()
	h.tap(h.u.invites.invite)
	h.tap(button(h.win.Canvas().Overlays().Top(), "Create"))
	h.sync()
	asked := h.win.Canvas().Overlays().Top()
	if asked == nil || !hasLabel(asked, "Make the invitation anyway?") || h.u.invites.lastCode != "" {
		t.Fatalf("no question, or a code made: %q", labels(asked))
	}
	if !strings.Contains(strings.ReplaceAll(strings.Join(labels(asked), " "), "\n", " "), "192.0.2.7:7400 (connection refused)") {
		t.Errorf("the question does not name the seed tried: %q", labels(asked))
	}
	h.tap(button(asked, "Yes"))
	h.sync()
	if h.u.invites.lastCode == "" {
		t.Error("no code made anyway")
	}
}
