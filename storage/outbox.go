package storage

import (
	"encoding/binary"
	"fmt"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// The outbox holds items published while disconnected, in publication
// order, until the network layer has sent them. Keys are the bucket's
// sequence numbers (big-endian), so key order is enqueue order and a
// removed entry's number is never reused.

// OutboxEntry is one queued item.
type OutboxEntry struct {
	Seq  uint64
	Item *news.Item
}

// OutboxPush appends an item to the outbox and returns its sequence number.
func (s *Store) OutboxPush(it *news.Item) (uint64, error) {
	val, err := it.MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("storage: outbox: %w", err)
	}
	var seq uint64
	err = s.update("outbox push", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketOutbox)
		var err error
		if seq, err = b.NextSequence(); err != nil {
			return err
		}
		return b.Put(binary.BigEndian.AppendUint64(nil, seq), val)
	})
	return seq, err
}

// Outbox returns the queued items, oldest first.
func (s *Store) Outbox() ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.view("outbox", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
			e, err := decodeOutboxEntry(k, v)
			if err != nil {
				return err
			}
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// decodeOutboxEntry copies an outbox entry out of bbolt's memory.
func decodeOutboxEntry(k, v []byte) (OutboxEntry, error) {
	if len(k) != 8 {
		return OutboxEntry{}, corruptf("outbox key %s malformed", hexCut(k))
	}
	it := new(news.Item)
	if err := it.UnmarshalBinary(v); err != nil {
		return OutboxEntry{}, corruptf("outbox entry %x: %v", k, err)
	}
	return OutboxEntry{Seq: binary.BigEndian.Uint64(k), Item: it}, nil
}

// OutboxRemove removes a sent item; ErrNotFound if there is no such entry.
func (s *Store) OutboxRemove(seq uint64) error {
	return s.update("outbox remove", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketOutbox)
		k := binary.BigEndian.AppendUint64(nil, seq)
		if b.Get(k) == nil {
			return fmt.Errorf("%w: outbox entry %d", ErrNotFound, seq)
		}
		return b.Delete(k)
	})
}
