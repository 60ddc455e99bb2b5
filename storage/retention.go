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
	var after []byte // the last by-received key looked at
	return s.removeInBatches("purge", func(b buckets, ch *txChanges) (int, bool, error) {
		// Collect first: deleting from a bucket under a live cursor
		// can make the cursor skip keys.
		var ids []uuid.UUID
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
			at, id, err := decodeReceivedKey(k)
			if err != nil {
				return 0, false, err
			}
			if bytes.Compare(at, bound) >= 0 {
				break
			}
			if looked == purgeChunk {
				done = false
				break
			}
			looked++
			ids = append(ids, uuid.UUID(id))
			last = k
		}
		if last != nil {
			after = bytes.Clone(last)
		}
		n := 0
		for _, id := range ids {
			v := b.items.Get(id[:])
			if v == nil {
				return 0, false, corruptf("by-received entry for missing item %x", id)
			}
			it, err := decodeValue(id[:], v)
			if err != nil {
				return 0, false, err
			}
			if s.pinned(it.Category) || b.kept.Get(id[:]) != nil || toConfirm(b, it.MustRead, id[:]) {
				continue
			}
			if err := b.remove(it, ch); err != nil {
				return 0, false, err
			}
			n++
		}
		return n, done, nil
	})
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
