package demo

import (
	"context"
	"os"
	"testing"
	"time"

	"newsdesk/app"
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
	if err != nil || len(es) != 291 { // the retracted post is not listed
		t.Fatalf("Newest: %d items, %v; want 291", len(es), err)
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

// The wizard mode is a new installation on the simulated network.
func TestOpenWizard(t *testing.T) {
	d, err := Open(context.Background(), "wizard")
	if err != nil {
		t.Fatal(err)
	}
	if !d.App.NeedsSetup() || d.App.Settings().Listen != demoListen {
		t.Errorf("no wizard, or not on the demo's port: %+v", d.App.Settings())
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
