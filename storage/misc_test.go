package storage_test

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
	"newsdesk/storage/storagetest"
)

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	if _, ok, err := s.Setting("theme"); ok || err != nil {
		t.Fatalf("unset setting: %v %v", ok, err)
	}
	must(t, s.SetSetting("theme", "dark"))
	must(t, s.SetSetting("name", "Ann Example"))
	must(t, s.SetSetting("empty", ""))
	if v, ok, _ := s.Setting("theme"); !ok || v != "dark" {
		t.Errorf("theme = %q, %v", v, ok)
	}
	if v, ok, _ := s.Setting("empty"); !ok || v != "" {
		t.Errorf("empty setting = %q, %v", v, ok)
	}
	must(t, s.DeleteSetting("name"))
	must(t, s.DeleteSetting("never-set"))
	all, _ := s.Settings()
	if !maps.Equal(all, map[string]string{"theme": "dark", "empty": ""}) {
		t.Errorf("Settings = %v", all)
	}
	if err := s.SetSetting("", "x"); err == nil {
		t.Errorf("empty key accepted")
	}
	// Persisted.
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if v, _, _ := s.Setting("theme"); v != "dark" {
		t.Errorf("after reopen: theme = %q", v)
	}
}

func TestSubscriptionsAndSeeds(t *testing.T) {
	s := mustOpen(t)
	must(t, s.SetSubscriptions([]string{"sales", "it", "company"}))
	must(t, s.Subscribe("hr"))
	must(t, s.Subscribe("hr"))
	must(t, s.Unsubscribe("it"))
	must(t, s.Unsubscribe("never"))
	if got, _ := s.Subscriptions(); !slices.Equal(got, []string{"company", "hr", "sales"}) {
		t.Errorf("Subscriptions = %v", got)
	}
	if err := s.Subscribe("Bad/"); err == nil {
		t.Errorf("bad category accepted")
	}
	if err := s.SetSubscriptions([]string{"ok", "not ok"}); err == nil {
		t.Errorf("bad category list accepted")
	}
	if got, _ := s.Subscriptions(); len(got) != 3 {
		t.Errorf("a refused SetSubscriptions changed the list: %v", got)
	}
	must(t, s.SetSubscriptions(nil))
	if got, _ := s.Subscriptions(); len(got) != 0 {
		t.Errorf("cleared subscriptions = %v", got)
	}

	seeds := []string{"seed3.example:7000", "seed1.example:7000", "10.0.0.2:7000"}
	for i := range 12 { // past 10, where string order and numeric order differ
		seeds = append(seeds, "extra"+strings.Repeat("x", i)+":1")
	}
	must(t, s.SetSeeds(seeds))
	if got, _ := s.Seeds(); !slices.Equal(got, seeds) {
		t.Errorf("Seeds = %v", got)
	}
	must(t, s.SetSeeds(seeds[:1]))
	if got, _ := s.Seeds(); !slices.Equal(got, seeds[:1]) {
		t.Errorf("shorter seed list = %v", got)
	}
	if err := s.SetSeeds([]string{"a:1", "a:1"}); err == nil {
		t.Errorf("duplicate seeds accepted")
	}
	if err := s.SetSeeds([]string{""}); err == nil {
		t.Errorf("empty seed accepted")
	}
}

func TestSourceCounts(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	a, b := uuid.New(), uuid.New()
	if n, _ := s.SourceCount(a); n != 0 {
		t.Errorf("unknown source count %d", n)
	}
	for want := uint64(1); want <= 3; want++ {
		if n, err := s.NextSourceCount(a); err != nil || n != want {
			t.Fatalf("NextSourceCount = %d, %v; want %d", n, err, want)
		}
	}
	must(t, s.SetSourceCount(b, 41))
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	// A restart never hands out a count again.
	if n, _ := s.NextSourceCount(a); n != 4 {
		t.Errorf("after reopen NextSourceCount = %d, want 4", n)
	}
	all, _ := s.SourceCounts()
	if !maps.Equal(all, map[uuid.UUID]uint64{a: 4, b: 41}) {
		t.Errorf("SourceCounts = %v", all)
	}
}

