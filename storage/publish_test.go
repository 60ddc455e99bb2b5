package storage_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// ownItems makes n items of source numbered from first on, in the given
// categories in turn.
func ownItems(t testing.TB, rng *rand.Rand, source uuid.UUID, first uint64, n int, cats ...string) []*news.Item {
	t.Helper()
	var out []*news.Item
	for i := range n {
		it := randomItem(t, rng, first+uint64(i))
		it.Source = source
		it.Category = cats[i%len(cats)]
		out = append(out, it)
	}
	return out
}

// TestPublishOwn: a batch of own publications is stored in one go with its
// bookkeeping: the items, read; an outbox entry each, in order; the
// source's count at the last item's; OwnLast per category. Later batches
// continue it and remove the entries that went out; all of it survives a
// reopen and passes the integrity check.
func TestPublishOwn(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(7, 7))
	me := uuid.New()

	if last, known, err := s.OwnLast(); err != nil || !known || len(last) != 0 {
		t.Fatalf("OwnLast of a new store = %v, %v, %v; want known and empty", last, known, err)
	}
	first := ownItems(t, rng, me, 1, 3, "it", "hr")
	seqs, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: first})
	if err != nil || !slices.Equal(seqs, []uint64{1, 2, 3}) {
		t.Fatalf("PublishOwn = %v, %v; want outbox entries 1..3", seqs, err)
	}
	for _, it := range first {
		e, err := s.Get(it.ID)
		if err != nil || !e.Read || e.Item.SourceCount != it.SourceCount || e.Item.Received.IsZero() {
			t.Fatalf("stored %+v, %v: want it read with its count and a received time", e, err)
		}
	}
	if n, _ := s.UnreadCounts(); len(n) != 0 {
		t.Errorf("own items counted unread: %v", n)
	}

	second := ownItems(t, rng, me, 4, 2, "it")
	seqs, err = s.PublishOwn(storage.OwnBatch{Source: me, Items: second, Sent: []uint64{1, 3, 99}})
	if err != nil || !slices.Equal(seqs, []uint64{4, 5}) {
		t.Fatalf("second PublishOwn = %v, %v", seqs, err)
	}
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Sent: []uint64{4}}); err != nil {
		t.Fatalf("a batch of removals only: %v", err)
	}

	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if n, err := s.SourceCount(me); err != nil || n != 5 {
		t.Errorf("SourceCount = %d, %v; want 5", n, err)
	}
	if last, known, err := s.OwnLast(); err != nil || !known || !maps.Equal(last, map[string]uint64{"it": 5, "hr": 2}) {
		t.Errorf("OwnLast = %v, %v, %v; want it 5, hr 2", last, known, err)
	}
	ob, err := s.Outbox()
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, e := range ob {
		got = append(got, e.Item.SourceCount)
	}
	if !slices.Equal(got, []uint64{2, 5}) {
		t.Errorf("outbox holds counts %v, want 2 and 5 (the others went out)", got)
	}
}

// TestPublishOwnRefused: a batch that does not continue the stored count,
// that skips a count, mixes sources or holds an invalid item is refused
// and leaves nothing behind.
func TestPublishOwnRefused(t *testing.T) {
	s := storagetest.MustOpen(t)
	rng := rand.New(rand.NewPCG(8, 8))
	me := uuid.New()
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 1, 2, "it")}); err != nil {
		t.Fatal(err)
	}
	// Someone else took count 3 (the old way of publishing).
	if n, err := s.NextSourceCount(me); err != nil || n != 3 {
		t.Fatalf("NextSourceCount = %d, %v", n, err)
	}
	gap := ownItems(t, rng, me, 2, 1, "it")[0]
	gap.SourceCount = 6
	bad := ownItems(t, rng, me, 4, 1, "it")[0]
	bad.Title = ""
	foreign := ownItems(t, rng, uuid.New(), 4, 1, "it")
	for _, tc := range []struct {
		name  string
		items []*news.Item
		want  error
	}{
		{"reused count", ownItems(t, rng, me, 3, 2, "hr"), storage.ErrCountConflict},
		{"gap before", ownItems(t, rng, me, 5, 1, "hr"), storage.ErrCountConflict},
		{"gap inside", append(ownItems(t, rng, me, 4, 1, "hr"), gap), nil},
		{"invalid", []*news.Item{bad}, nil},
		{"foreign source", foreign, nil},
	} {
		_, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: tc.items, Sent: []uint64{1}})
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: PublishOwn = %v, want an error (%v)", tc.name, err, tc.want)
		}
		for _, it := range tc.items {
			if ok, _ := s.Has(it.ID); ok {
				t.Errorf("%s: item %d stored", tc.name, it.SourceCount)
			}
		}
	}
	if n, _ := s.SourceCount(me); n != 3 {
		t.Errorf("SourceCount after refusals = %d, want 3", n)
	}
	if ob, _ := s.Outbox(); len(ob) != 2 {
		t.Errorf("outbox after refusals holds %d entries, want 2 (the removal went with the refused batch)", len(ob))
	}
	if last, _, _ := s.OwnLast(); !maps.Equal(last, map[string]uint64{"it": 2}) {
		t.Errorf("OwnLast after refusals = %v", last)
	}
}

