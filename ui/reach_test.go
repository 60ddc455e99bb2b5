package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// postPicture returns the reach picture in the My posts row titled title.
func postPicture(t *testing.T, h *harness, title string) *reachPicture {
	t.Helper()
	var found *reachPicture
	walk(h.u.posts.list, func(o fyne.CanvasObject) bool {
		if c, ok := o.(*fyne.Container); ok && hasExactLabel(c, title) {
			if p := find[*reachPicture](c, nil); p != nil {
				found = p // the innermost container with both is the row's
			}
		}
		return true
	})
	if found == nil {
		t.Fatalf("no reach picture in the row %q; labels %q", title, labels(h.u.posts.list))
	}
	return found
}

func hasExactLabel(o fyne.CanvasObject, text string) bool {
	for _, l := range labels(o) {
		if l == text {
			return true
		}
	}
	return false
}

// drawn describes a picture as drawn: per count its name, number and bar
// length as a percentage of the longest.
func drawn(p *reachPicture) string {
	r := test.WidgetRenderer(p).(*reachRenderer)
	s := ""
	for i := range reachCounts() {
		pct := 0.0
		if w := r.tracks[i].Size().Width; w > 0 {
			pct = math.Round(float64(r.bars[i].Size().Width / w * 100))
		}
		s += fmt.Sprintf("%s %s %.0f%%; ", r.names[i].Text, r.numbers[i].Text, pct)
	}
	return s
}

// My posts draws each post's reach as a bar per count, scaled to the
// subscribers, and redraws it when the network reports anew; a plain post
// has no confirmations to show.
func TestMyPostsReachPicture(t *testing.T) {
	b := newFake(t)
	policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	menu, err := b.Publish(app.Draft{Category: "hr", Title: "Canteen menu"})
	if err != nil {
		t.Fatal(err)
	}
	b.PresetReach(policy.ID, app.Reach{Subscribers: 40, Delivered: 40, Read: 30, Acknowledged: 10,
		Pending: []app.Reader{{Name: "Ada", Key: "ed25519:a"}}})
	h := newHarness(t, b)
	h.win.Resize(fyne.NewSize(1200, 760))
	showMyPosts(h)

	if got, want := drawn(postPicture(t, h, "New travel policy")), "Subscribers 40 100%; Delivered 40 100%; Read 30 75%; Confirmed 10 25%; "; got != want {
		t.Errorf("the must-read post's picture: %s\nwant %s", got, want)
	}
	if got, want := drawn(postPicture(t, h, "Canteen menu")), "Subscribers 0 0%; Delivered 0 0%; Read 0 0%; Confirmed – 0%; "; got != want {
		t.Errorf("a post without reports: %s\nwant %s", got, want)
	}

	// Reports arrive: the pictures follow.
	b.PresetReach(menu.ID, app.Reach{Subscribers: 200, Delivered: 150, Read: 50})
	b.PresetReach(policy.ID, app.Reach{Subscribers: 40, Delivered: 39, Read: 39, Acknowledged: 39})
	h.sync()
	if got, want := drawn(postPicture(t, h, "Canteen menu")), "Subscribers 200 100%; Delivered 150 75%; Read 50 25%; Confirmed – 0%; "; got != want {
		t.Errorf("after a report: %s\nwant %s", got, want)
	}
	if got, want := drawn(postPicture(t, h, "New travel policy")), "Subscribers 40 100%; Delivered 39 98%; Read 39 98%; Confirmed 39 98%; "; got != want {
		t.Errorf("after a report: %s\nwant %s", got, want)
	}
}

// A must-read post lists who has not confirmed it, and exports the list
// as CSV; a plain post has no such list.
func TestMyPostsPendingList(t *testing.T) {
	b := newFake(t)
	policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(app.Draft{Category: "hr", Title: "Canteen menu"}); err != nil {
		t.Fatal(err)
	}
	pending := []app.Reader{{Name: "Ada Lovelace", Key: "ed25519:AAAA"}, {Name: "", Key: "ed25519:BBBB"}, {Name: `Bo "Boss", Jr.`, Key: "ed25519:CCCC"}}
	b.PresetReach(policy.ID, app.Reach{Subscribers: 5, Delivered: 4, Read: 2, Acknowledged: 1, Pending: pending})
	h := newHarness(t, b)
	h.win.Resize(fyne.NewSize(1200, 760))
	showMyPosts(h)

	buttons := 0
	walk(h.u.posts.list, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Text == "Not confirmed (3)…" {
			buttons++
		}
		return true
	})
	if buttons != 1 {
		t.Fatalf("%d “Not confirmed (3)…” buttons, want one (the must-read post's)", buttons)
	}
	h.tap(find[*widget.Button](h.u.posts.list, func(b *widget.Button) bool { return b.Text == "Not confirmed (3)…" }))
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "3 readers have “New travel policy” and have not confirmed it.") {
		t.Fatalf("no pending list: %v", top)
	}
	for _, want := range []string{"Ada Lovelace", "ed25519:AAAA", "(no name)", "ed25519:BBBB", `Bo "Boss", Jr.`, "ed25519:CCCC"} {
		if !hasExactLabel(top, want) {
			t.Errorf("the pending list lacks %q: %q", want, labels(top))
		}
	}
	if find[*widget.Button](top, func(b *widget.Button) bool { return b.Text == "Export CSV…" && !b.Disabled() }) == nil {
		t.Error("no Export CSV… button")
	}
	want := "name,key,status,time\nAda Lovelace,ed25519:AAAA,not confirmed,\n,ed25519:BBBB,not confirmed,\n\"Bo \"\"Boss\"\", Jr.\",ed25519:CCCC,not confirmed,\n"
	if got := string(pendingCSV(app.Reach{MustRead: true, Pending: pending})); got != want {
		t.Errorf("CSV:\n%s\nwant\n%s", got, want)
	}
}

