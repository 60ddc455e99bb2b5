package storage_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// The storage quota (issue 32) removes the oldest received items first,
// down to the low-water mark, and never a kept item, an unconfirmed
// must-read item or an item of a pinned category; the size it counts
// follows every write and is read again the same after a reopen.
func TestEvictOldestSparesKeptAndUnconfirmed(t *testing.T) {
	f := newRetractFixture(t, storage.WithPinned("it")) // sales, sales/emea, it: 1 May 2025, an hour apart
	base := f.items[2].Created.Add(time.Hour)
	kept := f.items[0].ID
	must(t, f.s.SetKept(kept, true))
	pending := f.putMustRead(t, "hr", "Policy to confirm", 4, base)
	var later []uuid.UUID
	for i := range 20 {
		later = append(later, f.put(t, "news", fmt.Sprintf("Item %d", i), uint64(5+i), base.Add(time.Duration(i+1)*time.Minute)).ID)
	}
	used, err := f.s.ItemBytes()
	if err != nil {
		t.Fatal(err)
	}
	if n, freed, err := f.s.EvictOldest(used); err != nil || n != 0 || freed != 0 {
		t.Fatalf("within the quota: evicted %d (%d bytes), %v", n, freed, err)
	}
	per := used / 24 // the items are of about one size
	quota := used - 5*per
	n, freed, err := f.s.EvictOldest(quota)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := f.s.ItemBytes()
	if after != used-freed || float64(after) > float64(quota)*storage.QuotaLowWater {
		t.Fatalf("%d bytes left of %d after freeing %d; quota %d", after, used, freed, quota)
	}
	// Gone: sales/emea, then the oldest of the later items. Kept: the
	// kept item, the pinned category, the unconfirmed must-read item.
	for id, want := range map[uuid.UUID]bool{kept: true, f.items[1].ID: false, f.items[2].ID: true, pending.ID: true,
		later[0]: false, later[n-2]: false, later[n-1]: true, later[19]: true} {
		if ok, _ := f.s.Has(id); ok != want {
			t.Errorf("item %s stored %v after evicting %d, want %v", id, ok, n, want)
		}
	}
	// The running total is what a fresh count finds.
	storagetest.CheckAndClose(t, f.s, f.dir)
	f.s = storagetest.MustOpenDir(t, f.dir, storage.WithPinned("it"))
	if got, _ := f.s.ItemBytes(); got != after {
		t.Errorf("after a reopen %d bytes, before %d", got, after)
	}
	f.put(t, "news", "One more", 100, base.Add(time.Hour))
	now, _ := f.s.ItemBytes()
	storagetest.CheckAndClose(t, f.s, f.dir)
	f.s = storagetest.MustOpenDir(t, f.dir, storage.WithPinned("it"))
	if got, _ := f.s.ItemBytes(); got != now || now <= after {
		t.Errorf("after an ingest and a reopen %d bytes, counted %d (before it %d)", got, now, after)
	}
	// Down to the spared items, and no further: no error.
	if _, _, err = f.s.EvictOldest(1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uuid.UUID{kept, f.items[2].ID, pending.ID} {
		if ok, _ := f.s.Has(id); !ok {
			t.Errorf("spared item %s evicted", id)
		}
	}
	for _, id := range append(later, f.items[1].ID) {
		if ok, _ := f.s.Has(id); ok {
			t.Errorf("item %s not evicted at a quota of 1 byte", id)
		}
	}
}
