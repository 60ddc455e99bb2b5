package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/uuid"
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

var (
	bucketBlobs    = []byte("blobs")     // since schema 12: blob hash → record (blobRecord)
	bucketBlobRefs = []byte("blob-refs") // since schema 12: blob hash + item ID → blob size (8 bytes)
)

// keyBlobsLost counts the blobs marked lost (MarkBlobLost), all runs.
var keyBlobsLost = []byte("blobs-lost")

// DefaultBlobCacheBytes bounds the relay cache of blobs when the option
// does not say: room for a few dozen items' attachments at the largest.
const DefaultBlobCacheBytes = 512 << 20

// ErrChunkMismatch: a chunk whose SHA-256 is not the one its blob's list
// gives, or whose length is not its place's, or a list of chunk hashes
// that does not match the manifest's root. Nothing of it is kept.
var ErrChunkMismatch = errors.New("storage: blob chunk does not match its hash")

const (
	blobDirName    = "blobs"
	blobTmpName    = "tmp"
	blobPartialDir = "partial"
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

// blobDir is <datadir>/blobs.
func (s *Store) blobDir() string { return filepath.Join(filepath.Dir(s.path), blobDirName) }

func (s *Store) wholePath(h [32]byte) string {
	x := hex.EncodeToString(h[:])
	return filepath.Join(s.blobDir(), x[:2], x)
}

func (s *Store) partialPath(h [32]byte) string {
	return filepath.Join(s.blobDir(), blobPartialDir, hex.EncodeToString(h[:]))
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
func (s *Store) BlobChunk(hash [32]byte, index int) ([]byte, error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return nil, err
	}
	if r == nil || index < 0 || index >= len(r.chunks) || !r.whole && (r.lost || !r.hasChunk(index)) {
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

// dropDamagedBlob forgets a whole blob whose file no longer matches.
func (s *Store) dropDamagedBlob(hash [32]byte) {
	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	if err := s.update("drop blob", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketBlobs).Delete(hash[:])
	}); err == nil {
		_ = os.Remove(s.wholePath(hash))
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

// BeginBlob prepares a blob to arrive chunk by chunk (PutBlobChunk): a's
// hash, root and size from a manifest, and the list of its chunk hashes,
// which must have news.ChunkCount(a.Size) entries whose ChunkRoot is
// a.Root (else ErrChunkMismatch). A blob stored whole or already begun
// with this list is left as it is, so a transfer resumes where it was.
func (s *Store) BeginBlob(a news.Attachment, chunkHashes [][32]byte) error {
	if s.opts.readOnly {
		return fmt.Errorf("%w: begin blob: store opened read-only", ErrReadOnly)
	}
	if a.Size <= 0 || a.Size > news.MaxAttachmentBytes {
		return fmt.Errorf("%w: blob %x: size %d outside 1 to %d", news.ErrAttachmentsTooLarge, a.Hash, a.Size, news.MaxAttachmentBytes)
	}
	if len(chunkHashes) != news.ChunkCount(a.Size) || news.ChunkRoot(chunkHashes) != a.Root {
		return fmt.Errorf("%w: blob %x: the list of %d chunk hashes does not match the manifest's root", ErrChunkMismatch, a.Hash, len(chunkHashes))
	}
	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	old, err := s.blobRecordOf(a.Hash)
	if err != nil {
		return err
	}
	if old != nil && (old.whole || old.root == a.Root && old.size == a.Size) {
		return nil
	}
	dir := filepath.Join(s.blobDir(), blobPartialDir)
	if err := mkdirSynced(dir); err != nil {
		return classify("blob directory", err)
	}
	// A sparse file of the blob's size: chunks are written at their
	// offsets as they come.
	f, err := os.OpenFile(s.partialPath(a.Hash), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return classify("begin blob", err)
	}
	err = f.Truncate(a.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return classify("begin blob", err)
	}
	n := len(chunkHashes)
	rec := &blobRecord{size: a.Size, root: a.Root, used: s.opts.now().UnixNano(),
		chunks: slices.Clone(chunkHashes), have: make([]byte, (n+7)/8)}
	if old != nil {
		rec.lost = old.lost
	}
	if err := s.update("begin blob", func(tx *bbolt.Tx, _ *txChanges) error { return putBlob(tx, a.Hash, rec) }); err != nil {
		return err
	}
	return s.evictBlobsLocked(a.Hash)
}

// PutBlobChunk stores chunk index of a blob begun with BeginBlob, and
// reports whether the blob is now whole. A chunk whose SHA-256 is not the
// listed one, or whose length is not its place's, is refused with
// ErrChunkMismatch. The chunk counts once its bytes are synced. When the
// last one lands, the whole blob's SHA-256 is checked and the blob moves
// into place atomically. A chunk of a blob stored whole already is
// ignored (complete); of a blob not begun, ErrNotFound.
func (s *Store) PutBlobChunk(hash [32]byte, index int, data []byte) (complete bool, err error) {
	return s.PutBlobChunks(hash, []BlobChunkAt{{Index: index, Data: data}})
}

// BlobChunkAt is one chunk of a blob for PutBlobChunks.
type BlobChunkAt struct {
	Index int
	Data  []byte
}

// PutBlobChunks is PutBlobChunk for several chunks of one blob that
// arrived together: each is checked as there, all are written, then
// synced once and recorded in one commit, so that a relay receiving a
// blob pays two syncs per batch rather than per chunk. They count once
// synced, as one chunk does. A chunk that does not match refuses the batch
// (ErrChunkMismatch) before anything is written; chunks already here are
// passed over.
func (s *Store) PutBlobChunks(hash [32]byte, chunks []BlobChunkAt) (complete bool, err error) {
	if s.opts.readOnly {
		return false, fmt.Errorf("%w: put blob chunks: store opened read-only", ErrReadOnly)
	}
	s.blobMu.Lock()
	defer s.blobMu.Unlock()
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return false, err
	}
	if r == nil || len(r.chunks) == 0 {
		return false, fmt.Errorf("%w: blob %x not begun", ErrNotFound, hash)
	}
	if r.whole {
		return true, nil
	}
	var todo []BlobChunkAt
	for _, c := range chunks {
		if c.Index < 0 || c.Index >= len(r.chunks) {
			return false, fmt.Errorf("%w: blob %x has no chunk %d", ErrChunkMismatch, hash, c.Index)
		}
		if len(c.Data) != news.ChunkLen(r.size, c.Index) || sha256.Sum256(c.Data) != r.chunks[c.Index] {
			return false, fmt.Errorf("%w: blob %x chunk %d (%d bytes)", ErrChunkMismatch, hash, c.Index, len(c.Data))
		}
		if !r.hasChunk(c.Index) {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return false, nil
	}
	f, err := os.OpenFile(s.partialPath(hash), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return false, classify("write blob chunks", err)
	}
	for _, c := range todo {
		if _, err = f.WriteAt(c.Data, int64(c.Index)*news.ChunkSize); err != nil {
			break
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, classify("write blob chunks", err)
	}
	for _, c := range todo {
		r.have[c.Index/8] |= 1 << (c.Index % 8)
	}
	r.used = s.opts.now().UnixNano()
	if r.haveCount() < len(r.chunks) {
		return false, s.update("put blob chunks", func(tx *bbolt.Tx, _ *txChanges) error { return putBlob(tx, hash, r) })
	}
	return true, s.completeBlob(hash, r)
}

// completeBlob checks a blob whose chunks are all here against its hash
// and moves it into place. A blob that does not match (its list of chunk
// hashes, though it matches the root, describes other bytes: the
// manifest lied) starts over and is an ErrChunkMismatch.
func (s *Store) completeBlob(hash [32]byte, r *blobRecord) error {
	partial := s.partialPath(hash)
	f, err := os.Open(partial)
	if err != nil {
		return classify("complete blob", err)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	_ = f.Close()
	if err != nil {
		return classify("complete blob", err)
	}
	if n != r.size || !bytes.Equal(h.Sum(nil), hash[:]) {
		clear(r.have)
		if err := s.update("reset blob", func(tx *bbolt.Tx, _ *txChanges) error { return putBlob(tx, hash, r) }); err != nil {
			return err
		}
		return fmt.Errorf("%w: blob %x: its chunks make %d bytes of another SHA-256; started over", ErrChunkMismatch, hash, n)
	}
	final := s.wholePath(hash)
	if err := mkdirSynced(filepath.Dir(final)); err != nil {
		return classify("blob directory", err)
	}
	if err := os.Rename(partial, final); err != nil {
		return classify("complete blob", err)
	}
	if err := syncDir(filepath.Dir(final)); err != nil {
		return classify("complete blob", err)
	}
	_ = syncDir(filepath.Dir(partial))
	r.whole, r.have = true, nil
	// A crash before this commit leaves the file in place under a partial
	// record: Open checks it against its hash and takes it.
	return s.update("complete blob", func(tx *bbolt.Tx, _ *txChanges) error { return putBlob(tx, hash, r) })
}

// BlobProgress returns how many of a blob's chunks are here, of how many;
// ErrNotFound when the store knows no list of its chunks.
func (s *Store) BlobProgress(hash [32]byte) (have, total int, err error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return 0, 0, err
	}
	if r == nil || len(r.chunks) == 0 {
		return 0, 0, fmt.Errorf("%w: blob %x", ErrNotFound, hash)
	}
	if r.whole {
		return len(r.chunks), len(r.chunks), nil
	}
	return r.haveCount(), len(r.chunks), nil
}

// BlobReceived returns the bytes of a blob that are here and verified,
// and its size (0, 0 when the store knows no list of its chunks).
func (s *Store) BlobReceived(hash [32]byte) (received, size int64, err error) {
	r, err := s.blobRecordOf(hash)
	if err != nil || r == nil || len(r.chunks) == 0 {
		return 0, 0, err
	}
	if r.whole {
		return r.size, r.size, nil
	}
	for i := range r.chunks {
		if r.hasChunk(i) {
			received += int64(news.ChunkLen(r.size, i))
		}
	}
	return received, r.size, nil
}

// ChunksHeld returns a begun blob's chunk list and which of its chunks are
// here, as the network's servant asks a keeper (node.BlobKeeper); nil,
// nil when the store knows no list of its chunks or cannot read it.
func (s *Store) ChunksHeld(hash [32]byte) ([][32]byte, []bool) {
	list, err := s.ChunkHashes(hash)
	if err != nil {
		return nil, nil
	}
	missing, err := s.MissingChunks(hash)
	if err != nil {
		return nil, nil
	}
	have := make([]bool, len(list))
	for i := range have {
		have[i] = true
	}
	for _, i := range missing {
		have[i] = false
	}
	return list, have
}

// MissingChunks returns the indexes of the chunks of a begun blob that
// are not here yet, in order (none for a whole blob); ErrNotFound when the
// store knows no list of its chunks.
func (s *Store) MissingChunks(hash [32]byte) ([]int, error) {
	r, err := s.blobRecordOf(hash)
	if err != nil {
		return nil, err
	}
	if r == nil || len(r.chunks) == 0 {
		return nil, fmt.Errorf("%w: blob %x", ErrNotFound, hash)
	}
	var out []int
	if r.whole {
		return out, nil
	}
	for i := range r.chunks {
		if !r.hasChunk(i) {
			out = append(out, i)
		}
	}
	return out, nil
}

// MarkBlobLost records that a blob could not be recovered from any
// servant; BlobsLost counts each blob once, across runs. A blob stored
// whole is not lost, and is left alone. What had arrived of a partial one
// stays, so a later transfer can still finish it.
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

func (s *Store) lastUse(hash [32]byte, persisted int64) int64 {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	return max(persisted, s.blobUsed[hash])
}

// referenced reports whether an item refers to hash.
func referenced(refs *bbolt.Bucket, hash []byte) bool {
	k, _ := refs.Cursor().Seek(hash)
	return k != nil && bytes.HasPrefix(k, hash)
}

// BlobCacheBytes returns the bytes of the blobs no item refers to (whole
// ones and those arriving, by their size): the relay cache, bounded by
// WithBlobCacheBytes.
func (s *Store) BlobCacheBytes() (int64, error) {
	var total int64
	err := s.view("blob cache", func(tx *bbolt.Tx) error {
		refs := tx.Bucket(bucketBlobRefs)
		return tx.Bucket(bucketBlobs).ForEach(func(k, v []byte) error {
			if referenced(refs, k) {
				return nil
			}
			r, err := decodeBlobRecord(k, v)
			if err == nil && len(r.chunks) > 0 {
				total += r.size
			}
			return err
		})
	})
	return total, err
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
		refs := tx.Bucket(bucketBlobRefs)
		return tx.Bucket(bucketBlobs).ForEach(func(k, v []byte) error {
			if referenced(refs, k) {
				return nil
			}
			r, err := decodeBlobRecord(k, v)
			if err != nil || len(r.chunks) == 0 {
				return err
			}
			total += r.size
			cache = append(cache, entry{[32]byte(k), r.size, s.lastUse([32]byte(k), r.used)})
			return nil
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
	err = s.update("evict blobs", func(tx *bbolt.Tx, _ *txChanges) error {
		refs, blobs := tx.Bucket(bucketBlobRefs), tx.Bucket(bucketBlobs)
		for _, h := range gone {
			if referenced(refs, h[:]) {
				continue // an item came meanwhile: its blob stays
			}
			if err := blobs.Delete(h[:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range gone {
		if !s.HasBlob(h) {
			s.removeBlobFiles(h)
		}
	}
	return nil
}

// removeBlobFiles removes whatever files a blob has.
func (s *Store) removeBlobFiles(h [32]byte) {
	_ = os.Remove(s.wholePath(h))
	_ = os.Remove(s.partialPath(h))
	s.usedMu.Lock()
	delete(s.blobUsed, h)
	s.usedMu.Unlock()
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

// sweepBlobs brings the blob files in line with the records after a
// crash, when Open runs: it empties blobs/tmp, takes a whole file left
// under a partial record when it matches its hash (a crash between the
// rename and the commit of completeBlob), and removes every other file no
// record names as it is. A whole record whose file is gone is dropped: the
// blob is missing, and fetched again if an item needs it; a partial one
// whose file is gone has none of its chunks.
func (s *Store) sweepBlobs() error {
	root := s.blobDir()
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.RemoveAll(filepath.Join(root, blobTmpName)); err != nil {
		return classify("clean blobs/tmp", err)
	}
	records := map[[32]byte]*blobRecord{}
	if err := s.view("blobs", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketBlobs).ForEach(func(k, v []byte) error {
			r, err := decodeBlobRecord(k, v)
			records[[32]byte(k)] = r
			return err
		})
	}); err != nil {
		return err
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return classify("read blobs", err)
	}
	present, partial := map[[32]byte]bool{}, map[[32]byte]bool{}
	var adopt [][32]byte
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		if !d.IsDir() || (d.Name() != blobPartialDir && len(d.Name()) != 2) {
			continue
		}
		files, err := os.ReadDir(dir)
		if err != nil {
			return classify("read blobs", err)
		}
		for _, f := range files {
			h, err := news.ParseHash(f.Name())
			path := filepath.Join(dir, f.Name())
			r := records[h]
			switch {
			case err != nil || r == nil || len(r.chunks) == 0:
				_ = os.Remove(path)
			case d.Name() == blobPartialDir:
				if r.whole {
					_ = os.Remove(path)
				} else {
					partial[h] = true
				}
			case d.Name() != f.Name()[:2]:
				_ = os.Remove(path)
			case r.whole:
				present[h] = true
			case fileHash(path) == h:
				adopt = append(adopt, h)
				present[h] = true
			default:
				_ = os.Remove(path)
			}
		}
	}
	var gone, reset [][32]byte
	for h, r := range records {
		switch {
		case r.whole && !present[h]:
			gone = append(gone, h)
		case !r.whole && r.have != nil && r.haveCount() > 0 && !partial[h] && !present[h]:
			reset = append(reset, h) // its chunks' file is gone: they are not here
		}
	}
	if len(adopt) == 0 && len(gone) == 0 && len(reset) == 0 {
		return nil // nothing to write: Open works on a full disk
	}
	return s.update("sweep blobs", func(tx *bbolt.Tx, _ *txChanges) error {
		for _, h := range adopt {
			r := records[h]
			r.whole, r.have = true, nil
			if err := putBlob(tx, h, r); err != nil {
				return err
			}
			_ = os.Remove(s.partialPath(h))
		}
		for _, h := range gone {
			if err := tx.Bucket(bucketBlobs).Delete(h[:]); err != nil {
				return err
			}
		}
		for _, h := range reset {
			r := records[h]
			clear(r.have)
			if err := putBlob(tx, h, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// fileHash returns the SHA-256 of a file's bytes (zero when unreadable).
func fileHash(path string) [32]byte {
	var h [32]byte
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return h
	}
	d.Sum(h[:0])
	return h
}
