package storage_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// TestSearchIndexBuildWithWrites: writes (ingest, purge, re-ingest of purged
// items) run while the search index is being built after Open, in small
// chunks so they interleave. Afterwards the index must hold exactly the
// stored items (Check compares them) and searches must agree with the
// model.
func TestSearchIndexBuildWithWrites(t *testing.T) {
	defer storage.SetBuildChunk(7)()
	rng := rand.New(rand.NewPCG(9, 9))
	dir := t.TempDir()
	s, err := storage.Open(dir, storage.NoSync())
	if err != nil {
		t.Fatal(err)
	}
	m := &model{items: map[uuid.UUID]*news.Item{}, read: map[uuid.UUID]bool{}}
	var all []*news.Item
	ingest := func(s *storage.Store, n int) {
		var chans []<-chan error
		for range n {
			var it *news.Item
			if len(all) > 0 && rng.IntN(5) == 0 {
				it = all[rng.IntN(len(all))] // maybe purged: comes back
			} else {
				it = randomItem(t, rng, uint64(len(all)+1))
				all = append(all, it)
			}
			if _, ok := m.items[it.ID]; !ok {
				m.items[it.ID] = it
				delete(m.read, it.ID)
			}
			chans = append(chans, s.Ingest(it))
		}
		for _, ch := range chans {
			if err := <-ch; err != nil {
				t.Fatal(err)
			}
		}
	}
	ingest(s, 600)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		s = storagetest.MustOpenDir(t, dir, storage.NoSync())
		// Race the build: small ingests and purges until it is done.
		for step := 0; ; step++ {
			select {
			case <-s.SearchReady():
			default:
				ingest(s, 5)
				if step%3 == 0 {
					cutoff := time.Date(2025, time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
					if rng.IntN(4) != 0 {
						cutoff = time.Date(2025, 1, 1+rng.IntN(20), 0, 0, 0, 0, time.UTC)
					}
					for id, it := range m.items {
						if it.Received.Before(cutoff) {
							delete(m.items, id)
							delete(m.read, id)
						}
					}
					if _, err := s.Purge(cutoff); err != nil {
						t.Fatal(err)
					}
				}
				continue
			}
			t.Logf("round %d: %d write steps during the build, %d items", round, step, len(m.items))
			break
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		for _, q := range modelQueries {
			got, _, err := s.Search(context.Background(), q, nil, 100000, "")
			if err != nil {
				t.Fatal(err)
			}
			want := m.search(q, nil)
			if !slices.Equal(ids(got), itemIDs(want)) {
				t.Fatalf("round %d: search %q: %d results, model %d", round, q, len(got), len(want))
			}
		}
		storagetest.CheckAndClose(t, s, dir)
	}
}

func itemIDs(items []*news.Item) []uuid.UUID {
	out := make([]uuid.UUID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}
