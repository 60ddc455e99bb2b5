package ui

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// urgentItem is an urgent item arriving after the window opened.
func urgentItem(n int, title string, mustRead bool) *news.Item {
	it := item(n, "it", title, 0)
	it.Urgent, it.MustRead = true, mustRead
	it.Received = testNow.Add(time.Duration(n))
	return it
}

// takeoverWindow returns the urgent window, failing when it is not open.
func takeoverWindow(t *testing.T, h *harness) *recWindow {
	t.Helper()
	if h.u.takeover.win == nil {
		t.Fatal("no urgent window")
	}
	return h.u.takeover.win.(*recWindow)
}

// An urgent item that arrives opens in a window of its own, in front of
// everything, also while the main window is hidden (in the tray); Dismiss,
// or closing the window, marks it read and closes the window.
func TestUrgentTakeover(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.win.Hide() // as closing it does with a tray
	if h.u.takeover.win != nil {
		t.Fatal("an urgent window before anything urgent arrived")
	}

	plain := item(9, "it", "Printers fixed", 0)
	plain.Received = testNow.Add(1)
	b.Ingest(plain)
	h.sync()
	if h.u.takeover.win != nil {
		t.Fatal("a plain item opened the urgent window")
	}

	down := urgentItem(10, "E-mail down", false)
	b.Ingest(down)
	h.sync()
	w := takeoverWindow(t, h)
	tk := h.u.takeover
	if w.Title() != takeoverTitle() || w.hidden || !hasLabel(w.Content(), "E-mail down") || !hasLabel(w.Content(), "URGENT") {
		t.Fatalf("urgent window %q (hidden %v): %q", w.Title(), w.hidden, labels(w.Content()))
	}
	if !tk.dismiss.Visible() || tk.confirm.Visible() || !w.Canvas().Content().Visible() {
		t.Errorf("a plain urgent item: dismiss %v, confirm %v", tk.dismiss.Visible(), tk.confirm.Visible())
	}
	if segmentText(tk.body.Segments) == "" {
		t.Errorf("the body is not shown")
	}
	if w.intercept == nil {
		t.Fatal("the window's close is not intercepted")
	}
	w.intercept() // the close button: Dismiss
	h.sync()
	if !w.closed || h.u.takeover.win != nil {
		t.Errorf("closing did not dismiss the urgent window")
	}
	if !isRead(t, b, down.ID) {
		t.Errorf("a dismissed urgent item is unread")
	}

	// The same item announced again opens nothing.
	h.u.handleEvents([]app.Event{{Kind: app.ItemsArrived, Items: itemIDs(down), Urgent: itemIDs(down)}})
	h.sync()
	if h.u.takeover.win != nil {
		t.Errorf("an urgent item took over twice")
	}
}

// An urgent must-read item stays until it is confirmed: closing the
// window is refused and says why, and only "I have read this" moves on.
// Several urgent items share the window, oldest first, counted.
func TestUrgentMustReadTakeover(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	drill := urgentItem(10, "Evacuation drill at 14:00", true)
	down := urgentItem(11, "E-mail down", false)
	b.Ingest(drill)
	b.Ingest(down)
	h.sync()
	w := takeoverWindow(t, h)
	tk := h.u.takeover
	if !hasLabel(w.Content(), "URGENT · 1 of 2") || !hasLabel(w.Content(), "Evacuation drill at 14:00") {
		t.Fatalf("urgent window: %q", labels(w.Content()))
	}
	if !tk.confirm.Visible() || tk.dismiss.Visible() || !hasLabel(w.Content(), ackPrompt()) {
		t.Errorf("a must-read urgent item: confirm %v, dismiss %v, labels %q", tk.confirm.Visible(), tk.dismiss.Visible(), labels(w.Content()))
	}

	w.intercept()
	h.sync()
	if w.closed || h.u.takeover.win == nil || !tk.refused.Visible() {
		t.Fatalf("closing an unconfirmed must-read item: closed %v, refusal shown %v", w.closed, tk.refused.Visible())
	}
	tk.doDismiss() // not offered; does nothing either
	h.sync()
	if e, _ := b.Item(drill.ID); !e.Acknowledged.IsZero() || h.u.takeover.win == nil {
		t.Fatalf("dismissed without confirming")
	}

	h.tap(tk.confirm)
	if e, _ := b.Item(drill.ID); !e.Acknowledged.Equal(testNow) {
		t.Errorf("after I have read this: acknowledged %v", e.Acknowledged)
	}
	if w.closed || !hasLabel(w.Content(), "E-mail down") || hasLabel(w.Content(), "1 of") || !tk.dismiss.Visible() {
		t.Fatalf("the second item: closed %v, labels %q", w.closed, labels(w.Content()))
	}
	h.tap(tk.dismiss)
	if !w.closed || h.u.takeover.win != nil {
		t.Errorf("the window stays after the last item")
	}
}

