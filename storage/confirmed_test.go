package storage_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// TestConfirmations: confirmations are kept per item with the time first
// learned, a reader recorded twice keeps the first, they survive a
// reopen, a malformed entry is skipped and counted, and they go with the
// item when it is purged.
func TestConfirmations(t *testing.T) {
	f := newRetractFixture(t)
	id, other := f.items[0].ID, f.items[1].ID
	ada := storage.Confirmation{Reader: storage.Reader{Name: "Ada", Key: "ed25519:AAA"}, At: time.Unix(100, 0)}
	bo := storage.Confirmation{Reader: storage.Reader{Name: "Bo", Key: "ed25519:BBB"}, At: time.Unix(200, 0)}
	if n, err := f.s.AddConfirmations(id, []storage.Confirmation{ada}); n != 1 || err != nil {
		t.Fatalf("AddConfirmations = %d, %v", n, err)
	}
	later := ada
	later.At, later.Name = time.Unix(300, 0), "Ada L."
	if n, err := f.s.AddConfirmations(id, []storage.Confirmation{later, bo}); n != 1 || err != nil {
		t.Fatalf("AddConfirmations again = %d, %v", n, err)
	}
	must2(t)(f.s.AddConfirmations(other, []storage.Confirmation{bo}))
	if _, err := f.s.AddConfirmations(uuid.New(), []storage.Confirmation{bo}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("AddConfirmations of an item not stored = %v, want ErrNotFound", err)
	}
	if _, err := f.s.AddConfirmations(id, []storage.Confirmation{{}}); err == nil {
		t.Error("a confirmation without a key was taken")
	}
	storagetest.CheckAndClose(t, f.s, f.dir)

	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		return tx.Bucket(storage.BucketConfirmed).Put(append(id[:], "ed25519:ZZZ"...), []byte{9, 9})
	})
	s := storagetest.MustOpenDir(t, f.dir)
	got, damaged, err := s.Confirmations(id)
	if err != nil || damaged != 1 || fmt.Sprint(got) != fmt.Sprint([]storage.Confirmation{ada, bo}) {
		t.Fatalf("Confirmations = %v, %d damaged, %v; want Ada at 100 and Bo, 1 damaged", got, damaged, err)
	}
	if _, err := s.Purge(f.items[1].Received); err != nil {
		t.Fatal(err)
	}
	if got, damaged, err := s.Confirmations(id); len(got) != 0 || damaged != 0 || err != nil {
		t.Errorf("Confirmations of a purged item = %v, %d, %v", got, damaged, err)
	}
	if got, _, _ := s.Confirmations(other); len(got) != 1 {
		t.Errorf("the purge took the confirmations of an item it kept: %v", got)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

// TestMigrateToConfirmed: a store of schema 10 gains the buckets.
func TestMigrateToConfirmed(t *testing.T) {
	f := newRetractFixture(t)
	storagetest.CheckAndClose(t, f.s, f.dir)
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketConfirmed, storage.BucketPending} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 10))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	if n, err := s.AddConfirmations(f.items[2].ID, []storage.Confirmation{{Reader: storage.Reader{Key: "ed25519:AAA"}}}); n != 1 || err != nil {
		t.Errorf("AddConfirmations after the migration = %d, %v", n, err)
	}
	if err := s.SeePending(f.items[2].ID, []storage.Confirmation{{Reader: storage.Reader{Key: "ed25519:BBB"}}}); err != nil {
		t.Errorf("SeePending after the migration: %v", err)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

func must2(t *testing.T) func(int, error) {
	return func(_ int, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPendingReaders: a pending reader keeps the time it was last listed
// and its latest name, leaves the list when it confirms, is not taken
// again once confirmed, and goes with the item.
func TestPendingReaders(t *testing.T) {
	f := newRetractFixture(t)
	id := f.items[0].ID
	at := func(sec int64) time.Time { return time.Unix(sec, 0) }
	p := func(name, key string, sec int64) storage.Confirmation {
		return storage.Confirmation{Reader: storage.Reader{Name: name, Key: key}, At: at(sec)}
	}
	must(t, f.s.SeePending(id, []storage.Confirmation{p("Ada", "ed25519:AAA", 100), p("Bo", "ed25519:BBB", 100)}))
	must(t, f.s.SeePending(id, []storage.Confirmation{p("Ada L.", "ed25519:AAA", 200), p("Bo", "ed25519:BBB", 50)}))
	got, _, err := f.s.PendingReaders(id)
	if err != nil || fmt.Sprint(got) != fmt.Sprint([]storage.Confirmation{p("Ada L.", "ed25519:AAA", 200), p("Bo", "ed25519:BBB", 100)}) {
		t.Fatalf("PendingReaders = %v, %v; want Ada renewed at 200, Bo kept at 100", got, err)
	}
	must2(t)(f.s.AddConfirmations(id, []storage.Confirmation{p("Bo", "ed25519:BBB", 300)}))
	must(t, f.s.SeePending(id, []storage.Confirmation{p("Bo", "ed25519:BBB", 400)}))
	if got, _, _ := f.s.PendingReaders(id); len(got) != 1 || got[0].Key != "ed25519:AAA" {
		t.Errorf("after Bo confirmed: pending %v, want Ada alone", got)
	}
	if err := f.s.SeePending(uuid.New(), []storage.Confirmation{p("Ada", "ed25519:AAA", 1)}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("SeePending of an item not stored = %v", err)
	}
	if _, err := f.s.Purge(f.items[1].Received); err != nil {
		t.Fatal(err)
	}
	if got, _, err := f.s.PendingReaders(id); len(got) != 0 || err != nil {
		t.Errorf("PendingReaders of a purged item = %v, %v", got, err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
}
