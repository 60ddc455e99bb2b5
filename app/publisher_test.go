package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
)

// readerAndPublisher starts a reader (the vertex, subscribed to "it") and a
// publisher attached under it on sn, and waits until the publisher knows the
// reader's subscription.
func readerAndPublisher(t *testing.T, sn *simNet) (reader, pub *App) {
	t.Helper()
	return readerAndPublisherWith(t, sn, Options{})
}

// readerAndPublisherWith is readerAndPublisher with the publisher's
// options pubOpts (Start and Seeds set).
func readerAndPublisherWith(t *testing.T, sn *simNet, pubOpts Options) (reader, pub *App) {
	t.Helper()
	reader = sn.open(t, Options{Start: true, Subscriptions: []string{"it"}})
	pubOpts.Start, pubOpts.Seeds = true, []string{reader.Addr()}
	pub = sn.open(t, pubOpts)
	waitFor(t, "the publisher to learn the reader's subscription", func() error {
		for _, l := range pub.Status().Links {
			if l.Peer == reader.Addr() && slices.Equal(l.Received, newsnet.CategorySet{"it"}) {
				return nil
			}
		}
		return fmt.Errorf("links %+v", pub.Status().Links)
	})
	return reader, pub
}

// setVar sets *p to v for the rest of the test.
func setVar[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// checkOwnCounts checks that the publisher stored exactly the items ids
// (and the first n-len(ids) before them) with the consecutive counts 1..n,
// and returns the count of each ID.
func checkOwnCounts(t *testing.T, pub *App, n int, ids map[uuid.UUID]bool) map[uuid.UUID]uint64 {
	t.Helper()
	items, err := pub.store.ItemsAfter(pub.Source(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != n {
		t.Fatalf("publisher stored %d own items, want %d", len(items), n)
	}
	counts := make(map[uuid.UUID]uint64, n)
	for i, it := range items {
		if it.SourceCount != uint64(i+1) {
			t.Fatalf("own item %d has count %d", i, it.SourceCount)
		}
		counts[it.ID] = it.SourceCount
	}
	for id := range ids {
		if _, ok := counts[id]; !ok {
			t.Fatalf("answered publication %s is not stored", id)
		}
	}
	if c, err := pub.store.SourceCount(pub.Source()); err != nil || c != uint64(n) {
		t.Fatalf("publisher's stored count %d, %v; want %d", c, err, n)
	}
	return counts
}

// waitReceived waits until reader holds every item of counts (by ID), with
// the publisher's counts.
func waitReceived(t *testing.T, reader, pub *App, counts map[uuid.UUID]uint64) {
	t.Helper()
	waitForUpTo(t, 30*time.Second, "the reader to hold every item", func() error {
		items, err := reader.store.ItemsAfter(pub.Source(), 0, 0)
		if err != nil {
			return err
		}
		for _, it := range items {
			if c, ok := counts[it.ID]; !ok || c != it.SourceCount {
				t.Fatalf("reader holds %s with count %d; the publisher gave it %d (known %v)", it.ID, it.SourceCount, c, ok)
			}
		}
		if len(items) != len(counts) {
			return fmt.Errorf("%d of %d", len(items), len(counts))
		}
		return nil
	})
}

// waitOutboxEmpty waits until every publication of a has gone out.
func waitOutboxEmpty(t *testing.T, a *App) {
	t.Helper()
	waitFor(t, "the outbox to empty", func() error {
		if ob, err := a.store.Outbox(); err != nil || len(ob) != 0 {
			return fmt.Errorf("%d entries, %v", len(ob), err)
		}
		return nil
	})
}

// Concurrent publications are numbered 1..n without a gap, each stored
// (read, in My posts) before its answer, each delivered once to the reader
// with the count it was stored with; own-last follows the categories, and
// the outbox empties as they go out.
func TestPublishConcurrent(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		reader, pub := readerAndPublisher(t, sn)
		const workers, each = 16, 25
		var (
			mu  sync.Mutex
			ids = map[uuid.UUID]bool{}
			wg  sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					cat := "it"
					if i%5 == 4 {
						cat = "hr" // nobody reads hr: suppressed
					}
					r, err := pub.Publish(Draft{Category: cat, Title: fmt.Sprintf("%s %d/%d", cat, w, i)})
					if err != nil {
						t.Errorf("Publish: %v", err)
						return
					}
					if want := map[string]Outcome{"it": Delivered, "hr": Suppressed}[cat]; r.Outcome != want {
						t.Errorf("%s publication: outcome %v, want %v", cat, r.Outcome, want)
					}
					// Stored and numbered before the answer.
					if e, err := pub.Item(r.ID); err != nil || e.Item.SourceCount == 0 || !e.Read {
						t.Errorf("publication %s after its answer: %+v, %v", r.ID, e, err)
					}
					mu.Lock()
					ids[r.ID] = true
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		counts := checkOwnCounts(t, pub, workers*each, ids)
		want := map[string]uint64{}
		itCounts := map[uuid.UUID]uint64{}
		for id, c := range counts {
			e, _ := pub.Item(id)
			want[e.Item.Category] = max(want[e.Item.Category], c)
			if e.Item.Category == "it" {
				itCounts[id] = c
			}
		}
		if last, known, err := pub.store.OwnLast(); err != nil || !known || !maps.Equal(last, want) {
			t.Errorf("OwnLast = %v, %v, %v; want %v", last, known, err, want)
		}
		waitReceived(t, reader, pub, itCounts)
		waitOutboxEmpty(t, pub)
	})
}

// blockingHandOff makes the publisher's servants take nothing until
// release is closed, as a backlogged servant does.
type blockingHandOff struct {
	release chan struct{}
	waiting atomic.Int32 // hand-offs held back right now
}

// readerAndHeldPublisher is readerAndPublisher with a publisher whose
// servants (this one and any it restarts with) hold every PublishBatch
// back until hold.free.
func readerAndHeldPublisher(t *testing.T, sn *simNet) (reader, pub *App, hold *blockingHandOff) {
	t.Helper()
	hold = &blockingHandOff{release: make(chan struct{})}
	t.Cleanup(hold.free)
	start := func(cfg node.Config) (Servant, error) {
		n, err := sn.start(cfg)
		if err != nil {
			return nil, err
		}
		return heldServant{n, hold}, nil
	}
	reader, pub = readerAndPublisherWith(t, sn, Options{StartServant: start})
	return reader, pub, hold
}

// heldServant is a servant whose PublishBatch waits for b.release (or
// for its context to end).
type heldServant struct {
	Servant
	b *blockingHandOff
}

func (h heldServant) PublishBatch(ctx context.Context, ms []*newsnet.Multicast) ([]newsnet.Published, error) {
	h.b.waiting.Add(1)
	defer h.b.waiting.Add(-1)
	select {
	case <-h.b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.Servant.PublishBatch(ctx, ms)
}

func (b *blockingHandOff) free() {
	select {
	case <-b.release:
	default:
		close(b.release)
	}
}

// While the servant takes nothing (backlogged), a publication is still
// stored and numbered and answered Queued after publishWait, in bounded
// time; once the servant takes them again they go out in count order and
// reach the reader, and the outbox empties.
func TestPublishBackpressureAnswersQueued(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		setVar(t, &publishWait, 100*time.Millisecond)
		reader, pub, hold := readerAndHeldPublisher(t, sn)

		ids := map[uuid.UUID]bool{}
		for i := range 3 {
			r, err := pub.Publish(Draft{Category: "it", Title: fmt.Sprintf("held %d", i)})
			if err != nil || r.Outcome != Queued {
				t.Fatalf("publication %d while backlogged = %+v, %v; want queued", i, r, err)
			}
			if hold.waiting.Load() != 1 {
				t.Fatalf("%d hand-offs waiting, want the first one only", hold.waiting.Load())
			}
			ids[r.ID] = true
		}
		counts := checkOwnCounts(t, pub, 3, ids)
		if ob, err := pub.store.Outbox(); err != nil || len(ob) != 3 {
			t.Fatalf("outbox holds %d, %v; want the 3 held publications", len(ob), err)
		}
		hold.free()
		waitReceived(t, reader, pub, counts)
		waitOutboxEmpty(t, pub)
		// Delivered in count order: the reader keeps the publisher's progress.
		waitFor(t, "the reader's count of the publisher", func() error {
			if n, err := reader.store.SourceCount(pub.Source()); err != nil || n != 3 {
				return fmt.Errorf("%d, %v; want 3", n, err)
			}
			return nil
		})
	})
}

// When the servant is so far behind that the stored publications waiting
// for it reach maxUnsentBytes, a new publication is not stored: it fails
// with ErrBusy after publishBusyWait and uses no count.
func TestPublishBusy(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		setVar(t, &publishWait, 50*time.Millisecond)
		setVar(t, &publishBusyWait, 100*time.Millisecond)
		setVar(t, &maxUnsentBytes, 1)
		reader, pub, hold := readerAndHeldPublisher(t, sn)

		first, err := pub.Publish(Draft{Category: "it", Title: "first"})
		if err != nil || first.Outcome != Queued {
			t.Fatalf("first publication = %+v, %v; want queued", first, err)
		}
		if _, err := pub.Publish(Draft{Category: "it", Title: "refused"}); !errors.Is(err, ErrBusy) {
			t.Fatalf("publication beyond the backlog = %v, want ErrBusy", err)
		}
		checkOwnCounts(t, pub, 1, map[uuid.UUID]bool{first.ID: true})

		hold.free()
		next, err := pub.Publish(Draft{Category: "it", Title: "after"})
		if err != nil || next.Outcome != Delivered {
			t.Fatalf("publication once caught up = %+v, %v; want delivered", next, err)
		}
		counts := checkOwnCounts(t, pub, 2, map[uuid.UUID]bool{first.ID: true, next.ID: true})
		waitReceived(t, reader, pub, counts)
	})
}

