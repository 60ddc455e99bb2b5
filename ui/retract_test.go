package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"

	"newsdesk/trust"
)

// answerRetractDialog types reason into the open retraction dialog and
// presses its Retract button.
func answerRetractDialog(t *testing.T, h *harness, reason string) {
	t.Helper()
	top := h.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog open")
	}
	entry := find[*widget.Entry](top, func(*widget.Entry) bool { return true })
	if entry == nil {
		t.Fatal("the dialog asks for no reason")
	}
	h.typeInto(entry, reason)
	h.tap(find[*widget.Button](top, func(b *widget.Button) bool { return b.Text == "Retract" }))
	h.sync()
}

// A publisher retracts its own post under My posts: it stays listed there,
// marked with the reason and no longer correctable, and leaves the
// reading list; a post of someone else's offers no retraction.
func TestRetractOwnPost(t *testing.T) {
	b := newFake(t)
	asMember(t, b, trust.Publisher{Name: "Newsroom", Key: b.Identity().Public})
	mine := item(1, "hr", "Offices closed on 2 October", 60)
	mine.Source = b.Source()
	if err := trust.SignItem(b.Identity(), mine); err != nil { // published here: by this key
		t.Fatal(err)
	}
	other := item(2, "hr", "Someone else's post", 30)
	b.Add(mine, other)
	h := newHarness(t, b)
	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.SelectIndex(1)
	h.sync()
	p := h.u.posts
	btn := find[*widget.Button](p.list, func(b *widget.Button) bool { return b.Text == "Retract…" && b.Visible() })
	if btn == nil {
		t.Fatal("no retract button on my post")
	}
	h.tap(btn)
	answerRetractDialog(t, h, "Wrong date")

	if len(p.rows) != 1 || !p.rows[0].retracted || p.rows[0].retraction != "Wrong date" {
		t.Fatalf("my posts after the retraction: %+v", p.rows)
	}
	if !slices.ContainsFunc(labels(p.list), func(s string) bool {
		return strings.HasPrefix(s, "Retracted · ") && strings.HasSuffix(s, "Wrong date")
	}) {
		t.Errorf("the post is not marked retracted: %q", labels(p.list))
	}
	if c := find[*widget.Button](p.list, func(b *widget.Button) bool { return b.Text == "Publish a correction" }); c == nil || !c.Disabled() {
		t.Error("a retracted post can still be corrected")
	}
	h.u.showRead()
	h.sync()
	if got := listTitles(h.u.reader.list); !slices.Equal(got, []string{"Someone else's post"}) {
		t.Errorf("reading list %q", got)
	}
	h.tap(rowTappable(t, h.u.reader.list, "Someone else's post"))
	if h.u.reader.view.retract.Visible() {
		t.Error("a publisher is offered to retract someone else's item")
	}
}

// An admin retracts any item from the reader; an item retracted elsewhere
// while open leaves the list and shows why.
func TestRetractFromReader(t *testing.T) {
	b := newFake(t) // the admin of its own network
	b.Add(item(1, "it", "Printer fixed", 60), item(2, "it", "Canteen menu", 30))
	h := newHarness(t, b)
	r := h.u.reader
	h.tap(rowTappable(t, r.list, "Printer fixed"))
	if !r.view.retract.Visible() {
		t.Fatal("an admin is not offered to retract an item")
	}
	h.tap(r.view.retract)
	answerRetractDialog(t, h, "Not fixed after all")
	if got := listTitles(r.list); !slices.Equal(got, []string{"Canteen menu"}) {
		t.Errorf("reading list %q", got)
	}
	if !r.view.retracted.Visible() || r.view.retracted.Text != "Retracted: Not fixed after all" || r.view.retract.Visible() {
		t.Errorf("the open item after its retraction: %q, retract offered %v", r.view.retracted.Text, r.view.retract.Visible())
	}

	// Retracted elsewhere (the event the application sends).
	h.tap(rowTappable(t, r.list, "Canteen menu"))
	canteen := b.Items()[0]
	if canteen.Title != "Canteen menu" {
		canteen = b.Items()[1]
	}
	if err := b.Retract(canteen.ID, ""); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if got := listTitles(r.list); len(got) != 0 {
		t.Errorf("reading list %q", got)
	}
	if !r.view.retracted.Visible() || !strings.Contains(r.view.retracted.Text, "retracted") {
		t.Errorf("the open item retracted elsewhere: %q", r.view.retracted.Text)
	}
	if u, _ := b.UnreadCounts(); u["it"] != 0 {
		t.Errorf("unread %v", u)
	}
}

// A member who neither published an item nor is an admin is not offered
// the retraction.
func TestRetractNotOffered(t *testing.T) {
	b := newFake(t)
	asMember(t, b)
	b.Add(item(1, "it", "Printer fixed", 60))
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "Printer fixed"))
	if h.u.reader.view.retract.Visible() {
		t.Error("a member is offered to retract an item")
	}
}
