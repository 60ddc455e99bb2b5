package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// Issue 32: a storage limit chosen in the settings removes the oldest
// items beyond it at once, never one the reader keeps or a must-read item
// not yet confirmed, and the app says so (the status, Settings) also after
// a restart. The default is DefaultStorageQuota; out-of-range limits are
// refused.
func TestStorageQuotaEvictsOldestAndSaysSo(t *testing.T) {
	floor := storageQuotaFloor
	t.Cleanup(func() { storageQuotaFloor = floor }) // after the apps' cleanups: they read it
	storageQuotaFloor = 1 << 10
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	if got := a.Settings().StorageQuota; got != DefaultStorageQuota {
		t.Errorf("default storage limit %d, want %d", got, DefaultStorageQuota)
	}
	src := uuid.New()
	body := strings.Repeat("x", 4000)
	put := func(n uint64, title string, age time.Duration, mustRead bool) uuid.UUID {
		t.Helper()
		at := time.Now().Add(-age)
		it, err := news.NewItem("it", title, body, "Author", src, at)
		if err != nil {
			t.Fatal(err)
		}
		it.SourceCount, it.Received, it.MustRead = n, at, mustRead
		if err := a.store.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		return it.ID
	}
	kept := put(1, "Oldest, kept", 10*time.Hour, false)
	pending := put(2, "Old policy to confirm", 9*time.Hour, true)
	var rest []uuid.UUID
	for i := range 8 {
		rest = append(rest, put(uint64(3+i), fmt.Sprintf("News %d", i), time.Duration(8-i)*time.Hour, false))
	}
	if err := a.Keep(kept, true); err != nil {
		t.Fatal(err)
	}
	used, _, err := a.StoredBytes()
	if err != nil {
		t.Fatal(err)
	}
	s := a.Settings()
	for _, bad := range []int64{1, -2, MaxStorageQuota + 1} {
		s.StorageQuota = bad
		if err := a.SaveSettings(s); err == nil {
			t.Errorf("storage limit %d accepted", bad)
		}
	}
	s.StorageQuota = used * 6 / 10 // room for about 6 of the 10 items
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the oldest items removed", func() error {
		if a.LastEviction() == nil {
			return fmt.Errorf("nothing removed yet")
		}
		return nil
	})
	e := a.LastEviction()
	if e.Items < 3 || e.Quota != s.StorageQuota || a.ServantStatus().Evicted == nil || !strings.Contains(e.Text(), "oldest items") {
		t.Errorf("eviction %+v (%s)", e, e.Text())
	}
	for _, id := range []uuid.UUID{kept, pending, rest[len(rest)-1]} {
		if _, err := a.Item(id); err != nil {
			t.Errorf("item %s removed: %v", id, err)
		}
	}
	for _, id := range rest[:e.Items] {
		if _, err := a.Item(id); err == nil {
			t.Errorf("item %s, among the oldest, still stored", id)
		}
	}
	if now, _, _ := a.StoredBytes(); float64(now) > float64(s.StorageQuota) {
		t.Errorf("%d bytes stored, limit %d", now, s.StorageQuota)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := openApp(t, Options{DataDir: dir})
	if got := b.LastEviction(); got == nil || got.Items != e.Items || b.Settings().StorageQuota != s.StorageQuota {
		t.Errorf("after a restart: eviction %+v, limit %d", got, b.Settings().StorageQuota)
	}
}
