package ui

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/trust"
)

// Admin → Reports lists every publisher's must-read posts with their
// confirmations at a glance; Readers… opens who has not confirmed, with
// the export of everyone; a new report shows when it comes.
func TestReportsScreen(t *testing.T) {
	b := newFake(t)
	b.PresetReports(nil)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3) // Admin
	h.sync()
	if !slices.Contains(h.u.adminTabs.Items, h.u.reportsTab) {
		t.Fatalf("an admin is not offered Reports: %d admin tabs", len(h.u.adminTabs.Items))
	}
	h.u.adminTabs.Select(h.u.reportsTab)
	h.sync()
	v := h.u.reports
	if !v.empty.Visible() {
		t.Error("no note while there are no reports")
	}

	b.PresetReports([]app.NetworkReport{{Post: uuid.New(), Title: "Updated travel policy", Category: "hr", Author: "Jonas Lindqvist",
		Published: testNow.Add(-26 * time.Hour), Publisher: "ed25519:HR",
		Reach: app.Reach{At: testNow.Add(-35 * time.Minute), MustRead: true, Subscribers: 4, Delivered: 4, Read: 4, Acknowledged: 2,
			ReportedAcknowledged: 1, ReportedPending: 1, Pending: []app.Reader{{Name: "Bo", Key: "ed25519:BBBB"}},
			Offline:   []app.OfflineReader{{Reader: app.Reader{Name: "Di", Key: "ed25519:DDDD"}, LastSeen: testNow.Add(-time.Hour)}},
			Confirmed: []app.ConfirmedReader{{Reader: app.Reader{Name: "Ada", Key: "ed25519:AAAA"}, At: testNow.Add(-20 * time.Hour)}, {Reader: app.Reader{Name: "Cy", Key: "ed25519:CCCC"}, At: testNow.Add(-19 * time.Hour)}}}}})
	h.u.handleEvents([]app.Event{{Kind: app.ReportsChanged}})
	h.sync()
	if v.empty.Visible() {
		t.Error("the note for no reports stays beside one")
	}
	for _, want := range []string{"Updated travel policy", "2 of 4 confirmed · 2 not", "Jonas Lindqvist", "reported 35 min ago"} {
		if !hasLabel(v.list, want) {
			t.Errorf("the list lacks %q: %q", want, labels(v.list))
		}
	}
	h.tap(find[*widget.Button](v.list, func(b *widget.Button) bool { return b.Text == "Readers…" }))
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "1 reader has “Updated travel policy” and has not confirmed it.") || !hasExactLabel(top, "Bo") ||
		!hasExactLabel(top, "Di") || !hasLabel(top, "2 confirmed, also those not in the network now") || !hasLabel(top, "Export CSV… saves everyone") {
		t.Fatalf("the readers dialog says %q", labels(top))
	}
	if find[*widget.Button](top, func(b *widget.Button) bool { return b.Text == "Export CSV…" && !b.Disabled() }) == nil {
		t.Error("no Export CSV… in the readers dialog")
	}
}

// A member who is no admin is not offered Reports.
func TestReportsAdminsOnly(t *testing.T) {
	b := newFake(t)
	asMember(t, b, trust.Publisher{Name: "Newsroom", Key: b.Identity().Public})
	h := newHarness(t, b)
	h.sync()
	if slices.Contains(h.u.adminTabs.Items, h.u.reportsTab) {
		t.Error("a member is offered Reports")
	}
}

// TestReportStateCountsDeliveries: before the readers' reports name who
// has not confirmed, a report counts them from the deliveries, or from the
// subscribers, never as "0 of 0".
func TestReportStateCountsDeliveries(t *testing.T) {
	for _, tc := range []struct {
		r    app.Reach
		want string
	}{
		{app.Reach{Delivered: 5}, "0 of 5 confirmed · 5 not"},
		{app.Reach{Subscribers: 7}, "0 of 7 confirmed · 7 not"},
		{app.Reach{Subscribers: 7, Delivered: 5, Acknowledged: 3, ReportedPending: 2}, "3 of 7 confirmed · 4 not"},
		{app.Reach{Delivered: 5, Acknowledged: 2, ReportedPending: 3}, "2 of 5 confirmed · 3 not"},
		{app.Reach{Delivered: 4, Acknowledged: 1, ReportedPending: 5}, "1 of 6 confirmed · 5 not"},
	} {
		if got := reportStateText(tc.r); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}
