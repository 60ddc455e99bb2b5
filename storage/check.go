package storage

import (
	"bytes"
	"errors"
	"fmt"
	"maps"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// maxCheckErrors bounds the report of a badly damaged file.
const maxCheckErrors = 10

// Check verifies the file and the store's own invariants and returns an
// ErrCorrupt describing what is wrong, or nil. It walks the file's pages
// (checkPages, which Open does too), runs bbolt's page-level check (every
// page reachable once, keys in order; safe only on a file that passed the
// walk, since it follows pages in a goroutine of its own), checks the
// buckets start-up reads (checkStartup, which Open does too), then that every
// item decodes and validates, that every index entry matches an item and
// every item has its index entries, that the counters equal a recount, that
// every retraction record decodes, and that the search index holds exactly
// the visible (stored, not retracted) items. It reads everything
// and blocks writers while it runs: a test and diagnostics tool, not
// something for every start.
func (s *Store) Check() error {
	// Holding wmu keeps the search index and the file at the same commit.
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := checkPages(s.path); err != nil {
		return err
	}
	var ids map[uuid.UUID]bool
	err := s.view("check", func(tx *bbolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			if len(errs) < maxCheckErrors {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return corruptf("bbolt check: %w", errors.Join(errs...))
		}
		var err error
		ids, err = checkInvariants(tx)
		return err
	})
	if err != nil {
		return err
	}
	return s.search.check(ids)
}

// checkStartup decodes every entry of the buckets the application reads
// when it starts (besides the items, which the search index build reads
// and decodeValue checks): the meta values, per-source counts, own-last,
// the outbox, seeds, subscriptions, retractions, the category counters
// and the scheduled publications.
// They are small (one entry per source, category, seed, retraction or
// unsent publication), so Open runs it every time: a damaged value there is
// refused at once with ErrCorrupt, instead of misreading a count (a damaged
// own count read as 0 would reuse counts) or failing somewhere in start-up.
func checkStartup(tx *bbolt.Tx) error {
	for _, k := range [][]byte{keyLostTotal, keyRetention} {
		if _, err := metaCount(tx, k); err != nil {
			return err
		}
	}
	type check struct {
		bucket []byte
		fn     func(k, v []byte) error
	}
	for _, c := range []check{
		{bucketSources, func(k, v []byte) error { _, _, err := decodeSourceCount(k, v); return err }},
		{bucketOwnLast, func(k, v []byte) error { _, _, err := decodeCategoryCount("own last count", k, v); return err }},
		{bucketItemCounts, func(k, v []byte) error { _, _, err := decodeCategoryCount("counter", k, v); return err }},
		{bucketUnread, func(k, v []byte) error { _, _, err := decodeCategoryCount("counter", k, v); return err }},
		{bucketOutbox, func(k, v []byte) error { _, err := decodeOutboxEntry(k, v); return err }},
		{bucketSeeds, func(k, v []byte) error { _, err := decodeSeed(k, v); return err }},
		{bucketSubs, func(k, v []byte) error { _, err := decodeSubscription(k, v); return err }},
		{bucketRetracted, func(k, v []byte) error { _, err := decodeRetraction(k, v); return err }},
		{bucketScheduled, func(k, v []byte) error { _, err := decodeScheduled(k, v); return err }},
		{bucketAcks, func(k, v []byte) error { _, err := decodeAck(k, v); return err }},
		{bucketReach, func(k, v []byte) error { _, err := decodeReach(k, v); return err }},
		{bucketKept, checkKept},
		{bucketBlobs, func(k, v []byte) error { _, err := decodeBlobRecord(k, v); return err }},
	} {
		if err := tx.Bucket(c.bucket).ForEach(c.fn); err != nil {
			return err
		}
	}
	return nil
}

// checkInvariants recomputes every derived bucket from the items and
// compares. It returns the set of visible IDs. A retracted item counts as
// stored for by-source, by-received and read state, and as absent for
// by-category and the counters.
func checkInvariants(tx *bbolt.Tx) (map[uuid.UUID]bool, error) {
	if _, err := inspect(tx); err != nil {
		return nil, err
	}
	if err := checkStartup(tx); err != nil {
		return nil, err
	}
	b := itemBuckets(tx)
	want := map[string]map[string]bool{
		"by-category": {}, "by-source": {}, "by-received": {}, "blob-refs": {},
	}
	itemCounts := map[string]uint64{}
	unread := map[string]uint64{}
	ids := map[uuid.UUID]bool{}
	visible := map[uuid.UUID]bool{}
	mustRead := map[uuid.UUID]bool{}
	err := b.items.ForEach(func(k, v []byte) error {
		it, err := decodeValue(k, v)
		if err != nil {
			return err
		}
		ids[it.ID] = true
		mustRead[it.ID] = it.MustRead
		want["by-source"][string(sourceKey(it.Source, it.SourceCount, it.ID))] = true
		want["by-received"][string(receivedKey(it.Received, it.ID))] = true
		if b.isRetracted(k) {
			return nil
		}
		visible[it.ID] = true
		want["by-category"][string(categoryKey(it.Category, it.ID))] = true
		for _, a := range it.Attachments() {
			want["blob-refs"][string(a.Hash[:])+string(it.ID[:])] = true
		}
		itemCounts[it.Category]++
		if b.read.Get(k) == nil {
			unread[it.Category]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name, bucket := range map[string]*bbolt.Bucket{"by-category": b.byCategory, "by-source": b.bySource, "by-received": b.byReceived, "blob-refs": b.blobRefs} {
		got := map[string]bool{}
		_ = bucket.ForEach(func(k, _ []byte) error {
			got[string(k)] = true
			return nil
		})
		if !maps.Equal(got, want[name]) {
			return nil, corruptf("%s index: %d entries, %d expected, or different keys", name, len(got), len(want[name]))
		}
	}
	err = b.read.ForEach(func(k, v []byte) error {
		if len(k) != 16 || !ids[uuid.UUID(k)] {
			return corruptf("read state for missing item %x", k)
		}
		if !bytes.Equal(v, readMark) {
			return corruptf("read state of %x malformed", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Only a stored must-read item is acknowledged (checkStartup decoded
	// the values).
	err = b.acks.ForEach(func(k, _ []byte) error {
		if len(k) != 16 || !mustRead[uuid.UUID(k)] {
			return corruptf("acknowledgement of %x, which is not a stored must-read item", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Only a stored item is kept.
	err = b.kept.ForEach(func(k, _ []byte) error {
		if len(k) != 16 || !ids[uuid.UUID(k)] {
			return corruptf("kept mark of %x, which is not a stored item", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name, wantCounts := range map[string]map[string]uint64{"item-counts": itemCounts, "unread-counts": unread} {
		got, err := readCounts(tx.Bucket([]byte(name)))
		if err != nil {
			return nil, err
		}
		if !maps.Equal(got, wantCounts) {
			return nil, corruptf("%s: stored %v, recount %v", name, got, wantCounts)
		}
	}
	return visible, nil
}

// check compares the index with the stored IDs; an index not built yet
// passes.
func (x *searchIndex) check(ids map[uuid.UUID]bool) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.built || x.data == nil {
		return nil
	}
	d := x.data
	live := 0
	for n, doc := range d.docs {
		if !doc.alive {
			continue
		}
		live++
		if !ids[doc.id] {
			return fmt.Errorf("storage: search index holds %s, which is not stored", doc.id)
		}
		if m, ok := d.byID[doc.id]; !ok || int(m) != n {
			return fmt.Errorf("storage: search index: id map out of step for %s", doc.id)
		}
	}
	if live != len(ids) || len(d.byID) != len(ids) {
		return fmt.Errorf("storage: search index holds %d items, the store %d", live, len(ids))
	}
	return nil
}
