package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
)

// openCore opens a real application on a fresh data directory,
// listening on loopback, set up and started, and closes it at the end.
func openCore(t *testing.T, opts app.Options, setup app.Setup) *app.App {
	t.Helper()
	opts.DataDir = t.TempDir()
	opts.Listen = "127.0.0.1:0"
	opts.Start = true
	c, err := app.Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := c.Setup(setup); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	return c
}

// TestTwoCores: two applications in one process, two servants on
// loopback. An item published in one appears, unread, in the other's
// window with its unread count, and is notified there (its category is
// chosen for notifications); opening it marks it read and the count
// follows, with no second notification.
func TestTwoCores(t *testing.T) {
	if testing.Short() {
		t.Skip("real servants on loopback")
	}
	pub := openCore(t, app.Options{}, app.Setup{DisplayName: "Newsroom", NewNetwork: true})
	reader := openCore(t, app.Options{Network: pub.Network(), Subscriptions: []string{"it"}}, app.Setup{DisplayName: "Reader", Seeds: []string{pub.Addr()}})
	s := reader.Settings()
	s.Notify, s.NotifyCategories = true, []string{"it"}
	if err := reader.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	h := newHarnessOver(t, reader, time.Now)
	if h.u.wizard != nil {
		t.Fatal("set up core shows the wizard")
	}

	// The publisher must have learnt the reader's subscription, or the item
	// would be suppressed: the routing information arrives with the link.
	deadline := time.Now().Add(20 * time.Second)
	for !wants(pub.Status(), reader.Addr(), "it") {
		if time.Now().After(deadline) {
			t.Fatalf("the publisher never learnt the reader's subscription: %+v", pub.Status().Links)
		}
		time.Sleep(20 * time.Millisecond) // polling the other core's status, not the UI
	}
	res, err := pub.Publish(app.Draft{Category: "it", Title: "Printer fixed", Body: "It prints **again**."})
	if err != nil || res.Outcome != app.Delivered {
		t.Fatalf("Publish = %+v, %v", res, err)
	}
	h.await("the item arriving", func(ev app.Event) bool {
		return ev.Kind == app.ItemsArrived && (ev.Items == nil || slices.Contains(ev.Items, res.ID))
	})
	l := h.u.reader.list
	r := l.row(res.ID)
	if r == nil || r.read || r.title != "Printer fixed" || r.author != "Newsroom" {
		t.Fatalf("row %+v in %q", r, listTitles(l))
	}
	feed, _ := h.u.reader.sidebar.feed("it")
	if all := h.u.reader.sidebar.feeds[0].unread; all != 1 || feed.unread != 1 {
		t.Fatalf("unread: All %d, IT %d", all, feed.unread)
	}
	if !hasLabel(l, "Printer fixed") {
		t.Error("the row is not on screen")
	}
	if len(h.a.notes) != 1 || h.a.notes[0].Title != "IT: Printer fixed" {
		t.Errorf("notifications %+v, want one for the arrival", h.a.notes)
	}
	h.a.notes = nil

	h.tap(rowTappable(t, l, "Printer fixed"))
	if e, err := reader.Item(res.ID); err != nil || !e.Read {
		t.Fatalf("after opening: %+v, %v", e, err)
	}
	if segs := segmentText(h.u.reader.view.body.Segments); !strings.HasPrefix(segs, "It prints |again|.") {
		t.Errorf("body %q", segs)
	}
	// The UI re-reads the counts once MarkRead has returned.
	if all := h.u.reader.sidebar.feeds[0].unread; all != 0 {
		t.Errorf("All unread after reading: %d", all)
	}
	// Every event before the CatalogChanged of this no-op is handled by
	// the time it comes: the read-state change with it.
	if err := reader.SetSubscriptions(reader.Subscriptions()); err != nil {
		t.Fatal(err)
	}
	h.await("the events after reading", func(ev app.Event) bool { return ev.Kind == app.CatalogChanged })
	if len(h.a.notes) != 0 {
		t.Errorf("notified %q after reading", h.a.notes[0].Title)
	}
}

// wants reports whether st has a link to peer that receives category.
func wants(st app.NetStatus, peer, category string) bool {
	for _, l := range st.Links {
		if l.Peer == peer && slices.Contains(l.Received, category) {
			return true
		}
	}
	return false
}
