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
// reader whose signed confirmation the publisher verified, kept for good;
// and beside them the pending readers, every reader a report listed as
// having the item and not having confirmed it, with when it was last
// listed (reports name readers in turns: newsnet/reach_window.go).
// A reach report counts the readers whose servants are in the tree now,
// so a reader who confirmed and then shut the laptop would drop out of
// "acknowledged" at the next report; the publisher keeps what it once
// verified instead. Both buckets (confirmed, pending): key item ID (16
// bytes) followed by the reader's key in text form; value:
//
//	version   1 byte (= 1)
//	at        8 bytes, big-endian Unix nanoseconds: when the publisher
//	          first learned of the confirmation; when the reader was
//	          last listed as pending
//	name      the rest: the display name the reader signed, UTF-8
//
// The entries go with their item when it is purged. They are not read at
// Open (an item can have thousands): a malformed one is skipped where it
// is read, and counted as damaged.

const confirmedVersion = 1

// MaxConfirmations bounds the confirmations, and the pending readers,
// kept per item: beyond it the relays' counts are all there is.
const MaxConfirmations = 100_000

// Confirmation is a reader who confirmed an own must-read item, and when
// the publisher first learned of it.
type Confirmation struct {
	Reader
	At time.Time
}

// AddConfirmations records the readers in cs as having confirmed item id,
// and forgets them as pending. A reader recorded before keeps its first
// time; added is how many are new. An item that is not stored is
// ErrNotFound.
func (s *Store) AddConfirmations(id uuid.UUID, cs []Confirmation) (added int, err error) {
	err = s.putReaders("add confirmations", bucketConfirmed, id, cs, false, func(tx *bbolt.Tx, c Confirmation) error {
		return tx.Bucket(bucketPending).Delete(confirmedKey(id, c.Key))
	}, &added)
	return added, err
}

// SeePending records the readers in ps as having item id and not having
// confirmed it, at the time each carries (when a report last listed
// them): a reader recorded before takes the later time and its name. A
// reader who confirmed already is left out. An item that is not stored
// is ErrNotFound.
func (s *Store) SeePending(id uuid.UUID, ps []Confirmation) error {
	var added int
	return s.putReaders("see pending", bucketPending, id, ps, true, nil, &added)
}

// putReaders records readers of item id in bucket: new ones up to
// MaxConfirmations, and with renew a known one again when its time is
// later. also runs for each one recorded.
func (s *Store) putReaders(op string, bucket []byte, id uuid.UUID, rs []Confirmation, renew bool,
	also func(*bbolt.Tx, Confirmation) error, added *int) error {
	for _, c := range rs {
		if c.Key == "" || !utf8.ValidString(c.Key) || !utf8.ValidString(c.Name) {
			return fmt.Errorf("storage: reader of %s: malformed reader %q", id, c.Key)
		}
	}
	return s.update(op, func(tx *bbolt.Tx, _ *txChanges) error {
		*added = 0
		if tx.Bucket(bucketItems).Get(id[:]) == nil {
			return fmt.Errorf("%w: item %s", ErrNotFound, id)
		}
		b := tx.Bucket(bucket)
		confirmed := tx.Bucket(bucketConfirmed)
		have := -1 // counted when the first new one comes
		for _, c := range rs {
			k := confirmedKey(id, c.Key)
			if bytes.Equal(bucket, bucketPending) && confirmed.Get(k) != nil {
				continue
			}
			if v := b.Get(k); v != nil {
				if prev, err := decodeConfirmation(k, v); !renew || err == nil && !c.At.After(prev.At) {
					continue
				}
			} else {
				if have < 0 {
					have = countPrefix(b, id[:])
				}
				if have >= MaxConfirmations {
					continue
				}
				have++
				*added++
			}
			if err := b.Put(k, encodeConfirmation(c)); err != nil {
				return err
			}
			if also != nil {
				if err := also(tx, c); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Confirmations returns the readers who confirmed item id, in key order,
// and how many entries were malformed and skipped.
func (s *Store) Confirmations(id uuid.UUID) (cs []Confirmation, damaged int, err error) {
	return s.readers("confirmations", bucketConfirmed, id)
}

// PendingReaders returns the readers seen having item id without having
// confirmed it, each with when a report last listed them, in key order,
// and how many entries were malformed and skipped.
func (s *Store) PendingReaders(id uuid.UUID) (ps []Confirmation, damaged int, err error) {
	return s.readers("pending readers", bucketPending, id)
}

func (s *Store) readers(op string, bucket []byte, id uuid.UUID) (cs []Confirmation, damaged int, err error) {
	err = s.view(op, func(tx *bbolt.Tx) error {
		cs, damaged = nil, 0
		c := tx.Bucket(bucket).Cursor()
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

// deleteReaders removes the confirmations or pending readers of item id
// from b (its purge).
func deleteReaders(b *bbolt.Bucket, id uuid.UUID) error {
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
