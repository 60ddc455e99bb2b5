package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// Acknowledgements: a reader's confirmation that they have read a
// must-read item (news.Item.MustRead), kept per item in the acks bucket:
// key the item ID, value the time of the confirmation (ackLen bytes,
// big-endian int64 Unix nanoseconds). It is this installation's own record,
// kept as long as the item is; reporting it to the publisher is the
// network's business, which reads it back with Acknowledgements.

// ErrNotMustRead: an acknowledgement of an item that asks for none.
var ErrNotMustRead = errors.New("storage: not a must-read item")

const ackLen = 8

// Ack is one acknowledgement.
type Ack struct {
	ItemID uuid.UUID
	At     time.Time
}

// Acknowledge records that the reader confirmed the must-read item id at
// at, and marks it read, in one transaction. It returns when the item was
// acknowledged and whether this call recorded it: a second confirmation
// changes nothing and returns the first one's time. An item that is not
// stored, or hidden by a retraction or its expiry, is ErrNotFound; one
// that is not must-read, ErrNotMustRead.
func (s *Store) Acknowledge(id uuid.UUID, at time.Time) (time.Time, bool, error) {
	var when time.Time
	var added bool
	err := s.update("acknowledge", func(tx *bbolt.Tx, _ *txChanges) error {
		when, added = time.Time{}, false
		b := itemBuckets(tx)
		v := b.items.Get(id[:])
		if v == nil || b.isRetracted(id[:]) {
			return fmt.Errorf("%w: item %s", ErrNotFound, id)
		}
		it, err := decodeValue(id[:], v)
		if err != nil {
			return err
		}
		if !it.MustRead {
			return fmt.Errorf("%w: item %s", ErrNotMustRead, id)
		}
		if old := b.acks.Get(id[:]); old != nil {
			when, err = decodeAck(id[:], old)
			return err
		}
		if err := b.acks.Put(id[:], encodeAck(at)); err != nil {
			return err
		}
		if b.read.Get(id[:]) == nil {
			if err := b.read.Put(id[:], readMark); err != nil {
				return err
			}
			if err := addCount(b.unread, it.Category, -1); err != nil {
				return err
			}
		}
		when, added = at, true
		return nil
	})
	return when, added, err
}

// Acknowledgements returns every acknowledgement kept, in item ID order
// (oldest item first): what a reporter sends after a restart.
func (s *Store) Acknowledgements() ([]Ack, error) {
	var out []Ack
	err := s.view("acknowledgements", func(tx *bbolt.Tx) error {
		out = nil
		return tx.Bucket(bucketAcks).ForEach(func(k, v []byte) error {
			at, err := decodeAck(k, v)
			out = append(out, Ack{ItemID: uuid.UUID(k), At: at})
			return err
		})
	})
	return out, err
}

func encodeAck(at time.Time) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))
}

// decodeAck decodes an acks entry; a malformed one is ErrCorrupt.
func decodeAck(k, v []byte) (time.Time, error) {
	if len(k) != 16 || len(v) != ackLen {
		return time.Time{}, corruptf("acknowledgement %x: value %x malformed", k, v)
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))), nil
}

// acknowledged is when the item id was acknowledged, zero if not.
func (b buckets) acknowledged(id []byte) (time.Time, error) {
	v := b.acks.Get(id)
	if v == nil {
		return time.Time{}, nil
	}
	return decodeAck(id, v)
}
