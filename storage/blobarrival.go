package storage

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// ErrChunkMismatch: a chunk whose SHA-256 is not the one its blob's list
// gives, or whose length is not its place's, or a list of chunk hashes
// that does not match the manifest's root. Nothing of it is kept.
var ErrChunkMismatch = errors.New("storage: blob chunk does not match its hash")

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