func TestOutbox(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(4, 4))
	var items []*news.Item
	for i := range 5 {
		it := randomItem(t, rng, uint64(i+1))
		items = append(items, it)
		seq, err := s.OutboxPush(it)
		if err != nil || seq != uint64(i+1) {
			t.Fatalf("OutboxPush = %d, %v", seq, err)
		}
	}
	must(t, s.OutboxRemove(2))
	if err := s.OutboxRemove(2); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("removing twice: %v", err)
	}
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	got, err := s.Outbox()
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for i, e := range got {
		seqs = append(seqs, e.Seq)
		if want := items[e.Seq-1]; e.Item.ID != want.ID || e.Item.Body != want.Body {
			t.Errorf("entry %d is not the item pushed", i)
		}
	}
	if !slices.Equal(seqs, []uint64{1, 3, 4, 5}) {
		t.Errorf("outbox order %v", seqs)
	}
	// Sequence numbers are not reused after removals.
	if seq, _ := s.OutboxPush(items[0]); seq != 6 {
		t.Errorf("next sequence %d, want 6", seq)
	}
	bad := items[0].Clone()
	bad.Title = ""
	if _, err := s.OutboxPush(bad); err == nil {
		t.Errorf("invalid item queued")
	}
}

func TestRetention(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	s := mustOpen(t, storage.WithClock(func() time.Time { return now }))
	if d, _ := s.Retention(); d != 0 {
		t.Errorf("default retention %v", d)
	}
	if n, _ := s.PurgeExpired(); n != 0 {
		t.Errorf("purged %d with no retention", n)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	src := uuid.New()
	var chans []<-chan error
	for i := range 100 {
		it := itemgen.Item(rng, src, uint64(i+1), now.Add(-time.Duration(i)*time.Hour))
		if i%2 == 0 {
			it.Received = now.Add(-time.Duration(i) * time.Hour) // else: the store's clock, now
		}
		chans = append(chans, s.Ingest(it))
	}
	for _, ch := range chans {
		must(t, <-ch)
	}
	must(t, s.SetRetention(24*time.Hour))
	if d, _ := s.Retention(); d != 24*time.Hour {
		t.Errorf("retention %v", d)
	}
	// Received more than 24 h ago: even i with i > 24, that is 26..98.
	if n, err := s.PurgeExpired(); err != nil || n != 37 {
		t.Errorf("PurgeExpired = %d, %v; want 37", n, err)
	}
	if n, _ := s.PurgeExpired(); n != 0 {
		t.Errorf("second purge removed %d", n)
	}
	if err := s.SetRetention(-time.Second); err == nil {
		t.Errorf("negative retention accepted")
	}
}

// TestPurgeLarge crosses the purge chunk size, so one Purge runs several
// transactions.
func TestPurgeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 5,000 items")
	}
	s := mustOpen(t, storage.NoSync())
	rng := rand.New(rand.NewPCG(6, 6))
	var chans []<-chan error
	for i := range 5000 {
		chans = append(chans, s.Ingest(randomItem(t, rng, uint64(i))))
	}
	for _, ch := range chans {
		must(t, <-ch)
	}
	n, err := s.Purge(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || n != 5000 {
		t.Fatalf("Purge = %d, %v", n, err)
	}
	if c, _ := s.UnreadCounts(); len(c) != 0 {
		t.Errorf("unread counts left: %v", c)
	}
}

// TestCursorStability: items newer than the first page, inserted between
// page fetches, neither shift nor repeat the following pages.
func TestCursorStability(t *testing.T) {
	s := mustOpen(t, storage.NoSync())
	rng := rand.New(rand.NewPCG(2, 2))
	src := uuid.New()
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		must(t, s.Put(context.Background(), itemgen.Item(rng, src, uint64(i+1), base.Add(time.Duration(i)*time.Minute))))
	}
	var walked []uuid.UUID
	cur := storage.Cursor("")
	for page := 0; ; page++ {
		got, next, err := s.Newest(nil, 10, cur)
		must(t, err)
		walked = append(walked, ids(got)...)
		// Newer items arrive while the user scrolls.
		must(t, s.Put(context.Background(), itemgen.Item(rng, src, uint64(1000+page), base.Add(time.Duration(200+page)*time.Minute))))
		if next == "" {
			break
		}
		cur = next
	}
	if len(walked) != 100 {
		t.Fatalf("walked %d items, want the 100 that existed", len(walked))
	}
	seen := map[uuid.UUID]bool{}
	for i, id := range walked {
		if seen[id] || (i > 0 && compareUUID(walked[i-1], id) <= 0) {
			t.Fatalf("page walk repeated or reordered at %d", i)
		}
		seen[id] = true
	}
}

