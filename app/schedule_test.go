package app

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/news"
	"newsdesk/trust"
)

// schedNet is a publisher with an archive and a reader of "it" on a
// simulated network. The archive is the seed, so the publisher can stop
// and start again while the others stay attached.
type schedNet struct {
	pubDir              string
	admin               *trust.Identity // the network's admin
	opts                Options         // the publisher's
	pub, archive, other *App
}

func newSchedNet(t *testing.T, sn *simNet, log *slog.Logger) *schedNet {
	t.Helper()
	n := &schedNet{pubDir: t.TempDir()}
	admin, def, _ := apptest.PublishersNetwork(t, n.pubDir)
	n.admin = admin
	n.archive = sn.open(t, Options{Start: true, Network: def, Archive: true})
	n.other = sn.open(t, Options{Start: true, Network: def, Seeds: []string{n.archive.Addr()}, Subscriptions: []string{"it"}})
	n.opts = Options{DataDir: n.pubDir, Start: true, Network: def, Seeds: []string{n.archive.Addr()}, Logger: log}
	n.pub = sn.open(t, n.opts)
	n.pub.waitRouted(t, "it")
	return n
}

// all is every App of the network.
func (n *schedNet) all() []*App { return []*App{n.pub, n.archive, n.other} }

// holds reports nil when s lists and shows item id, else why not.
func holds(s *App, id uuid.UUID) error {
	list, _, err := s.Newest(nil, 50, "")
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(list, func(e Entry) bool { return e.Item.ID == id }) {
		return fmt.Errorf("%s does not list %s", s.Addr(), id)
	}
	return nil
}

// invisible fails t if any of apps knows item id: stored, listed, or (but
// for its publisher's Scheduled) in My posts.
func invisible(t *testing.T, id uuid.UUID, apps ...*App) {
	t.Helper()
	settle(t)
	for _, s := range apps {
		if has, err := s.store.Has(id); err != nil || has {
			t.Errorf("%s stores %s (%v) before its time", s.Addr(), id, err)
		}
		if _, err := s.Item(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: Item(%s) = %v, want ErrNotFound", s.Addr(), id, err)
		}
		if holds(s, id) == nil {
			t.Errorf("%s lists %s before its time", s.Addr(), id)
		}
		if mine, _, _ := s.MyPosts(50, ""); slices.ContainsFunc(mine, func(e Entry) bool { return e.Item.ID == id }) {
			t.Errorf("%s: My posts lists %s", s.Addr(), id)
		}
	}
}

func scheduledIDs(t *testing.T, a *App) []uuid.UUID {
	t.Helper()
	list, err := a.Scheduled()
	if err != nil {
		t.Fatal(err)
	}
	return convert(list, func(p ScheduledPost) uuid.UUID { return p.Item.ID })
}

// A scheduled item is invisible everywhere until its time (on its
// publisher it is only in Scheduled), then goes out at once: every servant
// has it within seconds, numbered and signed, with At the scheduled time.
func TestScheduledItemGoesOutAtItsTime(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		n := newSchedNet(t, sn, nil)
		at := time.Now().Add(10 * time.Minute)
		res, err := n.pub.Publish(Draft{Category: "it", Title: "Canteen opens", Body: "At noon.", At: at, Expires: at.Add(time.Hour)})
		if err != nil || res.Outcome != Scheduled {
			t.Fatalf("Publish = %+v, %v; want scheduled", res, err)
		}
		id := res.ID
		if got := scheduledIDs(t, n.pub); !slices.Equal(got, []uuid.UUID{id}) {
			t.Fatalf("Scheduled = %v, want %v", got, id)
		}
		if !news.IDTime(id).Equal(at.Truncate(time.Millisecond)) {
			t.Errorf("ID time %v, want the publication time %v", news.IDTime(id), at)
		}
		invisible(t, id, n.all()...)

		time.Sleep(time.Until(at) - time.Second)
		invisible(t, id, n.all()...)
		for _, s := range n.all() {
			if u, _ := s.UnreadCounts(); u["it"] != 0 {
				t.Errorf("%s counts %d unread in it", s.Addr(), u["it"])
			}
		}

		time.Sleep(time.Second)
		for _, s := range n.all() {
			waitForUpTo(t, 3*time.Second, "the item on "+s.Addr(), func() error { return holds(s, id) })
		}
		e, err := n.other.Item(id)
		if err != nil {
			t.Fatal(err)
		}
		it := e.Item
		if !it.At.Equal(at) || !it.Created.Before(it.At) || it.SourceCount == 0 || len(it.Signature) == 0 || it.Body != "At noon." {
			t.Errorf("received %+v; want At %v after Created, numbered and signed", it, at)
		}
		if got := scheduledIDs(t, n.pub); len(got) != 0 {
			t.Errorf("still scheduled after it went out: %v", got)
		}
		mine, _, err := n.pub.MyPosts(10, "")
		if err != nil || len(mine) != 1 || mine[0].Item.ID != id || SentLate(mine[0].Item) {
			t.Errorf("My posts = %+v, %v; want the item, not sent late", mine, err)
		}
	})
}

