package storage_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// blobBytes returns n pseudo-random bytes of a seed.
func blobBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 29))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// blobFiles lists the files under dir/blobs, as paths relative to it.
func blobFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, "blobs")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func readBlob(t *testing.T, s *storage.Store, h [32]byte) []byte {
	t.Helper()
	f, err := s.OpenBlob(h)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// itemWith returns a valid item whose body carries atts' manifest.
func itemWith(t *testing.T, count uint64, atts ...news.Attachment) *news.Item {
	t.Helper()
	body := "A picture: ![chart][att:1]"
	if len(atts) == 0 {
		body = "no attachments"
	}
	it, err := news.NewItem("company", "With attachments", news.AppendManifest(body, atts), "", testSources[0], time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = count
	return it
}

// TestPutBlob: a blob is stored once however often it is put, under
// blobs/<2 hex>/<hex>; it reads back whole and chunk by chunk.
func TestPutBlob(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	data := blobBytes(1, 3*news.ChunkSize+100)
	a, err := s.PutBlob(bytes.NewReader(data), "report.pdf", "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	want, err := news.NewAttachment(bytes.NewReader(data), "report.pdf", "application/pdf")
	if err != nil || a != want {
		t.Fatalf("PutBlob = %+v, want %+v (%v)", a, want, err)
	}
	again, err := s.PutBlob(bytes.NewReader(data), "copy.pdf", "application/pdf")
	if err != nil || again.Hash != a.Hash || again.Name != "copy.pdf" {
		t.Fatalf("second PutBlob = %+v, %v", again, err)
	}
	hx := a.HashString()
	if files := blobFiles(t, dir); !slices.Equal(files, []string{filepath.Join(hx[:2], hx)}) {
		t.Fatalf("files %v, want the one blob", files)
	}
	if !s.HasBlob(a.Hash) || !bytes.Equal(readBlob(t, s, a.Hash), data) {
		t.Fatal("blob not readable")
	}
	hashes, err := s.ChunkHashes(a.Hash)
	if err != nil || len(hashes) != 4 || news.ChunkRoot(hashes) != a.Root {
		t.Fatalf("ChunkHashes = %d hashes, %v", len(hashes), err)
	}
	var joined []byte
	for i := range 4 {
		c, err := s.BlobChunk(a.Hash, i)
		if err != nil || sha256.Sum256(c) != hashes[i] {
			t.Fatalf("chunk %d: %v", i, err)
		}
		joined = append(joined, c...)
	}
	if !bytes.Equal(joined, data) {
		t.Fatal("chunks do not make the blob")
	}
	if _, err := s.BlobChunk(a.Hash, 4); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("chunk beyond the end: %v", err)
	}
	if have, total, err := s.BlobProgress(a.Hash); have != 4 || total != 4 || err != nil {
		t.Fatalf("BlobProgress = %d/%d, %v", have, total, err)
	}
	var other [32]byte
	if s.HasBlob(other) {
		t.Fatal("HasBlob of an unknown blob")
	}
	if _, err := s.OpenBlob(other); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("OpenBlob of an unknown blob: %v", err)
	}
	// Refused before anything is stored.
	for _, c := range []struct{ name, mt string }{{"", "text/plain"}, {"a/b", "text/plain"}, {"a", "text"}, {"a", ""}} {
		if _, err := s.PutBlob(strings.NewReader("x"), c.name, c.mt); !errors.Is(err, news.ErrManifest) {
			t.Errorf("PutBlob(%q, %q) = %v", c.name, c.mt, err)
		}
	}
	if _, err := s.PutBlob(strings.NewReader(""), "empty", "text/plain"); !errors.Is(err, news.ErrManifest) {
		t.Errorf("empty blob: %v", err)
	}
	if _, err := s.PutBlob(io.LimitReader(zeros{}, news.MaxAttachmentBytes+1), "big", "application/octet-stream"); !errors.Is(err, news.ErrAttachmentsTooLarge) {
		t.Errorf("blob over the limit: %v", err)
	}
	if files := blobFiles(t, dir); len(files) != 1 {
		t.Fatalf("refused blobs left files: %v", files)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestBlobChunks: a blob arrives chunk by chunk in any order; a list of
// chunk hashes that does not match the root, a corrupt chunk and a chunk of
// the wrong length are refused; the blob appears only when whole.
func TestBlobChunks(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	data := blobBytes(2, 5*news.ChunkSize-7)
	a, err := news.NewAttachment(bytes.NewReader(data), "photo.jpg", "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	chunk := func(i int) []byte { return data[i*news.ChunkSize : min((i+1)*news.ChunkSize, len(data))] }
	var hashes [][32]byte
	for i := range a.Chunks() {
		hashes = append(hashes, sha256.Sum256(chunk(i)))
	}
	if _, err := s.PutBlobChunk(a.Hash, 0, chunk(0)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("chunk of a blob not begun: %v", err)
	}
	bad := slices.Clone(hashes)
	bad[1][0] ^= 1
	if err := s.BeginBlob(a, bad); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("list not matching the root: %v", err)
	}
	if err := s.BeginBlob(a, hashes[:4]); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("list too short: %v", err)
	}
	must(t, s.BeginBlob(a, hashes))
	must(t, s.BeginBlob(a, hashes)) // again: resumes
	corrupt := bytes.Clone(chunk(3))
	corrupt[10] ^= 0xff
	if _, err := s.PutBlobChunk(a.Hash, 3, corrupt); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("corrupt chunk: %v", err)
	}
	if _, err := s.PutBlobChunk(a.Hash, 3, chunk(3)[:100]); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("short chunk: %v", err)
	}
	if _, err := s.PutBlobChunk(a.Hash, 5, chunk(4)); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("chunk beyond the end: %v", err)
	}
	order := []int{4, 1, 3, 0}
	for _, i := range order {
		done, err := s.PutBlobChunk(a.Hash, i, chunk(i))
		if err != nil || done {
			t.Fatalf("chunk %d: %v, %v", i, done, err)
		}
		if s.HasBlob(a.Hash) {
			t.Fatal("a partial blob is visible")
		}
		if _, err := s.OpenBlob(a.Hash); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("OpenBlob of a partial blob: %v", err)
		}
	}
	if done, err := s.PutBlobChunk(a.Hash, 1, chunk(1)); done || err != nil {
		t.Fatalf("a chunk again: %v, %v", done, err)
	}
	if have, total, _ := s.BlobProgress(a.Hash); have != 4 || total != 5 {
		t.Fatalf("progress %d/%d", have, total)
	}
	if got, total, _ := s.BlobReceived(a.Hash); got != int64(len(data)-news.ChunkSize) || total != a.Size {
		t.Fatalf("received %d of %d", got, total)
	}
	if m, err := s.MissingChunks(a.Hash); err != nil || !slices.Equal(m, []int{2}) {
		t.Fatalf("MissingChunks = %v, %v", m, err)
	}
	// What is here survives a restart.
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if m, _ := s.MissingChunks(a.Hash); !slices.Equal(m, []int{2}) {
		t.Fatalf("after reopen: missing %v", m)
	}
	done, err := s.PutBlobChunk(a.Hash, 2, chunk(2))
	if err != nil || !done {
		t.Fatalf("last chunk: %v, %v", done, err)
	}
	if !s.HasBlob(a.Hash) || !bytes.Equal(readBlob(t, s, a.Hash), data) {
		t.Fatal("completed blob not readable")
	}
	if m, err := s.MissingChunks(a.Hash); err != nil || len(m) != 0 {
		t.Fatalf("MissingChunks of a whole blob = %v, %v", m, err)
	}
	hx := a.HashString()
	if files := blobFiles(t, dir); !slices.Equal(files, []string{filepath.Join(hx[:2], hx)}) {
		t.Fatalf("files %v", files)
	}
	if done, err := s.PutBlobChunk(a.Hash, 0, chunk(0)); !done || err != nil {
		t.Fatalf("a chunk of a whole blob: %v, %v", done, err)
	}
}

