package app_test

import (
	"errors"
	"testing"

	"newsdesk/app"
	"newsdesk/news"
)

// Acknowledge confirms a must-read item: the item is marked read and
// carries the time of the confirmation, announced with ReadStateChanged;
// confirming again keeps the first time. A plain item is
// app.ErrNotMustRead, an unknown one app.ErrNotFound, and neither changes.
func testAcknowledge(t *testing.T, s Subject) {
	mr := received(1, "hr", "New travel policy", "Please **confirm**.", 10)
	mr.MustRead = true
	plain := received(2, "hr", "Canteen menu", "", 20)
	receive(t, s, mr, plain)
	if e := item(t, s, mr.ID); !e.Item.MustRead || !e.Acknowledged.IsZero() || e.Read {
		t.Fatalf("a received must-read item: must-read %v, acknowledged %v, read %v", e.Item.MustRead, e.Acknowledged, e.Read)
	}

	at, err := s.Acknowledge(mr.ID)
	if err != nil || at.IsZero() {
		t.Fatalf("Acknowledge = %v, %v", at, err)
	}
	await(t, s, "ReadStateChanged after Acknowledge", announced(app.ReadStateChanged, mr.ID, "hr"))
	if e := item(t, s, mr.ID); !e.Acknowledged.Equal(at) || !e.Read {
		t.Errorf("after Acknowledge: acknowledged %v (want %v), read %v", e.Acknowledged, at, e.Read)
	}
	if es, _, _ := s.Newest([]string{"hr"}, 10, ""); len(es) != 2 || !es[1].Acknowledged.Equal(at) || !es[0].Acknowledged.IsZero() {
		t.Errorf("Newest does not carry the acknowledgement: %+v", es)
	}
	if again, err := s.Acknowledge(mr.ID); err != nil || !again.Equal(at) {
		t.Errorf("a second Acknowledge = %v, %v; want %v", again, err, at)
	}
	wantCounts(t, s, map[string]uint64{"hr": 1})

	if _, err := s.Acknowledge(plain.ID); !errors.Is(err, app.ErrNotMustRead) {
		t.Errorf("Acknowledge of a plain item: %v, want app.ErrNotMustRead", err)
	}
	if _, err := s.Acknowledge(news.IDAt(base, 99)); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Acknowledge of an unknown ID: %v, want app.ErrNotFound", err)
	}
	if e := item(t, s, plain.ID); e.Read || !e.Acknowledged.IsZero() {
		t.Errorf("a refused acknowledgement changed the item: read %v, acknowledged %v", e.Read, e.Acknowledged)
	}
}

// Keep marks an item kept, announced with ReadStateChanged, and lets it go
// again; marking it as it is changes nothing. An unknown item is
// app.ErrNotFound.
func testKeep(t *testing.T, s Subject) {
	it := received(1, "hr", "Holiday calendar 2026", "", 10)
	receive(t, s, it)
	if e := item(t, s, it.ID); e.Kept {
		t.Fatal("a received item is kept before the reader chose to")
	}
	if err := s.Keep(it.ID, true); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after Keep", announced(app.ReadStateChanged, it.ID, "hr"))
	if e := item(t, s, it.ID); !e.Kept {
		t.Error("not kept after Keep")
	}
	if es, _, _ := s.Newest([]string{"hr"}, 10, ""); len(es) != 1 || !es[0].Kept {
		t.Errorf("Newest does not carry the mark: %+v", es)
	}
	if err := s.Keep(it.ID, true); err != nil {
		t.Errorf("keeping it again: %v", err)
	}
	if err := s.Keep(it.ID, false); err != nil {
		t.Fatal(err)
	}
	if e := item(t, s, it.ID); e.Kept {
		t.Error("still kept after letting it go")
	}
	if err := s.Keep(news.IDAt(base, 99), true); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Keep of an unknown ID: %v, want app.ErrNotFound", err)
	}
}
