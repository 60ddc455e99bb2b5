package storage

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// The scheduled list holds this installation's publications that wait for
// their time (news.Item.At): written, not yet numbered, signed or sent, so
// no other servant knows of them. It is apart from the outbox, which holds
// numbered publications that wait for a link; a scheduled item reaches the
// outbox (through PublishOwn) only when it goes out. Keys are the item's At
// as in by-received, then its ID, so the list reads in the order the items
// are due.

// ScheduledPush adds an item to the scheduled list. The item must be valid
// with At set; an item of that ID scheduled already is an error.
func (s *Store) ScheduledPush(it *news.Item) error {
	if it.At.IsZero() {
		return fmt.Errorf("storage: schedule %s: no publication time", it.ID)
	}
	if err := it.Validate(); err != nil {
		return fmt.Errorf("storage: schedule: %w", err)
	}
	val, err := it.MarshalBinary()
	if err != nil {
		return fmt.Errorf("storage: schedule: %w", err)
	}
	return s.update("schedule", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketScheduled)
		if k, _ := scheduledKeyOf(b, it.ID); k != nil {
			return fmt.Errorf("storage: schedule: item %s is scheduled already", it.ID)
		}
		return b.Put(receivedKey(it.At, it.ID), val)
	})
}

// Scheduled returns the scheduled items, the first due first.
func (s *Store) Scheduled() ([]*news.Item, error) {
	var out []*news.Item
	err := s.view("scheduled", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketScheduled).ForEach(func(k, v []byte) error {
			it, err := decodeScheduled(k, v)
			if err != nil {
				return err
			}
			out = append(out, it)
			return nil
		})
	})
	return out, err
}

// ScheduledRemove takes an item off the scheduled list (it went out, or
// was cancelled); ErrNotFound if it is not on it.
func (s *Store) ScheduledRemove(id uuid.UUID) error {
	return s.update("unschedule", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketScheduled)
		k, err := scheduledKeyOf(b, id)
		if err != nil {
			return err
		}
		if k == nil {
			return fmt.Errorf("%w: scheduled item %s", ErrNotFound, id)
		}
		return b.Delete(k)
	})
}

// scheduledKeyOf finds the key of the scheduled item id, or nil. The list
// is short (what a newsroom has planned), so a scan is fine.
func scheduledKeyOf(b *bbolt.Bucket, id uuid.UUID) ([]byte, error) {
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != 8+16 {
			return nil, corruptf("scheduled key %s malformed", hexCut(k))
		}
		if bytes.Equal(k[8:], id[:]) {
			return bytes.Clone(k), nil
		}
	}
	return nil, nil
}

// decodeScheduled copies a scheduled item out of bbolt's memory and checks
// that its key is its At and ID.
func decodeScheduled(k, v []byte) (*news.Item, error) {
	it := new(news.Item)
	if err := it.UnmarshalBinary(v); err != nil {
		return nil, corruptf("scheduled item %s: %v", hexCut(k), err)
	}
	if it.At.IsZero() || !bytes.Equal(k, receivedKey(it.At, it.ID)) {
		return nil, corruptf("scheduled key %s does not match its item %s (at %v)", hexCut(k), it.ID, it.At)
	}
	return it, nil
}
