package storage

import (
	"go.etcd.io/bbolt"
)

// The storage quota (issue 32): a publisher, or a stolen publisher key,
// must not be able to fill the disk of every member. The network's
// publishing limits bound what one key sends; the quota bounds what one
// store keeps. The application sets it; the store knows how large its items
// are and removes the oldest received first, sparing what retention spares
// (kept items, unconfirmed must-read items, pinned categories: spared).
//
// The size counted is the items' stored values and IDs: what grows with
// the items received. The file is larger by its indexes, read state and
// the free pages bbolt keeps for reuse (it never shrinks the file), about a
// third more for items of a few kilobytes. The blobs the items' manifests
// name (blobs.go) count too, each once, by their manifest size from the
// moment an item refers to one (whether its bytes are here yet or not):
// removing the last item that refers to a blob frees it. Blobs no item
// refers to are the relay cache, bounded on its own (WithBlobCacheBytes).

// storedSize is what one stored item counts toward the quota: its value
// and its key.
func storedSize(val []byte) int64 { return int64(len(val)) + 16 }

// ItemBytes returns the total size of the stored items (storedSize) and
// of the blobs they refer to. The
// first call after Open reads every item's size once; later calls and
// writes keep it up to date in memory.
func (s *Store) ItemBytes() (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.bytesKnown {
		return s.itemBytes, nil
	}
	var total int64
	err := s.view("item bytes", func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketItems).ForEach(func(_, v []byte) error {
			total += storedSize(v)
			return nil
		}); err != nil {
			return err
		}
		blobs, err := referencedBlobBytes(tx)
		total += blobs
		return err
	})
	if err != nil {
		return 0, err
	}
	s.itemBytes, s.bytesKnown = total, true
	return total, nil
}

// QuotaLowWater is the share of the quota an eviction frees down to, so
// that the next items do not start another at once.
const QuotaLowWater = 0.9

// EvictOldest removes the oldest received items when the stored items take
// more than quota bytes, until they take no more than QuotaLowWater of it,
// sparing kept items, unconfirmed must-read items and pinned categories.
// It returns how many items and bytes it removed (none when within the
// quota, or when only spared items are left).
func (s *Store) EvictOldest(quota int64) (int, int64, error) {
	used, err := s.ItemBytes()
	if err != nil || used <= quota {
		return 0, 0, err
	}
	need := used - int64(float64(quota)*QuotaLowWater)
	return s.removeOldest("evict", func(_ []byte, freed int64) bool { return freed >= need })
}
