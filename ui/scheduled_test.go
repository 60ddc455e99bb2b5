package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/news"
)

// TestComposePublishAt: the optional publication time is typed as a local
// date and time like the expiry; one that does not parse or has passed is
// shown under the Publish at field, an expiry before it under Expires, and
// nothing is sent; a valid one schedules the draft, the outcome says so,
// and the form is emptied.
func TestComposePublishAt(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "Canteen opens")
	at := testNow.Add(3 * time.Hour).Local().Truncate(time.Minute)
	for _, tc := range []struct {
		at, expires string
		field       news.Field
		want        string
	}{
		{"at noon", "", news.FieldAt, "Type the publication time as YYYY-MM-DD HH:MM (for example "},
		{testNow.Add(-time.Hour).Local().Format(whenLayout), "", news.FieldAt, "The publication time has passed"},
		{at.Format(whenLayout), at.Add(-time.Hour).Format(whenLayout), news.FieldExpires, "The item would expire before it is published"},
	} {
		h.typeInto(c.at, tc.at)
		h.typeInto(c.expires, tc.expires)
		h.tap(c.publish)
		note := c.notes[tc.field]
		if !note.Visible() || !strings.HasPrefix(note.Text, tc.want) {
			t.Errorf("at %q, expires %q: note %q (shown %v), want %q…", tc.at, tc.expires, note.Text, note.Visible(), tc.want)
		}
		if err := shownUnder(map[news.Field]*widget.Entry{news.FieldAt: c.at, news.FieldExpires: c.expires}[tc.field], note); err != nil {
			t.Errorf("at %q: the problem is not under its field: %v", tc.at, err)
		}
	}
	if len(b.drafts) != 0 {
		t.Fatalf("invalid times were published: %d", len(b.drafts))
	}
	h.typeInto(c.expires, "")
	h.typeInto(c.at, at.Format(whenLayout))
	h.tap(c.publish)
	h.sync()
	if len(b.drafts) != 1 || !b.drafts[0].At.Equal(at) {
		t.Fatalf("drafts %+v, want one at %v", b.drafts, at)
	}
	if want := "Scheduled “Canteen opens” for " + fullTime(at); !strings.HasPrefix(c.outcome.Text, want) {
		t.Errorf("outcome %q, want %q…", c.outcome.Text, want)
	}
	if c.at.Text != "" {
		t.Errorf("the publication time stayed after publishing: %q", c.at.Text)
	}
	if got, _ := b.Scheduled(); len(got) != 1 || got[0].Item.Title != "Canteen opens" {
		t.Errorf("scheduled %+v", got)
	}
}

func showMyPosts(h *harness) {
	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.SelectIndex(1)
	h.sync()
}

// My posts lists scheduled posts above the published ones, with when they
// go out and a Cancel button; cancelling asks first, and the post is gone.
func TestMyPostsScheduledCancel(t *testing.T) {
	b := newFake(t)
	for _, d := range []app.Draft{
		{Category: "it", Title: "Later", At: testNow.Add(26 * time.Hour)},
		{Category: "hr", Title: "Sooner", At: testNow.Add(3 * time.Hour), Expires: testNow.Add(5 * time.Hour)},
	} {
		if res, err := b.Publish(d); err != nil || res.Outcome != app.Scheduled {
			t.Fatalf("Publish %+v = %+v, %v", d, res, err)
		}
	}
	h := newHarnessOver(t, b, func() time.Time { return testNow })
	showMyPosts(h)
	s := h.u.posts.scheduled
	if !s.content.Visible() {
		t.Fatal("the scheduled posts are not shown")
	}
	got := labels(s.rows)
	want := []string{
		"Sooner", "Goes out " + fullTime(testNow.Add(3*time.Hour)) + " (in 3 h) · HR · expires " + fullTime(testNow.Add(5*time.Hour)),
		"Later", "Goes out " + fullTime(testNow.Add(26*time.Hour)) + " (in 26 h) · IT",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scheduled rows\n%q\nwant\n%q", got, want)
	}
	if len(h.u.posts.rows) != 0 {
		t.Errorf("published posts listed: %d", len(h.u.posts.rows))
	}

	cancel := find[*widget.Button](s.rows, func(b *widget.Button) bool { return b.Text == "Cancel…" })
	h.tap(cancel)
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "“Sooner” will not be published") {
		t.Fatalf("no confirmation naming the post: %v", top)
	}
	h.tap(find[*widget.Button](top, func(b *widget.Button) bool { return b.Text == "Cancel the post" }))
	if got := labels(s.rows); len(got) != 2 || got[0] != "Later" {
		t.Errorf("after cancelling: %q", got)
	}
	if list, _ := b.Scheduled(); len(list) != 1 || list[0].Item.Title != "Later" {
		t.Errorf("backend still schedules %+v", list)
	}
}

// A scheduled post that went out late (the app was not running at its
// time) is marked so in My posts, with its publication time; the
// scheduled section is gone once nothing waits.
func TestMyPostsSentLate(t *testing.T) {
	b := newFake(t)
	at := testNow.Add(time.Hour)
	if _, err := b.Publish(app.Draft{Category: "it", Title: "Board meeting", At: at}); err != nil {
		t.Fatal(err)
	}
	clock := at.Add(2 * time.Hour) // the app was off at the time
	b.ReopenAt(clock)
	h := newHarnessOver(t, b, func() time.Time { return clock })
	showMyPosts(h)
	if h.u.posts.scheduled.content.Visible() {
		t.Errorf("the scheduled section shows with nothing scheduled: %q", labels(h.u.posts.scheduled.rows))
	}
	want := sentLateNote(at) + " · IT · " + fullTime(at)
	if !hasLabel(h.u.posts.list, want) {
		t.Errorf("My posts %q, want a line starting %q", labels(h.u.posts.list), want)
	}
}
