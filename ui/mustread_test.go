package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
)

// rowMeta returns the meta line of the list row titled title.
func rowMeta(t *testing.T, h *harness, title string) string {
	t.Helper()
	r := find[*rowView](h.u.reader.list, func(r *rowView) bool { return r.title.Text == title })
	if r == nil {
		t.Fatalf("no row titled %q on screen", title)
	}
	return r.meta.Text
}

// A must-read item shows a banner at the top of the item view until the
// reader confirms it with "I have read this"; then the banner says when.
// The list marks unconfirmed must-read items, and one's own must-read
// posts ask nothing.
func TestMustReadBanner(t *testing.T) {
	b := newFake(t)
	mr := item(1, "hr", "New travel policy", 30)
	mr.MustRead = true
	plain := item(2, "hr", "Canteen menu", 20)
	own := item(3, "hr", "My own policy", 10)
	own.MustRead, own.Source = true, b.Source()
	b.Add(mr, plain, own)
	h := newHarness(t, b)
	view := h.u.reader.view

	if m := rowMeta(t, h, "New travel policy"); !strings.HasPrefix(m, "MUST READ · ") {
		t.Errorf("an unconfirmed must-read row says %q", m)
	}
	for _, title := range []string{"Canteen menu", "My own policy"} {
		if m := rowMeta(t, h, title); strings.Contains(m, "MUST READ") {
			t.Errorf("row %q says %q", title, m)
		}
	}

	h.tap(rowTappable(t, h.u.reader.list, "New travel policy"))
	if !view.ack.content.Visible() || !hasLabel(view.content, ackPrompt()) || !view.ack.confirm.Visible() {
		t.Fatalf("no must-read banner: %q", labels(view.content))
	}
	h.tap(view.ack.confirm)
	e, _ := b.Item(mr.ID)
	if !e.Acknowledged.Equal(testNow) || !e.Read {
		t.Errorf("after the button: acknowledged %v, read %v", e.Acknowledged, e.Read)
	}
	if want := "Confirmed " + fullTime(testNow); !hasLabel(view.content, want) || view.ack.confirm.Visible() {
		t.Errorf("after the button the banner shows %q, want %q and no button", labels(view.ack.content), want)
	}
	if m := rowMeta(t, h, "New travel policy"); strings.Contains(m, "MUST READ") {
		t.Errorf("a confirmed row still says %q", m)
	}

	// Reopened later, it still says when it was confirmed.
	h.tap(rowTappable(t, h.u.reader.list, "Canteen menu"))
	if view.ack.content.Visible() {
		t.Errorf("a plain item shows the banner: %q", labels(view.ack.content))
	}
	h.tap(rowTappable(t, h.u.reader.list, "New travel policy"))
	if !hasLabel(view.content, "Confirmed ") {
		t.Errorf("a confirmed item reopened: %q", labels(view.ack.content))
	}
	h.tap(rowTappable(t, h.u.reader.list, "My own policy"))
	if view.ack.content.Visible() {
		t.Errorf("one's own must-read post shows the banner: %q", labels(view.ack.content))
	}
}

// A confirmation made elsewhere (the urgent window, the control API)
// reaches the open item's banner through the event.
func TestMustReadBannerFollowsEvents(t *testing.T) {
	b := newFake(t)
	mr := item(1, "hr", "New travel policy", 30)
	mr.MustRead = true
	b.Add(mr)
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "New travel policy"))
	later := testNow.Add(time.Minute)
	b.PresetAcknowledged(later, mr.ID)
	b.Acknowledge(mr.ID) // already confirmed: no event; announce it as the app would
	h.u.handleEvents([]app.Event{{Kind: app.ReadStateChanged, Categories: []string{"hr"}, Items: []uuid.UUID{mr.ID}}})
	h.sync()
	if want := "Confirmed " + fullTime(later); !hasLabel(h.u.reader.view.ack.content, want) {
		t.Errorf("the banner shows %q, want %q", labels(h.u.reader.view.ack.content), want)
	}
}

// Compose's "Must read" check is the draft's MustRead, and a success
// clears it with the rest of the form.
func TestComposeMustRead(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	if c.mustRead.Text != "Must read (readers confirm)" {
		t.Errorf("the check says %q", c.mustRead.Text)
	}
	chooseCategory(c, "hr")
	h.typeInto(c.title, "New travel policy")
	h.tap(c.mustRead)
	h.tap(c.publish)
	if len(b.drafts) != 1 || !b.drafts[0].MustRead || b.drafts[0].Urgent {
		t.Fatalf("drafts %+v", b.drafts)
	}
	if c.mustRead.Checked {
		t.Errorf("the form kept the must-read check")
	}
	if e, _ := b.Item(b.Items()[0].ID); !e.Item.MustRead {
		t.Errorf("the published item is not must-read")
	}
}