// Publications made while the servant restarts (new seeds, or the desktop
// app's settings) reach the reader each once, with the count they were
// stored with: the ones the old servant had not taken go out of the outbox
// from the new one, before anything published later.
func TestPublishAcrossRestarts(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		reader, pub := readerAndPublisher(t, sn)
		const workers, each = 4, 60
		var (
			mu   sync.Mutex
			ids  = map[uuid.UUID]bool{}
			wg   sync.WaitGroup
			done atomic.Int32
		)
		for w := range workers {
			wg.Go(func() {
				defer done.Add(1)
				for i := range each {
					r, err := pub.Publish(Draft{Category: "it", Title: fmt.Sprintf("%d/%d", w, i)})
					if err != nil {
						t.Errorf("Publish: %v", err)
						return
					}
					mu.Lock()
					ids[r.ID] = true
					mu.Unlock()
				}
			})
		}
		restarts := 0
		for done.Load() < workers || restarts == 0 {
			if err := pub.restart(); err != nil {
				t.Fatal(err)
			}
			restarts++
		}
		wg.Wait()
		t.Logf("%d restarts while publishing", restarts)
		counts := checkOwnCounts(t, pub, workers*each, ids)
		waitReceived(t, reader, pub, counts)
		waitOutboxEmpty(t, pub)
	})
}

