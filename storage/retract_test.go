package storage_test

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
	"newsdesk/storage/storagetest"
)

// retractFixture is a small store with hand-picked items: a word only the
// first item has ("zebra") and a word all have ("common").
type retractFixture struct {
	s     *storage.Store
	dir   string
	items []*news.Item // sales, sales/emea, it; oldest first
	src   uuid.UUID
}

func newRetractFixture(t *testing.T, opts ...storage.Option) *retractFixture {
	t.Helper()
	f := &retractFixture{dir: t.TempDir(), src: uuid.New()}
	f.s = storagetest.MustOpenDir(t, f.dir, opts...)
	base := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	for i, c := range []struct{ cat, title string }{
		{"sales", "zebra common"},
		{"sales/emea", "lion common"},
		{"it", "tiger common"},
	} {
		f.items = append(f.items, f.put(t, c.cat, c.title, uint64(i+1), base.Add(time.Duration(i)*time.Hour)))
	}
	return f
}

func (f *retractFixture) put(t *testing.T, cat, title string, count uint64, created time.Time) *news.Item {
	t.Helper()
	it, err := news.NewItem(cat, title, "body", "Author", f.src, created)
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = count
	it.Received = created
	must(t, f.s.Put(context.Background(), it))
	return it
}

// visible lists what a user sees: Newest over all categories and over cats,
// and a search for "common".
func visible(t *testing.T, s *storage.Store, cats []string) (all, inCats, found []uuid.UUID) {
	t.Helper()
	a, _, err := s.Newest(nil, 100, "")
	must(t, err)
	c, _, err := s.Newest(cats, 100, "")
	must(t, err)
	<-s.SearchReady()
	f, _, err := s.Search(context.Background(), "common", nil, 100, "")
	must(t, err)
	return ids(a), ids(c), ids(f)
}

// TestRetractHides: a retraction of a stored item hides it from the
// listings, the search and the counters, whatever its read state, while Get
// shows it with the retraction and catch-up still serves it.
func TestRetractHides(t *testing.T) {
	for _, read := range []bool{false, true} {
		t.Run(map[bool]string{false: "unread", true: "read"}[read], func(t *testing.T) {
			f := newRetractFixture(t)
			s, x := f.s, f.items[0]
			if read {
				if n, _ := s.MarkRead(x.ID); n != 1 {
					t.Fatal("MarkRead changed nothing")
				}
			}
			at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
			hidden, err := s.Retract(storage.Retraction{ItemID: x.ID, Reason: "Sent in error", At: at})
			if err != nil || !hidden {
				t.Fatalf("Retract = %v, %v; want hidden", hidden, err)
			}
			others := []uuid.UUID{f.items[2].ID, f.items[1].ID}
			all, sales, found := visible(t, s, []string{"sales"})
			if !slices.Equal(all, others) || !slices.Equal(sales, others[1:]) || !slices.Equal(found, others) {
				t.Errorf("visible after retraction: all %v, sales %v, search %v", all, sales, found)
			}
			if got, _, _ := s.Search(context.Background(), "zebra", nil, 10, ""); len(got) != 0 {
				t.Errorf("search finds the retracted item")
			}
			if c, _ := s.UnreadCounts(); !maps.Equal(c, map[string]uint64{"sales/emea": 1, "it": 1}) {
				t.Errorf("unread counts %v", c)
			}
			if c, _ := s.ItemCounts(); !maps.Equal(c, map[string]uint64{"sales/emea": 1, "it": 1}) {
				t.Errorf("item counts %v", c)
			}
			e, err := s.Get(x.ID)
			if err != nil || e.Retracted == nil || e.Retracted.Reason != "Sent in error" || !e.Retracted.At.Equal(at) ||
				e.Retracted.ItemID != x.ID || e.Read != read || e.Item.Title != x.Title {
				t.Errorf("Get = %+v (retracted %+v), %v", e, e.Retracted, err)
			}
			if e, _ := s.Get(f.items[1].ID); e.Retracted != nil {
				t.Errorf("visible item has a retraction")
			}
			if got, err := s.ItemsAfter(f.src, 0, 0); err != nil || len(got) != 3 || got[0].ID != x.ID {
				t.Errorf("ItemsAfter = %d items, %v; want all 3", len(got), err)
			}
			if ok, _ := s.Has(x.ID); !ok {
				t.Errorf("Has = false for a hidden item")
			}
			if n, _ := s.MarkUnread(x.ID); n != 0 {
				t.Errorf("MarkUnread changed a hidden item")
			}
			if n, err := s.MarkAllRead(""); err != nil || n != 2 {
				t.Errorf("MarkAllRead = %d, %v; want the 2 visible", n, err)
			}
			must(t, s.Check())
		})
	}
}