// TestBlobChunksBatched: chunks that arrived together are stored in one
// go (PutBlobChunks): a batch with one bad chunk writes none of it, one
// with chunks already here passes those over, and the batch that brings
// the last one completes the blob, which survives a reopen.
func TestBlobChunksBatched(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	data := blobBytes(3, 6*news.ChunkSize+11)
	a, err := news.NewAttachment(bytes.NewReader(data), "plan.pdf", "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	chunk := func(i int) storage.BlobChunkAt {
		return storage.BlobChunkAt{Index: i, Data: data[i*news.ChunkSize : min((i+1)*news.ChunkSize, len(data))]}
	}
	var hashes [][32]byte
	for i := range a.Chunks() {
		hashes = append(hashes, sha256.Sum256(chunk(i).Data))
	}
	if _, err := s.PutBlobChunks(a.Hash, []storage.BlobChunkAt{chunk(0)}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("chunks of a blob not begun: %v", err)
	}
	must(t, s.BeginBlob(a, hashes))
	bad := chunk(5)
	bad.Data = bytes.Clone(bad.Data)
	bad.Data[0] ^= 1
	if _, err := s.PutBlobChunks(a.Hash, []storage.BlobChunkAt{chunk(4), bad}); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("a batch with a corrupt chunk: %v", err)
	}
	if m, _ := s.MissingChunks(a.Hash); len(m) != 7 {
		t.Fatalf("after a refused batch, missing %v: it wrote part of it", m)
	}
	if done, err := s.PutBlobChunks(a.Hash, []storage.BlobChunkAt{chunk(6), chunk(2), chunk(0)}); done || err != nil {
		t.Fatalf("first batch: %v, %v", done, err)
	}
	if done, err := s.PutBlobChunks(a.Hash, []storage.BlobChunkAt{chunk(2), chunk(1), chunk(3)}); done || err != nil {
		t.Fatalf("second batch, one chunk again: %v, %v", done, err)
	}
	if s.HasBlob(a.Hash) {
		t.Fatal("a partial blob is visible")
	}
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if m, _ := s.MissingChunks(a.Hash); !slices.Equal(m, []int{4, 5}) {
		t.Fatalf("after reopen: missing %v, want [4 5]", m)
	}
	if done, err := s.PutBlobChunks(a.Hash, []storage.BlobChunkAt{chunk(5), chunk(4)}); !done || err != nil {
		t.Fatalf("last batch: %v, %v", done, err)
	}
	if !bytes.Equal(readBlob(t, s, a.Hash), data) {
		t.Fatal("completed blob not readable")
	}
}

