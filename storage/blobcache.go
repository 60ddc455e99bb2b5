package storage

import (
	"bytes"
	"slices"

	"go.etcd.io/bbolt"
)

// DefaultBlobCacheBytes bounds the relay cache of blobs when the option
// does not say: room for a few dozen items' attachments at the largest.
const DefaultBlobCacheBytes = 512 << 20

// touchBlob notes a use of a blob for the cache's order, in memory: a
// read does not cost a write. Eviction takes the later of this and the
// record's time.
func (s *Store) touchBlob(hash [32]byte) {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	if s.blobUsed == nil {
		s.blobUsed = map[[32]byte]int64{}
	}
	s.blobUsed[hash] = s.opts.now().UnixNano()
}

// forgetUse drops the use touchBlob noted, for a blob that is gone.
func (s *Store) forgetUse(hash [32]byte) {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	delete(s.blobUsed, hash)
}

func (s *Store) lastUse(hash [32]byte, persisted int64) int64 {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	return max(persisted, s.blobUsed[hash])
}

// BlobCacheBytes returns the bytes of the blobs no item refers to (whole
// ones and those arriving, by their size): the relay cache, bounded by
// WithBlobCacheBytes.
func (s *Store) BlobCacheBytes() (int64, error) {
	var total int64
	err := s.view("blob cache", func(tx *bbolt.Tx) error {
		return cachedBlobs(tx, func(_ [32]byte, r *blobRecord) { total += r.size })
	})
	return total, err
}

// cachedBlobs calls f for each blob no item refers to that has its chunk
// list (whole, or arriving): the blobs the cache bound counts.
func cachedBlobs(tx *bbolt.Tx, f func(hash [32]byte, r *blobRecord)) error {
	refs := tx.Bucket(bucketBlobRefs)
	return tx.Bucket(bucketBlobs).ForEach(func(k, v []byte) error {
		if referenced(refs, k) {
			return nil
		}
		r, err := decodeBlobRecord(k, v)
		if err == nil && len(r.chunks) > 0 {
			f([32]byte(k), r)
		}
		return err
	})
}

// evictBlobsLocked removes the least recently used unreferenced blobs
// while they take more than the cache bound, sparing keep (the blob just
// stored or begun). The caller holds blobMu.
func (s *Store) evictBlobsLocked(keep [32]byte) error {
	type entry struct {
		hash [32]byte
		size int64
		used int64
	}
	var cache []entry
	var total int64
	err := s.view("blob cache", func(tx *bbolt.Tx) error {
		return cachedBlobs(tx, func(h [32]byte, r *blobRecord) {
			total += r.size
			cache = append(cache, entry{h, r.size, s.lastUse(h, r.used)})
		})
	})
	if err != nil || total <= s.opts.blobCache {
		return err
	}
	slices.SortFunc(cache, func(a, b entry) int {
		if c := a.used - b.used; c != 0 {
			return int(min(max(c, -1), 1))
		}
		return bytes.Compare(a.hash[:], b.hash[:])
	})
	var gone [][32]byte
	for _, e := range cache {
		if total <= s.opts.blobCache {
			break
		}
		if e.hash == keep {
			continue
		}
		gone = append(gone, e.hash)
		total -= e.size
	}
	if len(gone) == 0 {
		return nil
	}
	if s.opts.evictHook != nil {
		s.opts.evictHook()
	}
	// Storing an item does not take blobMu, so one may have come since the
	// read and refer to a blob chosen here: its record stays, and so do its
	// files, whole or partial. Only the files of records removed go.
	var removed [][32]byte
	err = s.update("evict blobs", func(tx *bbolt.Tx, _ *txChanges) error {
		removed = removed[:0]
		refs, blobs := tx.Bucket(bucketBlobRefs), tx.Bucket(bucketBlobs)
		for _, h := range gone {
			if referenced(refs, h[:]) {
				continue // an item came meanwhile: its blob stays
			}
			if err := blobs.Delete(h[:]); err != nil {
				return err
			}
			removed = append(removed, h)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range removed {
		s.removeBlobFiles(h)
	}
	return nil
}