// TestRetractBeforeArrival: a retraction of an item not stored yet keeps a
// tombstone; the item, when it arrives, is stored hidden.
func TestRetractBeforeArrival(t *testing.T) {
	f := newRetractFixture(t)
	s := f.s
	late, err := news.NewItem("sales", "zebra common late", "body", "Author", f.src, time.Date(2025, 5, 2, 0, 0, 0, 0, time.UTC))
	must(t, err)
	late.SourceCount = 4
	if hidden, err := s.Retract(storage.Retraction{ItemID: late.ID}); err != nil || hidden {
		t.Fatalf("Retract of an absent item = %v, %v; want a tombstone", hidden, err)
	}
	r, err := s.Retracted(late.ID)
	if err != nil || r == nil || r.Reason != "" || r.At.IsZero() {
		t.Fatalf("Retracted = %+v, %v", r, err)
	}
	must(t, <-s.Ingest(late))
	all, sales, found := visible(t, s, []string{"sales"})
	if slices.Contains(all, late.ID) || slices.Contains(sales, late.ID) || slices.Contains(found, late.ID) || len(all) != 3 {
		t.Errorf("late item visible: all %v, sales %v, search %v", all, sales, found)
	}
	if c, _ := s.UnreadCounts(); c["sales"] != 1 {
		t.Errorf("unread counts %v", c)
	}
	if e, err := s.Get(late.ID); err != nil || e.Retracted == nil {
		t.Errorf("Get = %+v, %v", e, err)
	}
	if got, _ := s.HighestStoredCount(f.src); got != 4 {
		t.Errorf("HighestStoredCount = %d, want 4 (the hidden item)", got)
	}
}

