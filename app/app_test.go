package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// openApp opens an App on a fresh data directory (unless opts names one),
// listening on loopback, and closes it when the test ends, then checks the
// store's integrity.
func openApp(t *testing.T, opts Options) *App {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.Network == nil {
		opts.Network = testNetwork(t)
	}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		ro, err := storage.Open(opts.DataDir, storage.ReadOnly(), storage.WithIntegrityCheck())
		if err != nil {
			t.Errorf("integrity check after close: %v", err)
			return
		}
		ro.Close()
	})
	return a
}

// waitEvent reads a's events until one satisfies ok.
func waitEvent(t *testing.T, a *App, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-a.Events():
			if ok(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

// itemsEvent accepts an event of kind k that names item id (or any item).
func itemsEvent(k EventKind, id uuid.UUID) func(Event) bool {
	return func(e Event) bool {
		return e.Kind == k && (e.Items == nil || slices.Contains(e.Items, id))
	}
}

// A publication is suppressed when nobody subscribes, delivered when a
// subscriber is reachable, and queued when the servant is not attached (or
// not started); invalid drafts are refused with the rule they break and use
// no count. The receiver stores the item with its count and keeps the
// source's progress.
func TestAppPublishOutcomes(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a := sn.open(t, Options{Start: true})
		if err := a.SaveSettings(Settings{DisplayName: "Ann", Listen: "127.0.0.1:0", Notify: true}); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			d    Draft
			want string
		}{
			{Draft{Category: "it"}, "title: required"},
			{Draft{Category: "IT", Title: "x"}, "category"},
			{Draft{Category: "it", Title: "x", Body: strings.Repeat("b", news.MaxBodyBytes+1)}, "body"},
			{Draft{Category: "it", Title: "line\nbreak"}, "title: control character"},
		} {
			if _, err := a.Publish(tt.d); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Publish(%+v) = %v, want an error containing %q", tt.d, err, tt.want)
			}
		}
		if n, _ := a.store.SourceCount(a.Source()); n != 0 {
			t.Errorf("invalid drafts used %d counts", n)
		}

		r1, err := a.Publish(Draft{Category: "hr", Title: "Alone"})
		if err != nil || r1.Outcome != Suppressed {
			t.Fatalf("publish with no subscriber = %+v, %v; want suppressed", r1, err)
		}
		e, err := a.Item(r1.ID)
		if err != nil || e.Item.Author != "Ann" || e.Item.SourceCount != 1 || !e.Read {
			t.Errorf("own item %+v, %v: want author Ann, count 1, read", e.Item, err)
		}

		bDir := t.TempDir()
		b := sn.open(t, Options{DataDir: bDir, Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		waitFor(t, "a to learn b's subscription", func() error {
			for _, l := range a.Status().Links {
				if l.Peer == b.Addr() && slices.Equal(l.Received, newsnet.CategorySet{"it"}) {
					return nil
				}
			}
			return fmt.Errorf("a's links: %+v", a.Status().Links)
		})
		r2, err := a.Publish(Draft{Category: "it", Title: "Delivered", Urgent: true})
		if err != nil || r2.Outcome != Delivered {
			t.Fatalf("publish to a subscriber = %+v, %v; want delivered", r2, err)
		}
		ev := waitEvent(t, b, "the item on b", itemsEvent(ItemsArrived, r2.ID))
		if !slices.Contains(ev.Urgent, r2.ID) || !slices.Contains(ev.Categories, "it") {
			t.Errorf("event %+v: want urgent, category it", ev)
		}
		got, err := b.Item(r2.ID)
		if err != nil || got.Read || got.Item.SourceCount != 2 || got.Item.Source != a.Source() || got.Item.Received.IsZero() {
			t.Fatalf("b's copy %+v read=%v, %v", got.Item, got.Read, err)
		}
		if n, _ := b.UnreadCounts(); n["it"] != 1 || len(n) != 1 {
			t.Errorf("b's unread counts %v", n)
		}
		posts, next, err := a.MyPosts(10, "")
		if err != nil || next != "" || len(posts) != 2 || posts[0].Item.ID != r2.ID || posts[1].Item.ID != r1.ID {
			t.Errorf("a's posts: %d, next %q, %v", len(posts), next, err)
		}

		// Not started: queued in the store's outbox, sent on start.
		q := sn.open(t, Options{})
		r3, err := q.Publish(Draft{Category: "it", Title: "Before start"})
		if err != nil || r3.Outcome != Queued {
			t.Fatalf("publish before start = %+v, %v; want queued", r3, err)
		}
		if ob, _ := q.store.Outbox(); len(ob) != 1 || ob[0].Item.ID != r3.ID || ob[0].Item.SourceCount != 1 {
			t.Fatalf("outbox %+v", ob)
		}
		if err := q.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the outbox to empty once the vertex has sent it", func() error {
			if ob, err := q.store.Outbox(); err != nil || len(ob) != 0 {
				return fmt.Errorf("%d entries, %v", len(ob), err)
			}
			return nil
		})

		// Seed down: queued.
		d := sn.open(t, Options{Start: true, Seeds: []string{downAddr}})
		if r, err := d.Publish(Draft{Category: "it", Title: "Seed down"}); err != nil || r.Outcome != Queued {
			t.Errorf("publish with the seed down = %+v, %v; want queued", r, err)
		}
		// New seeds reach a servant that is still connecting; it attaches
		// and sends what it queued.
		if err := d.SetSeeds([]string{"bad"}); err == nil {
			t.Error("SetSeeds accepted an address without a port")
		}
		if err := d.SetSeeds([]string{a.Addr(), a.Addr()}); err == nil {
			t.Error("SetSeeds accepted a duplicate")
		}
		if err := d.SetSeeds([]string{a.Addr()}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "d attached under the new seed, its outbox sent", func() error {
			if st := d.Status(); st.Role != RoleAttached || !st.Connected {
				return fmt.Errorf("role %s", st.Role)
			}
			if ob, err := d.store.Outbox(); err != nil || len(ob) != 0 {
				return fmt.Errorf("%d in the outbox, %v", len(ob), err)
			}
			return nil
		})

		// b kept a's progress: count 1 (hr) was skipped, 2 delivered.
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		b2 := sn.open(t, Options{DataDir: bDir})
		if n, err := b2.store.SourceCount(a.Source()); err != nil || n != 2 {
			t.Errorf("b's stored count of a = %d, %v; want 2", n, err)
		}
	})
}

