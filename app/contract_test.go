// The contract of the desktop UI (ui.Backend): what the UI relies on
// from the application, checked here against the application itself
// (TestBackendContract). It lived in ui/backendtest, where it also ran over
// the demo backend; it moved next to what it tests (issue 28).
//
// The suite drives the application through the UI's methods. The one
// thing the UI cannot do itself, receive items, is a hook of the Subject:
// items that were there before (Receive) and items arriving from the
// network (Arrive).
//
// The event contract: each action is announced with the kind of event
// that says what happened (testEvents has the table), and ItemsArrived,
// the only event a notification may follow, comes of nothing but an
// arrival; every wait for an event in the suite fails on another one.

package app_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/trust"
)

// Subject is an application under test.
type Subject struct {
	*app.App

	// Receive stores items as received from the network before the test
	// looks at them, with their Received time as given. It sends no
	// events: the items are there as if they had been all along.
	Receive func(items ...*news.Item) error

	// Arrive, when not nil, has someone else in the network publish d, so
	// that the item arrives from the network as items do, events and all;
	// it returns the item's ID without waiting for the arrival. The
	// backend must subscribe to d's category first. It may set the backend
	// up (Setup) to join that someone's network, or skip the test; a test
	// that uses it sets nothing else up.
	Arrive func(d app.Draft) (uuid.UUID, error)
}

// Opener returns a new Subject for one test and arranges its closing with
// t.Cleanup. The application is a new installation, as app.Open makes on an
// empty data directory: NeedsSetup is true; there are no items, no
// subscriptions, no seeds and no settings but the defaults; the catalog is
// categories.Default(); the network definition is a one-computer network
// whose admin this installation is; the servant is not running, so
// Status().Connected is false.
type Opener func(t *testing.T) Subject

// runContract runs the suite, one subtest per part of the contract, each
// on an application of its own.
func runContract(t *testing.T, open Opener) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Subject)
	}{
		{"NewInstallation", testNewInstallation},
		{"NewestPaging", testNewestPaging},
		{"NewestCategories", testNewestCategories},
		{"NewestErrors", testNewestErrors},
		{"Search", testSearch},
		{"SearchPaging", testSearchPaging},
		{"Item", testItem},
		{"ReadState", testReadState},
		{"MarkAllRead", testMarkAllRead},
		{"Acknowledge", testAcknowledge},
		{"Keep", testKeep},
		{"Subscriptions", testSubscriptions},
		{"Catalog", testCatalog},
		{"PublishRefused", testPublishRefused},
		{"Publish", testPublish},
		{"PublishAudience", testPublishAudience}, // audience.go
		{"NamedAudiences", testNamedAudiences},
		{"MyPostsPaging", testMyPostsPaging},
		{"Schedule", testSchedule},
		{"Reach", testReach},
		{"Settings", testSettings},
		{"Seeds", testSeeds},
		{"SetupRefused", testSetupRefused},
		{"SetupNewNetwork", testSetupNewNetwork},
		{"SetupJoin", testSetupJoin},
		{"Probe", testProbe},
		{"Invitations", testInvitations},
		{"JoinByInvitationRefused", testJoinByInvitationRefused},
		{"Retract", testRetract},
		{"RetractCorrection", testRetractCorrection},
		{"Events", testEvents},
		{"Arrival", testArrival},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, open(t)) })
	}
}

// TestBackendContract runs the suite over the real application, opened on an empty
// data directory with its servant listening on loopback once Setup starts
// it. Received items go straight into its store, as its servant stores
// what arrives.
func TestBackendContract(t *testing.T) {
	runContract(t, func(t *testing.T) Subject {
		a, err := app.Open(context.Background(), app.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() {
			if err := a.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return Subject{App: a, Receive: func(items ...*news.Item) error {
			for _, it := range items {
				if err := a.Store().Put(context.Background(), it); err != nil {
					return err
				}
			}
			return nil
		}, Arrive: arriveFromPeer(t, a)}
	})
}

// arriveFromPeer is the Arrive of a: a second application, the admin
// of a network of its own, which a joins on first use (importing its
// definition and setting up with it as the seed) publishes the draft once
// it knows that a subscribes to the category, so the item reaches a over a
// real link on loopback, as items from the network do.
func arriveFromPeer(t *testing.T, a *app.App) func(app.Draft) (uuid.UUID, error) {
	var peer *app.App
	return func(d app.Draft) (uuid.UUID, error) {
		if testing.Short() {
			t.Skip("real servants on loopback")
		}
		if peer == nil {
			p, err := app.Open(context.Background(), app.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Start: true})
			if err != nil {
				return uuid.Nil, err
			}
			t.Cleanup(func() {
				if err := p.Close(); err != nil {
					t.Errorf("closing the peer: %v", err)
				}
			})
			if err := p.Setup(app.Setup{DisplayName: "Newsroom", NewNetwork: true}); err != nil {
				return uuid.Nil, err
			}
			if err := a.ImportNetwork(p.Network()); err != nil {
				return uuid.Nil, err
			}
			if err := a.Setup(app.Setup{DisplayName: "Reader", Seeds: []string{p.Addr()}}); err != nil {
				return uuid.Nil, err
			}
			peer = p
		}
		// Until the peer has a's routing information, it would suppress the
		// item. Polling the other core's status, as a test of real links must.
		for deadline := time.Now().Add(20 * time.Second); !wants(peer.Status(), a.Addr(), d.Category); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				return uuid.Nil, fmt.Errorf("the peer never learnt that %s subscribes to %s: %+v", a.Addr(), d.Category, peer.Status().Links)
			}
		}
		r, err := peer.Publish(d)
		if err == nil && r.Outcome != app.Delivered {
			err = fmt.Errorf("the peer's publication was %v", r.Outcome)
		}
		return r.ID, err
	}
}

// wants reports whether st has a link to peer that receives category.
func wants(st app.NetStatus, peer, category string) bool {
	for _, l := range st.Links {
		if l.Peer == peer && l.Carries(category) {
			return true
		}
	}
	return false
}

// The items the tests receive are someone else's, created in the last
// hours; their IDs are fixed (news.IDAt), so the expected order is known.
var (
	otherSource = uuid.MustParse("0191a000-0000-7000-8000-00000000c0de")
	// base is a whole millisecond, as stored times are compared.
	base = time.Now().Add(-6 * time.Hour).Truncate(time.Millisecond)
)

