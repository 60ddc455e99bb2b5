package storage_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// chunkedBlob returns n pseudo-random bytes of a seed, their manifest
// entry and the list of their chunk hashes, for BeginBlob.
func chunkedBlob(t *testing.T, seed uint64, n int) ([]byte, news.Attachment, [][32]byte) {
	t.Helper()
	data := blobBytes(seed, n)
	a, err := news.NewAttachment(bytes.NewReader(data), "p.bin", "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	var hashes [][32]byte
	for off := 0; off < len(data); off += news.ChunkSize {
		hashes = append(hashes, sha256.Sum256(data[off:min(off+news.ChunkSize, len(data))]))
	}
	return data, a, hashes
}

// TestEvictionSparesBlobReferencedMeanwhile: an item stored between the
// eviction's read (which chose a partial blob no item referred to) and its
// write keeps the blob's record, and its file with it: the chunks the
// record says are here can still be read. Before the fix the file went
// ("its file is gone") because the clean-up removed the files of every
// chosen blob not stored whole.
func TestEvictionSparesBlobReferencedMeanwhile(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
	const size = 2 * news.ChunkSize
	data, p, hashes := chunkedBlob(t, 21, size)

	var s *storage.Store
	var hookErr error
	fired := false
	hook := func() {
		if fired {
			return
		}
		fired = true
		// The partial blob is the least recently used: the eviction chose
		// it. An item naming it arrives now.
		hookErr = s.Put(context.Background(), itemWith(t, 1, p))
	}
	dir := t.TempDir()
	s = storagetest.MustOpenDir(t, dir, storage.WithClock(clock),
		storage.WithBlobCacheBytes(2*size+size/2), storage.WithEvictHook(hook))

	must(t, s.BeginBlob(p, hashes))
	if _, err := s.PutBlobChunk(p.Hash, 0, data[:news.ChunkSize]); err != nil {
		t.Fatal(err)
	}
	w1, err := s.PutBlob(bytes.NewReader(blobBytes(22, size)), "w1.bin", "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if fired {
		t.Fatal("evicted below the bound")
	}
	// Over the bound: the eviction chooses the partial blob.
	w2, err := s.PutBlob(bytes.NewReader(blobBytes(23, size)), "w2.bin", "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if !fired || hookErr != nil {
		t.Fatalf("eviction hook: fired %v, %v", fired, hookErr)
	}
	if m, err := s.MissingChunks(p.Hash); err != nil || len(m) != 1 || m[0] != 1 {
		t.Fatalf("record of the referenced partial blob: missing %v, %v", m, err)
	}
	got, err := s.BlobChunk(p.Hash, 0)
	if err != nil || !bytes.Equal(got, data[:news.ChunkSize]) {
		t.Fatalf("chunk 0 of the referenced partial blob: %v", err)
	}
	if done, err := s.PutBlobChunk(p.Hash, 1, data[news.ChunkSize:]); !done || err != nil {
		t.Fatalf("last chunk: %v, %v", done, err)
	}
	if !bytes.Equal(readBlob(t, s, p.Hash), data) {
		t.Fatal("completed blob not readable")
	}
	if !s.HasBlob(w1.Hash) || !s.HasBlob(w2.Hash) {
		t.Fatalf("whole blobs: w1 %v w2 %v", s.HasBlob(w1.Hash), s.HasBlob(w2.Hash))
	}
}

// TestEvictionRacesItems: an item naming a partial blob is stored at the
// same time as the eviction that chose that blob writes. Whichever commits
// first, the partial blob is either gone with its record or held with its
// chunk readable, never a record whose file is gone. Run with -race;
// TestEvictionSparesBlobReferencedMeanwhile fixes the order instead.
func TestEvictionRacesItems(t *testing.T) {
	const size = 2 * news.ChunkSize
	const rounds = 20
	kept := 0
	for round := range uint64(rounds) {
		data, p, hashes := chunkedBlob(t, 100+round, size)
		it := itemWith(t, round+1, p)
		var wg sync.WaitGroup
		var putErr error
		var once sync.Once
		var s *storage.Store
		hook := func() {
			// The eviction has chosen the partial blob: the item races
			// its write.
			once.Do(func() {
				wg.Go(func() { putErr = s.Put(context.Background(), it) })
			})
		}
		s = mustOpen(t, storage.WithBlobCacheBytes(2*size+size/2), storage.WithEvictHook(hook))
		must(t, s.BeginBlob(p, hashes))
		if _, err := s.PutBlobChunk(p.Hash, 0, data[:news.ChunkSize]); err != nil {
			t.Fatal(err)
		}
		for i := range uint64(2) {
			if _, err := s.PutBlob(bytes.NewReader(blobBytes(200+2*round+i, size)), "w.bin", "application/octet-stream"); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		if putErr != nil {
			t.Fatalf("round %d: Put: %v", round, putErr)
		}
		m, err := s.MissingChunks(p.Hash)
		if errors.Is(err, storage.ErrNotFound) {
			continue // the eviction committed first: nothing held
		}
		if err != nil || len(m) != 1 {
			t.Fatalf("round %d: missing %v, %v", round, m, err)
		}
		kept++
		if got, err := s.BlobChunk(p.Hash, 0); err != nil || !bytes.Equal(got, data[:news.ChunkSize]) {
			t.Errorf("round %d: the record holds chunk 0, BlobChunk: %v", round, err)
		}
	}
	t.Logf("partial blob kept in %d of %d rounds", kept, rounds)
}

// TestDamagedBlobForgetsItsUse: a whole blob whose file no longer matches
// is dropped when a chunk read finds it, record, file and the read noted
// in memory for the cache's order, as removing a blob any other way does.
func TestDamagedBlobForgetsItsUse(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	data := blobBytes(31, 2*news.ChunkSize)
	a, err := s.PutBlob(bytes.NewReader(data), "d.bin", "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BlobChunk(a.Hash, 1); err != nil {
		t.Fatal(err)
	}
	if !s.BlobUseNoted(a.Hash) {
		t.Fatal("a chunk read noted no use")
	}
	hx := a.HashString()
	path := filepath.Join(dir, "blobs", hx[:2], hx)
	damaged := bytes.Clone(data)
	damaged[news.ChunkSize+5] ^= 0xff
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BlobChunk(a.Hash, 1); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("chunk of a damaged blob: %v", err)
	}
	if s.HasBlob(a.Hash) {
		t.Fatal("damaged blob still held")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("damaged blob's file: %v", err)
	}
	if s.BlobUseNoted(a.Hash) {
		t.Error("the dropped blob's use is still noted in memory")
	}
}

// TestLostPartialBlobServesItsChunks: a partial blob marked lost keeps the
// chunks that had arrived (MarkBlobLost), and a relay passes them on:
// BlobChunk serves what ChunksHeld says is here, and nothing else.
func TestLostPartialBlobServesItsChunks(t *testing.T) {
	s := mustOpen(t)
	data, a, hashes := chunkedBlob(t, 41, 3*news.ChunkSize-9)
	must(t, s.BeginBlob(a, hashes))
	if _, err := s.PutBlobChunk(a.Hash, 1, data[news.ChunkSize:2*news.ChunkSize]); err != nil {
		t.Fatal(err)
	}
	must(t, s.MarkBlobLost(a.Hash))
	if !s.BlobLost(a.Hash) {
		t.Fatal("not marked lost")
	}
	list, have := s.ChunksHeld(a.Hash)
	if len(list) != 3 || have[0] || !have[1] || have[2] {
		t.Fatalf("ChunksHeld = %d hashes, %v", len(list), have)
	}
	for i, held := range have {
		got, err := s.BlobChunk(a.Hash, i)
		switch {
		case held && (err != nil || !bytes.Equal(got, data[i*news.ChunkSize:min((i+1)*news.ChunkSize, len(data))])):
			t.Errorf("chunk %d, held: %v", i, err)
		case !held && !errors.Is(err, storage.ErrNotFound):
			t.Errorf("chunk %d, not held: %v", i, err)
		}
	}
	// A later transfer still finishes it.
	if _, err := s.PutBlobChunk(a.Hash, 0, data[:news.ChunkSize]); err != nil {
		t.Fatal(err)
	}
	if done, err := s.PutBlobChunk(a.Hash, 2, data[2*news.ChunkSize:]); !done || err != nil {
		t.Fatalf("last chunk: %v, %v", done, err)
	}
	if s.BlobLost(a.Hash) || !bytes.Equal(readBlob(t, s, a.Hash), data) {
		t.Fatal("finished blob: still lost, or not readable")
	}
}

// TestDamagedDropSparesBlobBegunAgain: a chunk read that found a whole
// blob's file damaged drops the blob, but the read took the record without
// the blob lock; if the blob was meanwhile evicted and begun again as a
// partial blob, the drop leaves the new transfer's record and chunks alone.
func TestDamagedDropSparesBlobBegunAgain(t *testing.T) {
	s := mustOpen(t)
	data, a, hashes := chunkedBlob(t, 43, 2*news.ChunkSize)
	must(t, s.BeginBlob(a, hashes))
	if _, err := s.PutBlobChunk(a.Hash, 0, data[:news.ChunkSize]); err != nil {
		t.Fatal(err)
	}
	s.DropDamagedBlob(a.Hash)
	list, have := s.ChunksHeld(a.Hash)
	if len(list) != 2 || !have[0] || have[1] {
		t.Fatalf("after the drop, ChunksHeld = %d hashes, %v; want the partial blob's chunk 0", len(list), have)
	}
	if got, err := s.BlobChunk(a.Hash, 0); err != nil || !bytes.Equal(got, data[:news.ChunkSize]) {
		t.Fatalf("chunk 0 after the drop: %v", err)
	}
	if done, err := s.PutBlobChunk(a.Hash, 1, data[news.ChunkSize:]); !done || err != nil {
		t.Fatalf("last chunk: %v, %v", done, err)
	}
	if !bytes.Equal(readBlob(t, s, a.Hash), data) {
		t.Fatal("finished blob not readable")
	}
}
