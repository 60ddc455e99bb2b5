package storage

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

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
