package storage

import (
	"fmt"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// Kept items: the reader marks an item to keep (the reader's pin), and
// retention never purges it (Purge), however old it grows. The mark is
// kept per item in the kept bucket, key the item ID, value empty, and goes
// with the item when a retraction's purge or an expiry removes it.

// SetKept marks item id as kept, or not. An item that is not stored is
// ErrNotFound; marking it again changes nothing.
func (s *Store) SetKept(id uuid.UUID, keep bool) error {
	return s.update("keep item", func(tx *bbolt.Tx, _ *txChanges) error {
		b := itemBuckets(tx)
		if b.items.Get(id[:]) == nil {
			return fmt.Errorf("%w: item %s", ErrNotFound, id)
		}
		if !keep {
			return b.kept.Delete(id[:])
		}
		return b.kept.Put(id[:], []byte{})
	})
}

// checkKept checks the shape of a kept mark (checkStartup).
func checkKept(k, v []byte) error {
	if len(k) != 16 || len(v) != 0 {
		return corruptf("kept mark %x malformed (value %x)", k, v)
	}
	return nil
}
