package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// This installation's own publications. The application numbers them
// itself (one goroutine hands out the counts, in order) and stores each
// batch with all its bookkeeping in one transaction of the ingest group
// commit (ingest.go): the items, marked read; an outbox entry for each
// until the servant reports it sent; the source's count advanced to the
// last item's; and per category the count of the latest publication there
// (OwnLast). A crash leaves all of a batch or none of it, so a count is
// never stored without its item, and never handed out twice.

// ErrCountConflict: a batch of own publications does not continue the
// stored count of its source (another writer took counts meanwhile).
// Nothing of the batch is stored; read SourceCount and number again.
var ErrCountConflict = errors.New("storage: publication counts do not continue the stored count")

// OwnBatch is one batch of this installation's publications.
type OwnBatch struct {
	// Source is the installation's source ID; every item carries it.
	Source uuid.UUID
	// Items are numbered by the caller with consecutive counts, the first
	// one above the stored count of Source.
	Items []*news.Item
	// Encoded, when not nil, holds each item's MarshalBinary as the
	// caller has it already (the payload of its multicast message), so
	// that the store does not encode the item again; a nil entry is
	// encoded here. The item is still validated: the store refuses an
	// invalid item whatever its caller says.
	Encoded [][]byte
	// Sent lists outbox entries of earlier publications that have gone
	// out: they are removed in the same transaction (entries already gone
	// are ignored). A batch may hold only these.
	Sent []uint64
	// SentThrough, when not zero, says that Source's publications up to
	// this count have gone out: the outbox entries of its items with
	// counts up to it are removed from the front of the outbox (which
	// holds them in count order), in the same transaction. A batch may
	// hold only this.
	SentThrough uint64
}

// ownReq is an OwnBatch on its way through the ingest queue.
type ownReq struct {
	source uuid.UUID
	items  []*news.Item // copies
	vals   [][]byte     // the items' store values
	queued [][]byte     // the items' outbox values
	sent   []uint64
	// sentThrough: remove the outbox's front entries of source up to this count
	sentThrough uint64
	seqs        []uint64 // filled by the writer: the items' outbox entries
}

// PublishOwn stores a batch of own publications, together with whatever
// else the ingest writer commits at the time, and returns the outbox
// sequence numbers of its items, in order. Everything in it is durable when
// it returns nil. An invalid item is refused with its validation error, a
// batch that does not continue the stored count with ErrCountConflict; in
// both cases nothing of it is stored. Received is set to the store's clock
// if zero; the caller's items are not modified.
func (s *Store) PublishOwn(b OwnBatch) ([]uint64, error) {
	if s.opts.readOnly {
		return nil, fmt.Errorf("%w: publish: store opened read-only", ErrReadOnly)
	}
	r := &ownReq{source: b.Source, sent: b.Sent, sentThrough: b.SentThrough}
	size := 0
	for i, it := range b.Items {
		c := it.Clone()
		if c.Source != b.Source {
			return nil, fmt.Errorf("storage: publish: item %s of source %s in a batch of %s", c.ID, c.Source, b.Source)
		}
		if i > 0 && c.SourceCount != b.Items[i-1].SourceCount+1 {
			return nil, fmt.Errorf("storage: publish: counts %d and %d are not consecutive", b.Items[i-1].SourceCount, c.SourceCount)
		}
		if c.Received.IsZero() {
			c.Received = s.opts.now()
		}
		var q []byte
		if i < len(b.Encoded) {
			q = b.Encoded[i]
		}
		if q == nil {
			var err error
			if q, err = c.MarshalBinary(); err != nil {
				return nil, fmt.Errorf("storage: publish: %w", err)
			}
		} else if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("storage: publish: %w", err)
		}
		val, err := encodedValue(c.Received, q)
		if err != nil {
			return nil, err
		}
		r.items = append(r.items, c)
		r.vals = append(r.vals, val)
		r.queued = append(r.queued, q)
		size += len(val) + len(q)
	}
	if err := <-s.enqueue(&ingestReq{own: r, size: size, n: max(1, len(r.items))}); err != nil {
		return nil, err
	}
	return r.seqs, nil
}