// received returns a received item: the n-th, created minutes after base.
func received(n int, cat, title, body string, minutes int) *news.Item {
	at := base.Add(time.Duration(minutes) * time.Minute)
	return &news.Item{
		ID: news.IDAt(at, uint64(n)), Category: cat, Title: title, Body: body,
		Author: "Author " + cat, Source: otherSource, SourceCount: uint64(n),
		Created: at, Received: at.Add(time.Second),
	}
}

func receive(t *testing.T, s Subject, items ...*news.Item) {
	t.Helper()
	if err := s.Receive(items...); err != nil {
		t.Fatalf("receiving: %v", err)
	}
}

// catsCycle are the categories the listing tests spread items over.
var catsCycle = []string{"company", "it", "sales", "sales/emea", "hr"}

// spread receives n items, one a minute, in a shuffled order, and returns
// them newest first.
func spread(t *testing.T, s Subject, n int) []*news.Item {
	t.Helper()
	var items []*news.Item
	for i := range n {
		items = append(items, received(i+1, catsCycle[i%len(catsCycle)], fmt.Sprintf("Item %d", i+1), "Body.", i))
	}
	shuffled := slices.Clone(items)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	receive(t, s, shuffled...)
	slices.Reverse(items)
	return items
}

func ids[T any](xs []T, id func(T) uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func itemIDs(items []*news.Item) []uuid.UUID {
	return ids(items, func(it *news.Item) uuid.UUID { return it.ID })
}

func entryIDs(es []app.Entry) []uuid.UUID {
	return ids(es, func(e app.Entry) uuid.UUID { return e.Item.ID })
}

// page is one call of a paged listing.
type page func(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error)

// walk pages through a listing n at a time and returns all entries. Every
// page but the last is full, and the last one's cursor is "".
func walk(t *testing.T, what string, list page, n int) []app.Entry {
	t.Helper()
	var all []app.Entry
	var cur app.Cursor
	for range 1000 {
		es, next, err := list(n, cur)
		if err != nil {
			t.Fatalf("%s after %d entries: %v", what, len(all), err)
		}
		all = append(all, es...)
		if next == "" {
			return all
		}
		if len(es) != n {
			t.Fatalf("%s: a page of %d with a next cursor, want full pages of %d", what, len(es), n)
		}
		cur = next
	}
	t.Fatalf("%s: no end", what)
	return nil
}

func newest(b Subject, cats ...string) page {
	return func(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
		return b.Newest(cats, n, cur)
	}
}

func search(b Subject, query string, cats ...string) page {
	return func(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
		return b.Search(context.Background(), query, cats, n, cur)
	}
}

// listed returns the IDs Newest lists for cats, all of them.
func listed(t *testing.T, b Subject, cats ...string) []uuid.UUID {
	t.Helper()
	return entryIDs(walk(t, fmt.Sprintf("Newest(%q)", cats), newest(b, cats...), 50))
}

// await reads events until one that ok accepts, within a generous bound
// (the application delivers them from a goroutine of its own). An
// ItemsArrived on the way is an error: items arrive only where a test
// awaits them.
func await(t *testing.T, b Subject, what string, ok func(app.Event) bool) app.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, open := <-b.Events():
			if !open {
				t.Fatalf("no event (%s): the channel closed", what)
			}
			if ok(ev) {
				return ev
			}
			if ev.Kind == app.ItemsArrived {
				t.Errorf("waiting for %s: %s %v, but nothing arrived from the network", what, ev.Kind, ev.Items)
			}
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

// announced accepts an event of kind k that covers item id of category
// cat: the UI re-reads the items an event names, or everything when it
// names none, and the categories likewise.
func announced(k app.EventKind, id uuid.UUID, cat string) func(app.Event) bool {
	return func(ev app.Event) bool {
		return ev.Kind == k &&
			(len(ev.Items) == 0 || slices.Contains(ev.Items, id)) &&
			(len(ev.Categories) == 0 || categories.CoveredByAny(ev.Categories, cat))
	}
}

func kind(k app.EventKind) func(app.Event) bool {
	return func(ev app.Event) bool { return ev.Kind == k }
}

func item(t *testing.T, b Subject, id uuid.UUID) app.Entry {
	t.Helper()
	e, err := b.Item(id)
	if err != nil {
		t.Fatalf("Item(%v): %v", id, err)
	}
	return e
}

// unread returns the unread counts and checks that no category is listed
// with zero.
func unread(t *testing.T, b Subject) map[string]uint64 {
	t.Helper()
	m, err := b.UnreadCounts()
	if err != nil {
		t.Fatalf("UnreadCounts: %v", err)
	}
	for c, n := range m {
		if n == 0 {
			t.Errorf("UnreadCounts lists %q with 0", c)
		}
	}
	return m
}

func wantCounts(t *testing.T, b Subject, want map[string]uint64) {
	t.Helper()
	got := unread(t, b)
	if len(got) != len(want) {
		t.Errorf("unread counts %v, want %v", got, want)
		return
	}
	for c, n := range want {
		if got[c] != n {
			t.Errorf("unread counts %v, want %v", got, want)
			return
		}
	}
}

// A new installation: nothing stored, nothing set, waiting for setup.
func testNewInstallation(t *testing.T, s Subject) {
	if !s.NeedsSetup() {
		t.Error("a new installation does not need setting up")
	}
	st := s.Status()
	if st.Connected {
		t.Error("connected before the servant started")
	}
	if _, err := uuid.Parse(st.Source); err != nil {
		t.Errorf("status source %q: %v", st.Source, err)
	}
	if es, next, err := s.Newest(nil, 10, ""); len(es) != 0 || next != "" || err != nil {
		t.Errorf("Newest: %d entries, next %q, %v", len(es), next, err)
	}
	if es, next, err := s.MyPosts(10, ""); len(es) != 0 || next != "" || err != nil {
		t.Errorf("MyPosts: %d entries, next %q, %v", len(es), next, err)
	}
	wantCounts(t, s, nil)
	if subs := s.Subscriptions(); len(subs) != 0 {
		t.Errorf("subscriptions %q", subs)
	}
	if seeds := s.Seeds(); len(seeds) != 0 {
		t.Errorf("seeds %q", seeds)
	}
	if c := s.Catalog(); c == nil || c.Version() != categories.Default().Version() || !slices.Equal(c.IDs(), categories.Default().IDs()) {
		t.Errorf("catalog %v, want the default", c)
	}
	if got := s.Settings(); got.DisplayName != "" || got.Listen != app.DefaultListen || got.Advertise != "" || !got.Notify || len(got.NotifyCategories) != 0 {
		t.Errorf("settings %+v, want the defaults (listen %s, notify on)", got, app.DefaultListen)
	}
	if _, err := s.Item(news.IDAt(base, 1)); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Item of an unknown ID: %v, want app.ErrNotFound", err)
	}
}

