package storage_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage/internal/itemgen"
	"newsdesk/storage/storagetest"
)

// TestIngestEncoded: an item stored from its encoding as it arrived reads
// back as the item it encodes, with the time it was received, and is
// stored as those very bytes: a signature over them still holds, also
// across a reopen.
func TestIngestEncoded(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(1, 2))
	it := itemgen.Item(rng, uuid.New(), 7, time.Now())
	it.Signature = bytes.Repeat([]byte{3}, 97)
	enc, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	e, err := news.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1_800_000_000, 5)
	if err := <-s.IngestEncoded(e, at); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		got, err := s.Get(it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Item.Received.Equal(at) || got.Item.Title != it.Title || got.Item.SourceCount != 7 {
			t.Errorf("stored %+v, want %+v received %v", got.Item, it, at)
		}
		again, err := got.Item.MarshalBinary()
		if err != nil || !bytes.Equal(again, enc) {
			t.Errorf("stored item encodes to other bytes (%v)", err)
		}
	}
	check()
	// A duplicate by ID is ignored, as with Ingest.
	if err := <-s.IngestEncoded(e, time.Now()); err != nil {
		t.Fatal(err)
	}
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	check()
	page, _, err := s.Newest(nil, 10, "")
	if err != nil || len(page) != 1 {
		t.Errorf("newest: %d items, %v", len(page), err)
	}
	if found, _, err := s.Search(context.Background(), it.Title, nil, 10, ""); err != nil || len(found) != 1 || found[0].Item.ID != it.ID {
		t.Errorf("search for its title: %d found, %v", len(found), err)
	}
	storagetest.CheckAndClose(t, s, dir)
}