// Read-state changes are announced with ReadStateChanged.
func TestAppMarkReadEvents(t *testing.T) {
	a := openApp(t, Options{})
	it := testItem(t, "sales/emea", "Foreign")
	it.SourceCount = 1
	if err := a.store.Put(context.Background(), it); err != nil {
		t.Fatal(err)
	}
	if err := a.MarkRead(it.ID); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, a, "read", itemsEvent(ReadStateChanged, it.ID))
	if n, _ := a.UnreadCounts(); len(n) != 0 {
		t.Errorf("unread after MarkRead: %v", n)
	}
	if err := a.MarkUnread(it.ID); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, a, "unread", itemsEvent(ReadStateChanged, it.ID))
	if n, _ := a.UnreadCounts(); n["sales/emea"] != 1 {
		t.Errorf("unread after MarkUnread: %v", n)
	}
	if err := a.MarkAllRead("sales"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, a, "all read", func(e Event) bool {
		return e.Kind == ReadStateChanged && (e.Categories == nil || slices.Contains(e.Categories, "sales"))
	})
	if e, _ := a.Item(it.ID); !e.Read {
		t.Error("MarkAllRead(sales) left sales/emea unread")
	}
	if err := a.MarkAllRead("Bad"); err == nil {
		t.Error("MarkAllRead(Bad) accepted")
	}
}

// Subscriptions are category IDs ("*" is internal to archives); they are
// stored and applied to the running servant.
func TestAppSetSubscriptions(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a := sn.open(t, Options{Start: true})
		for _, bad := range [][]string{{"*"}, {"it", "IT"}, {"a//b"}, {""}} {
			if err := a.SetSubscriptions(bad); err == nil {
				t.Errorf("SetSubscriptions(%q) accepted", bad)
			}
		}
		if got := a.Subscriptions(); len(got) != 0 {
			t.Errorf("refused lists changed the subscriptions: %v", got)
		}
		if err := a.SetSubscriptions([]string{"sales/emea", "it", "it"}); err != nil {
			t.Fatal(err)
		}
		waitEvent(t, a, "catalog changed", func(e Event) bool { return e.Kind == CatalogChanged })
		want := []string{"it", "sales/emea"}
		if got := a.Subscriptions(); !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v", got, want)
		}
		if got := a.Status().Subscriptions; !slices.Equal(got, newsnet.CategorySet(want)) {
			t.Errorf("live %v, want %v", got, want)
		}

		arch := sn.open(t, Options{Start: true, Archive: true, Subscriptions: []string{"hr"}})
		if got := arch.Status().Subscriptions; !slices.Equal(got, newsnet.CategorySet{"*", "hr"}) {
			t.Errorf("archive's live subscriptions %v", got)
		}
		if got := arch.Subscriptions(); !slices.Equal(got, []string{"hr"}) {
			t.Errorf("archive's stored subscriptions %v", got)
		}
		if d, _ := arch.store.Retention(); d != ArchiveRetention {
			t.Errorf("archive retention %v, want %v", d, ArchiveRetention)
		}
	})
}