// Newest lists newest (highest ID) first, whatever order items arrived
// in; the cursor continues strictly below the last entry, so a page
// boundary never repeats or skips an item, not even when newer items
// arrive meanwhile; a listing that ends exactly at a page boundary returns
// the cursor "".
func testNewestPaging(t *testing.T, s Subject) {
	items := spread(t, s, 23)
	want := itemIDs(items)
	for _, n := range []int{1, 5, 22, 23, 100} {
		if got := entryIDs(walk(t, fmt.Sprintf("Newest by %d", n), newest(s), n)); !slices.Equal(got, want) {
			t.Errorf("Newest by %d:\n got %v\nwant %v", n, got, want)
		}
	}
	es, next, err := s.Newest(nil, 23, "")
	if err != nil || len(es) != 23 || next != "" {
		t.Errorf("all in one page: %d entries, next %q, %v", len(es), next, err)
	}
	for _, e := range es {
		if e.Read || e.Retracted != nil {
			t.Errorf("%s: read %v, retracted %v", e.Item.Title, e.Read, e.Retracted)
		}
	}

	first, cur, err := s.Newest(nil, 5, "")
	if err != nil || cur == "" {
		t.Fatalf("first page: next %q, %v", cur, err)
	}
	receive(t, s, received(100, "company", "Arrived meanwhile", "", 5*60))
	rest := entryIDs(walk(t, "Newest after an arrival", func(n int, c app.Cursor) ([]app.Entry, app.Cursor, error) {
		if c == "" {
			c = cur
		}
		return s.Newest(nil, n, c)
	}, 5))
	if got := append(entryIDs(first), rest...); !slices.Equal(got, want) {
		t.Errorf("pages around an arrival:\n got %v\nwant %v", got, want)
	}
	if got := listed(t, s); len(got) != 24 || got[0] != news.IDAt(base.Add(5*time.Hour), 100) {
		t.Errorf("the arrival is not listed first: %v", got)
	}
}

// A category selects itself and the categories under it; several select
// their union; the order stays newest first.
func testNewestCategories(t *testing.T, s Subject) {
	items := spread(t, s, 20)
	of := func(keep func(cat string) bool) []uuid.UUID {
		var out []uuid.UUID
		for _, it := range items {
			if keep(it.Category) {
				out = append(out, it.ID)
			}
		}
		return out
	}
	for _, cats := range [][]string{{"sales"}, {"sales/emea"}, {"company", "it"}, {"sales", "sales/emea"}, {"facilities"}} {
		want := of(func(c string) bool { return categories.CoveredByAny(cats, c) })
		if got := listed(t, s, cats...); !slices.Equal(got, want) {
			t.Errorf("Newest(%q):\n got %v\nwant %v", cats, got, want)
		}
	}
}

// Newest refuses a page size below 1, a cursor it did not make and an
// invalid category ID.
func testNewestErrors(t *testing.T, s Subject) {
	spread(t, s, 3)
	if _, _, err := s.Newest(nil, 0, ""); err == nil {
		t.Error("page size 0 accepted")
	}
	if _, _, err := s.Newest(nil, 10, "not a cursor"); !errors.Is(err, app.ErrBadCursor) {
		t.Errorf("bad cursor: %v, want app.ErrBadCursor", err)
	}
	if _, _, err := s.Newest([]string{"Sales!"}, 10, ""); err == nil {
		t.Error("an invalid category accepted")
	}
}

// Search finds the items in which every word of the query occurs inside
// some word of the title or body, case aside; punctuation separates words
// in the query as in the text; a query without words finds nothing and is
// no error; categories select as in Newest; newest first.
func testSearch(t *testing.T, s Subject) {
	mail := received(1, "it", "E-Mail down in all offices", "Teams chat works.", 10)
	printer := received(2, "it", "Printer fixed", "The printer on floor 3 prints again.", 20)
	travel := received(3, "company", "Travel policy", "Trains are covered too.", 30)
	emea := received(4, "sales/emea", "EMEA record quarter", "Mail from the Nordics.", 40)
	receive(t, s, mail, printer, travel, emea)
	for _, c := range []struct {
		query string
		cats  []string
		want  []*news.Item
	}{
		{"mail", nil, []*news.Item{emea, mail}},
		{"MAIL teams", nil, []*news.Item{mail}},
		{"e-mail,", nil, []*news.Item{emea, mail}}, // the words "e" and "mail"
		{"printer floor", nil, []*news.Item{printer}},
		{"print", nil, []*news.Item{printer}},
		{"printer teams", nil, nil},
		{"trains", nil, []*news.Item{travel}},
		{"mail", []string{"sales"}, []*news.Item{emea}},
		{"mail", []string{"company"}, nil},
		{"", nil, nil},
		{" ,; ", nil, nil},
	} {
		es, next, err := s.Search(context.Background(), c.query, c.cats, 10, "")
		if err != nil || next != "" || !slices.Equal(entryIDs(es), itemIDs(c.want)) {
			t.Errorf("Search(%q, %q) = %v, next %q, %v; want %v", c.query, c.cats, entryIDs(es), next, err, itemIDs(c.want))
		}
	}
}

// Search pages like Newest and refuses what Newest refuses.
func testSearchPaging(t *testing.T, s Subject) {
	items := spread(t, s, 11)
	receive(t, s, received(50, "it", "Unrelated", "Nothing here.", 5))
	want := itemIDs(items)
	for _, n := range []int{1, 3, 11} {
		if got := entryIDs(walk(t, fmt.Sprintf("Search by %d", n), search(s, "item"), n)); !slices.Equal(got, want) {
			t.Errorf("Search by %d:\n got %v\nwant %v", n, got, want)
		}
	}
	if _, _, err := s.Search(context.Background(), "item", nil, 0, ""); err == nil {
		t.Error("page size 0 accepted")
	}
	if _, _, err := s.Search(context.Background(), "item", nil, 10, "not a cursor"); !errors.Is(err, app.ErrBadCursor) {
		t.Errorf("bad cursor: %v, want app.ErrBadCursor", err)
	}
	if _, _, err := s.Search(context.Background(), "item", []string{"Sales!"}, 10, ""); err == nil {
		t.Error("an invalid category accepted")
	}
}