// TestBlobLyingManifest: chunk hashes that match the manifest's root but
// describe other bytes than its hash never make a blob: the last chunk
// fails the whole-blob check and the transfer starts over.
func TestBlobLyingManifest(t *testing.T) {
	s := mustOpen(t)
	data := blobBytes(3, news.ChunkSize+10)
	other := blobBytes(4, news.ChunkSize+10)
	a, _ := news.NewAttachment(bytes.NewReader(data), "a.bin", "application/octet-stream")
	lie, _ := news.NewAttachment(bytes.NewReader(other), "a.bin", "application/octet-stream")
	a.Root = lie.Root // the chunks of other, under data's hash
	hashes := [][32]byte{sha256.Sum256(other[:news.ChunkSize]), sha256.Sum256(other[news.ChunkSize:])}
	must(t, s.BeginBlob(a, hashes))
	if _, err := s.PutBlobChunk(a.Hash, 0, other[:news.ChunkSize]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutBlobChunk(a.Hash, 1, other[news.ChunkSize:]); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("last chunk of a lying manifest: %v", err)
	}
	if s.HasBlob(a.Hash) {
		t.Fatal("a blob that does not match its hash is visible")
	}
	if m, _ := s.MissingChunks(a.Hash); len(m) != 2 {
		t.Fatalf("after the failed check: missing %v, want all", m)
	}
}

// TestBlobsGoWithTheirItems: a blob stays while an item here refers to it,
// and goes (record and file) when the last one is purged, expires or is
// retracted.
func TestBlobsGoWithTheirItems(t *testing.T) {
	for _, how := range []string{"purge", "expiry", "retraction", "quota"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			var mu sync.Mutex
			now := time.Now()
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
			s := storagetest.MustOpenDir(t, dir, storage.WithClock(clock))
			data := blobBytes(5, 2*news.ChunkSize)
			a, err := s.PutBlob(bytes.NewReader(data), "chart.png", "image/png")
			if err != nil {
				t.Fatal(err)
			}
			first, second := itemWith(t, 1, a), itemWith(t, 2, a)
			if how == "expiry" {
				first.Expires = clock().Add(time.Hour)
				second.Expires = clock().Add(2 * time.Hour)
			}
			must(t, s.Put(context.Background(), first))
			advance(time.Minute)
			must(t, s.Put(context.Background(), second))
			if got, err := s.BlobItems(a.Hash); err != nil || len(got) != 2 {
				t.Fatalf("BlobItems = %v, %v", got, err)
			}
			used, _ := s.ItemBytes()
			gone := func(it *news.Item) {
				t.Helper()
				switch how {
				case "purge":
					cutoff := clock().Add(-30 * time.Second) // between the two
					if it == second {
						cutoff = clock().Add(time.Second)
					}
					if n, err := s.Purge(cutoff); err != nil || n != 1 {
						t.Fatalf("Purge = %d, %v", n, err)
					}
				case "expiry":
					advance(time.Hour + storage.ExpirySkew + time.Minute)
					if n, err := s.HideExpired(); err != nil || n != 1 {
						t.Fatalf("HideExpired = %d, %v", n, err)
					}
				case "retraction":
					if _, err := s.Retract(storage.Retraction{ItemID: it.ID, Reason: "wrong chart"}); err != nil {
						t.Fatal(err)
					}
				case "quota":
					n, _, err := s.EvictOldest(1)
					if err != nil || n == 0 {
						t.Fatalf("EvictOldest = %d, %v", n, err)
					}
				}
			}
			if how == "quota" {
				// Both items go at once; the quota counted the blob once.
				if used < a.Size || used > a.Size+8192 {
					t.Fatalf("ItemBytes %d with a blob of %d", used, a.Size)
				}
				gone(first)
			} else {
				gone(first)
				if !s.HasBlob(a.Hash) {
					t.Fatal("the blob went while an item still refers to it")
				}
				gone(second)
			}
			if s.HasBlob(a.Hash) {
				t.Fatal("the blob stayed after its last item went")
			}
			if files := blobFiles(t, dir); len(files) != 0 {
				t.Fatalf("files left: %v", files)
			}
			if got, _ := s.ItemBytes(); how != "expiry" && how != "retraction" && got != 0 {
				t.Fatalf("ItemBytes = %d after everything went", got)
			}
			if got, _ := s.BlobItems(a.Hash); len(got) != 0 {
				t.Fatalf("references left: %v", got)
			}
		})
	}
}

