package storage

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// Per-source communication counts (JP3679935B2). The network layer keeps,
// per source, the highest count it has delivered in order (the next expected
// is that plus one); for this installation's own source it is the highest
// count used, so a restart never reuses one. 0 means none yet.

// SourceCount returns the stored count of a source (0 if none).
func (s *Store) SourceCount(source uuid.UUID) (uint64, error) {
	var n uint64
	err := s.view("source count", func(tx *bbolt.Tx) (err error) {
		n, err = storedSourceCount(tx.Bucket(bucketSources), source)
		return err
	})
	return n, err
}

// SetSourceCount stores the count of a source.
func (s *Store) SetSourceCount(source uuid.UUID, n uint64) error {
	return s.update("set source count", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketSources).Put(source[:], binary.BigEndian.AppendUint64(nil, n))
	})
}

// NextSourceCount increments the count of a source and returns the new
// value, durably: the publisher takes its next communication count here, so a
// count handed out is never handed out again, even after a crash.
func (s *Store) NextSourceCount(source uuid.UUID) (uint64, error) {
	var n uint64
	err := s.update("next source count", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketSources)
		var err error
		if n, err = storedSourceCount(b, source); err != nil {
			return err
		}
		if n == math.MaxUint64 {
			return corruptf("source %s: communication count exhausted", source)
		}
		n++
		return b.Put(source[:], binary.BigEndian.AppendUint64(nil, n))
	})
	return n, err
}

// SourceCounts returns the counts of every source.
func (s *Store) SourceCounts() (map[uuid.UUID]uint64, error) {
	out := make(map[uuid.UUID]uint64)
	err := s.view("source counts", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSources).ForEach(func(k, v []byte) error {
			src, n, err := decodeSourceCount(k, v)
			out[src] = n
			return err
		})
	})
	return out, err
}

// ItemsAfter returns the stored items of a source whose count is greater
// than after, in count order, at most limit of them (all if limit <= 0). It
// answers catch-up and retransmission requests from storage.
func (s *Store) ItemsAfter(source uuid.UUID, after uint64, limit int) ([]*news.Item, error) {
	if after == math.MaxUint64 {
		return nil, nil
	}
	var out []*news.Item
	err := s.view("items after", func(tx *bbolt.Tx) error {
		b := itemBuckets(tx)
		c := b.bySource.Cursor()
		start := sourceKey(source, after+1, uuid.Nil)
		for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, source[:]) && (limit <= 0 || len(out) < limit); k, _ = c.Next() {
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
			out = append(out, it)
		}
		return nil
	})
	return out, err
}

// HighestStoredCount returns the highest count among the stored items of a
// source (0 if none): where a catch-up request for that source can start.
func (s *Store) HighestStoredCount(source uuid.UUID) (uint64, error) {
	var n uint64
	err := s.view("highest stored count", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketBySource).Cursor()
		// The last key of the source's range is the one before the first
		// key above it.
		k, _ := c.Seek(append(bytes.Clone(source[:]), bytes.Repeat([]byte{0xff}, 24)...))
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		if !bytes.HasPrefix(k, source[:]) {
			return nil
		}
		var err error
		_, n, _, err = decodeSourceKey(k)
		return err
	})
	return n, err
}

// storedSourceCount reads the count of a source: 0 if none is stored, and
// ErrCorrupt (not 0) if the value is damaged, so a damaged count of this
// installation's own source is never taken for "nothing published yet".
func storedSourceCount(b *bbolt.Bucket, source uuid.UUID) (uint64, error) {
	v := b.Get(source[:])
	if v == nil {
		return 0, nil
	}
	n, err := decodeCount(v)
	if err != nil {
		return 0, corruptf("count of source %s malformed: %v", source, err)
	}
	return n, nil
}

// decodeSourceCount reads a source-counts entry.
func decodeSourceCount(k, v []byte) (uuid.UUID, uint64, error) {
	if len(k) != 16 {
		return uuid.Nil, 0, corruptf("source-counts key %s malformed", hexCut(k))
	}
	n, err := decodeCount(v)
	if err != nil {
		return uuid.Nil, 0, corruptf("count of source %s malformed: %v", uuid.UUID(k), err)
	}
	return uuid.UUID(k), n, nil
}