// A publisher that is not running at an item's time sends it when it next
// starts, marked and logged as sent late; until then nobody has it.
// Scheduled items survive the restart.
func TestScheduledItemSentLateAtStart(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		var log lockedBuffer
		n := newSchedNet(t, sn, slog.New(slog.NewTextHandler(&log, nil)))
		at := time.Now().Add(5 * time.Minute)
		res, err := n.pub.Publish(Draft{Category: "it", Title: "Board meeting", At: at})
		if err != nil || res.Outcome != Scheduled {
			t.Fatalf("Publish = %+v, %v", res, err)
		}
		if err := n.pub.Close(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(at) + time.Hour)
		invisible(t, res.ID, n.archive, n.other)

		n.pub = sn.open(t, n.opts)
		n.pub.WaitScheduledAtStart()
		if got := scheduledIDs(t, n.pub); len(got) != 0 {
			t.Errorf("still scheduled after the first pass: %v", got)
		}
		for _, s := range n.all() {
			waitFor(t, "the late item on "+s.Addr(), func() error { return holds(s, res.ID) })
		}
		mine, _, err := n.pub.MyPosts(10, "")
		if err != nil || len(mine) != 1 || !SentLate(mine[0].Item) {
			t.Errorf("My posts = %+v, %v; want the item marked sent late", mine, err)
		}
		if e, _ := n.other.Item(res.ID); !e.Item.At.Equal(at) {
			t.Errorf("received At %v, want the scheduled time %v", e.Item.At, at)
		}
		if !strings.Contains(log.String(), "sent late at start") {
			t.Errorf("the log does not say the item was sent late at start:\n%s", log.String())
		}
		if got := scheduledIDs(t, n.pub); len(got) != 0 {
			t.Errorf("still scheduled: %v", got)
		}
	})
}

