package storage

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/categories"
)

// readMark is the value of a read-bucket key. One byte rather than empty so
// that Get's nil unambiguously means "unread".
var readMark = []byte{1}

// MarkRead marks items read and returns how many changed state. Marking a
// read item again changes nothing; IDs that are not stored (perhaps purged
// meanwhile) or hidden by a retraction are ignored. Unread counts change in
// the same transaction.
func (s *Store) MarkRead(ids ...uuid.UUID) (int, error) {
	return s.setRead(ids, true)
}

// MarkUnread marks items unread; see MarkRead.
func (s *Store) MarkUnread(ids ...uuid.UUID) (int, error) {
	return s.setRead(ids, false)
}

func (s *Store) setRead(ids []uuid.UUID, read bool) (int, error) {
	changed := 0
	err := s.update("mark read", func(tx *bbolt.Tx, _ *txChanges) error {
		changed = 0
		b := itemBuckets(tx)
		for _, id := range ids {
			v := b.items.Get(id[:])
			if v == nil || b.isRetracted(id[:]) {
				continue
			}
			if (b.read.Get(id[:]) != nil) == read {
				continue
			}
			it, err := decodeValue(id[:], v)
			if err != nil {
				return err
			}
			if read {
				err = b.read.Put(id[:], readMark)
				if err == nil {
					err = addCount(b.unread, it.Category, -1)
				}
			} else {
				err = b.read.Delete(id[:])
				if err == nil {
					err = addCount(b.unread, it.Category, 1)
				}
			}
			if err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// MarkAllRead marks every item of a category read, including the categories
// under it (as a subscription to it would show them); "" means every
// category. It returns how many items changed.
func (s *Store) MarkAllRead(category string) (int, error) {
	if category != "" {
		if err := categories.ValidateID(category); err != nil {
			return 0, fmt.Errorf("storage: mark all read: %w", err)
		}
	}
	changed := 0
	err := s.update("mark all read", func(tx *bbolt.Tx, _ *txChanges) error {
		changed = 0
		b := itemBuckets(tx)
		unread, err := readCounts(b.unread)
		if err != nil {
			return err
		}
		for cat, n := range unread {
			if category != "" && !categories.Covers(category, cat) {
				continue
			}
			// Only categories with unread items are walked, and each walk
			// stops once it has found all of them.
			prefix := categoryPrefix(cat)
			c := b.byCategory.Cursor()
			found := uint64(0)
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && found < n; k, _ = c.Next() {
				_, id, err := decodeCategoryKey(k)
				if err != nil {
					return err
				}
				if b.read.Get(id) != nil {
					continue
				}
				if err := b.read.Put(bytes.Clone(id), readMark); err != nil {
					return err
				}
				found++
			}
			if found != n {
				return corruptf("category %q: unread count %d, found %d unread items", cat, n, found)
			}
			if err := addCount(b.unread, cat, -int64(n)); err != nil {
				return err
			}
			changed += int(n)
		}
		return nil
	})
	return changed, err
}

// UnreadCounts returns the number of unread items per category. Categories
// without unread items are absent. Counts are per exact category: the count
// of "sales" does not include "sales/emea" (sum them for a parent's badge).
// It reads counters, never items.
func (s *Store) UnreadCounts() (map[string]uint64, error) {
	var out map[string]uint64
	err := s.view("unread counts", func(tx *bbolt.Tx) (err error) {
		out, err = readCounts(tx.Bucket(bucketUnread))
		return err
	})
	return out, err
}

// ItemCounts returns the number of stored items per exact category;
// categories without items are absent.
func (s *Store) ItemCounts() (map[string]uint64, error) {
	var out map[string]uint64
	err := s.view("item counts", func(tx *bbolt.Tx) (err error) {
		out, err = readCounts(tx.Bucket(bucketItemCounts))
		return err
	})
	return out, err
}
