package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/categories"
	"newsdesk/news"
)

// purgeChunk bounds one purge transaction, so purging a large backlog does
// not build one huge transaction in memory or block ingest for long. A
// variable only so that tests can make it small.
var purgeChunk = 2000

// Retention returns how long items are kept after they were received; 0
// means forever (the default).
func (s *Store) Retention() (time.Duration, error) {
	var d time.Duration
	err := s.view("retention", func(tx *bbolt.Tx) error {
		n, err := metaCount(tx, keyRetention)
		if err == nil && n > math.MaxInt64 {
			err = corruptf("retention %d ns out of range", n)
		}
		d = time.Duration(n)
		return err
	})
	return d, err
}

// SetRetention sets the retention period; 0 keeps items forever. It is kept
// in the meta bucket, not among the free-form settings, so nothing else can
// overwrite it with a value that does not parse.
func (s *Store) SetRetention(d time.Duration) error {
	if d < 0 {
		return errors.New("storage: retention: must not be negative")
	}
	return s.update("set retention", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketMeta).Put(keyRetention, binary.BigEndian.AppendUint64(nil, uint64(d)))
	})
}

// PurgeExpired deletes the items received longer ago than the retention
// period (with no retention set, none of these), and the items that
// expired (news.Item.Expires) more than ExpiredKeep ago, whatever the
// retention and their category.
func (s *Store) PurgeExpired() (int, error) {
	n, err := s.purgeExpired()
	if err != nil {
		return n, err
	}
	d, err := s.Retention()
	if err != nil || d == 0 {
		return n, err
	}
	m, err := s.Purge(s.opts.now().Add(-d))
	return n + m, err
}

// Purge deletes every item received before cutoff, with its index entries,
// read state and counts, and returns how many it deleted. Items of pinned
// categories (WithPinned) stay, and so do the items the reader keeps
// (SetKept) and the must-read items the reader has not confirmed yet
// (Acknowledge): those are the reader's to let go, not the clock's. A
// retracted or expired must-read item is hidden and can no longer be
// confirmed, so it would stay forever: it goes like any other. It walks
// the by-received index from the oldest entry, in transactions that each
// look at no more than purgeChunk entries; each continues after the last
// entry the previous one looked at, so pinned items among the oldest are
// read once per Purge, not once per transaction.
func (s *Store) Purge(cutoff time.Time) (int, error) {
	bound := receivedBound(cutoff)
	n, _, err := s.removeOldest("purge", func(receivedKey []byte, _ int64) bool {
		return bytes.Compare(receivedKey, bound) >= 0
	})
	return n, err
}

// removeOldest removes items oldest received first, sparing those Purge
// spares, until enough says so: it is asked before each item with the
// item's by-received key and the bytes removed so far. It returns how many
// items and bytes it removed. Purge and the quota (quota.go) share it.
//
// It walks the by-received index from the oldest entry, in transactions
// that each look at no more than purgeChunk entries; each continues after
// the last entry the previous one looked at, so spared items among the
// oldest are read once per call, not once per transaction.
func (s *Store) removeOldest(op string, enough func(receivedKey []byte, freed int64) bool) (int, int64, error) {
	var after []byte // the last by-received key looked at
	var freed int64
	n, err := s.removeInBatches(op, func(b buckets, ch *txChanges) (int, bool, error) {
		// Collect first: deleting from a bucket under a live cursor
		// can make the cursor skip keys.
		type entry struct {
			id  uuid.UUID
			key []byte
		}
		var found []entry
		var last []byte
		done := true
		c := b.byReceived.Cursor()
		k, _ := c.First()
		if after != nil {
			if k, _ = c.Seek(after); k != nil && bytes.Equal(k, after) {
				k, _ = c.Next()
			}
		}
		for looked := 0; k != nil; k, _ = c.Next() {
			_, id, err := decodeReceivedKey(k)
			if err != nil {
				return 0, false, err
			}
			if looked == purgeChunk {
				done = false
				break
			}
			looked++
			found = append(found, entry{uuid.UUID(id), k})
			last = k
		}
		if last != nil {
			after = bytes.Clone(last)
		}
		n := 0
		for _, e := range found {
			if enough(e.key, freed) {
				return n, true, nil
			}
			id := e.id
			v := b.items.Get(id[:])
			if v == nil {
				return 0, false, corruptf("by-received entry for missing item %x", id)
			}
			it, err := decodeValue(id[:], v)
			if err != nil {
				return 0, false, err
			}
			if s.spared(b, it) {
				continue
			}
			before := ch.bytes
			if err := b.remove(it, ch); err != nil {
				return 0, false, err
			}
			freed += before - ch.bytes // the item, and its blobs no other item refers to
			n++
		}
		return n, done, nil
	})
	return n, freed, err
}

// spared reports whether the clock and the quota must leave a stored item
// alone: an item of a pinned category (WithPinned), one the reader keeps
// (SetKept), a must-read item the reader has not confirmed (Acknowledge)
// and still can (toConfirm). A must-read item of this installation's own
// (SetOwnSource) is no exception: nobody confirms their own post, so it
// follows the clock like any other, and its report with it.
func (s *Store) spared(b buckets, it *news.Item) bool {
	return s.pinned(it.Category) || b.kept.Get(it.ID[:]) != nil ||
		toConfirm(b, it.MustRead, it.ID[:]) && !s.isOwn(it.Source)
}

// SetOwnSource tells the store which source is this installation's own:
// its must-read posts are not held back for a confirmation (spared).
func (s *Store) SetOwnSource(src uuid.UUID) { s.ownSource.Store(&src) }

func (s *Store) isOwn(src uuid.UUID) bool {
	own := s.ownSource.Load()
	return own != nil && *own == src
}

// removeInBatches runs batch in one write transaction after another until a
// batch reports done, and returns how many items the batches removed. A
// batch looks at no more than purgeChunk entries (see there for why). A
// batch that fails is rolled back and not counted; the batches committed
// before it stay removed, and their sum is returned with the error.
func (s *Store) removeInBatches(op string, batch func(b buckets, ch *txChanges) (removed int, done bool, err error)) (int, error) {
	total := 0
	for done := false; !done; {
		n := 0
		err := s.update(op, func(tx *bbolt.Tx, ch *txChanges) error {
			var err error
			n, done, err = batch(itemBuckets(tx), ch)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// pinned reports whether items of category are exempt from purging.
func (s *Store) pinned(category string) bool {
	return categories.CoveredByAny(s.opts.pinned, category)
}

// toConfirm reports whether item id, must-read when mustRead, still waits
// for the reader's confirmation: not confirmed, and not hidden by a
// retraction or its expiry (a hidden item offers nothing to confirm).
func toConfirm(b buckets, mustRead bool, id []byte) bool {
	return mustRead && b.acks.Get(id) == nil && b.retracted.Get(id) == nil
}