// TestRetractedItemTakesNoBlob: an item that arrives retracted (or
// expired) refers to no blob.
func TestRetractedItemTakesNoBlob(t *testing.T) {
	s := mustOpen(t)
	a, err := news.NewAttachment(strings.NewReader("bytes"), "a.txt", "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	it := itemWith(t, 1, a)
	if _, err := s.Retract(storage.Retraction{ItemID: it.ID}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Put(context.Background(), it))
	if got, _ := s.BlobItems(a.Hash); len(got) != 0 {
		t.Fatalf("a retracted item refers to its blob: %v", got)
	}
}

// TestBlobCacheEviction: blobs no item refers to are a cache bounded in
// bytes, evicted least recently used first; referenced blobs and the blob
// just stored are never evicted, and partial blobs count.
func TestBlobCacheEviction(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
	const size = 100 << 10
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir, storage.WithClock(clock), storage.WithBlobCacheBytes(3*size+size/2))
	put := func(seed uint64) news.Attachment {
		t.Helper()
		a, err := s.PutBlob(bytes.NewReader(blobBytes(seed, size)), "b.bin", "application/octet-stream")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ref := put(14) // referenced: not in the cache
	must(t, s.Put(context.Background(), itemWith(t, 1, ref)))
	b1, b2, b3 := put(11), put(12), put(13)
	if n, _ := s.BlobCacheBytes(); n != 3*size {
		t.Fatalf("cache %d bytes, want %d", n, 3*size)
	}
	readBlob(t, s, b1.Hash) // b1 is now the most recently used
	b5 := put(15)           // over the bound: b2 goes
	for _, c := range []struct {
		a    news.Attachment
		want bool
	}{{b1, true}, {b2, false}, {b3, true}, {ref, true}, {b5, true}} {
		if s.HasBlob(c.a.Hash) != c.want {
			t.Errorf("blob %x: held %v, want %v", c.a.Hash[:4], !c.want, c.want)
		}
	}
	// A partial blob counts by its size: beginning one evicts b3, then b1.
	data := blobBytes(16, 2*size)
	a, _ := news.NewAttachment(bytes.NewReader(data), "p.bin", "application/octet-stream")
	var hashes [][32]byte
	for off := 0; off < len(data); off += news.ChunkSize {
		hashes = append(hashes, sha256.Sum256(data[off:min(off+news.ChunkSize, len(data))]))
	}
	must(t, s.BeginBlob(a, hashes))
	if s.HasBlob(b3.Hash) || s.HasBlob(b1.Hash) || !s.HasBlob(b5.Hash) || !s.HasBlob(ref.Hash) {
		t.Errorf("after a partial blob of %d bytes: b1 %v b3 %v b5 %v ref %v", 2*size,
			s.HasBlob(b1.Hash), s.HasBlob(b3.Hash), s.HasBlob(b5.Hash), s.HasBlob(ref.Hash))
	}
	if n, _ := s.BlobCacheBytes(); n > 3*size+size/2 {
		t.Fatalf("cache %d bytes, over its bound", n)
	}
	if files := blobFiles(t, dir); len(files) != 3 { // b5, ref, the partial one
		t.Fatalf("files %v", files)
	}
	// A bound smaller than one blob still keeps the blob just stored.
	s2 := storagetest.MustOpen(t, storage.WithBlobCacheBytes(1))
	a2, err := s2.PutBlob(bytes.NewReader(blobBytes(17, size)), "x", "application/octet-stream")
	if err != nil || !s2.HasBlob(a2.Hash) {
		t.Fatalf("blob over the bound not kept: %v", err)
	}
}

// TestBlobLost: a lost blob is counted once, across restarts; a whole one
// is never lost.
func TestBlobLost(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	lost := sha256.Sum256([]byte("gone"))
	must(t, s.MarkBlobLost(lost))
	must(t, s.MarkBlobLost(lost))
	a, _ := s.PutBlob(strings.NewReader("here"), "h.txt", "text/plain")
	must(t, s.MarkBlobLost(a.Hash))
	if n, err := s.BlobsLost(); n != 1 || err != nil {
		t.Fatalf("BlobsLost = %d, %v", n, err)
	}
	if !s.BlobLost(lost) || s.BlobLost(a.Hash) {
		t.Fatal("BlobLost wrong")
	}
	storagetest.CheckAndClose(t, s, dir)
	s = storagetest.MustOpenDir(t, dir)
	if n, _ := s.BlobsLost(); n != 1 {
		t.Fatalf("after reopen: BlobsLost = %d", n)
	}
}

// TestMigrateToBlobs: a schema-11 store holding an item with a manifest
// (an older release stores a newer one's items as they come) gains the
// blob buckets and the item's references.
func TestMigrateToBlobs(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	a, _ := news.NewAttachment(strings.NewReader("png bytes"), "a.png", "image/png")
	it := itemWith(t, 1, a)
	plain := itemWith(t, 2)
	must(t, s.Put(context.Background(), it))
	must(t, s.Put(context.Background(), plain))
	storagetest.CheckAndClose(t, s, dir)
	editFile(t, dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketBlobs, storage.BucketBlobRefs} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 11))
	})
	s = storagetest.MustOpenDir(t, dir)
	if got, err := s.BlobItems(a.Hash); err != nil || !slices.Equal(got, []uuid.UUID{it.ID}) {
		t.Fatalf("BlobItems after the migration = %v, %v", got, err)
	}
	if used, _ := s.ItemBytes(); used < a.Size {
		t.Fatalf("ItemBytes %d does not count the blob", used)
	}
}