// Close while publications are under way: each one either fails with
// ErrClosed or was stored, and what was stored is there after a reopen,
// numbered without a gap, with whatever had not gone out in the outbox.
func TestPublishClose(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		dir := t.TempDir()
		pub := sn.open(t, Options{DataDir: dir, Start: true, Seeds: []string{downAddr}}) // never attached: everything queues
		var (
			mu  sync.Mutex
			ids = map[uuid.UUID]bool{}
			wg  sync.WaitGroup
		)
		// The publishers never stop, so the bubble's clock never moves:
		// the test waits for the 20th answer, not for a time.
		start, some := make(chan struct{}), make(chan struct{})
		for w := range 8 {
			wg.Go(func() {
				<-start
				for i := 0; ; i++ {
					r, err := pub.Publish(Draft{Category: "it", Title: fmt.Sprintf("%d/%d", w, i)})
					if errors.Is(err, ErrClosed) {
						return
					}
					if err != nil {
						t.Errorf("Publish: %v", err)
						return
					}
					mu.Lock()
					ids[r.ID] = true
					if len(ids) == 20 {
						close(some)
					}
					mu.Unlock()
				}
			})
		}
		close(start)
		<-some
		if err := pub.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()

		again := sn.open(t, Options{DataDir: dir})
		items, err := again.store.ItemsAfter(again.Source(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[uuid.UUID]bool{}
		for i, it := range items {
			if it.SourceCount != uint64(i+1) {
				t.Fatalf("item %d has count %d", i, it.SourceCount)
			}
			stored[it.ID] = true
		}
		for id := range ids {
			if !stored[id] {
				t.Fatalf("answered publication %s not stored", id)
			}
		}
		ob, err := again.store.Outbox()
		if err != nil || len(ob) != len(items) {
			t.Fatalf("outbox holds %d of %d unsent publications, %v", len(ob), len(items), err)
		}
	})
}

