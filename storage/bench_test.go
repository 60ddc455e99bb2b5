package storage_test

import (
	"context"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
)

// Benchmarks. The query benchmarks share one store of benchItems realistic
// items, built on first use (that takes a while) and removed by TestMain.
// cmd/storebench reports the same measures as one table.

const benchItems = 100000

var bench struct {
	once  sync.Once
	dir   string
	store *storage.Store
	items []*news.Item
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.store != nil {
		bench.store.Close()
	}
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func benchStore(b *testing.B) *storage.Store {
	b.Helper()
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "storage-bench")
		if bench.err != nil {
			return
		}
		bench.store, bench.err = storage.Open(bench.dir, storage.NoSync())
		if bench.err != nil {
			return
		}
		bench.items = benchGenerate(benchItems)
		chans := make([]<-chan error, len(bench.items))
		for i, it := range bench.items {
			chans[i] = bench.store.Ingest(it)
		}
		for _, ch := range chans {
			if err := <-ch; err != nil {
				bench.err = err
				return
			}
		}
		<-bench.store.SearchReady()
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.store
}

func benchGenerate(n int) []*news.Item {
	rng := rand.New(rand.NewPCG(1, 2))
	src := uuid.New()
	base := time.Now().Add(-time.Duration(n) * time.Second)
	items := make([]*news.Item, n)
	for i := range items {
		items[i] = itemgen.Item(rng, src, uint64(i+1), base.Add(time.Duration(i)*time.Second))
	}
	return items
}

func BenchmarkNewest50(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		if _, _, err := s.Newest(nil, 50, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewest50Category(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		if _, _, err := s.Newest([]string{"sales"}, 50, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnreadCounts(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		if _, err := s.UnreadCounts(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := benchStore(b)
	i := 0
	for b.Loop() {
		if _, err := s.Get(bench.items[i%len(bench.items)].ID); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// BenchmarkCheckPages: the page walk every Open of an existing store
// makes, on the 100,000-item store (file in the page cache).
func BenchmarkCheckPages(b *testing.B) {
	s := benchStore(b)
	size, err := s.Size()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		if err := storage.CheckPages(s.Path()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	s := benchStore(b)
	for _, q := range []string{"kaka", "misa lo", "ne", "e", "zzzz"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.Search(context.Background(), q, nil, 50, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIngestGroupCommit queues b.N items at once; the writer commits
// what is queued per transaction (fsync on).
func BenchmarkIngestGroupCommit(b *testing.B) {
	s, err := storage.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	items := benchGenerate(b.N)
	b.ResetTimer()
	chans := make([]<-chan error, len(items))
	for i, it := range items {
		chans[i] = s.Ingest(it)
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutEach writes one transaction per item (fsync on).
func BenchmarkPutEach(b *testing.B) {
	s, err := storage.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	items := benchGenerate(b.N)
	b.ResetTimer()
	for _, it := range items {
		if err := s.Put(context.Background(), it); err != nil {
			b.Fatal(err)
		}
	}
}
