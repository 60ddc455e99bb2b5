package storage_test

import (
	"bytes"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
)

// The measurements behind blobs as files beside the database rather than
// bbolt values (docs/benchmarks.md, "Blobs"): storing and reading a 5 MiB
// blob each way, synced as the store syncs its commits. Each put stores a
// new blob (its first bytes differ), so dedup does not help the files, and
// the bbolt variant deletes the previous value as the cache would, so the
// file's growth shows what freed pages bbolt keeps.

const benchBlobSize = 5 << 20

var benchBase = sync.OnceValue(func() []byte { return blobBytes(7, benchBlobSize) })

// benchBlob returns blob i: the same bytes but the first three.
func benchBlob(i int) []byte {
	b := benchBase()
	b[0], b[1], b[2] = byte(i), byte(i>>8), byte(i>>16)
	return b
}

func BenchmarkBlobPut(b *testing.B) {
	b.Run("bbolt", func(b *testing.B) {
		db, err := bbolt.Open(filepath.Join(b.TempDir(), "blobs.db"), 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		bucket := []byte("blobs")
		b.SetBytes(benchBlobSize)
		var last []byte
		for i := 0; b.Loop(); i++ {
			data := benchBlob(i)
			key := data[:32]
			if err := db.Update(func(tx *bbolt.Tx) error {
				bk, err := tx.CreateBucketIfNotExists(bucket)
				if err != nil {
					return err
				}
				if last != nil {
					if err := bk.Delete(last); err != nil {
						return err
					}
				}
				return bk.Put(key, data)
			}); err != nil {
				b.Fatal(err)
			}
			last = bytes.Clone(key)
		}
		var size int64
		_ = db.View(func(tx *bbolt.Tx) error { size = tx.Size(); return nil })
		b.ReportMetric(float64(size)/(1<<20), "file-MiB")
	})
	// What PutBlob computes while it writes (the hash, the chunk hashes
	// and their root), which a blob store in bbolt would compute too.
	b.Run("hash", func(b *testing.B) {
		b.SetBytes(benchBlobSize)
		for i := 0; b.Loop(); i++ {
			if _, err := news.NewAttachment(bytes.NewReader(benchBlob(i)), "b.bin", "application/octet-stream"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		s, err := storage.Open(b.TempDir(), storage.WithBlobCacheBytes(2*benchBlobSize))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.SetBytes(benchBlobSize)
		for i := 0; b.Loop(); i++ {
			if _, err := s.PutBlob(bytes.NewReader(benchBlob(i)), "b.bin", "application/octet-stream"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkBlobRead(b *testing.B) {
	data := benchBlob(0)
	b.Run("bbolt", func(b *testing.B) {
		db, err := bbolt.Open(filepath.Join(b.TempDir(), "blobs.db"), 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		bucket := []byte("blobs")
		if err := db.Update(func(tx *bbolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			return bk.Put(data[:32], data)
		}); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(benchBlobSize)
		for b.Loop() {
			var out []byte
			// A value is valid only inside its transaction: a reader that
			// streams it out (an HTTP answer) needs it copied.
			if err := db.View(func(tx *bbolt.Tx) error {
				out = bytes.Clone(tx.Bucket(bucket).Get(data[:32]))
				return nil
			}); err != nil || len(out) != benchBlobSize {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		s, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		a, err := s.PutBlob(bytes.NewReader(data), "b.bin", "application/octet-stream")
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		b.SetBytes(benchBlobSize)
		for b.Loop() {
			f, err := s.OpenBlob(a.Hash)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.CopyBuffer(io.Discard, f, buf)
			f.Close()
			if err != nil || n != benchBlobSize {
				b.Fatal(err)
			}
		}
	})
}
