package storage

import (
	"encoding/binary"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// keyBlobsLost counts the blobs marked lost (MarkBlobLost), all runs.
var keyBlobsLost = []byte("blobs-lost")

// MarkBlobLost records that a blob could not be recovered from any
// servant; BlobsLost counts each blob once, across runs. A blob stored
// whole is not lost, and is left alone. What had arrived of a partial one
// stays, so a later transfer can still finish it, and BlobChunk still
// serves it to neighbours.
func (s *Store) MarkBlobLost(hash [32]byte) error {
	s.blobMu.Lock() // PutBlobChunk rewrites the record it read
	defer s.blobMu.Unlock()
	return s.update("mark blob lost", func(tx *bbolt.Tx, _ *txChanges) error {
		r, err := getBlob(tx, hash)
		if err != nil {
			return err
		}
		if r == nil {
			r = &blobRecord{}
		}
		if r.whole || r.lost {
			return nil
		}
		r.lost = true
		r.used = s.opts.now().UnixNano()
		if err := putBlob(tx, hash, r); err != nil {
			return err
		}
		n, err := metaCount(tx, keyBlobsLost)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyBlobsLost, binary.BigEndian.AppendUint64(nil, n+1))
	})
}

// BlobsLost returns how many blobs MarkBlobLost counted.
func (s *Store) BlobsLost() (uint64, error) {
	var n uint64
	err := s.view("blobs lost", func(tx *bbolt.Tx) (err error) {
		n, err = metaCount(tx, keyBlobsLost)
		return err
	})
	return n, err
}

// BlobLost reports whether a blob that is not whole was marked lost.
func (s *Store) BlobLost(hash [32]byte) bool {
	r, err := s.blobRecordOf(hash)
	return err == nil && r != nil && r.lost && !r.whole
}

// IncompleteBlobs returns the blobs that stored items name and that are
// not here whole, nor given up as lost: what a servant asks the network
// for again after a restart. Each hash once, with one item naming it.
func (s *Store) IncompleteBlobs() (map[[32]byte]uuid.UUID, error) {
	out := map[[32]byte]uuid.UUID{}
	err := s.view("incomplete blobs", func(tx *bbolt.Tx) error {
		blobs := tx.Bucket(bucketBlobs)
		return tx.Bucket(bucketBlobRefs).ForEach(func(k, _ []byte) error {
			if len(k) != 48 {
				return corruptf("blob-refs key %s malformed", hexCut(k))
			}
			h := [32]byte(k[:32])
			if _, seen := out[h]; seen {
				return nil
			}
			if v := blobs.Get(k[:32]); v != nil {
				r, err := decodeBlobRecord(k[:32], v)
				if err != nil || r.whole || r.lost {
					return err
				}
			}
			out[h] = uuid.UUID(k[32:])
			return nil
		})
	})
	return out, err
}
