package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// A signed retraction hides an item everywhere a user looks, but destroys
// nothing: the item stays in the items bucket and in the by-source and
// by-received indexes, so the overlay still answers retransmissions with it
// and retention still purges it. What a hidden item leaves is everything a
// user sees: its by-category entry, its share of the item and unread
// counters, and its search index entry. With the by-category entries and
// the counters gone, the category listings, MarkAllRead and the badges need
// no special case; only walks over the items bucket itself (the
// all-categories listing, the search index build, Check) look up the
// retracted bucket.
//
// The retraction record outlives the item: a tombstone costs a few bytes, and
// it is what keeps a copy that arrives later (a retransmission, a catch-up
// from an archive that has not heard of the retraction) hidden.

// Retraction is what the store keeps of a retracted item.
type Retraction struct {
	ItemID uuid.UUID
	Reason string    // one line, may be empty; shown instead of the item
	At     time.Time // when this installation applied it
	// Expired: not a signed retraction but the item's own expiry
	// (expiry.go); Reason is then "expired".
	Expired bool
}

// MaxRetractionReason is the longest reason, in characters, Retract accepts.
const MaxRetractionReason = 500

// A retracted value: a format byte (1 for a retraction, 2 for an expiry),
// the time applied (int64 Unix ns, big-endian), then the reason's UTF-8
// bytes.
const (
	retractionFormat    = 1
	expiryFormat        = 2 // since schema 4
	retractionHeaderLen = 1 + 8
)

func encodeRetraction(r Retraction) ([]byte, error) {
	if r.At.Before(time.Unix(0, math.MinInt64)) || r.At.After(time.Unix(0, math.MaxInt64)) {
		return nil, errors.New("at: outside the years 1678 to 2262")
	}
	b := make([]byte, retractionHeaderLen, retractionHeaderLen+len(r.Reason))
	b[0] = retractionFormat
	if r.Expired {
		b[0] = expiryFormat
	}
	binary.BigEndian.PutUint64(b[1:], uint64(r.At.UnixNano()))
	return append(b, r.Reason...), nil
}

// decodeRetraction copies a retraction out of a bbolt value. The reason is
// checked as on the way in, so a damaged value is reported, not shown.
func decodeRetraction(id, v []byte) (*Retraction, error) {
	if len(id) != 16 {
		return nil, corruptf("retraction key %x malformed", id)
	}
	if len(v) < retractionHeaderLen || (v[0] != retractionFormat && v[0] != expiryFormat) {
		return nil, corruptf("retraction of %x: unknown value format", id)
	}
	reason := string(v[retractionHeaderLen:])
	if err := news.CheckLine("reason", reason, MaxRetractionReason); err != nil {
		return nil, corruptf("retraction of %x: %v", id, err)
	}
	return &Retraction{
		ItemID:  uuid.UUID(id),
		Reason:  reason,
		At:      time.Unix(0, int64(binary.BigEndian.Uint64(v[1:]))),
		Expired: v[0] == expiryFormat,
	}, nil
}

// Retract records r and hides the item if it is stored. Idempotent: a second
// retraction of the same item keeps the first record and returns
// hidden=false. A retraction of an item not stored yet is kept as a
// tombstone: when the item arrives later (Ingest/Put), it is stored hidden.
// A zero At is set to the store's clock. The caller has verified the
// retraction's signature; the store only keeps the outcome.
func (s *Store) Retract(r Retraction) (hidden bool, err error) {
	if r.ItemID == uuid.Nil {
		return false, errors.New("storage: retract: item ID: required")
	}
	if err := news.CheckLine("reason", r.Reason, MaxRetractionReason); err != nil {
		return false, fmt.Errorf("storage: retract: %w", err)
	}
	if r.At.IsZero() {
		r.At = s.opts.now()
	}
	val, err := encodeRetraction(r)
	if err != nil {
		return false, fmt.Errorf("storage: retract: %w", err)
	}
	err = s.update("retract", func(tx *bbolt.Tx, ch *txChanges) error {
		hidden = false
		b := itemBuckets(tx)
		id := r.ItemID
		if b.retracted.Get(id[:]) != nil {
			return nil
		}
		if err := b.retracted.Put(id[:], val); err != nil {
			return err
		}
		v := b.items.Get(id[:])
		if v == nil {
			return nil
		}
		it, err := decodeValue(id[:], v)
		if err != nil {
			return err
		}
		if err := b.hide(it, ch); err != nil {
			return err
		}
		hidden = true
		return nil
	})
	return hidden, err
}

// hide takes a stored, visible item out of everything a user sees (see the
// top of this file).
func (b buckets) hide(it *news.Item, ch *txChanges) error {
	if err := b.byCategory.Delete(categoryKey(it.Category, it.ID)); err != nil {
		return err
	}
	if err := b.dropBlobRefs(it, ch); err != nil {
		return err
	}
	if err := addCount(b.itemCounts, it.Category, -1); err != nil {
		return err
	}
	if b.read.Get(it.ID[:]) == nil {
		if err := addCount(b.unread, it.Category, -1); err != nil {
			return err
		}
	}
	ch.ops = append(ch.ops, indexOp{remove: true, doc: indexDoc{id: it.ID}})
	return nil
}

// isRetracted reports whether id has a retraction record.
func (b buckets) isRetracted(id []byte) bool {
	return b.retracted.Get(id) != nil
}

// Retracted returns the retraction of an item, or nil.
func (s *Store) Retracted(id uuid.UUID) (*Retraction, error) {
	var r *Retraction
	err := s.view("retracted", func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketRetracted).Get(id[:])
		if v == nil {
			return nil
		}
		var err error
		r, err = decodeRetraction(id[:], v)
		return err
	})
	return r, err
}

// visibleWalk drops retracted items from a walk over the items bucket, which
// keeps them. A walk over by-category never meets one.
type visibleWalk struct {
	idWalk
	retracted *bbolt.Bucket
}

func (w visibleWalk) next() []byte {
	for {
		id := w.idWalk.next()
		if id == nil || w.retracted.Get(id) == nil {
			return id
		}
	}
}