// TestPublishOwnWithIngest: own batches and received items from many
// goroutines share the writer; every one is stored, the own counts run
// without a gap, and the store passes its integrity check.
func TestPublishOwnWithIngest(t *testing.T) {
	s := storagetest.MustOpen(t, storage.NoSync())
	rng := rand.New(rand.NewPCG(9, 9))
	me := uuid.New()
	const batches, perBatch, received = 40, 5, 400
	var own [][]*news.Item
	for i := range batches {
		own = append(own, ownItems(t, rng, me, uint64(i*perBatch+1), perBatch, "it", "hr", "sales"))
	}
	var others []*news.Item
	for i := range received {
		others = append(others, randomItem(t, rng, uint64(i+1)))
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, b := range own { // one publisher: batches in count order
			if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: b}); err != nil {
				t.Errorf("PublishOwn: %v", err)
				return
			}
		}
	})
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(others); i += 4 {
				if err := <-s.Ingest(others[i]); err != nil {
					t.Errorf("Ingest: %v", err)
				}
			}
		})
	}
	wg.Wait()
	mine, err := s.ItemsAfter(me, 0, 0)
	if err != nil || len(mine) != batches*perBatch {
		t.Fatalf("own items %d, %v", len(mine), err)
	}
	for i, it := range mine {
		if it.SourceCount != uint64(i+1) {
			t.Fatalf("own item %d has count %d", i, it.SourceCount)
		}
	}
	for _, it := range others {
		if ok, _ := s.Has(it.ID); !ok {
			t.Fatalf("received item %s missing", it.ID)
		}
	}
	if ob, _ := s.Outbox(); len(ob) != batches*perBatch {
		t.Errorf("outbox holds %d entries", len(ob))
	}
}

// TestOwnLastMigration: a schema-2 store (no own-last bucket) upgrades on
// Open; OwnLast then says it does not know, until RebuildOwnLast has
// recomputed it from the stored items of the installation's source.
func TestOwnLastMigration(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(10, 10))
	me := uuid.New()
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 1, 5, "it", "hr", "it")}); err != nil {
		t.Fatal(err)
	}
	for _, it := range ownItems(t, rng, uuid.New(), 1, 3, "sales") { // another source's
		must(t, s.Put(t.Context(), it))
	}
	storagetest.CheckAndClose(t, s, dir)
	editFile(t, dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketOwnLast, storage.BucketExpiring, storage.BucketExpired, storage.BucketScheduled, storage.BucketAcks, storage.BucketReach, storage.BucketKept} { // schema 3 to 8
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 2))
	})
	s = storagetest.MustOpenDir(t, dir)
	if last, known, err := s.OwnLast(); err != nil || known || last != nil {
		t.Fatalf("OwnLast after migration = %v, %v, %v; want unknown", last, known, err)
	}
	must(t, s.RebuildOwnLast(me))
	if last, known, err := s.OwnLast(); err != nil || !known || !maps.Equal(last, map[string]uint64{"it": 4, "hr": 5}) {
		t.Errorf("OwnLast after rebuild = %v, %v, %v; want it 4, hr 5", last, known, err)
	}
	// Publishing continues from there.
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 6, 1, "hr")}); err != nil {
		t.Fatal(err)
	}
	if last, _, _ := s.OwnLast(); last["hr"] != 6 || last["it"] != 4 {
		t.Errorf("OwnLast after a publication = %v", last)
	}
}

// TestLostTotal: the total of unrecoverable items survives a reopen and
// never goes down.
func TestLostTotal(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	if n, err := s.LostTotal(); err != nil || n != 0 {
		t.Fatalf("LostTotal of a new store = %d, %v", n, err)
	}
	must(t, s.SetLostTotal(7))
	must(t, s.SetLostTotal(3))
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if n, err := s.LostTotal(); err != nil || n != 7 {
		t.Errorf("LostTotal after reopen = %d, %v; want 7", n, err)
	}
}