// Issue 32 C: the publisher sees the confirmations that verified, with
// the relays' count beside them as reported, and what older versions
// listed as not verified. Issue 26: a list as long as the network lists
// says it is partial, on its button, in its dialog and in its CSV.
func TestMyPostsVerifiedReachAndPartialList(t *testing.T) {
	b := newFake(t)
	policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	pending := make([]app.Reader, maxPendingListed)
	for i := range pending {
		pending[i] = app.Reader{Name: fmt.Sprintf("Reader %03d", i), Key: fmt.Sprintf("ed25519:%03d", i)}
	}
	b.PresetReach(policy.ID, app.Reach{Subscribers: 5, Delivered: 1005, Read: 1002, Acknowledged: 2, ReportedAcknowledged: 1002,
		UnverifiedPending: 1, Pending: pending})
	h := newHarness(t, b)
	h.win.Resize(fyne.NewSize(1200, 760))
	showMyPosts(h)

	if got := drawn(postPicture(t, h, "New travel policy")); !strings.Contains(got, "Confirmed 2 ") {
		t.Errorf("the picture shows %s, want the 2 verified confirmations", got)
	}
	const label = "Not confirmed (256+)…"
	h.tap(find[*widget.Button](h.u.posts.list, func(b *widget.Button) bool { return b.Text == label }))
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "At least 256 readers") || !hasLabel(top, "relays report 1002") ||
		!hasLabel(top, "0 confirmed and 1 pending by older versions, not verified") {
		t.Fatalf("the pending dialog says %q", labels(top))
	}
	csv := string(pendingCSV(app.Reach{MustRead: true, Pending: pending}))
	if !strings.HasSuffix(csv, "\n(partial list: older versions in the network name at most 256 readers not confirmed),,,\n") {
		t.Errorf("the CSV of a partial list ends %q", csv[len(csv)-80:])
	}
}

// Issue 26: beyond the readers named so far, the relays' count of
// pending readers is exact, and the button, the dialog and the CSV give
// it.
func TestMyPostsPendingCountBeyondTheList(t *testing.T) {
	b := newFake(t)
	policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	pending := make([]app.Reader, maxPendingListed)
	for i := range pending {
		pending[i] = app.Reader{Name: fmt.Sprintf("Reader %03d", i), Key: fmt.Sprintf("ed25519:%03d", i)}
	}
	b.PresetReach(policy.ID, app.Reach{Subscribers: 400, Delivered: 400, Read: 100, Acknowledged: 88, ReportedAcknowledged: 88,
		ReportedPending: 312, Pending: pending})
	h := newHarness(t, b)
	h.win.Resize(fyne.NewSize(1200, 760))
	showMyPosts(h)
	h.tap(find[*widget.Button](h.u.posts.list, func(b *widget.Button) bool { return b.Text == "Not confirmed (312)…" }))
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "312 readers have “New travel policy” and have not confirmed it, as relays count them; 256 of them named so far.") {
		t.Fatalf("the pending dialog says %q", labels(top))
	}
	if csv := string(pendingCSV(app.Reach{MustRead: true, ReportedPending: 312, Pending: pending})); !strings.HasSuffix(csv, "\n(partial list: 56 more readers not confirmed and not named yet),,,\n") {
		t.Errorf("the CSV ends %q", csv[len(csv)-80:])
	}
}

// Issue 26: readers whose computers are offline show as not confirmed,
// with when they were last seen, in the list and in the CSV; the CSV
// lists those who confirmed too, with when, for a compliance record.
func TestMyPostsOfflineReaders(t *testing.T) {
	b := newFake(t)
	policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	offline := []app.OfflineReader{{Reader: app.Reader{Name: "Di", Key: "ed25519:DDDD"}, LastSeen: seen}}
	confirmed := []app.ConfirmedReader{{Reader: app.Reader{Name: "Cy", Key: "ed25519:CCCC"}, At: seen.Add(-time.Hour)}}
	reach := app.Reach{Subscribers: 3, Delivered: 3, Read: 1, Acknowledged: 1, ReportedAcknowledged: 0, MustRead: true,
		Pending: []app.Reader{{Name: "Bo", Key: "ed25519:BBBB"}}, Offline: offline, Confirmed: confirmed}
	b.PresetReach(policy.ID, reach)
	h := newHarness(t, b)
	h.win.Resize(fyne.NewSize(1200, 760))
	showMyPosts(h)
	h.tap(find[*widget.Button](h.u.posts.list, func(b *widget.Button) bool { return b.Text == "Not confirmed (1)…" }))
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "1 more not in the network now") || !hasLabel(top, "not confirmed, last seen") || !hasExactLabel(top, "Di") ||
		!hasLabel(top, "1 confirmed, also those not in the network now") {
		t.Fatalf("the pending dialog says %q", labels(top))
	}
	want := "name,key,status,time\nBo,ed25519:BBBB,not confirmed,\nDi,ed25519:DDDD,\"not confirmed, offline\",2026-03-02T09:30:00Z\n" +
		"Cy,ed25519:CCCC,confirmed,2026-03-02T08:30:00Z\n"
	if got := string(pendingCSV(reach)); got != want {
		t.Errorf("CSV:\n%s\nwant\n%s", got, want)
	}
}