// A probe reports a live servant with its round-trip time, and in words
// and by kind what is wrong with an address where none answers.
func TestAppProbe(t *testing.T) {
	a := openApp(t, Options{Start: true})
	ctx := context.Background()
	if p := a.Probe(ctx, a.Addr()); !p.OK || p.RTT <= 0 || p.Problem != "" {
		t.Errorf("probe of a live servant: %+v", p)
	}
	if p := a.Probe(ctx, apptest.FreeAddr(t)); p.OK || !strings.Contains(p.Problem, "connection refused") || p.Kind != ProbeRefused {
		t.Errorf("probe of a closed port: %+v", p)
	}
	if p := a.Probe(ctx, "no-port"); p.OK || !strings.Contains(p.Problem, "not an address") || p.Kind != ProbeBadAddress {
		t.Errorf("probe of a bad address: %+v", p)
	}
	// Something else listens: it answers, but not with a hello.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			c.Close()
		}
	}()
	if p := a.Probe(ctx, ln.Addr().String()); p.OK || !strings.Contains(p.Problem, "newsdesk") || p.Kind != ProbeHandshake {
		t.Errorf("probe of a web server: %+v", p)
	}
}

// The first run: setup is needed until the wizard succeeded; a new network
// makes this computer its own seed and starts the servant.
func TestAppSetupNewNetwork(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		dir := t.TempDir()
		a := sn.open(t, Options{DataDir: dir})
		if !a.NeedsSetup() {
			t.Fatal("a new data directory does not need setup")
		}
		if st := a.Status(); st.Role != RoleIdle || st.Connected {
			t.Errorf("status before setup: %+v", st)
		}
		if err := a.Setup(Setup{DisplayName: "  "}); err == nil || !strings.Contains(err.Error(), "display name") {
			t.Errorf("setup without a name: %v", err)
		}
		if err := a.Setup(Setup{DisplayName: "Ann"}); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("joining without seeds: %v", err)
		}
		if err := a.Setup(Setup{DisplayName: "Ann", Seeds: []string{"10.0.0.1"}}); err == nil {
			t.Error("a seed without a port was accepted")
		}
		if !a.NeedsSetup() {
			t.Error("a failed setup counted as done")
		}
		if err := a.Setup(Setup{DisplayName: "Ann", NewNetwork: true}); err != nil {
			t.Fatal(err)
		}
		if a.NeedsSetup() {
			t.Error("setup still needed after it succeeded")
		}
		if got := a.Seeds(); !slices.Equal(got, []string{a.Addr()}) {
			t.Errorf("seeds %v, want this servant %s", got, a.Addr())
		}
		if st := a.Status(); st.Role != RoleVertex || !st.Connected || st.Source != a.Source().String() {
			t.Errorf("status after setup: %+v", st)
		}
		if s := a.Settings(); s.DisplayName != "Ann" {
			t.Errorf("display name %q", s.DisplayName)
		}
	})
}

// A second App on the same data directory fails within about a second.
func TestAppDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	openApp(t, Options{DataDir: dir})
	start := time.Now()
	_, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if !errors.Is(err, ErrInUse) || !errors.Is(err, storage.ErrInUse) || !strings.Contains(err.Error(), dir) {
		t.Errorf("second Open: %v", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("second Open took %v", d)
	}
}

