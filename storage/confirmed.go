package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// Confirmations of this installation's own must-read publications: every
// reader whose signed confirmation the publisher verified, kept for good.
// A reach report counts the readers whose servants are in the tree now,
// so a reader who confirmed and then shut the laptop would drop out of
// "acknowledged" at the next report; the publisher keeps what it once
// verified instead. Key: item ID (16 bytes) followed by the reader's key
// in text form; value:
//
//	version   1 byte (= 1)
//	at        8 bytes, big-endian Unix nanoseconds: when the publisher
//	          first learned of the confirmation
//	name      the rest: the display name the reader signed, UTF-8
//
// The entries go with their item when it is purged. They are not read at
// Open (an item can have thousands): a malformed one is skipped where it
// is read, and counted as damaged.

const confirmedVersion = 1

// MaxConfirmations bounds the confirmations kept per item: beyond it the
// relays' count (Reach.ReportedAcknowledged) is all there is.
const MaxConfirmations = 100_000

// Confirmation is a reader who confirmed an own must-read item, and when
// the publisher first learned of it.
type Confirmation struct {
	Reader
	At time.Time
}

// AddConfirmations records the readers in cs as having confirmed item id.
// A reader recorded before keeps its first time; added is how many are
// new. An item that is not stored is ErrNotFound.
func (s *Store) AddConfirmations(id uuid.UUID, cs []Confirmation) (added int, err error) {
	for _, c := range cs {
		if c.Key == "" || !utf8.ValidString(c.Key) || !utf8.ValidString(c.Name) {
			return 0, fmt.Errorf("storage: confirmation of %s: malformed reader %q", id, c.Key)
		}
	}
	err = s.update("add confirmations", func(tx *bbolt.Tx, _ *txChanges) error {
		added = 0
		if tx.Bucket(bucketItems).Get(id[:]) == nil {
			return fmt.Errorf("%w: item %s", ErrNotFound, id)
		}
		b := tx.Bucket(bucketConfirmed)
		have := -1 // counted when the first new one comes
		for _, c := range cs {
			k := confirmedKey(id, c.Key)
			if b.Get(k) != nil {
				continue
			}
			if have < 0 {
				have = countPrefix(b, id[:])
			}
			if have >= MaxConfirmations {
				break
			}
			if err := b.Put(k, encodeConfirmation(c)); err != nil {
				return err
			}
			have++
			added++
		}
		return nil
	})
	return added, err
}

// Confirmations returns the readers who confirmed item id, in key order,
// and how many entries were malformed and skipped.
func (s *Store) Confirmations(id uuid.UUID) (cs []Confirmation, damaged int, err error) {
	err = s.view("confirmations", func(tx *bbolt.Tx) error {
		cs, damaged = nil, 0
		c := tx.Bucket(bucketConfirmed).Cursor()
		for k, v := c.Seek(id[:]); k != nil && bytes.HasPrefix(k, id[:]); k, v = c.Next() {
			conf, err := decodeConfirmation(k, v)
			if err != nil {
				damaged++
				continue
			}
			cs = append(cs, conf)
		}
		return nil
	})
	return cs, damaged, err
}

// deleteConfirmations removes the confirmations of item id (its purge).
func deleteConfirmations(b *bbolt.Bucket, id uuid.UUID) error {
	c := b.Cursor()
	for k, _ := c.Seek(id[:]); k != nil && bytes.HasPrefix(k, id[:]); k, _ = c.Seek(id[:]) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

func countPrefix(b *bbolt.Bucket, prefix []byte) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

func confirmedKey(id uuid.UUID, key string) []byte {
	return append(id[:len(id):len(id)], key...)
}

func encodeConfirmation(c Confirmation) []byte {
	b := []byte{confirmedVersion}
	b = binary.BigEndian.AppendUint64(b, uint64(c.At.UnixNano()))
	return append(b, c.Name...)
}

func decodeConfirmation(k, v []byte) (Confirmation, error) {
	if len(k) <= 16 || !utf8.Valid(k[16:]) || len(v) < 9 || v[0] != confirmedVersion || !utf8.Valid(v[9:]) {
		return Confirmation{}, corruptf("confirmation %x malformed", k)
	}
	return Confirmation{
		Reader: Reader{Name: string(v[9:]), Key: string(k[16:])},
		At:     time.Unix(0, int64(binary.BigEndian.Uint64(v[1:9]))),
	}, nil
}