// Scheduled items are kept across a restart in the order they are due; a
// cancelled one never goes out, and cancelling it again is ErrNotFound;
// the other goes out at its time.
func TestCancelScheduled(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		n := newSchedNet(t, sn, nil)
		now := time.Now()
		later, err := n.pub.Publish(Draft{Category: "it", Title: "Later", At: now.Add(2 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		sooner, err := n.pub.Publish(Draft{Category: "it", Title: "Sooner", At: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.pub.Close(); err != nil {
			t.Fatal(err)
		}
		n.pub = sn.open(t, n.opts)
		if got, want := scheduledIDs(t, n.pub), []uuid.UUID{sooner.ID, later.ID}; !slices.Equal(got, want) {
			t.Fatalf("after a restart Scheduled = %v, want %v", got, want)
		}
		if err := n.pub.CancelScheduled(sooner.ID); err != nil {
			t.Fatal(err)
		}
		if err := n.pub.CancelScheduled(sooner.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("cancelling again = %v, want ErrNotFound", err)
		}
		if got := scheduledIDs(t, n.pub); !slices.Equal(got, []uuid.UUID{later.ID}) {
			t.Errorf("after cancelling Scheduled = %v", got)
		}
		time.Sleep(3 * time.Hour)
		for _, s := range n.all() {
			waitFor(t, "the other item on "+s.Addr(), func() error { return holds(s, later.ID) })
		}
		invisible(t, sooner.ID, n.archive, n.other)
		if has, _ := n.pub.store.Has(sooner.ID); has {
			t.Error("the publisher stored the cancelled item")
		}
		if err := n.pub.CancelScheduled(later.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("cancelling a sent item = %v, want ErrNotFound", err)
		}
	})
}

// Bad times are refused with the field and the rule, and nothing is
// scheduled; a time within ScheduleTolerance of now publishes now.
func TestScheduleRefused(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		n := newSchedNet(t, sn, nil)
		now := time.Now()
		for name, tc := range map[string]struct {
			d     Draft
			field news.Field
			rule  news.Rule
		}{
			"past":           {Draft{At: now.Add(-time.Minute)}, news.FieldAt, news.RulePast},
			"expires first":  {Draft{At: now.Add(time.Hour), Expires: now.Add(time.Minute)}, news.FieldExpires, news.RuleNotAfter},
			"expires at at":  {Draft{At: now.Add(time.Hour), Expires: now.Add(time.Hour)}, news.FieldExpires, news.RuleNotAfter},
			"out of range":   {Draft{At: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}, news.FieldAt, news.RuleOutOfRange},
			"expires passed": {Draft{At: now.Add(time.Hour), Expires: now.Add(-time.Minute)}, news.FieldExpires, news.RulePast},
		} {
			tc.d.Category, tc.d.Title = "it", name
			if _, err := n.pub.Publish(tc.d); !isField(err, tc.field, tc.rule) {
				t.Errorf("%s: %v, want %s: %s", name, err, tc.field, tc.rule)
			}
		}
		if got := scheduledIDs(t, n.pub); len(got) != 0 {
			t.Errorf("scheduled %v", got)
		}
		res, err := n.pub.Publish(Draft{Category: "it", Title: "Now", At: time.Now().Add(ScheduleTolerance / 2)})
		if err != nil || res.Outcome == Scheduled {
			t.Fatalf("a time within the tolerance: %+v, %v; want published now", res, err)
		}
		if e, err := n.pub.Item(res.ID); err != nil || !e.Item.At.IsZero() {
			t.Errorf("published now: %+v, %v; want no At", e.Item, err)
		}
	})
}

// A scheduled item that may not go out when due (the network definition
// took the category from its publisher meanwhile) stays scheduled with the
// reason, seen by nobody else, and goes out once it may again.
func TestScheduledItemHeldBack(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		n := newSchedNet(t, sn, nil)
		at := time.Now().Add(time.Hour)
		res, err := n.pub.Publish(Draft{Category: "it", Title: "Held back", At: at})
		if err != nil {
			t.Fatal(err)
		}
		next := func(categories ...string) *trust.SignedNetwork {
			t.Helper()
			nw := n.pub.Network().Network.Clone()
			nw.Version++
			for i, p := range nw.Publishers {
				if p.Key.Equal(n.pub.Identity().Public) {
					nw.Publishers[i].Categories = categories
				}
			}
			sn, err := n.admin.SignNetwork(nw)
			if err != nil {
				t.Fatal(err)
			}
			return sn
		}
		if err := n.pub.ImportNetwork(next("hr")); err != nil {
			t.Fatal(err)
		}
		if err := n.pub.MayPublish("it"); err == nil {
			t.Fatalf("still a publisher of it: %+v", n.pub.Network().Publishers)
		}
		time.Sleep(time.Until(at) + time.Minute)
		list, err := n.pub.Scheduled()
		if err != nil || len(list) != 1 || !strings.Contains(list[0].Problem, "may not publish") {
			t.Fatalf("Scheduled = %+v, %v; want the item with the reason it waits", list, err)
		}
		if na, ok := errors.AsType[*NotAllowedError](list[0].Err); !ok || na.Category != "it" {
			t.Errorf("the reason it waits is %#v, want a NotAllowedError for it", list[0].Err)
		}
		invisible(t, res.ID, n.all()...)

		if err := n.pub.ImportNetwork(next("it")); err != nil {
			t.Fatal(err)
		}
		for _, s := range n.all() {
			waitForUpTo(t, 2*scheduleCheckEvery, "the item on "+s.Addr(), func() error { return holds(s, res.ID) })
		}
		if list, _ := n.pub.Scheduled(); len(list) != 0 {
			t.Errorf("still scheduled: %+v", list)
		}
	})
}

// lockedBuffer is a log the App's goroutines write to while the test reads
// it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
