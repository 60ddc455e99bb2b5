package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// Blobs (issue 29): the bytes of attachments, addressed by their SHA-256
// (news.Attachment). They are files beside the database, not bbolt values
// (docs/benchmarks.md, "Blobs", has the measurements): a 5 MiB value
// costs bbolt a copy through its page cache and as many free pages again
// once deleted, which it never gives back to the disk, while a file is
// written once, read with the operating system's read-ahead, served by
// http.ServeContent with ranges, and removed for good.
//
//	<datadir>/blobs/<first 2 hex>/<hash hex>   whole, verified blobs
//	<datadir>/blobs/tmp/                       blobs being written (PutBlob)
//	<datadir>/blobs/partial/<hash hex>         blobs arriving chunk by chunk
//
// A whole blob appears only by rename, after its bytes and then its
// directory are synced, so a crash leaves it whole or absent; Open empties
// tmp/ and removes files no record names. What the store knows of a blob
// is a record in the blobs bucket (its size, root, chunk hashes, and for a
// partial blob which chunks are here); a chunk counts as here only once
// its bytes are synced, since the record is committed after.
//
// The blob-refs bucket says which items carry a blob in their manifest
// (key: hash + item ID, value: the blob's size). Storing or publishing a
// visible item adds its references; purging, expiry and retraction remove
// them, and a blob whose last reference goes is removed with it. A blob no
// item here refers to (one this servant relays for others, or one a
// publication was about to use) is an entry of the relay cache, bounded in
// bytes (WithBlobCacheBytes) and evicted least recently used first;
// partial blobs count toward it by their whole size. Referenced blobs count
// toward the storage quota (quota.go) instead, by the size of the manifest
// entry, from the moment the item is stored.
//
// Beside this file: the record (blobrecord.go), a blob arriving chunk by
// chunk (blobarrival.go), which items refer to a blob (blobrefs.go), the
// relay cache (blobcache.go), blobs items name that are not here
// (blobmissing.go), and the sweep when Open runs (blobsweep.go).

var (
	bucketBlobs    = []byte("blobs")     // since schema 12: blob hash → record (blobRecord)
	bucketBlobRefs = []byte("blob-refs") // since schema 12: blob hash + item ID → blob size (8 bytes)
)

const (
	blobDirName    = "blobs"
	blobTmpName    = "tmp"
	blobPartialDir = "partial"
)

// blobDir is <datadir>/blobs.
func (s *Store) blobDir() string { return filepath.Join(filepath.Dir(s.path), blobDirName) }

func (s *Store) wholePath(h [32]byte) string {
	x := hex.EncodeToString(h[:])
	return filepath.Join(s.blobDir(), x[:2], x)
}