func TestQueryArgumentErrors(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if _, _, err := s.Newest(nil, 0, ""); err == nil {
		t.Errorf("page size 0 accepted")
	}
	if _, _, err := s.Newest([]string{"Bad Category"}, 10, ""); err == nil || !strings.Contains(err.Error(), "invalid character") {
		t.Errorf("bad category: %v", err)
	}
	for _, c := range []storage.Cursor{"!!!", "AAAA"} {
		if _, _, err := s.Newest(nil, 10, c); !errors.Is(err, storage.ErrBadCursor) {
			t.Errorf("cursor %q: %v", c, err)
		}
		if _, _, err := s.Search(ctx, "x", nil, 10, c); !errors.Is(err, storage.ErrBadCursor) {
			t.Errorf("search cursor %q: %v", c, err)
		}
	}
	if got, next, err := s.Search(ctx, " ,;! ", nil, 10, ""); err != nil || got != nil || next != "" {
		t.Errorf("wordless query: %v %q %v", got, next, err)
	}
	if _, err := s.MarkAllRead("Bad"); err == nil {
		t.Errorf("MarkAllRead of a bad category accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	it := randomItem(t, rand.New(rand.NewPCG(1, 1)), 1)
	if err := s.Put(cctx, it); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v", err)
	}
}

// TestUnreadWorkflow walks the read-state operations through a small,
// hand-checked example, including parents covering children.
func TestUnreadWorkflow(t *testing.T) {
	s := mustOpen(t)
	rng := rand.New(rand.NewPCG(3, 3))
	src := uuid.New()
	put := func(cat string) uuid.UUID {
		it := itemgen.Item(rng, src, 1, time.Now())
		it.Category = cat
		must(t, s.Put(context.Background(), it))
		return it.ID
	}
	a1, a2 := put("sales"), put("sales/emea")
	b1 := put("sales/emea")
	put("it")
	counts := func() map[string]uint64 {
		c, err := s.UnreadCounts()
		must(t, err)
		return c
	}
	if c := counts(); !maps.Equal(c, map[string]uint64{"sales": 1, "sales/emea": 2, "it": 1}) {
		t.Fatalf("initial counts %v", c)
	}
	if n, _ := s.MarkRead(a2, a2, b1); n != 2 {
		t.Errorf("MarkRead changed %d, want 2", n)
	}
	if n, _ := s.MarkRead(a2); n != 0 {
		t.Errorf("MarkRead again changed %d", n)
	}
	if c := counts(); !maps.Equal(c, map[string]uint64{"sales": 1, "it": 1}) {
		t.Errorf("after MarkRead %v", c)
	}
	if n, _ := s.MarkUnread(b1); n != 1 {
		t.Errorf("MarkUnread changed %d", n)
	}
	if n, _ := s.MarkAllRead("sales"); n != 2 { // a1 and b1, through the parent
		t.Errorf("MarkAllRead(sales) changed %d, want 2", n)
	}
	if c := counts(); !maps.Equal(c, map[string]uint64{"it": 1}) {
		t.Errorf("after MarkAllRead(sales) %v", c)
	}
	if e, _ := s.Get(a1); !e.Read {
		t.Errorf("a1 not read")
	}
	if n, _ := s.MarkAllRead(""); n != 1 {
		t.Errorf("MarkAllRead(all) changed %d", n)
	}
	if c := counts(); len(c) != 0 {
		t.Errorf("after MarkAllRead(all) %v", c)
	}
	ic, _ := s.ItemCounts()
	if !maps.Equal(ic, map[string]uint64{"sales": 1, "sales/emea": 2, "it": 1}) {
		t.Errorf("item counts %v", ic)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