// Item returns a received item as it arrived, unread, as a copy the caller
// may change; an unknown ID is app.ErrNotFound.
func testItem(t *testing.T, s Subject) {
	orig := received(1, "hr", "Offices closed on 2 October", "Closed on **2 October**.", 10)
	corr := received(2, "hr", "Offices closed on 3 October", "Closed on **3 October**.", 20)
	corr.Supersedes, corr.Urgent = orig.ID, true
	receive(t, s, orig, corr)
	e := item(t, s, corr.ID)
	got := e.Item
	if got.ID != corr.ID || got.Category != corr.Category || got.Title != corr.Title || got.Body != corr.Body ||
		got.Author != corr.Author || got.Source != corr.Source || got.SourceCount != corr.SourceCount ||
		!got.Created.Equal(corr.Created) || !got.Received.Equal(corr.Received) || got.Urgent != corr.Urgent || got.Supersedes != corr.Supersedes {
		t.Errorf("Item:\n got %+v\nwant %+v", got, corr)
	}
	if e.Read || e.Retracted != nil {
		t.Errorf("a received item: read %v, retracted %v", e.Read, e.Retracted)
	}
	got.Title = "Changed by the caller"
	if again := item(t, s, corr.ID); again.Item.Title != corr.Title {
		t.Errorf("changing the returned item changed the stored one: %q", again.Item.Title)
	}
	if _, err := s.Item(news.IDAt(base, 99)); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Item of an unknown ID: %v, want app.ErrNotFound", err)
	}
}

// Unread counts are per exact category and list no zeros. MarkRead and
// MarkUnread change them and announce the change with ReadStateChanged
// naming the item (or nothing: everything); marking an item as it is, or
// an unknown ID, is no error.
func testReadState(t *testing.T, s Subject) {
	c1 := received(1, "company", "One", "", 10)
	c2 := received(2, "company", "Two", "", 20)
	e1 := received(3, "sales/emea", "Three", "", 30)
	s1 := received(4, "sales", "Four", "", 40)
	receive(t, s, c1, c2, e1, s1)
	wantCounts(t, s, map[string]uint64{"company": 2, "sales/emea": 1, "sales": 1})

	if err := s.MarkRead(c1.ID); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after MarkRead", announced(app.ReadStateChanged, c1.ID, "company"))
	if !item(t, s, c1.ID).Read {
		t.Error("Item: not read after MarkRead")
	}
	if es, _, _ := s.Newest([]string{"company"}, 10, ""); len(es) != 2 || es[0].Read || !es[1].Read {
		t.Errorf("Newest does not show the read state: %+v", es)
	}
	wantCounts(t, s, map[string]uint64{"company": 1, "sales/emea": 1, "sales": 1})
	if err := s.MarkRead(c1.ID); err != nil {
		t.Errorf("MarkRead of a read item: %v", err)
	}
	if err := s.MarkRead(news.IDAt(base, 99)); err != nil {
		t.Errorf("MarkRead of an unknown ID: %v", err)
	}
	wantCounts(t, s, map[string]uint64{"company": 1, "sales/emea": 1, "sales": 1})

	if err := s.MarkUnread(c1.ID); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after MarkUnread", announced(app.ReadStateChanged, c1.ID, "company"))
	if item(t, s, c1.ID).Read {
		t.Error("Item: read after MarkUnread")
	}
	wantCounts(t, s, map[string]uint64{"company": 2, "sales/emea": 1, "sales": 1})

	if err := s.MarkRead(c1.ID, c2.ID, e1.ID); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after MarkRead of three", announced(app.ReadStateChanged, e1.ID, "sales/emea"))
	wantCounts(t, s, map[string]uint64{"sales": 1})
}

// MarkAllRead marks a category and those under it read ("" all of them),
// announces it with ReadStateChanged, and refuses an invalid category ID.
func testMarkAllRead(t *testing.T, s Subject) {
	receive(t, s,
		received(1, "company", "One", "", 10),
		received(2, "sales/emea", "Two", "", 20),
		received(3, "sales", "Three", "", 30),
		received(4, "it", "Four", "", 40))
	if err := s.MarkAllRead("sales"); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after MarkAllRead(sales)", announced(app.ReadStateChanged, news.IDAt(base.Add(20*time.Minute), 2), "sales/emea"))
	wantCounts(t, s, map[string]uint64{"company": 1, "it": 1})
	if err := s.MarkAllRead("Sales!"); err == nil {
		t.Error("an invalid category accepted")
	}
	if err := s.MarkAllRead(""); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after MarkAllRead()", announced(app.ReadStateChanged, news.IDAt(base.Add(40*time.Minute), 4), "it"))
	wantCounts(t, s, nil)
	if err := s.MarkAllRead(""); err != nil {
		t.Errorf("MarkAllRead with nothing unread: %v", err)
	}
}