func (s *Store) partialPath(h [32]byte) string {
	return filepath.Join(s.blobDir(), blobPartialDir, hex.EncodeToString(h[:]))
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// mkdirSynced creates dir (and blobs/ above it) if missing, syncing the
// parent of each directory it created.
func mkdirSynced(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return syncDir(filepath.Dir(filepath.Dir(dir)))
}

// PutBlob stores a blob this installation publishes, read from r to its
// end, and returns its manifest entry (hash and root computed while the
// bytes are written). A blob already stored whole is not stored twice.
// name and mediaType must pass news.CheckAttachment, and the blob must be
// 1 to news.MaxAttachmentBytes bytes (else news.ErrAttachmentsTooLarge).
// Until an item refers to it, the blob is a relay cache entry like any
// other.
func (s *Store) PutBlob(r io.Reader, name, mediaType string) (news.Attachment, error) {
	if s.opts.readOnly {
		return news.Attachment{}, fmt.Errorf("%w: put blob: store opened read-only", ErrReadOnly)
	}
	if err := news.CheckAttachmentName(name); err != nil {
		return news.Attachment{}, err
	}
	if err := news.CheckMediaType(mediaType); err != nil {
		return news.Attachment{}, err
	}
	tmpDir := filepath.Join(s.blobDir(), blobTmpName)
	if err := mkdirSynced(tmpDir); err != nil {
		return news.Attachment{}, classify("blob directory", err)
	}
	f, err := os.CreateTemp(tmpDir, "put-*")
	if err != nil {
		return news.Attachment{}, classify("write blob", err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	h := news.NewBlobHasher()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, news.MaxAttachmentBytes+1))
	if err != nil {
		return news.Attachment{}, classify("write blob", err)
	}
	if n > news.MaxAttachmentBytes {
		return news.Attachment{}, fmt.Errorf("%w: %q is larger than %d bytes", news.ErrAttachmentsTooLarge, name, news.MaxAttachmentBytes)
	}
	if err := f.Sync(); err != nil {
		return news.Attachment{}, classify("sync blob", err)
	}
	if err := f.Close(); err != nil {
		return news.Attachment{}, classify("write blob", err)
	}
	a := news.Attachment{Name: name, MediaType: mediaType}
	var chunks [][32]byte
	a.Hash, a.Root, chunks, a.Size = h.Sum()
	if err := news.CheckAttachment(a); err != nil {
		return news.Attachment{}, err
	}

	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	old, err := s.blobRecordOf(a.Hash)
	if err != nil {
		return news.Attachment{}, err
	}
	now := s.opts.now().UnixNano()
	if old != nil && old.whole {
		// Stored already: this copy goes, the use counts.
		done = true
		_ = os.Remove(tmp)
		s.touchBlob(a.Hash)
		return a, nil
	}
	final := s.wholePath(a.Hash)
	if err := mkdirSynced(filepath.Dir(final)); err != nil {
		return news.Attachment{}, classify("blob directory", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return news.Attachment{}, classify("store blob", err)
	}
	done = true
	if err := syncDir(filepath.Dir(final)); err != nil {
		_ = os.Remove(final)
		return news.Attachment{}, classify("store blob", err)
	}
	rec := &blobRecord{whole: true, size: a.Size, root: a.Root, used: now, chunks: chunks}
	if old != nil {
		rec.lost = old.lost
	}
	if err := s.update("store blob", func(tx *bbolt.Tx, _ *txChanges) error { return putBlob(tx, a.Hash, rec) }); err != nil {
		_ = os.Remove(final) // Open would remove it as a file no record names
		return news.Attachment{}, err
	}
	if old != nil {
		_ = os.Remove(s.partialPath(a.Hash)) // what had arrived of it
	}
	if err := s.evictBlobsLocked(a.Hash); err != nil {
		return a, err
	}
	return a, nil
}

// HasBlob reports whether a blob is stored whole.
func (s *Store) HasBlob(hash [32]byte) bool {
	r, err := s.blobRecordOf(hash)
	return err == nil && r != nil && r.whole
}

// OpenBlob opens a whole blob for reading; ErrNotFound unless it is
// stored whole. Its bytes were verified against its hash when it was
// stored.
func (s *Store) OpenBlob(hash [32]byte) (*os.File, error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return nil, err
	}
	if r == nil || !r.whole {
		return nil, fmt.Errorf("%w: blob %x", ErrNotFound, hash)
	}
	f, err := os.Open(s.wholePath(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: blob %x: its file is gone", ErrNotFound, hash)
	}
	if err != nil {
		return nil, classify("open blob", err)
	}
	s.touchBlob(hash)
	return f, nil
}

// BlobChunk returns chunk index of a blob, whole or still arriving,
// checked against its listed hash; ErrNotFound unless that chunk is here.
// A chunk of a whole blob that no longer matches (the disk damaged it) is
// an ErrCorrupt and the blob is dropped, to be fetched again.
//
// The chunks here of a partial blob marked lost are served like any
// other's: lost says only that this servant gave up getting the rest, not
// that what it holds is wrong (each chunk was checked against the list,
// the list against the root, and is checked again here). ChunksHeld counts
// them, and a neighbour that still lacks them can finish the blob with
// them.
func (s *Store) BlobChunk(hash [32]byte, index int) ([]byte, error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return nil, err
	}
	if r == nil || index < 0 || index >= len(r.chunks) || !r.whole && !r.hasChunk(index) {
		return nil, fmt.Errorf("%w: blob %x chunk %d", ErrNotFound, hash, index)
	}
	path := s.wholePath(hash)
	if !r.whole {
		// A relay passes on the chunks of a blob still arriving.
		path = s.partialPath(hash)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: blob %x: its file is gone", ErrNotFound, hash)
	}
	if err != nil {
		return nil, classify("open blob", err)
	}
	defer f.Close()
	buf := make([]byte, news.ChunkLen(r.size, index))
	if _, err := f.ReadAt(buf, int64(index)*news.ChunkSize); err != nil {
		return nil, classify("read blob", err)
	}
	if sha256.Sum256(buf) != r.chunks[index] {
		if !r.whole {
			return nil, corruptf("blob %x chunk %d does not match its hash", hash, index)
		}
		s.dropDamagedBlob(hash)
		return nil, corruptf("blob %x chunk %d does not match its hash: dropped", hash, index)
	}
	s.touchBlob(hash)
	return buf, nil
}

// dropDamagedBlob forgets a whole blob whose file no longer matches: its
// record, its file and its last use. The record was read without blobMu:
// if meanwhile the blob was evicted and begun again, the record is now a
// partial one, whose progress is not this reader's to drop.
func (s *Store) dropDamagedBlob(hash [32]byte) {
	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	dropped := false
	if err := s.update("drop blob", func(tx *bbolt.Tx, _ *txChanges) error {
		b := tx.Bucket(bucketBlobs)
		v := b.Get(hash[:])
		if v == nil {
			return nil
		}
		if r, err := decodeBlobRecord(hash[:], v); err == nil && !r.whole {
			return nil
		}
		dropped = true
		return b.Delete(hash[:])
	}); err == nil && dropped {
		_ = os.Remove(s.wholePath(hash))
		s.forgetUse(hash)
	}
}

// ChunkHashes returns the list of a blob's chunk hashes, of a whole or
// partial blob; ErrNotFound when the store knows none.
func (s *Store) ChunkHashes(hash [32]byte) ([][32]byte, error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return nil, err
	}
	if r == nil || len(r.chunks) == 0 {
		return nil, fmt.Errorf("%w: blob %x", ErrNotFound, hash)
	}
	return r.chunks, nil
}

// removeBlobFiles removes whatever files a blob has.
func (s *Store) removeBlobFiles(h [32]byte) {
	_ = os.Remove(s.wholePath(h))
	_ = os.Remove(s.partialPath(h))
	s.forgetUse(h)
}
