package storage

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/categories"
)

// Search semantics: an item matches a query when every term of the query
// (see words.go) occurs inside some term of the item's title or body: "mail"
// finds "E-Mail" and "mailbox"; "strasse" finds "Straßenbahn" (full case
// folding), "muller" finds "Müller". In Chinese, Japanese, Korean and the
// scripts segmented like Thai the terms are overlapping character pairs,
// so "会議室" finds a text that has both "会議" and "議室". The index keeps no positions, so the pairs
// need not be adjacent there: a text with "会議所" and "審議室" matches too.
// Results come newest first.
//
// Why an index: 100,000 items of 1-2 KB are 150 MB of text. A scan that
// decodes, folds and searches every item takes 0.8 s on the reference
// machine (cmd/storebench), and even a scan over pre-folded text would be
// bound by memory bandwidth. The inverted word index in searchindex.go
// answers in 1-5 ms. It lives in memory (about 640 bytes per item) rather
// than in bbolt: persisted posting lists would be rewritten on every ingest
// (thousands of scattered B+tree pages per group commit), while rebuilding
// the index from the items bucket after Open runs in the background (about
// 55 µs per item) and other queries do not wait for it.

// indexDoc is what the search index needs of an item.
type indexDoc struct {
	id                    uuid.UUID
	category, title, body string
}

// indexOp is one change to the set of items.
type indexOp struct {
	remove bool
	doc    indexDoc // only id for a removal
}

// searchIndex is the in-memory index with its lifecycle: built once in the
// background, then kept in step by apply after every commit.
type searchIndex struct {
	mu      sync.RWMutex
	ready   chan struct{} // closed when the build finished or failed
	built   bool
	err     error       // why there is no index (build failure, closed)
	pending [][]indexOp // committed changes waiting for the build to finish
	data    *indexData
}

func newSearchIndex() *searchIndex {
	return &searchIndex{ready: make(chan struct{})}
}

// apply brings the index up to date with a committed transaction; Store.update
// calls it in commit order. Until the build has finished, changes wait in
// pending.
func (x *searchIndex) apply(ch *txChanges) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.err != nil:
	case !x.built:
		x.pending = append(x.pending, ch.ops)
	default:
		x.data.apply(ch.ops)
	}
}

// install finishes the build. The build read the items in several short
// transactions while writes went on, so for any item it may have seen an
// older state; replaying every change committed since Open, in order, on top
// fixes that, because adding a present item and removing an absent one do
// nothing: an item with no change since Open was seen as it is, and one with
// changes ends as its last change left it.
func (x *searchIndex) install(d *indexData, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer close(x.ready)
	if err != nil {
		x.err = err
		x.pending = nil
		return
	}
	for _, ops := range x.pending {
		d.apply(ops)
	}
	d.mergeLate()
	d.trim()
	x.pending, x.data, x.built = nil, d, true
}

// close drops the index; searches fail with ErrClosed.
func (x *searchIndex) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.err, x.data, x.pending = ErrClosed, nil, nil
}

// wait blocks until the index is usable.
func (x *searchIndex) wait(ctx context.Context) error {
	select {
	case <-x.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.err
}

// buildChunk is how many items the build reads per read transaction. Short
// transactions matter: bbolt cannot grow its memory map while a reader is
// open, so one long read would stall ingest whenever the file grows.
var buildChunk = 2000

// buildGate, when set, holds every build before it reads anything, so a
// test can see that other queries do not wait for the index. It is atomic
// because a test releases it while a build goroutine may be reading it.
var buildGate atomic.Pointer[chan struct{}]

// buildSearchIndex reads every item once, in chunks, and installs the
// index. Close interrupts it.
func (s *Store) buildSearchIndex() {
	defer s.bg.Done()
	if gate := buildGate.Load(); gate != nil {
		<-*gate
	}
	d := newIndexData()
	var after []byte // last key read
	for done := false; !done; {
		select {
		case <-s.stop:
			s.search.install(nil, ErrClosed)
			return
		default:
		}
		err := s.db.View(func(tx *bbolt.Tx) error {
			retracted := tx.Bucket(bucketRetracted)
			c := tx.Bucket(bucketItems).Cursor()
			k, v := c.First()
			if after != nil {
				if k, v = c.Seek(after); k != nil && string(k) == string(after) {
					k, v = c.Next()
				}
			}
			for i := 0; i < buildChunk; i++ {
				if k == nil {
					done = true
					return nil
				}
				after = append(after[:0], k...)
				if retracted.Get(k) != nil {
					k, v = c.Next()
					continue
				}
				it, err := decodeValue(k, v)
				if err != nil {
					return err
				}
				d.add(indexDoc{id: it.ID, category: it.Category, title: it.Title, body: it.Text()})
				k, v = c.Next()
			}
			return nil
		})
		if err != nil {
			s.search.install(nil, s.classify("build search index", err))
			return
		}
	}
	s.search.install(d, nil)
}

// SearchReady returns a channel closed once the search index is built; a
// Search before that waits for it.
func (s *Store) SearchReady() <-chan struct{} { return s.search.ready }

// Search returns up to n items matching query (see the search semantics
// above) in the given categories (a parent covers its children; empty means
// all), newest first, starting after cur; the returned cursor fetches the
// next page ("" at the end). A query without any word matches nothing.
// Right after Open, Search waits for the index to be built (a few seconds
// per 100,000 items) or for ctx to end.
func (s *Store) Search(ctx context.Context, query string, cats []string, n int, cur Cursor) ([]Entry, Cursor, error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("storage: search: page size %d, must be positive", n)
	}
	for _, c := range cats {
		if err := categories.ValidateID(c); err != nil {
			return nil, "", fmt.Errorf("storage: search: %w", err)
		}
	}
	bound, err := cur.bound()
	if err != nil {
		return nil, "", err
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, "", nil
	}
	if err := s.search.wait(ctx); err != nil {
		return nil, "", err
	}
	// The read lock is held across the item reads, so the index cannot
	// change under the plan; writers wait for at most one query.
	s.search.mu.RLock()
	defer s.search.mu.RUnlock()
	if s.search.err != nil {
		return nil, "", s.search.err
	}
	var out []Entry
	var next Cursor
	err = s.view("search", func(tx *bbolt.Tx) error {
		b := itemBuckets(tx)
		verify := func(id uuid.UUID, terms [][]byte) (bool, error) {
			v := b.items.Get(id[:])
			if v == nil {
				return false, nil // purged; the index hears of it shortly
			}
			it, err := decodeValue(id[:], v)
			if err != nil {
				return false, err
			}
			return containsAll(terms, it.Title, it.Text()), nil
		}
		ids, err := s.search.data.search(terms, cats, uuid.UUID(bound), n+1, verify)
		if err != nil {
			return err
		}
		for _, id := range ids[:min(n, len(ids))] {
			e, err := b.entry(id[:])
			if err != nil {
				return err
			}
			// Purged or retracted since the index lookup: the index hears
			// of it only after the commit.
			if e != nil && e.Retracted == nil {
				out = append(out, *e)
			}
		}
		if len(ids) > n {
			next = cursorFor(ids[n-1][:])
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}
