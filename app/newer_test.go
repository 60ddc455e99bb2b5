package app

import (
	"bytes"
	"context"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// TestNewerFormatItemIsKeptAndPassedOn: an item in a format of a newer
// release (one that a later Newsdesk publishes) crosses a servant of this
// release: it is checked as far as its envelope allows (header, signature
// over its bytes, the publisher's category), stored as the bytes that
// came, listed with its title as needing a newer Newsdesk, and answered
// byte for byte to a servant that asks for it again.
func TestNewerFormatItemIsKeptAndPassedOn(t *testing.T) {
	a := openApp(t, Options{Start: true})
	b := openApp(t, Options{Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
	first, err := a.Publish(Draft{Category: "it", Title: "Today"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b, "the first item on b", itemsEvent(ItemsArrived, first.ID))
	stored, err := b.Item(first.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The next item of a's stream, as a newer release writes it.
	it, err := news.NewItem("it", "Neue Gleitzeitregelung", "", "", a.Source(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = stored.Item.SourceCount + 1
	fields := []byte("fields of format 9")
	unsigned, err := news.AppendEnvelope(nil, 9, it, fields)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := trust.ItemSigningBytes(mustDecode(t, unsigned).Item)
	if err != nil {
		t.Fatal(err)
	}
	it.Signature = append([]byte{1}, a.Identity().Public...)
	it.Signature = append(it.Signature, a.Identity().Sign(msg)...)
	enc, err := news.AppendEnvelope(nil, 9, it, fields)
	if err != nil {
		t.Fatal(err)
	}
	m := &newsnet.Multicast{ID: it.ID, Category: "it", Source: it.Source.String(), Count: it.SourceCount, Payload: enc}
	if _, err := a.currentNode().PublishBatch(context.Background(), []*newsnet.Multicast{m}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b, "the newer item on b", itemsEvent(ItemsArrived, it.ID))
	e, err := b.Item(it.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Item.Newer != 9 || e.Item.Title != "Neue Gleitzeitregelung" || e.Item.SourceCount != it.SourceCount {
		t.Errorf("b holds %+v", e.Item)
	}
	if r := b.ServantStatus().Rejected; len(r) != 0 {
		t.Errorf("b rejected %v", r)
	}
	// Asked for again (a repair, a catch-up), b answers with the bytes
	// that came.
	got := b.archive.Lookup(it.Source.String(), it.SourceCount)
	if got == nil || !bytes.Equal(got.Payload, enc) {
		t.Errorf("b's answer for the newer item: %v", got)
	}
	if lost := b.ServantStatus().Counters.Lost; lost != 0 {
		t.Errorf("b counts %d items lost", lost)
	}
}

func mustDecode(t *testing.T, b []byte) news.Encoded {
	t.Helper()
	e, err := news.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
