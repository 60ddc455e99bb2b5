package storage

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// A blobs value: format (1), flags, size (int64), root, last use (int64
// Unix ns), the chunk hashes (32 bytes each, news.ChunkCount(size) of
// them, or none for a record of a blob only known lost), then for a
// partial blob one bit per chunk (bit i%8 of byte i/8) set when it is here.
const (
	blobFormat    = 1
	blobHeaderLen = 1 + 1 + 8 + 32 + 8

	blobWhole = 1 << 0
	blobLost  = 1 << 1
)

type blobRecord struct {
	whole, lost bool
	size        int64
	root        [32]byte
	used        int64
	chunks      [][32]byte
	have        []byte // partial blobs: the chunk bitmap
}

func (r *blobRecord) encode() []byte {
	b := make([]byte, blobHeaderLen, blobHeaderLen+32*len(r.chunks)+len(r.have))
	b[0] = blobFormat
	if r.whole {
		b[1] |= blobWhole
	}
	if r.lost {
		b[1] |= blobLost
	}
	binary.BigEndian.PutUint64(b[2:], uint64(r.size))
	copy(b[10:], r.root[:])
	binary.BigEndian.PutUint64(b[42:], uint64(r.used))
	for _, c := range r.chunks {
		b = append(b, c[:]...)
	}
	if !r.whole {
		b = append(b, r.have...)
	}
	return b
}

func decodeBlobRecord(k, v []byte) (*blobRecord, error) {
	if len(k) != 32 {
		return nil, corruptf("blobs key %s malformed", hexCut(k))
	}
	if len(v) < blobHeaderLen || v[0] != blobFormat || v[1]&^(blobWhole|blobLost) != 0 {
		return nil, corruptf("blob %x: record malformed", k)
	}
	r := &blobRecord{whole: v[1]&blobWhole != 0, lost: v[1]&blobLost != 0,
		size: int64(binary.BigEndian.Uint64(v[2:])), used: int64(binary.BigEndian.Uint64(v[42:]))}
	copy(r.root[:], v[10:])
	if r.size < 0 || r.size > news.MaxAttachmentBytes {
		return nil, corruptf("blob %x: size %d", k, r.size)
	}
	n := news.ChunkCount(r.size)
	rest := v[blobHeaderLen:]
	switch {
	case len(rest) == 0 && n == 0 && r.lost && !r.whole:
		return r, nil // known lost, nothing more
	case r.whole && len(rest) == 32*n && n > 0:
	case !r.whole && len(rest) == 32*n+(n+7)/8 && n > 0:
		r.have = bytes.Clone(rest[32*n:])
	default:
		return nil, corruptf("blob %x: record of %d bytes for %d chunks", k, len(v), n)
	}
	r.chunks = make([][32]byte, n)
	for i := range r.chunks {
		copy(r.chunks[i][:], rest[32*i:])
	}
	if news.ChunkRoot(r.chunks) != r.root {
		return nil, corruptf("blob %x: chunk hashes do not match the root", k)
	}
	return r, nil
}

func (r *blobRecord) hasChunk(i int) bool { return r.have[i/8]&(1<<(i%8)) != 0 }

func (r *blobRecord) haveCount() int {
	n := 0
	for _, b := range r.have {
		n += bits.OnesCount8(b)
	}
	return n
}

// getBlob reads a blob's record in tx; nil when there is none.
func getBlob(tx *bbolt.Tx, h [32]byte) (*blobRecord, error) {
	v := tx.Bucket(bucketBlobs).Get(h[:])
	if v == nil {
		return nil, nil
	}
	return decodeBlobRecord(h[:], v)
}

func putBlob(tx *bbolt.Tx, h [32]byte, r *blobRecord) error {
	return tx.Bucket(bucketBlobs).Put(h[:], r.encode())
}

// blobRecordOf reads a blob's record; nil when there is none.
func (s *Store) blobRecordOf(h [32]byte) (*blobRecord, error) {
	var r *blobRecord
	err := s.view("blob", func(tx *bbolt.Tx) (err error) {
		r, err = getBlob(tx, h)
		return err
	})
	return r, err
}