// TestCommitInterval: with a commit interval, received items after a quiet
// spell commit at once and later ones wait for the interval, gathered in
// one transaction; a batch of own publications never waits and takes what
// waits along; Close commits what waits at once.
func TestCommitInterval(t *testing.T) {
	dir := t.TempDir()
	s, err := storage.Open(dir, storage.WithCommitInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	me := uuid.New()
	if err := <-s.Ingest(randomItem(t, rng, 1)); err != nil {
		t.Fatalf("the first item after a quiet spell: %v", err)
	}
	held := s.Ingest(randomItem(t, rng, 2))
	counts := s.IngestSourceCounts(map[uuid.UUID]uint64{testSources[0]: 2})
	select {
	case err := <-held:
		t.Fatalf("an item within the interval was committed at once (%v)", err)
	default:
	}
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 1, 1, "it")}); err != nil {
		t.Fatal(err)
	}
	// The own batch committed, and the held item and counts with it: with
	// an hour's interval nothing else could have.
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-counts; err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SourceCount(testSources[0]); n != 2 {
		t.Errorf("source count %d, want 2", n)
	}
	last := s.Ingest(randomItem(t, rng, 3))
	storagetest.CheckAndClose(t, s, dir)
	if err := <-last; err != nil {
		t.Errorf("the item waiting at Close: %v", err)
	}
}

// BenchmarkPublishOwn measures one batch of own publications per
// transaction (with fsync), by batch size.
func BenchmarkPublishOwn(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("batch%d", n), func(b *testing.B) {
			s, err := storage.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			rng := rand.New(rand.NewPCG(1, 2))
			me := uuid.New()
			last := uint64(0)
			for b.Loop() {
				b.StopTimer()
				items := ownItems(b, rng, me, last+1, n, "it")
				last += uint64(n)
				b.StartTimer()
				if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: items}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// SentThrough removes the outbox entries of the source's publications up
// to a count, from the front; later ones and another source's stay.
func TestPublishOwnSentThrough(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(8, 8))
	me, before := uuid.New(), uuid.New()
	if _, err := s.OutboxPush(ownItems(t, rng, before, 1, 1, "it")[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 1, 4, "it")}); err != nil {
		t.Fatal(err)
	}
	counts := func() []uint64 {
		ob, err := s.Outbox()
		if err != nil {
			t.Fatal(err)
		}
		var cs []uint64
		for _, e := range ob {
			if e.Item.Source == me {
				cs = append(cs, e.Item.SourceCount)
			}
		}
		return cs
	}
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, SentThrough: 2}); err != nil {
		t.Fatal(err)
	}
	if got := counts(); !slices.Equal(got, []uint64{3, 4}) {
		t.Errorf("outbox counts after SentThrough 2: %v, want [3 4]", got)
	}
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: ownItems(t, rng, me, 5, 1, "hr"), SentThrough: 4}); err != nil {
		t.Fatal(err)
	}
	if got := counts(); !slices.Equal(got, []uint64{5}) {
		t.Errorf("outbox counts after SentThrough 4 with a new item: %v, want [5]", got)
	}
	if ob, _ := s.Outbox(); len(ob) != 2 || ob[0].Item.Source != before {
		t.Errorf("the other source's entry: outbox %d entries", len(ob))
	}
	storagetest.CheckAndClose(t, s, dir)
}

// Items passed with their encoding are stored as if the store had encoded
// them: the same item, and the same outbox entry.
func TestPublishOwnEncoded(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	rng := rand.New(rand.NewPCG(9, 9))
	me := uuid.New()
	items := ownItems(t, rng, me, 1, 2, "it")
	encoded := make([][]byte, len(items))
	for i, it := range items {
		b, err := it.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		encoded[i] = b
	}
	encoded[1] = nil // encoded by the store
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: items, Encoded: encoded}); err != nil {
		t.Fatal(err)
	}
	ob, err := s.Outbox()
	if err != nil || len(ob) != 2 {
		t.Fatalf("outbox %v, %v", ob, err)
	}
	for i, it := range items {
		e, err := s.Get(it.ID)
		if err != nil || e.Item.Title != it.Title || e.Item.SourceCount != it.SourceCount || !bytes.Equal(e.Item.Signature, it.Signature) {
			t.Errorf("item %d stored as %+v, %v", i, e.Item, err)
		}
		if ob[i].Item.ID != it.ID || ob[i].Item.Body != it.Body {
			t.Errorf("outbox entry %d: %+v", i, ob[i].Item)
		}
	}
	bad := ownItems(t, rng, me, 3, 1, "it")[0]
	enc, _ := bad.MarshalBinary()
	bad.Title = ""
	if _, err := s.PublishOwn(storage.OwnBatch{Source: me, Items: []*news.Item{bad}, Encoded: [][]byte{enc}}); err == nil {
		t.Error("an invalid item with an encoding was stored")
	}
	storagetest.CheckAndClose(t, s, dir)
}