// Publications stored before a restart and not yet taken by the old
// servant go out once, from the new servant's outbox, with their counts:
// the pipeline does not hand them to the new servant a second time (which
// would renumber them and everything after).
func TestPublishRestartWithBacklog(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		setVar(t, &publishWait, 50*time.Millisecond)
		reader, pub, hold := readerAndHeldPublisher(t, sn)
		ids := map[uuid.UUID]bool{}
		for i := range 3 {
			r, err := pub.Publish(Draft{Category: "it", Title: fmt.Sprintf("before %d", i)})
			if err != nil || r.Outcome != Queued {
				t.Fatalf("publication %d while held = %+v, %v; want queued", i, r, err)
			}
			ids[r.ID] = true
		}
		if err := pub.restart(); err != nil {
			t.Fatal(err)
		}
		hold.free()
		for i := range 2 {
			r, err := pub.Publish(Draft{Category: "it", Title: fmt.Sprintf("after %d", i)})
			if err != nil {
				t.Fatal(err)
			}
			ids[r.ID] = true
		}
		counts := checkOwnCounts(t, pub, 5, ids)
		waitReceived(t, reader, pub, counts)
		waitOutboxEmpty(t, pub)
	})
}

// The total of items that could not be recovered, which the servant
// reports in Lost actions, is persisted: it survives a restart, is shown
// before the servant starts, and the new servant counts on from it
// (Config.Lost), so /v1/status and the desktop app keep showing it.
func TestLostPersisted(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		dir := t.TempDir()
		a := sn.open(t, Options{DataDir: dir, Start: true})
		if st := a.Status(); st.Lost != 0 {
			t.Fatalf("a new installation has lost %d", st.Lost)
		}
		var changed atomic.Bool
		go func() {
			for e := range a.Events() {
				if e.Kind == StatusChanged {
					changed.Store(true)
				}
			}
		}()
		a.onLost(newsnet.Lost{Source: uuid.NewString(), N: 2, Total: 2})
		a.onLost(newsnet.Lost{Source: uuid.NewString(), N: 1, Total: 3})
		a.inbox.flush()
		if n, err := a.store.LostTotal(); err != nil || n != 3 {
			t.Fatalf("stored lost total %d, %v; want 3", n, err)
		}
		if st := a.Status(); st.Lost != 3 {
			t.Errorf("Status().Lost = %d, want 3", st.Lost)
		}
		waitFor(t, "a StatusChanged event", func() error {
			if !changed.Load() {
				return errors.New("none yet")
			}
			return nil
		})
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}

		b := sn.open(t, Options{DataDir: dir})
		if st := b.Status(); st.Role != RoleIdle || st.Lost != 3 {
			t.Errorf("before the start: role %s, lost %d; want idle, 3", st.Role, st.Lost)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		if st := b.Status(); st.Lost != 3 || st.Counters.Lost != 3 {
			t.Errorf("after the start: lost %d, counters.lost %d; want 3 and 3 (the servant counts on from the total)", st.Lost, st.Counters.Lost)
		}
	})
}

// The core learns, at every start, the count of this installation's latest
// publication per category (Config.OwnLast) as the publications stored it;
// a store from before that was kept has it rebuilt from the stored items.
func TestOwnLastInConfig(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	for _, cat := range []string{"it", "hr", "it"} {
		if _, err := a.Publish(Draft{Category: cat, Title: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	config := func(a *App) newsnet.Config {
		t.Helper()
		a.mu.Lock()
		defer a.mu.Unlock()
		cfg, err := a.nodeConfig()
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Protocol
	}
	want := map[string]uint64{"it": 3, "hr": 2}
	if c := config(a); c.OwnCount != 3 || !maps.Equal(c.OwnLast, want) {
		t.Errorf("config: own count %d, own last %v; want 3, %v", c.OwnCount, c.OwnLast, want)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// As a store migrated from schema 2 looks: own-last empty and stale.
	db, err := bbolt.Open(filepath.Join(dir, storage.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket([]byte("own-last")); err != nil {
			return err
		}
		if _, err := tx.CreateBucket([]byte("own-last")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("own-last-stale"), []byte{1})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	b := openApp(t, Options{DataDir: dir})
	if _, known, _ := b.store.OwnLast(); known {
		t.Fatal("the edited store still knows its own-last counts")
	}
	if c := config(b); !maps.Equal(c.OwnLast, want) {
		t.Errorf("config from a migrated store: own last %v, want %v", c.OwnLast, want)
	}
}
