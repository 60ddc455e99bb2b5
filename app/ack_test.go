package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// A reader acknowledges a must-read item once: Acknowledge stores the
// time, marks the item read, announces it with ReadStateChanged and hands
// it to the OnAcknowledge hooks; a repeat returns the first time and tells
// nobody. Unknown and plain items are refused. The acknowledgement
// survives a restart, and Acknowledgements lists it for a reporter.
func TestAcknowledge(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	mr := testItem(t, "hr", "New travel policy: please confirm")
	mr.SourceCount, mr.MustRead = 1, true
	plain := testItem(t, "hr", "Canteen menu")
	plain.SourceCount = 2
	for _, it := range []*news.Item{mr, plain} {
		if err := a.store.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	var heard []Acknowledgement
	a.OnAcknowledge(func(ack Acknowledgement) { heard = append(heard, ack) })

	before := time.Now()
	at, err := a.Acknowledge(mr.ID)
	if err != nil || at.Before(before) || at.After(time.Now()) {
		t.Fatalf("Acknowledge = %v, %v", at, err)
	}
	waitEvent(t, a, "the acknowledgement", itemsEvent(ReadStateChanged, mr.ID))
	if len(heard) != 1 || heard[0].ItemID != mr.ID || heard[0].Source != mr.Source || heard[0].Category != "hr" || !heard[0].At.Equal(at) {
		t.Errorf("hooks heard %+v", heard)
	}
	if e, _ := a.Item(mr.ID); !e.Acknowledged.Equal(at) || !e.Read {
		t.Errorf("the item after Acknowledge: acknowledged %v, read %v", e.Acknowledged, e.Read)
	}
	again, err := a.Acknowledge(mr.ID)
	if err != nil || !again.Equal(at) || len(heard) != 1 {
		t.Errorf("a second Acknowledge = %v, %v (hooks heard %d); want the first time, no hook", again, err, len(heard))
	}

	if _, err := a.Acknowledge(plain.ID); !errors.Is(err, ErrNotMustRead) {
		t.Errorf("Acknowledge of a plain item = %v, want ErrNotMustRead", err)
	}
	if _, err := a.Acknowledge(uuid.Must(uuid.NewV7())); !errors.Is(err, ErrNotFound) {
		t.Errorf("Acknowledge of an unknown item = %v, want ErrNotFound", err)
	}
	if e, _ := a.Item(plain.ID); e.Read {
		t.Errorf("a refused acknowledgement marked the item read")
	}

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := openApp(t, Options{DataDir: dir})
	if e, _ := b.Item(mr.ID); !e.Acknowledged.Equal(at) {
		t.Errorf("after a restart: acknowledged %v, want %v", e.Acknowledged, at)
	}
	acks, err := b.Acknowledgements()
	if err != nil || len(acks) != 1 || acks[0].ItemID != mr.ID || acks[0].Source != mr.Source || !acks[0].At.Equal(at) {
		t.Errorf("Acknowledgements after a restart = %+v, %v", acks, err)
	}
}

// A draft's MustRead is the published item's.
func TestPublishMustRead(t *testing.T) {
	a := openApp(t, Options{})
	res, err := a.Publish(Draft{Category: "hr", Title: "Confirm the fire drill", MustRead: true, Urgent: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := a.Item(res.ID)
	if err != nil || !e.Item.MustRead || !e.Item.Urgent {
		t.Errorf("published item: %+v, %v", e.Item, err)
	}
}
