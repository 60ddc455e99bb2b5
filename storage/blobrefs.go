package storage

import (
	"bytes"
	"encoding/binary"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// BlobItems returns the stored items whose manifests name a blob (and are
// visible: a retracted or expired item gives its references up).
func (s *Store) BlobItems(hash [32]byte) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.view("blob items", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketBlobRefs).Cursor()
		for k, _ := c.Seek(hash[:]); k != nil && bytes.HasPrefix(k, hash[:]); k, _ = c.Next() {
			if len(k) != 48 {
				return corruptf("blob-refs key %s malformed", hexCut(k))
			}
			ids = append(ids, uuid.UUID(k[32:]))
		}
		return nil
	})
	return ids, err
}

// referenced reports whether an item refers to hash.
func referenced(refs *bbolt.Bucket, hash []byte) bool {
	k, _ := refs.Cursor().Seek(hash)
	return k != nil && bytes.HasPrefix(k, hash)
}

// removeFreed removes the files of blobs whose last reference a committed
// transaction removed (with their records), unless a record came back
// meanwhile (the same bytes stored again).
func (s *Store) removeFreed(hashes [][32]byte) {
	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	for _, h := range hashes {
		r, err := s.blobRecordOf(h)
		if err != nil || r != nil {
			continue
		}
		s.removeBlobFiles(h)
	}
}

// addBlobRefs records that a visible item, just stored, refers to the
// blobs of its manifest; a blob newly referenced counts toward the
// stored bytes.
func (b buckets) addBlobRefs(it *news.Item, ch *txChanges) error {
	for _, a := range it.Attachments() {
		if !referenced(b.blobRefs, a.Hash[:]) {
			ch.bytes += a.Size
		}
		k := append(a.Hash[:len(a.Hash):len(a.Hash)], it.ID[:]...)
		if err := b.blobRefs.Put(k, binary.BigEndian.AppendUint64(nil, uint64(a.Size))); err != nil {
			return err
		}
	}
	return nil
}

// dropBlobRefs removes an item's references to its blobs (purged,
// retracted or expired); a blob left without any is removed, its record
// now and its files once the transaction has committed.
func (b buckets) dropBlobRefs(it *news.Item, ch *txChanges) error {
	for _, a := range it.Attachments() {
		k := append(a.Hash[:len(a.Hash):len(a.Hash)], it.ID[:]...)
		if b.blobRefs.Get(k) == nil {
			continue
		}
		if err := b.blobRefs.Delete(k); err != nil {
			return err
		}
		if referenced(b.blobRefs, a.Hash[:]) {
			continue
		}
		ch.bytes -= a.Size
		if err := b.blobs.Delete(a.Hash[:]); err != nil {
			return err
		}
		ch.freedBlobs = append(ch.freedBlobs, a.Hash)
	}
	return nil
}

// referencedBlobBytes sums the sizes of the blobs items refer to, each
// once.
func referencedBlobBytes(tx *bbolt.Tx) (int64, error) {
	var total int64
	var last []byte
	err := tx.Bucket(bucketBlobRefs).ForEach(func(k, v []byte) error {
		if len(k) != 48 || len(v) != 8 {
			return corruptf("blob-refs entry %s malformed", hexCut(k))
		}
		if !bytes.Equal(k[:32], last) {
			total += int64(binary.BigEndian.Uint64(v))
			last = k[:32]
		}
		return nil
	})
	return total, err
}