// The window follows confirmations and retractions made elsewhere: an
// item it shows that is confirmed in the item view's banner (or through
// the control API) or retracted leaves it, and the window shows the next
// one; one it holds further back leaves the count; the window closes when
// nothing is left. A plain urgent item read elsewhere stays.
func TestUrgentTakeoverFollowsEvents(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	drill := urgentItem(10, "Evacuation drill at 14:00", true)
	policy := urgentItem(11, "New badge policy", true)
	down := urgentItem(12, "E-mail down", false)
	outage := urgentItem(13, "Power outage tonight", true)
	b.Ingest(drill, policy, down, outage)
	h.sync()
	w := takeoverWindow(t, h)
	if !hasLabel(w.Content(), "URGENT · 1 of 4") || !hasLabel(w.Content(), "Evacuation drill at 14:00") {
		t.Fatalf("urgent window: %q", labels(w.Content()))
	}

	// The shown item is confirmed elsewhere: the next one shows.
	if _, err := b.Acknowledge(drill.ID); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if w.closed || !hasLabel(w.Content(), "URGENT · 1 of 3") || !hasLabel(w.Content(), "New badge policy") {
		t.Fatalf("after the shown item was confirmed elsewhere: closed %v, %q", w.closed, labels(w.Content()))
	}

	// One further back is retracted: the count follows, the shown one stays.
	if err := b.Retract(outage.ID, "Cancelled"); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if !hasLabel(w.Content(), "URGENT · 1 of 2") || !hasLabel(w.Content(), "New badge policy") {
		t.Fatalf("after a queued item was retracted: %q", labels(w.Content()))
	}

	// The plain one read elsewhere stays.
	if err := b.MarkRead(down.ID); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if !hasLabel(w.Content(), "URGENT · 1 of 2") {
		t.Fatalf("after a plain urgent item was read elsewhere: %q", labels(w.Content()))
	}

	// The shown one is retracted: the plain one shows, alone; then it is
	// dismissed and the window closes.
	if err := b.Retract(policy.ID, ""); err != nil {
		t.Fatal(err)
	}
	h.sync()
	tk := h.u.takeover
	if w.closed || !hasLabel(w.Content(), "E-mail down") || hasLabel(w.Content(), "1 of") || !tk.dismiss.Visible() {
		t.Fatalf("after the shown item was retracted: closed %v, %q", w.closed, labels(w.Content()))
	}
	h.tap(tk.dismiss)
	if !w.closed || h.u.takeover.win != nil {
		t.Fatal("the window stays after the last item")
	}

	// A window with one must-read item closes when it is confirmed
	// elsewhere.
	memo := urgentItem(14, "Read the security memo", true)
	b.Ingest(memo)
	h.sync()
	w = takeoverWindow(t, h)
	if _, err := b.Acknowledge(memo.ID); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if !w.closed || h.u.takeover.win != nil {
		t.Errorf("the window stays after its only item was confirmed elsewhere")
	}
}

// Urgent must-read items that came while the app was not running, and are
// not confirmed, take over at the start; confirmed ones and plain urgent
// ones wait in the list.
func TestUrgentTakeoverOnStart(t *testing.T) {
	b := newFake(t)
	waiting := item(1, "it", "Evacuation drill at 14:00", 90)
	waiting.Urgent, waiting.MustRead = true, true
	confirmed := item(2, "it", "Fire alarm test", 80)
	confirmed.Urgent, confirmed.MustRead = true, true
	old := item(3, "it", "E-mail was down", 70)
	old.Urgent = true
	b.Add(waiting, confirmed, old)
	b.PresetAcknowledged(testNow.Add(-time.Hour), confirmed.ID)
	h := newHarness(t, b)
	w := takeoverWindow(t, h)
	if len(h.u.takeover.queue) != 1 || !hasLabel(w.Content(), "Evacuation drill at 14:00") || hasLabel(w.Content(), "1 of") {
		t.Errorf("at the start: %d queued, labels %q", len(h.u.takeover.queue), labels(w.Content()))
	}
}

// Urgent items are never muted: with notifications off and no category
// chosen, an urgent arrival still notifies (and a plain one does not).
func TestUrgentNeverMuted(t *testing.T) {
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Tester", Notify: false})
	h := newHarness(t, b)
	plain := item(9, "company", "Quiet news", 0)
	plain.Received = testNow.Add(1)
	b.Ingest(plain)
	h.sync()
	if len(h.a.notes) != 0 {
		t.Fatalf("notifications off, yet %q", h.a.notes[0].Title)
	}
	b.Ingest(urgentItem(10, "E-mail down", false))
	h.sync()
	if len(h.a.notes) != 1 || h.a.notes[0].Title != "Urgent: E-mail down" {
		t.Errorf("urgent arrival with notifications off: %v", h.a.notes)
	}
}

// The rule itself: no setting mutes an urgent item, read or not; a plain
// one needs notifications on, its category chosen, and to be unread.
func TestNotifiesRule(t *testing.T) {
	on := app.Settings{Notify: true, NotifyCategories: []string{"company"}}
	urgent := item(1, "it", "E-mail down", 0)
	urgent.Urgent = true
	plain := item(2, "company", "News", 0)
	other := item(3, "it", "Printers", 0)
	for _, c := range []struct {
		name string
		s    app.Settings
		e    app.Entry
		want bool
	}{
		{"urgent, notifications off", app.Settings{}, app.Entry{Item: urgent}, true},
		{"urgent, category not chosen", on, app.Entry{Item: urgent}, true},
		{"urgent, read meanwhile", app.Settings{}, app.Entry{Item: urgent, Read: true}, true},
		{"plain, chosen", on, app.Entry{Item: plain}, true},
		{"plain, notifications off", app.Settings{NotifyCategories: []string{"company"}}, app.Entry{Item: plain}, false},
		{"plain, not chosen", on, app.Entry{Item: other}, false},
		{"plain, read meanwhile", on, app.Entry{Item: plain, Read: true}, false},
	} {
		if got := notifies(c.s, c.e); got != c.want {
			t.Errorf("%s: notifies = %v, want %v", c.name, got, c.want)
		}
	}
}

func itemIDs(items ...*news.Item) []uuid.UUID {
	var out []uuid.UUID
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}