// apply writes the batch in the writer's transaction.
func (r *ownReq) apply(tx *bbolt.Tx, b buckets, ch *txChanges) error {
	r.seqs = r.seqs[:0]
	outbox := tx.Bucket(bucketOutbox)
	for _, seq := range r.sent {
		if err := outbox.Delete(binary.BigEndian.AppendUint64(nil, seq)); err != nil {
			return err
		}
	}
	if r.sentThrough > 0 {
		if err := removeSentThrough(outbox, r.source, r.sentThrough); err != nil {
			return err
		}
	}
	if len(r.items) == 0 {
		return nil
	}
	sources := tx.Bucket(bucketSources)
	stored, err := storedSourceCount(sources, r.source)
	if err != nil {
		return err
	}
	first, last := r.items[0].SourceCount, r.items[len(r.items)-1].SourceCount
	if stored == math.MaxUint64 || first != stored+1 {
		return fmt.Errorf("%w: source %s: stored %d, batch %d..%d", ErrCountConflict, r.source, stored, first, last)
	}
	ownLast := tx.Bucket(bucketOwnLast)
	for i, it := range r.items {
		added, err := b.insert(it, r.vals[i], ch)
		if err != nil {
			return fmt.Errorf("item %s: %w", it.ID, err)
		}
		if added && !b.isRetracted(it.ID[:]) {
			if err := b.read.Put(it.ID[:], readMark); err != nil {
				return err
			}
			if err := addCount(b.unread, it.Category, -1); err != nil {
				return err
			}
		}
		seq, err := outbox.NextSequence()
		if err != nil {
			return err
		}
		if err := outbox.Put(binary.BigEndian.AppendUint64(nil, seq), r.queued[i]); err != nil {
			return err
		}
		r.seqs = append(r.seqs, seq)
		if err := ownLast.Put([]byte(it.Category), binary.BigEndian.AppendUint64(nil, it.SourceCount)); err != nil {
			return err
		}
	}
	return sources.Put(r.source[:], binary.BigEndian.AppendUint64(nil, last))
}

// removeSentThrough removes the outbox's front entries of source with
// counts up to through; entries of another source (a source the
// installation had before) are left alone.
func removeSentThrough(outbox *bbolt.Bucket, source uuid.UUID, through uint64) error {
	var gone [][]byte
	c := outbox.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		e, err := decodeOutboxEntry(k, v)
		if err != nil {
			return err
		}
		if e.Item.Source != source {
			continue
		}
		if e.Item.SourceCount > through {
			break
		}
		gone = append(gone, k) // k is valid for the life of the transaction
	}
	for _, k := range gone {
		if err := outbox.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// OwnLast returns, per category this installation published in, the count
// of its latest publication there, as PublishOwn keeps it. known is false
// when the store does not know it (a store from before this was kept, not
// rebuilt yet: see RebuildOwnLast).
func (s *Store) OwnLast() (last map[string]uint64, known bool, err error) {
	err = s.view("own last", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketMeta).Get(keyOwnLastStale) != nil {
			return nil
		}
		known = true
		last = make(map[string]uint64)
		return tx.Bucket(bucketOwnLast).ForEach(func(k, v []byte) error {
			cat, n, err := decodeCategoryCount("own last count", k, v)
			last[cat] = n
			return err
		})
	})
	if err != nil {
		return nil, false, err
	}
	return last, known, nil
}

// RebuildOwnLast recomputes OwnLast from the stored items of source (the
// installation's own), for a store that did not keep it or kept it for
// another source; afterwards OwnLast reports it known. Publications purged by retention meanwhile
// are not counted: nobody can answer for them anyway.
func (s *Store) RebuildOwnLast(source uuid.UUID) error {
	return s.update("rebuild own last", func(tx *bbolt.Tx, _ *txChanges) error {
		b := itemBuckets(tx)
		ownLast := tx.Bucket(bucketOwnLast)
		var stale [][]byte // counts of another source (the installation took a new one)
		if err := ownLast.ForEach(func(k, _ []byte) error { stale = append(stale, k); return nil }); err != nil {
			return err
		}
		for _, k := range stale {
			if err := ownLast.Delete(k); err != nil {
				return err
			}
		}
		last := make(map[string]uint64)
		c := b.bySource.Cursor()
		for k, _ := c.Seek(source[:]); bytes.HasPrefix(k, source[:]); k, _ = c.Next() {
			_, _, id, err := decodeSourceKey(k)
			if err != nil {
				return err
			}
			v := b.items.Get(id)
			if v == nil {
				return corruptf("by-source entry for missing item %x", id)
			}
			it, err := decodeValue(id, v)
			if err != nil {
				return err
			}
			last[it.Category] = max(last[it.Category], it.SourceCount)
		}
		for cat, n := range last {
			if err := ownLast.Put([]byte(cat), binary.BigEndian.AppendUint64(nil, n)); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Delete(keyOwnLastStale)
	})
}

// LostTotal returns the persisted count of needed items that no servant
// could retransmit (0 if none).
func (s *Store) LostTotal() (uint64, error) {
	var n uint64
	err := s.view("lost total", func(tx *bbolt.Tx) (err error) {
		n, err = metaCount(tx, keyLostTotal)
		return err
	})
	return n, err
}

// SetLostTotal persists the count of needed items that no servant could
// retransmit. The count only grows: a smaller value than the one stored
// is ignored.
func (s *Store) SetLostTotal(n uint64) error {
	return s.update("set lost total", func(tx *bbolt.Tx, _ *txChanges) error {
		stored, err := metaCount(tx, keyLostTotal)
		if err != nil || stored >= n {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyLostTotal, binary.BigEndian.AppendUint64(nil, n))
	})
}

// metaCount reads a uint64 of the meta bucket: 0 if absent.
func metaCount(tx *bbolt.Tx, key []byte) (uint64, error) {
	v := tx.Bucket(bucketMeta).Get(key)
	if v == nil {
		return 0, nil
	}
	n, err := decodeCount(v)
	if err != nil {
		return 0, corruptf("meta %q malformed: %v", key, err)
	}
	return n, nil
}