// Subscriptions come back sorted and without duplicates, a category and
// one under it both kept as given; a change is announced with
// CatalogChanged; an invalid ID is refused and changes nothing.
func testSubscriptions(t *testing.T, s Subject) {
	if err := s.SetSubscriptions([]string{"sales", "company", "sales/emea", "company"}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "CatalogChanged after SetSubscriptions", kind(app.CatalogChanged))
	want := []string{"company", "sales", "sales/emea"}
	if got := s.Subscriptions(); !slices.Equal(got, want) {
		t.Errorf("subscriptions %q, want %q", got, want)
	}
	if err := s.SetSubscriptions([]string{"it", "Bad!"}); err == nil {
		t.Error("an invalid category accepted")
	}
	if got := s.Subscriptions(); !slices.Equal(got, want) {
		t.Errorf("after a refused change: %q, want %q", got, want)
	}
	if err := s.SetSubscriptions(nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Subscriptions(); len(got) != 0 {
		t.Errorf("after unsubscribing from everything: %q", got)
	}
}

// SetCatalog takes a catalog of the same or a higher version, announces it
// with CatalogChanged, and refuses an older one and nil.
func testCatalog(t *testing.T, s Subject) {
	cur := s.Catalog()
	if err := s.SetCatalog(nil); err == nil {
		t.Error("a nil catalog accepted")
	}
	if err := s.SetCatalog(categories.Default()); err != nil {
		t.Errorf("the same version again: %v", err)
	}
	next, err := categories.NewCatalog(cur.Version()+1, append(cur.All(), categories.Category{ID: "legal", Name: "Legal"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetCatalog(next); err != nil {
		t.Fatal(err)
	}
	await(t, s, "CatalogChanged after SetCatalog", kind(app.CatalogChanged))
	if got := s.Catalog(); got.Version() != next.Version() || !got.Has("legal") {
		t.Errorf("catalog version %d after setting %d", got.Version(), next.Version())
	}
	if err := s.SetCatalog(cur); err == nil {
		t.Errorf("an older version (%d after %d) accepted", cur.Version(), next.Version())
	}
}

// A draft that breaks an item rule is refused with the rule, and nothing
// is stored.
func testPublishRefused(t *testing.T, s Subject) {
	for _, c := range []struct {
		d    app.Draft
		want string
	}{
		{app.Draft{Category: "it"}, "title: required"},
		{app.Draft{Category: "IT", Title: "x"}, "category"},
		{app.Draft{Category: "it", Title: "x", Body: strings.Repeat("b", news.MaxBodyBytes+1)}, "body"},
		{app.Draft{Category: "it", Title: "line\nbreak"}, "title: control character"},
	} {
		if _, err := s.Publish(c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Publish(%.40v) = %v, want an error containing %q", c.d, err, c.want)
		}
	}
	if es, _, _ := s.MyPosts(10, ""); len(es) != 0 {
		t.Errorf("refused drafts in My posts: %d", len(es))
	}
	if es, _, _ := s.Newest(nil, 10, ""); len(es) != 0 {
		t.Errorf("refused drafts listed: %d", len(es))
	}
}

// Publish stores the item as this installation's (its source, the display
// name as author, read), numbers it, and announces it with ItemsPublished,
// naming it urgent; a servant that is not connected queues it. It is
// listed first in Newest and My posts.
func testPublish(t *testing.T, s Subject) {
	if err := s.SaveSettings(app.Settings{DisplayName: "Ann", Listen: app.DefaultListen, Notify: true}); err != nil {
		t.Fatal(err)
	}
	receive(t, s, received(1, "it", "Someone else's", "", 10))
	before := time.Now()
	d := app.Draft{Category: "it", Title: "Printer fixed", Body: "It prints **again**.", Urgent: true}
	r, err := s.Publish(d)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != app.Queued {
		t.Errorf("outcome %v while not connected, want queued", r.Outcome)
	}
	if r.ID.Version() != 7 || news.IDTime(r.ID).Before(before.Truncate(time.Millisecond)) || news.IDTime(r.ID).After(after) {
		t.Errorf("ID %v (time %v), published between %v and %v", r.ID, news.IDTime(r.ID), before, after)
	}
	ev := await(t, s, "ItemsPublished after Publish", announced(app.ItemsPublished, r.ID, "it"))
	if !slices.Contains(ev.Urgent, r.ID) {
		t.Errorf("the event of an urgent post is not urgent: %+v", ev)
	}
	e := item(t, s, r.ID)
	it := e.Item
	if it.Category != d.Category || it.Title != d.Title || it.Body != d.Body || !it.Urgent || it.Author != "Ann" ||
		it.Source.String() != s.Status().Source || it.SourceCount != 1 || it.Supersedes != uuid.Nil {
		t.Errorf("own item %+v", it)
	}
	if !e.Read {
		t.Error("one's own post is unread")
	}
	if got := listed(t, s); len(got) != 2 || got[0] != r.ID {
		t.Errorf("Newest %v, want the post first", got)
	}
	wantCounts(t, s, map[string]uint64{"it": 1})
	if es, next, err := s.MyPosts(10, ""); err != nil || next != "" || !slices.Equal(entryIDs(es), []uuid.UUID{r.ID}) {
		t.Errorf("MyPosts %v, next %q, %v", entryIDs(es), next, err)
	}

	c, err := s.Publish(app.Draft{Category: "it", Title: "Printer fixed, really", Supersedes: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if e := item(t, s, c.ID); e.Item.Supersedes != r.ID || e.Item.SourceCount != 2 {
		t.Errorf("correction supersedes %v, count %d", e.Item.Supersedes, e.Item.SourceCount)
	}
}

// My posts pages newest first, like Newest.
func testMyPostsPaging(t *testing.T, s Subject) {
	receive(t, s, received(1, "it", "Someone else's", "", 10))
	var want []uuid.UUID
	for i := range 5 {
		r, err := s.Publish(app.Draft{Category: "company", Title: fmt.Sprintf("Post %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		want = append([]uuid.UUID{r.ID}, want...)
	}
	for _, n := range []int{1, 2, 5, 6} {
		if got := entryIDs(walk(t, fmt.Sprintf("MyPosts by %d", n), s.MyPosts, n)); !slices.Equal(got, want) {
			t.Errorf("MyPosts by %d:\n got %v\nwant %v", n, got, want)
		}
	}
	if _, _, err := s.MyPosts(0, ""); err == nil {
		t.Error("page size 0 accepted")
	}
}

// SaveSettings stores what Settings returns (the display name trimmed,
// notification categories sorted without duplicates) and refuses what
// breaks a rule, changing nothing.
func testSettings(t *testing.T, s Subject) {
	in := app.Settings{DisplayName: "  Dana Whitfield ", Listen: "0.0.0.0:7401", Advertise: "10.0.0.5:7401", Notify: false,
		NotifyCategories: []string{"sales", "company", "sales"}, Retention: 90 * 24 * time.Hour}
	if err := s.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	want := app.Settings{DisplayName: "Dana Whitfield", Listen: "0.0.0.0:7401", Advertise: "10.0.0.5:7401", NotifyCategories: []string{"company", "sales"},
		Retention: 90 * 24 * time.Hour}
	check := func(when string) {
		t.Helper()
		got := s.Settings()
		if got.DisplayName != want.DisplayName || got.Listen != want.Listen || got.Advertise != want.Advertise ||
			got.Notify != want.Notify || !slices.Equal(got.NotifyCategories, want.NotifyCategories) || got.Retention != want.Retention {
			t.Errorf("%s: settings %+v, want %+v", when, got, want)
		}
	}
	check("after saving")
	for _, bad := range []app.Settings{
		{DisplayName: "Dana\nWhitfield", Listen: "0.0.0.0:7401"},
		{DisplayName: strings.Repeat("x", news.MaxAuthorRunes+1), Listen: "0.0.0.0:7401"},
		{DisplayName: "Dana", Listen: "nowhere"},
		{DisplayName: "Dana", Listen: "0.0.0.0:port"},
		{DisplayName: "Dana", Listen: "0.0.0.0:7401", Advertise: "10.0.0.5"},
		{DisplayName: "Dana", Listen: "0.0.0.0:7401", NotifyCategories: []string{"Sales!"}},
		{DisplayName: "Dana", Listen: "0.0.0.0:7401", Retention: time.Hour},
		{DisplayName: "Dana", Listen: "0.0.0.0:7401", Retention: -24 * time.Hour},
	} {
		if err := s.SaveSettings(bad); err == nil {
			t.Errorf("SaveSettings(%+v) accepted", bad)
		}
	}
	check("after refused changes")
}

// SetSeeds stores the list as given, spaces trimmed; an address without a
// port or one listed twice is refused and changes nothing.
func testSeeds(t *testing.T, s Subject) {
	if err := s.SetSeeds([]string{" 10.0.0.1:7400", "seed.example.com:7400 "}); err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.1:7400", "seed.example.com:7400"}
	if got := s.Seeds(); !slices.Equal(got, want) {
		t.Errorf("seeds %q, want %q", got, want)
	}
	for _, bad := range [][]string{{"10.0.0.1"}, {"10.0.0.2:7400", "10.0.0.2:7400"}, {"10.0.0.2:7400", " 10.0.0.2:7400"}} {
		if err := s.SetSeeds(bad); err == nil {
			t.Errorf("SetSeeds(%q) accepted", bad)
		}
	}
	if got := s.Seeds(); !slices.Equal(got, want) {
		t.Errorf("after refused changes: %q, want %q", got, want)
	}
	if err := s.SetSeeds(nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Seeds(); len(got) != 0 {
		t.Errorf("after emptying: %q", got)
	}
}

// Setup needs a display name and, to join, at least one valid seed; a
// refused setup leaves the installation waiting for setup.
func testSetupRefused(t *testing.T, s Subject) {
	for _, bad := range []app.Setup{
		{NewNetwork: true},
		{DisplayName: "  ", NewNetwork: true},
		{DisplayName: "Ann\x1b", NewNetwork: true},
		{DisplayName: "Ann"},
		{DisplayName: "Ann", Seeds: []string{"10.0.0.1"}},
		{DisplayName: "Ann", Seeds: []string{"10.0.0.1:7400", "10.0.0.1:7400"}},
	} {
		if err := s.Setup(bad); err == nil {
			t.Errorf("Setup(%+v) accepted", bad)
		}
	}
	if !s.NeedsSetup() {
		t.Error("set up after refused setups")
	}
}

// Setting up a new network stores the display name, makes this servant
// its seed, ends the first run and announces the new status.
func testSetupNewNetwork(t *testing.T, s Subject) {
	if err := s.Setup(app.Setup{DisplayName: " Ann ", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "StatusChanged after Setup", kind(app.StatusChanged))
	if s.NeedsSetup() {
		t.Error("still needs setting up")
	}
	if got := s.Settings().DisplayName; got != "Ann" {
		t.Errorf("display name %q", got)
	}
	if seeds := s.Seeds(); len(seeds) != 1 {
		t.Errorf("seeds %q, want this servant's address", seeds)
	} else if err := app.CheckAddress(seeds[0]); err != nil {
		t.Errorf("seed %q: %v", seeds[0], err)
	}
}

// Joining stores the seeds as given.
func testSetupJoin(t *testing.T, s Subject) {
	seeds := []string{"127.0.0.1:1", "127.0.0.2:1"} // nothing listens there
	if err := s.Setup(app.Setup{DisplayName: "Sam", Seeds: seeds}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "StatusChanged after Setup", kind(app.StatusChanged))
	if s.NeedsSetup() {
		t.Error("still needs setting up")
	}
	if got := s.Seeds(); !slices.Equal(got, seeds) {
		t.Errorf("seeds %q, want %q", got, seeds)
	}
}

// A probe of something that is no address fails, saying why, in words
// and by kind.
func testProbe(t *testing.T, s Subject) {
	p := s.Probe(context.Background(), "no-port")
	if p.OK || p.Problem == "" || p.Addr != "no-port" || p.Kind != app.ProbeBadAddress {
		t.Errorf("probe %+v", p)
	}
}

// A retraction hides an item from every list, search and count; the item
// itself stays readable, marked retracted with the reason, and My posts
// keeps one's own. Read marks no longer apply to it. The change is
// announced with ItemsRetracted. An admin's retraction of an item not here yet hides it when
// it arrives. (A new installation is its network's admin, so it may
// retract any item.)
func testRetract(t *testing.T, s Subject) {
	tb := s.App
	if !tb.IsAdmin() {
		t.Fatal("a new installation is not the admin of its network")
	}
	x := received(1, "company", "Wrong date", "The party is on Friday.", 10)
	y := received(2, "company", "Right date", "The party is on Saturday.", 20)
	receive(t, s, x, y)
	mine, err := s.Publish(app.Draft{Category: "it", Title: "My party post"})
	if err != nil {
		t.Fatal(err)
	}

	if err := tb.Retract(x.ID, "  Date moved "); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ItemsRetracted after Retract", announced(app.ItemsRetracted, x.ID, "company"))
	e := item(t, s, x.ID)
	if e.Retracted == nil || e.Retracted.Reason != "Date moved" || e.Retracted.ItemID != x.ID {
		t.Errorf("retracted item: %+v", e.Retracted)
	}
	if got := listed(t, s); slices.Contains(got, x.ID) || len(got) != 2 {
		t.Errorf("Newest lists %v after the retraction of %v", got, x.ID)
	}
	if got := listed(t, s, "company"); !slices.Equal(got, []uuid.UUID{y.ID}) {
		t.Errorf("Newest(company) lists %v", got)
	}
	if es, _, err := s.Search(context.Background(), "party", nil, 10, ""); err != nil || !slices.Equal(entryIDs(es), []uuid.UUID{mine.ID, y.ID}) {
		t.Errorf("Search lists %v, %v", entryIDs(es), err)
	}
	wantCounts(t, s, map[string]uint64{"company": 1})
	if err := s.MarkRead(x.ID); err != nil {
		t.Errorf("MarkRead of a retracted item: %v", err)
	}
	if item(t, s, x.ID).Read {
		t.Error("MarkRead marked a retracted item read")
	}
	wantCounts(t, s, map[string]uint64{"company": 1})
	if err := tb.Retract(x.ID, "Again"); err != nil {
		t.Errorf("retracting again: %v", err)
	}
	if r := item(t, s, x.ID).Retracted; r == nil || r.Reason != "Date moved" {
		t.Errorf("a second retraction replaced the first: %+v", r)
	}

	if err := tb.Retract(mine.ID, ""); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ItemsRetracted after retracting one's own", announced(app.ItemsRetracted, mine.ID, "it"))
	if es, _, err := s.MyPosts(10, ""); err != nil || len(es) != 1 || es[0].Item.ID != mine.ID || es[0].Retracted == nil {
		t.Errorf("MyPosts after the retraction: %+v, %v", es, err)
	}
	if got := listed(t, s); !slices.Equal(got, []uuid.UUID{y.ID}) {
		t.Errorf("Newest lists %v", got)
	}
	if err := tb.Retract(uuid.Nil, ""); err == nil {
		t.Error("retracting the nil ID accepted")
	}

	// An admin may retract an item not here yet: it arrives hidden.
	later := received(3, "company", "Not here yet", "", 30)
	if err := tb.Retract(later.ID, "Premature"); err != nil {
		t.Fatalf("retracting an item not here yet: %v", err)
	}
	receive(t, s, later)
	if e := item(t, s, later.ID); e.Retracted == nil || e.Retracted.Reason != "Premature" {
		t.Errorf("the item arrived after its retraction: %+v", e.Retracted)
	}
	if got := listed(t, s); !slices.Equal(got, []uuid.UUID{y.ID}) {
		t.Errorf("Newest lists %v", got)
	}
	wantCounts(t, s, map[string]uint64{"company": 1})
}

// Retracting a correction retracts the versions it corrects, so the story
// does not come back in its earlier version.
func testRetractCorrection(t *testing.T, s Subject) {
	tb := s.App
	orig := received(1, "hr", "Closed on 2 October", "", 10)
	corr := received(2, "hr", "Closed on 3 October", "", 20)
	corr.Supersedes = orig.ID
	other := received(3, "hr", "Canteen menu", "", 30)
	receive(t, s, orig, corr, other)
	if err := tb.Retract(corr.ID, "No closure after all"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uuid.UUID{orig.ID, corr.ID} {
		if e := item(t, s, id); e.Retracted == nil {
			t.Errorf("%s is not retracted", e.Item.Title)
		}
	}
	if got := listed(t, s); !slices.Equal(got, []uuid.UUID{other.ID}) {
		t.Errorf("Newest lists %v, want only %v", got, other.ID)
	}
	wantCounts(t, s, map[string]uint64{"hr": 1})
}

// Each action is announced with the event that says what happened, so
// that the UI refreshes and decides on notifications without guessing:
// read-state changes with ReadStateChanged, one's own posts with
// ItemsPublished (naming the urgent ones), retractions with ItemsRetracted;
// none of them with ItemsArrived, not even a post in a category this
// installation subscribes to (await fails on one, up to the last event
// before the closing CatalogChanged).
func testEvents(t *testing.T, s Subject) {
	x := received(1, "company", "Canteen menu", "", 10)
	y := received(2, "it", "Printer fixed", "", 20)
	receive(t, s, x, y)
	if err := s.SetSubscriptions([]string{"company", "it"}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "CatalogChanged after SetSubscriptions", kind(app.CatalogChanged))
	tb := s.App
	var urgentPost, plainPost uuid.UUID
	publish := func(id *uuid.UUID, d app.Draft) func() error {
		return func() error {
			r, err := s.Publish(d)
			*id = r.ID
			return err
		}
	}
	for _, c := range []struct {
		action string
		do     func() error
		want   app.EventKind
		id     *uuid.UUID
		cat    string
		urgent bool
	}{
		{"MarkRead", func() error { return s.MarkRead(x.ID) }, app.ReadStateChanged, &x.ID, "company", false},
		{"MarkUnread", func() error { return s.MarkUnread(x.ID) }, app.ReadStateChanged, &x.ID, "company", false},
		{"MarkAllRead(it)", func() error { return s.MarkAllRead("it") }, app.ReadStateChanged, &y.ID, "it", false},
		{"MarkAllRead()", func() error { return s.MarkAllRead("") }, app.ReadStateChanged, &x.ID, "company", false},
		{"Publish(urgent)", publish(&urgentPost, app.Draft{Category: "it", Title: "E-mail down", Urgent: true}), app.ItemsPublished, &urgentPost, "it", true},
		{"Publish", publish(&plainPost, app.Draft{Category: "company", Title: "Town hall"}), app.ItemsPublished, &plainPost, "company", false},
		{"Retract(own post)", func() error { return tb.Retract(urgentPost, "") }, app.ItemsRetracted, &urgentPost, "it", false},
		{"Retract(someone else's, as admin)", func() error { return tb.Retract(y.ID, "Wrong") }, app.ItemsRetracted, &y.ID, "it", false},
	} {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.action, err)
		}
		ev := await(t, s, fmt.Sprintf("%s after %s", c.want, c.action), announced(c.want, *c.id, c.cat))
		if got := slices.Contains(ev.Urgent, *c.id); got != c.urgent || !c.urgent && len(ev.Urgent) > 0 {
			t.Errorf("%s: %s names %v urgent; want urgent %v", c.action, ev.Kind, ev.Urgent, c.urgent)
		}
	}
	if err := s.SetSubscriptions([]string{"company"}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "CatalogChanged after everything else", kind(app.CatalogChanged))
}

// An item that arrives from the network is announced with ItemsArrived,
// naming it and its category, and among Urgent when it is urgent; it is
// listed, unread, as someone else's. Reading it is a read-state change, no
// second arrival.
func testArrival(t *testing.T, s Subject) {
	if s.Arrive == nil {
		t.Skip("no network to arrive from")
	}
	if err := s.SetSubscriptions([]string{"company", "it"}); err != nil {
		t.Fatal(err)
	}
	urgent, err := s.Arrive(app.Draft{Category: "it", Title: "E-mail down", Body: "Call the help desk.", Urgent: true})
	if err != nil {
		t.Fatal(err)
	}
	ev := await(t, s, "ItemsArrived with the urgent item", announced(app.ItemsArrived, urgent, "it"))
	if !slices.Contains(ev.Urgent, urgent) {
		t.Errorf("the arrival of an urgent item names %v urgent", ev.Urgent)
	}
	plain, err := s.Arrive(app.Draft{Category: "company", Title: "Canteen menu", Body: "Soup."})
	if err != nil {
		t.Fatal(err)
	}
	ev = await(t, s, "ItemsArrived with the plain item", announced(app.ItemsArrived, plain, "company"))
	if slices.Contains(ev.Urgent, plain) {
		t.Errorf("the arrival of a plain item names %v urgent", ev.Urgent)
	}
	for _, id := range []uuid.UUID{urgent, plain} {
		if e := item(t, s, id); e.Read || e.Retracted != nil || e.Item.Source.String() == s.Status().Source {
			t.Errorf("arrived %q: read %v, retracted %v, source %v (own %s)", e.Item.Title, e.Read, e.Retracted, e.Item.Source, s.Status().Source)
		}
	}
	if got := listed(t, s); !slices.Equal(got, []uuid.UUID{plain, urgent}) {
		t.Errorf("Newest lists %v, want %v", got, []uuid.UUID{plain, urgent})
	}
	wantCounts(t, s, map[string]uint64{"company": 1, "it": 1})
	if err := s.MarkRead(plain); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ReadStateChanged after reading an arrival", announced(app.ReadStateChanged, plain, "company"))
}

// Invitations (ui.InviteBackend): made only once the servant runs (after
// Setup), with a code that parses and names this network; listed with
// their uses left and never their codes again; revoked at once. The rules
// on uses, validity and categories are the application's.
func testInvitations(t *testing.T, s Subject) {
	ib := s.App
	tb := s.App
	if _, err := ib.CreateInvitation(app.InviteOptions{}); !errors.Is(err, app.ErrNotRunning) {
		t.Errorf("before setup: %v, want ErrNotRunning", err)
	}
	if err := s.Setup(app.Setup{DisplayName: "Ann", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	await(t, s, "StatusChanged after Setup", kind(app.StatusChanged))
	v, err := ib.CreateInvitation(app.InviteOptions{Uses: 2, Expires: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	code, err := trust.ParseInviteCode(v.Code)
	if err != nil {
		t.Fatalf("code %q: %v", v.Code, err)
	}
	if code.Network != trust.NetworkFingerprint(&tb.Network().Network) || code.ID != v.ID {
		t.Errorf("the code names another network or invitation: %+v", code)
	}
	if v.Uses != 2 || v.UsesLeft != 2 || v.State != "active" || v.Publisher || time.Until(v.Expires) < 47*time.Hour {
		t.Errorf("invitation %+v", v)
	}
	pub, err := ib.CreateInvitation(app.InviteOptions{Publisher: true, Categories: []string{"it", "hr"}})
	if err != nil {
		t.Fatal(err)
	}
	if pub.Uses != 1 || !pub.Publisher || !slices.Equal(pub.Categories, []string{"hr", "it"}) || time.Until(pub.Expires) < 6*24*time.Hour {
		t.Errorf("publisher invitation with defaults %+v", pub)
	}
	for _, bad := range []app.InviteOptions{
		{Uses: -1}, {Uses: 1001}, {Expires: time.Second}, {Expires: 91 * 24 * time.Hour},
		{Categories: []string{"it"}}, {Publisher: true, Categories: []string{"no-such-category"}},
	} {
		if _, err := ib.CreateInvitation(bad); err == nil {
			t.Errorf("CreateInvitation(%+v) accepted", bad)
		}
	}
	l, err := ib.Invitations()
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].ID != v.ID || l[1].ID != pub.ID || l[0].Code != "" || l[0].UsesLeft != 2 {
		t.Fatalf("list %+v", l)
	}
	if err := ib.RevokeInvitation(v.ID); err != nil {
		t.Fatal(err)
	}
	if err := ib.RevokeInvitation("AAAAAAAAAAAA"); !errors.Is(err, app.ErrUnknownInvitation) {
		t.Errorf("revoking an unknown invitation: %v", err)
	}
	if l, _ = ib.Invitations(); l[0].State != "revoked" || l[0].UsesLeft != 0 || l[1].State != "active" {
		t.Errorf("after revoking: %+v", l)
	}
	if err := ib.JoinByInvitation(context.Background(), pub.Code, app.Setup{DisplayName: "Ann"}); err == nil {
		t.Error("joined by invitation after setup")
	}
}

// Joining by invitation is refused without a display name, with a code
// that does not parse, and with one whose servants do not answer; each
// refusal leaves the installation as it was.
func testJoinByInvitationRefused(t *testing.T, s Subject) {
	ib := s.App
	id, _ := trust.NewInviteID()
	tok, _ := trust.NewInviteToken()
	signer, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	c := &trust.InviteCode{ID: id, Token: tok, Via: "127.0.0.1:1", Seeds: []string{"127.0.0.2:1"}}
	c.SignVia(signer)
	nobody := c.String()
	tampered := strings.Replace(nobody, "&via=127.0.0.1:1&", "&via=127.0.0.1:2&", 1)
	for _, c := range []struct{ code, name string }{
		{nobody, ""},
		{"10.0.0.1:7400", "Ann"},
		{nobody[:len(nobody)-20], "Ann"},
		{tampered, "Ann"},
		{nobody, "Ann"},
	} {
		if err := ib.JoinByInvitation(context.Background(), c.code, app.Setup{DisplayName: c.name}); err == nil {
			t.Errorf("JoinByInvitation(%.40q, %q) accepted", c.code, c.name)
		}
	}
	if !s.NeedsSetup() || len(s.Seeds()) != 0 {
		t.Errorf("after refusals: setup needed %v, seeds %q", s.NeedsSetup(), s.Seeds())
	}
}