// The catalog starts as the default, is replaced only by one at least as
// new, and persists; settings are validated and persist.
func TestAppCatalogAndSettings(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	if got := a.Catalog(); got.Version() != 1 || !slices.Equal(got.IDs(), categories.Default().IDs()) {
		t.Errorf("initial catalog %v", got.IDs())
	}
	v2, err := categories.NewCatalog(2, []categories.Category{{ID: "news", Name: "News"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetCatalog(v2); err != nil {
		t.Fatal(err)
	}
	if err := a.SetCatalog(categories.Default()); err == nil || !strings.Contains(err.Error(), "older") {
		t.Errorf("an older catalog: %v", err)
	}
	if err := a.SetCatalog(nil); err == nil {
		t.Error("a nil catalog was accepted")
	}

	if s := a.Settings(); s.Listen != DefaultListen || !s.Notify || s.DisplayName != "" {
		t.Errorf("default settings %+v", s)
	}
	for _, bad := range []Settings{
		{Listen: "nope"},
		{Listen: ":7400", Advertise: "10.0.0.1"},
		{Listen: ":7400", DisplayName: "a\tb"},
		{Listen: ":7400", NotifyCategories: []string{"IT"}},
		{Listen: ":7400", Language: "de DE"},
		{Listen: ":7400", Language: "-de"},
	} {
		if err := a.SaveSettings(bad); err == nil {
			t.Errorf("SaveSettings(%+v) accepted", bad)
		}
	}
	want := Settings{DisplayName: "Ann", Listen: "0.0.0.0:7500", Advertise: "10.0.0.5:7500", NotifyCategories: []string{"hr", "it"}, Language: "ja"}
	if err := a.SaveSettings(want); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := openApp(t, Options{DataDir: dir})
	if got := b.Catalog(); got.Version() != 2 || !slices.Equal(got.IDs(), []string{"news"}) {
		t.Errorf("catalog after reopening: v%d %v", got.Version(), got.IDs())
	}
	if got := b.Settings(); got.DisplayName != want.DisplayName || got.Listen != want.Listen || got.Advertise != want.Advertise ||
		!slices.Equal(got.NotifyCategories, want.NotifyCategories) || got.Notify || got.Language != want.Language {
		t.Errorf("settings after reopening %+v, want %+v", got, want)
	}
}

// MyPosts pages through this installation's items newest first, and leaves
// out everyone else's.
func TestAppMyPosts(t *testing.T) {
	a := openApp(t, Options{})
	var ids []uuid.UUID
	for i := range 7 {
		r, err := a.Publish(Draft{Category: "it", Title: fmt.Sprintf("post %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	foreign := testItem(t, "it", "not mine")
	foreign.SourceCount = 1
	if err := a.store.Put(context.Background(), foreign); err != nil {
		t.Fatal(err)
	}
	var got []uuid.UUID
	var cur Cursor
	for range 10 {
		page, next, err := a.MyPosts(3, cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			got = append(got, e.Item.ID)
		}
		if next == "" {
			break
		}
		cur = next
	}
	slices.Reverse(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("my posts %v, want %v", got, ids)
	}
	if _, _, err := a.MyPosts(3, "bogus"); !errors.Is(err, ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}

// Events never block the producer: a burst is coalesced while nobody
// reads, and what is emitted later still arrives.
func TestEventsCoalesce(t *testing.T) {
	h := newEventHub(nil)
	defer h.close()
	for range 100000 {
		h.emit(Event{Kind: ItemsChanged, Categories: []string{"it"}, Items: []uuid.UUID{uuid.New()}})
	}
	h.emit(Event{Kind: CatalogChanged})
	n := 0
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-h.out:
			n++
			if e.Kind == CatalogChanged {
				if n > eventBuffer+3 {
					t.Errorf("%d events for a burst of 100,001", n)
				}
				return
			}
			if len(e.Items) > maxEventItems {
				t.Fatalf("an event carries %d items", len(e.Items))
			}
		case <-deadline:
			t.Fatalf("CatalogChanged not delivered after %d events", n)
		}
	}
}

// Events of different kinds are never merged, so what happened to items
// survives a burst: an arrival queued behind a read-state change of
// everything still names its items and the urgent ones, and the urgent
// ones outlive a merge that makes the items too many to name.
func TestEventsKeepKinds(t *testing.T) {
	h := &eventHub{wake: make(chan struct{}, 1)} // not running: emit only queues
	x, u := uuid.New(), uuid.New()
	h.emit(Event{Kind: ReadStateChanged})
	h.emit(Event{Kind: ItemsArrived, Categories: []string{"it"}, Items: []uuid.UUID{x}})
	h.emit(Event{Kind: ReadStateChanged, Categories: []string{"it"}, Items: []uuid.UUID{x}})
	h.emit(Event{Kind: ItemsArrived, Categories: []string{"hr"}, Items: []uuid.UUID{u}, Urgent: []uuid.UUID{u}})
	if len(h.pending) != 2 {
		t.Fatalf("pending %+v, want one event per kind", h.pending)
	}
	read, arrived := h.pending[0], h.pending[1]
	if read.Kind != ReadStateChanged || read.Items != nil || read.Categories != nil || read.Urgent != nil {
		t.Errorf("read-state change %+v, want one about everything", read)
	}
	if arrived.Kind != ItemsArrived || !slices.Equal(arrived.Items, []uuid.UUID{x, u}) ||
		!slices.Equal(arrived.Categories, []string{"it", "hr"}) || !slices.Equal(arrived.Urgent, []uuid.UUID{u}) {
		t.Errorf("arrival %+v, want items %v, urgent %v", arrived, []uuid.UUID{x, u}, u)
	}

	many := make([]uuid.UUID, maxEventItems)
	for i := range many {
		many[i] = uuid.New()
	}
	h.emit(Event{Kind: ItemsArrived, Categories: []string{"it"}, Items: many, Urgent: many[:1]})
	arrived = h.pending[1]
	if arrived.Items != nil || !slices.Equal(arrived.Urgent, []uuid.UUID{u, many[0]}) {
		t.Errorf("after a burst: %d items, urgent %v; want none named, urgent %v", len(arrived.Items), arrived.Urgent, []uuid.UUID{u, many[0]})
	}
	more := make([]uuid.UUID, maxEventItems)
	for i := range more {
		more[i] = uuid.New()
	}
	h.emit(Event{Kind: ItemsArrived, Items: more[:1], Urgent: more})
	if arrived = h.pending[1]; len(arrived.Urgent) != maxEventItems || arrived.Urgent[2] != more[0] {
		t.Errorf("urgent %d, want the first %d", len(arrived.Urgent), maxEventItems)
	}
}

// The archive answers catch-up from the store: followed sources from their
// next count, others from the first item since the time; by source, then
// count; with histories of what came before each item in the answer.
func TestStoreArchiveCatchUp(t *testing.T) {
	st := storagetest.MustOpen(t)
	arch := &storeArchive{store: st, log: testLogger(t)}
	base := time.Now().Add(-time.Hour)
	x, y := uuid.MustParse("10000000-0000-4000-8000-000000000000"), uuid.MustParse("20000000-0000-4000-8000-000000000000")
	put := func(src uuid.UUID, count uint64, cat string, at time.Time) *news.Item {
		it, err := news.NewItem(cat, fmt.Sprintf("%s-%d", cat, count), "", "", src, at)
		if err != nil {
			t.Fatal(err)
		}
		it.SourceCount = count
		if err := st.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	for i, cat := range []string{"it", "hr", "it", "hr", "hr", "it"} {
		put(x, uint64(i+1), cat, base.Add(time.Duration(i)*time.Minute))
	}
	put(y, 1, "it", base)
	since := base.Add(10 * time.Minute)
	put(y, 2, "it/dev", since.Add(time.Minute))
	put(y, 3, "it", since.Add(2*time.Minute))

	if m := arch.Lookup(x.String(), 3); m == nil || m.Count != 3 || m.Category != "it" || m.Source != x.String() {
		t.Errorf("Lookup(x, 3) = %+v", m)
	}
	for _, tt := range []struct {
		src   string
		count uint64
	}{{x.String(), 9}, {x.String(), 0}, {"not-a-uuid", 1}, {uuid.NewString(), 1}} {
		if m := arch.Lookup(tt.src, tt.count); m != nil {
			t.Errorf("Lookup(%s, %d) = %+v, want nil", tt.src, tt.count, m)
		}
	}

	got := arch.CatchUp(newsnet.NewCategorySet("it"), map[string]uint64{x.String(): 2}, since, 100)
	type key struct {
		src   uuid.UUID
		count uint64
	}
	var keys []key
	for _, m := range got {
		keys = append(keys, key{uuid.MustParse(m.Source), m.Count})
		if _, err := news.Decode(m.Payload); err != nil {
			t.Errorf("answer %d does not decode: %v", m.Count, err)
		}
	}
	want := []key{{x, 3}, {x, 6}, {y, 2}, {y, 3}}
	if !slices.Equal(keys, want) {
		t.Fatalf("catch-up answered %v, want %v", keys, want)
	}
	// x/6 follows x/2..5 in the answer's reading: hr, it, hr, hr.
	hr, it := newsnet.ShortID("hr"), newsnet.ShortID("it")
	if h := got[1].History; !slices.Equal(h, []newsnet.HistoryRun{{Short: hr, Len: 2}, {Short: it, Len: 1}, {Short: hr, Len: 1}}) {
		t.Errorf("history of x/6: %v", h)
	}
	if h := got[0].History; !slices.Equal(h, []newsnet.HistoryRun{{Short: hr, Len: 1}}) {
		t.Errorf("history of x/3: %v", h)
	}
	if h := got[2].History; len(h) != 0 {
		t.Errorf("history of the first answer of y: %v", h)
	}
	// The chain says as much: x/6 was read after x/2..5, so the latest hr
	// before it is x/5 and the latest it x/3; not complete (x/1 unread).
	lastOf := func(m *newsnet.Multicast, short uint32) uint64 {
		for _, l := range m.Lasts {
			if l.Short == short {
				return l.Count
			}
		}
		return 0
	}
	if got[1].LastsComplete || lastOf(got[1], hr) != 5 || lastOf(got[1], it) != 3 {
		t.Errorf("lasts of x/6: %v complete=%v, want hr 5, it 3, incomplete", got[1].Lasts, got[1].LastsComplete)
	}
	// y was read from y/2 on: y/3's chain has it/dev's y/2 under "it" too.
	if y3 := got[3]; y3.LastsComplete || lastOf(y3, it) != 2 || lastOf(y3, newsnet.ShortID("it/dev")) != 2 {
		t.Errorf("lasts of y/3: %v complete=%v, want it 2, it/dev 2, incomplete", y3.Lasts, y3.LastsComplete)
	}

	if got := arch.CatchUp(newsnet.NewCategorySet("it"), map[string]uint64{x.String(): 2}, since, 3); len(got) != 3 {
		t.Errorf("limit 3: %d answers", len(got))
	}
	all := arch.CatchUp(newsnet.NewCategorySet(newsnet.AllCategories), nil, base.Add(-time.Minute), 100)
	if len(all) != 9 {
		t.Fatalf("everything since before the first item: %d answers, want 9", len(all))
	}
	// Read from each source's first count, every chain is complete: y/3
	// (the last answer) has y/1 and y/2 under "it".
	if y3 := all[8]; !y3.LastsComplete || lastOf(y3, it) != 2 || lastOf(y3, newsnet.ShortID("it/dev")) != 2 {
		t.Errorf("lasts of y/3 read from y/1: %v complete=%v, want it 2, it/dev 2, complete", y3.Lasts, y3.LastsComplete)
	}
	if got := arch.CatchUp(newsnet.NewCategorySet("sales"), nil, base, 100); len(got) != 0 {
		t.Errorf("a category with no items: %d answers", len(got))
	}
}

func testLogger(testing.TB) *slog.Logger { return slog.New(slog.DiscardHandler) }

// WaitStored returns once what the servant delivered before it is stored
// and its ItemsArrived emitted; after Close it returns at once.
func TestWaitStored(t *testing.T) {
	var (
		cfg   node.Config
		mu    sync.Mutex
		heard = map[uuid.UUID]bool{}
	)
	a := openApp(t, Options{Start: true,
		StartServant: func(c node.Config) (Servant, error) { cfg = c; return startTCPNode(c) },
		OnEvent: func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ev.Items {
				heard[id] = ev.Kind == ItemsArrived
			}
		}})
	var ids []uuid.UUID
	for i := range 200 {
		it := testItem(t, "it", fmt.Sprintf("Item %d", i))
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		cfg.OnDeliver(m) // as the servant delivers
		ids = append(ids, it.ID)
	}
	a.WaitStored()
	mu.Lock()
	for _, id := range ids {
		if _, err := a.Item(id); err != nil || !heard[id] {
			t.Errorf("item %s: %v, announced %v", id, err, heard[id])
			break
		}
	}
	mu.Unlock()
	a.Close()
	a.WaitStored()
}