// TestRetractIdempotent: the first record wins; later ones change nothing.
func TestRetractIdempotent(t *testing.T) {
	f := newRetractFixture(t)
	x := f.items[1].ID
	first := storage.Retraction{ItemID: x, Reason: "first", At: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	for i, r := range []storage.Retraction{first, {ItemID: x, Reason: "second"}, first} {
		hidden, err := f.s.Retract(r)
		if err != nil || hidden != (i == 0) {
			t.Fatalf("retraction %d: hidden %v, %v", i, hidden, err)
		}
	}
	if r, _ := f.s.Retracted(x); r == nil || r.ItemID != x || r.Reason != first.Reason || !r.At.Equal(first.At) {
		t.Errorf("Retracted = %+v, want the first", r)
	}
	if c, _ := f.s.ItemCounts(); c["sales/emea"] != 0 || c["sales"] != 1 {
		t.Errorf("item counts %v", c)
	}
}

func TestRetractRejects(t *testing.T) {
	s := mustOpen(t)
	id := uuid.Must(news.NewID(time.Now()))
	for _, tc := range []struct {
		name string
		r    storage.Retraction
	}{
		{"nil ID", storage.Retraction{Reason: "x"}},
		{"newline", storage.Retraction{ItemID: id, Reason: "one\ntwo"}},
		{"control", storage.Retraction{ItemID: id, Reason: "bell\a"}},
		{"bad UTF-8", storage.Retraction{ItemID: id, Reason: "\xff"}},
		{"501 characters", storage.Retraction{ItemID: id, Reason: strings.Repeat("ä", 501)}},
		{"year 2300", storage.Retraction{ItemID: id, At: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		if _, err := s.Retract(tc.r); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if r, _ := s.Retracted(id); r != nil {
		t.Errorf("a refused retraction was stored")
	}
	long := strings.Repeat("ä", 500)
	if _, err := s.Retract(storage.Retraction{ItemID: id, Reason: long}); err != nil {
		t.Errorf("500 characters: %v", err)
	}
	if r, _ := s.Retracted(id); r == nil || r.Reason != long {
		t.Errorf("long reason not kept")
	}
}

// TestPurgeRetracted: purging hidden items leaves the counters alone (they
// were already decremented) and keeps the tombstone, so a copy that arrives
// again is stored hidden.
func TestPurgeRetracted(t *testing.T) {
	f := newRetractFixture(t)
	s := f.s
	must(t, func() error { _, err := s.MarkRead(f.items[1].ID); return err }())
	for _, it := range f.items[:2] { // one unread, one read
		if _, err := s.Retract(storage.Retraction{ItemID: it.ID, Reason: "gone"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Purge(f.items[2].Received); err != nil || n != 2 {
		t.Fatalf("Purge = %d, %v; want 2", n, err)
	}
	if c, _ := s.ItemCounts(); !maps.Equal(c, map[string]uint64{"it": 1}) {
		t.Errorf("item counts %v", c)
	}
	if c, _ := s.UnreadCounts(); !maps.Equal(c, map[string]uint64{"it": 1}) {
		t.Errorf("unread counts %v", c)
	}
	for _, it := range f.items[:2] {
		if r, _ := s.Retracted(it.ID); r == nil {
			t.Errorf("tombstone purged")
		}
		if _, err := s.Get(it.ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get after purge: %v", err)
		}
	}
	must(t, s.Check())
	// A retransmitted copy comes back hidden.
	must(t, s.Put(context.Background(), f.items[0]))
	if e, err := s.Get(f.items[0].ID); err != nil || e.Retracted == nil || e.Read {
		t.Errorf("re-arrived copy: %+v, %v", e, err)
	}
	if all, _, found := visible(t, s, nil); len(all) != 1 || len(found) != 1 {
		t.Errorf("re-arrived copy visible: %v %v", all, found)
	}
}

// TestPurgePinned: items of pinned categories (and their subcategories)
// survive any purge. With small purge chunks and the pinned items the
// oldest, Purge still ends and deletes exactly the rest.
func TestPurgePinned(t *testing.T) {
	defer storage.SetPurgeChunk(3)()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	s := mustOpen(t, storage.WithPinned("system"), storage.WithClock(func() time.Time { return now }))
	rng := rand.New(rand.NewPCG(4, 4))
	src := uuid.New()
	var kept []uuid.UUID
	for i := range 20 {
		it := itemgen.Item(rng, src, uint64(i+1), now.Add(time.Duration(i-100)*time.Hour))
		it.Received = it.Created
		switch {
		case i < 10: // the ten oldest are pinned
			it.Category = []string{"system", "system/networks"}[i%2]
			kept = append(kept, it.ID)
		case i%3 == 0:
			it.Category = "systems" // not under "system"
		}
		must(t, s.Put(context.Background(), it))
	}
	if _, err := s.Retract(storage.Retraction{ItemID: kept[3]}); err != nil {
		t.Fatal(err)
	}
	must(t, s.SetRetention(time.Hour))
	if n, err := s.PurgeExpired(); err != nil || n != 10 {
		t.Fatalf("PurgeExpired = %d, %v; want 10", n, err)
	}
	for _, id := range kept {
		if ok, _ := s.Has(id); !ok {
			t.Errorf("pinned item %s purged", short(id))
		}
	}
	if n, err := s.Purge(now.Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("second purge = %d, %v", n, err)
	}
	if c, _ := s.ItemCounts(); c["system"]+c["system/networks"] != 9 || len(c) != 2 {
		t.Errorf("item counts %v", c)
	}
	if _, err := storage.Open(t.TempDir(), storage.WithPinned("Not A Category")); err == nil {
		t.Errorf("invalid pinned category accepted")
	}
}

// TestRetractReopen: retractions are durable, and the search index rebuilt
// at Open leaves hidden items out.
func TestRetractReopen(t *testing.T) {
	f := newRetractFixture(t)
	x := f.items[0].ID
	tomb := uuid.Must(news.NewID(time.Now()))
	for _, id := range []uuid.UUID{x, tomb} {
		if _, err := f.s.Retract(storage.Retraction{ItemID: id, Reason: "why"}); err != nil {
			t.Fatal(err)
		}
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
	s := storagetest.MustOpenDir(t, f.dir)
	for _, id := range []uuid.UUID{x, tomb} {
		if r, err := s.Retracted(id); err != nil || r == nil || r.Reason != "why" {
			t.Errorf("Retracted after reopen = %+v, %v", r, err)
		}
	}
	all, sales, found := visible(t, s, []string{"sales"})
	if len(all) != 2 || len(sales) != 1 || len(found) != 2 || slices.Contains(found, x) {
		t.Errorf("after reopen: all %v, sales %v, search %v", all, sales, found)
	}
}

// editFile changes a closed store's file with bbolt directly.
func editFile(t *testing.T, dir string, fn func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(dir, storage.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	must(t, db.Close())
}

// TestMigrateToRetractions: a schema-1 store (no retracted bucket) upgrades
// on Open and keeps its items; a read-only open refuses to upgrade it.
func TestMigrateToRetractions(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, 5)
	editFile(t, dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketRetracted, storage.BucketOwnLast, storage.BucketExpiring, storage.BucketExpired, storage.BucketScheduled, storage.BucketAcks, storage.BucketReach, storage.BucketKept} { // schema 2 to 8
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 1))
	})
	if _, err := storage.Open(dir, storage.ReadOnly()); !errors.Is(err, storage.ErrReadOnly) {
		t.Fatalf("read-only open of schema 1 = %v", err)
	}
	s := storagetest.MustOpenDir(t, dir)
	got, _, err := s.Newest(nil, 10, "")
	if err != nil || len(got) != 5 {
		t.Fatalf("after migration: %d items, %v", len(got), err)
	}
	if hidden, err := s.Retract(storage.Retraction{ItemID: got[0].Item.ID}); err != nil || !hidden {
		t.Fatalf("Retract after migration = %v, %v", hidden, err)
	}
	storagetest.CheckAndClose(t, s, dir)
	editFile(t, dir, func(tx *bbolt.Tx) error {
		if v := tx.Bucket(storage.BucketMeta).Get(storage.KeySchema); binary.BigEndian.Uint32(v) != storage.SchemaVersion() {
			t.Errorf("schema %x after migration", v)
		}
		return nil
	})
}

// TestCorruptRetraction: a damaged retraction record is refused when the
// store opens (the start-up check decodes every one), with or without the
// full integrity check. decodeRetraction itself is fuzzed (FuzzDecodeRetraction).
func TestCorruptRetraction(t *testing.T) {
	header := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}
	reason := func(r string) []byte { return append(slices.Clone(header), r...) }
	for _, tc := range []struct {
		name string
		key  func(id uuid.UUID) []byte
		val  []byte
	}{
		{name: "empty", val: []byte{}},
		{name: "short", val: []byte{1, 0, 0}},
		{name: "format", val: []byte{9, 0, 0, 0, 0, 0, 0, 0, 0}},
		{name: "control in reason", val: reason("a\nb")},
		{name: "bad UTF-8", val: reason("\xff")},
		{name: "long reason", val: reason(strings.Repeat("x", 501))},
		{name: "short key", key: func(id uuid.UUID) []byte { return id[:8] }, val: header},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := storage.Open(dir, storage.NoSync())
			must(t, err)
			it := itemgen.Item(rand.New(rand.NewPCG(5, 5)), uuid.New(), 1, time.Now())
			must(t, s.Put(context.Background(), it))
			if _, err := s.Retract(storage.Retraction{ItemID: it.ID, Reason: "ok"}); err != nil {
				t.Fatal(err)
			}
			must(t, s.Check())
			must(t, s.Close())
			key := it.ID[:]
			if tc.key != nil {
				key = tc.key(it.ID)
			}
			editFile(t, dir, func(tx *bbolt.Tx) error { return tx.Bucket(storage.BucketRetracted).Put(key, tc.val) })
			for _, opts := range [][]storage.Option{{storage.WithIntegrityCheck()}, nil, {storage.ReadOnly()}} {
				if s, err := storage.Open(dir, opts...); !errors.Is(err, storage.ErrCorrupt) {
					if err == nil {
						s.Close()
					}
					t.Fatalf("Open(%d options) = %v, want ErrCorrupt", len(opts), err)
				}
			}
		})
	}
}
