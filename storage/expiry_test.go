package storage_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
)

// TestExpiryHidesAndPurges: an item with an expiry stays visible until
// Expires+ExpirySkew, then HideExpired hides it everywhere a retraction
// would (listings, search, counters; Get shows it marked expired), and
// PurgeExpired deletes it ExpiredKeep later, without a retention set.
func TestExpiryHidesAndPurges(t *testing.T) {
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	f := newRetractFixture(t, storage.WithClock(func() time.Time { return now }))
	s := f.s
	exp, err := news.NewItem("sales", "zebra common expiring", "body", "Author", f.src, now.Add(-time.Hour))
	must(t, err)
	exp.SourceCount = 4
	exp.Expires = now.Add(time.Hour)
	exp.Received = now
	must(t, s.Put(context.Background(), exp))
	base := []uuid.UUID{f.items[2].ID, f.items[1].ID, f.items[0].ID}
	withExp := append([]uuid.UUID{exp.ID}, base...)

	if at, ok, err := s.NextExpiry(); err != nil || !ok || !at.Equal(exp.Expires.Add(storage.ExpirySkew)) {
		t.Fatalf("NextExpiry = %v, %v, %v", at, ok, err)
	}
	// Past Expires but within the skew: still shown.
	now = exp.Expires.Add(storage.ExpirySkew - time.Second)
	if n, err := s.HideExpired(); err != nil || n != 0 {
		t.Fatalf("HideExpired within the skew = %d, %v", n, err)
	}
	if all, _, found := visible(t, s, nil); !slices.Equal(all, withExp) || len(found) != 4 {
		t.Fatalf("within the skew: all %v, search %v", all, found)
	}
	// Past the skew: hidden everywhere.
	now = exp.Expires.Add(storage.ExpirySkew + time.Second)
	if n, err := s.HideExpired(); err != nil || n != 1 {
		t.Fatalf("HideExpired = %d, %v; want 1", n, err)
	}
	all, sales, found := visible(t, s, []string{"sales"})
	if !slices.Equal(all, base) || !slices.Equal(sales, base[1:]) || len(found) != 3 || slices.Contains(found, exp.ID) {
		t.Errorf("after expiry: all %v, sales %v, search %v", all, sales, found)
	}
	if c, _ := s.UnreadCounts(); !maps.Equal(c, map[string]uint64{"sales": 1, "sales/emea": 1, "it": 1}) {
		t.Errorf("unread counts %v", c)
	}
	e, err := s.Get(exp.ID)
	if err != nil || e.Retracted == nil || !e.Retracted.Expired {
		t.Errorf("Get = %+v, %v; want marked expired", e.Retracted, err)
	}
	if _, ok, _ := s.NextExpiry(); ok {
		t.Errorf("NextExpiry after the only expiry")
	}
	if n, _ := s.HideExpired(); n != 0 {
		t.Errorf("second HideExpired hid %d", n)
	}
	must(t, s.Check())
	// Kept for catch-up until ExpiredKeep, then purged.
	if n, err := s.PurgeExpired(); err != nil || n != 0 {
		t.Errorf("PurgeExpired before ExpiredKeep = %d, %v", n, err)
	}
	now = exp.Expires.Add(storage.ExpiredKeep + time.Second)
	if n, err := s.PurgeExpired(); err != nil || n != 1 {
		t.Errorf("PurgeExpired = %d, %v; want 1", n, err)
	}
	if ok, _ := s.Has(exp.ID); ok {
		t.Errorf("expired item still stored")
	}
	must(t, s.Check())
}

// TestExpiredOnArrival: an item that arrives after its expiry (plus skew)
// is stored hidden, as one retracted before it arrived.
func TestExpiredOnArrival(t *testing.T) {
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	f := newRetractFixture(t, storage.WithClock(func() time.Time { return now }))
	late, err := news.NewItem("sales", "zebra common late", "body", "Author", f.src, now.Add(-2*time.Hour))
	must(t, err)
	late.SourceCount = 4
	late.Expires = now.Add(-storage.ExpirySkew - time.Second)
	late.Received = now
	must(t, f.s.Put(context.Background(), late))
	all, _, found := visible(t, f.s, nil)
	if slices.Contains(all, late.ID) || slices.Contains(found, late.ID) {
		t.Errorf("an expired arrival is shown: all %v, search %v", all, found)
	}
	if ok, _ := f.s.Has(late.ID); !ok {
		t.Errorf("expired arrival not stored for catch-up")
	}
	// Within the skew it is shown.
	soon, err := news.NewItem("it", "within skew", "body", "Author", f.src, now.Add(-2*time.Hour))
	must(t, err)
	soon.SourceCount = 5
	soon.Expires = now.Add(-time.Minute)
	soon.Received = now
	must(t, f.s.Put(context.Background(), soon))
	if all, _, _ := visible(t, f.s, nil); !slices.Contains(all, soon.ID) {
		t.Errorf("an item expired less than the skew ago is hidden")
	}
	must(t, f.s.Check())
}
