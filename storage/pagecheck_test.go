package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// fuzzStoreFile makes a small store with something in every bucket, the
// items and by-source buckets more than one page (so there are branch
// pages), and returns its used pages.
func fuzzStoreFile(f *testing.F) []byte {
	dir := f.TempDir()
	s, err := Open(dir, NoSync())
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	own := uuid.MustParse("00000000-0000-4000-8000-0000000000aa")
	var batch []*news.Item
	for n := range uint64(20) {
		batch = append(batch, fuzzItem(f, rng, own, n+1))
	}
	if _, err := s.PublishOwn(OwnBatch{Source: own, Items: batch}); err != nil {
		f.Fatal(err)
	}
	other := uuid.New()
	for n := range uint64(60) {
		if err := s.Put(context.Background(), fuzzItem(f, rng, other, n+1)); err != nil {
			f.Fatal(err)
		}
	}
	for _, err := range []error{
		s.SetSourceCount(other, 60),
		s.SetSubscriptions([]string{"company", "it"}),
		s.SetSeeds([]string{"10.0.0.1:7000"}),
		s.SetSetting("listen", ":7000"),
		s.SetLostTotal(2),
	} {
		if err != nil {
			f.Fatal(err)
		}
	}
	if _, err := s.Retract(Retraction{ItemID: batch[3].ID, Reason: "wrong"}); err != nil {
		f.Fatal(err)
	}
	if _, err := s.MarkRead(batch[5].ID); err != nil {
		f.Fatal(err)
	}
	if err := s.Close(); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		f.Fatal(err)
	}
	m, err := fileMeta(bytes.NewReader(b), int64(len(b)), "fixture")
	if err != nil {
		f.Fatal(err)
	}
	return b[:m.pgid*uint64(m.pageSize)]
}

// FuzzCheckPages: a file the page walk accepts can be read by bbolt and by
// the store without a panic or a fault: every bucket forwards and
// backwards, every key looked up, bbolt's own check, Open and the reads of
// the application's start-up, and the search index build. What the store
// refuses, it refuses with ErrCorrupt. The input is a list of damages to a
// small store, 5 bytes each: where (4 bytes, big-endian, taken modulo the
// file's length) and what to XOR there; a list keeps inputs short, so the
// fuzzer spends its time on damage rather than on copying files.
func FuzzCheckPages(f *testing.F) {
	good := fuzzStoreFile(f)
	m, _ := fileMeta(bytes.NewReader(good), int64(len(good)), "fixture")
	ps := uint64(m.pageSize)
	damage := func(off uint64, x byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(off)), x) }
	f.Add([]byte{})
	rng := rand.New(rand.NewPCG(4, 4))
	for range 16 {
		// A page header or the first elements, where the structure is.
		f.Add(damage((2+rng.Uint64N(m.pgid-2))*ps+rng.Uint64N(48), byte(1+rng.IntN(255))))
	}
	f.Add(append(damage(2*ps+10, 0x80), damage(3*ps+24, 0x40)...))
	f.Fuzz(func(t *testing.T, edits []byte) {
		file := bytes.Clone(good)
		for ; len(edits) >= 5; edits = edits[5:] {
			file[uint64(binary.BigEndian.Uint32(edits))%uint64(len(file))] ^= edits[4]
		}
		r := bytes.NewReader(file)
		m, err := fileMeta(r, int64(len(file)), "fuzz")
		if err != nil {
			return
		}
		if err := walkPages(r, m); err != nil {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		readWithBbolt(t, path)
		s, err := Open(dir, ReadOnly())
		if err != nil {
			// A damaged schema version can also read as too new, or (to
			// a read-only open) as old.
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaTooNew) && !errors.Is(err, ErrReadOnly) {
				t.Fatalf("Open: %v", err)
			}
			return
		}
		defer s.Close()
		readAsAtStart(t, s)
	})
}

// readWithBbolt reads every bucket of a file through bbolt, with faults
// turned into panics and panics into failures.
func readWithBbolt(t *testing.T, path string) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("bbolt panicked on a file the page walk accepted: %v", r)
		}
	}()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return
	}
	defer db.Close()
	var walk func(b *bbolt.Bucket)
	walk = func(b *bbolt.Bucket) {
		c := b.Cursor()
		var keys [][]byte
		for k, v := c.First(); k != nil; k, v = c.Next() {
			keys = append(keys, bytes.Clone(k))
			if v == nil {
				if child := b.Bucket(k); child != nil {
					walk(child)
				}
			}
		}
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		}
		for _, k := range keys {
			b.Get(k)
			c.Seek(k)
			c.Seek(append(k, 0))
		}
	}
	_ = db.View(func(tx *bbolt.Tx) error {
		_ = tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			walk(b)
			return nil
		})
		for range tx.Check() {
		}
		return nil
	})
}

// readAsAtStart makes the reads of the application's start-up; each may
// fail, but only with ErrCorrupt.
func readAsAtStart(t *testing.T, s *Store) {
	own := uuid.MustParse("00000000-0000-4000-8000-0000000000aa")
	var errs []error
	note := func(err error) { errs = append(errs, err) }
	_, err := s.Settings()
	note(err)
	_, err = s.Seeds()
	note(err)
	_, err = s.Subscriptions()
	note(err)
	n, err := s.SourceCount(own)
	note(err)
	_, _, err = s.OwnLast()
	note(err)
	_, err = s.SourceCounts()
	note(err)
	_, err = s.Outbox()
	note(err)
	_, err = s.LostTotal()
	note(err)
	_, err = s.Retention()
	note(err)
	for k := range min(n, 32) {
		_, err = s.ItemsAfter(own, k, 1)
		note(err)
	}
	_, err = s.HighestStoredCount(own)
	note(err)
	_, err = s.UnreadCounts()
	note(err)
	_, _, err = s.Newest(nil, 100, "")
	note(err)
	_, _, err = s.Newest([]string{"company", "sales"}, 100, "")
	note(err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err = s.Search(ctx, "body", nil, 10, "")
	note(err)
	for _, err := range errs {
		wantCorrupt(t, "read", err)
	}
}