// TestSearchSkipsManifest: the manifest's lines are not searchable text.
func TestSearchSkipsManifest(t *testing.T) {
	s := mustOpen(t)
	a, _ := news.NewAttachment(strings.NewReader("x"), "quarterly.png", "image/png")
	it := itemWith(t, 1, a)
	must(t, s.Put(context.Background(), it))
	<-s.SearchReady()
	for _, q := range []string{"quarterly", "newsdesk", a.HashString()[:12]} {
		got, _, err := s.Search(context.Background(), q, nil, 10, "")
		if err != nil || len(got) != 0 {
			t.Errorf("search %q found %d items (%v)", q, len(got), err)
		}
	}
	if got, _, _ := s.Search(context.Background(), "picture", nil, 10, ""); len(got) != 1 {
		t.Errorf("the text is not found: %d", len(got))
	}
}

// TestBlobDiskFull: on a full disk PutBlob and PutBlobChunk fail with
// ErrDiskFull, leave no partial file visible, and what was stored before
// stays whole and readable, also after reopening.
func TestBlobDiskFull(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=2m")
	s, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	small := blobBytes(21, 200<<10)
	a, err := s.PutBlob(bytes.NewReader(small), "small.bin", "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	var fullErr error
	for i := range 20 {
		if _, fullErr = s.PutBlob(bytes.NewReader(blobBytes(uint64(100+i), 1<<20)), "big.bin", "application/octet-stream"); fullErr != nil {
			break
		}
	}
	if !errors.Is(fullErr, storage.ErrDiskFull) {
		t.Fatalf("filling the disk: %v, want ErrDiskFull", fullErr)
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, "blobs", "tmp")); len(tmp) != 0 {
		t.Fatalf("blobs/tmp holds %d files after the failed write", len(tmp))
	}
	if !bytes.Equal(readBlob(t, s, a.Hash), small) {
		t.Fatal("the blob stored before the disk filled is damaged")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storagetest.MustOpenDir(t, dir)
	if !bytes.Equal(readBlob(t, s, a.Hash), small) {
		t.Fatal("after reopen: the blob stored before the disk filled is damaged")
	}
}
