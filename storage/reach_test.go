package storage_test

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// TestReach: the latest reach report of an item replaces the one before,
// survives a reopen, and goes with the item when it is purged; an item
// that is not stored takes none.
func TestReach(t *testing.T) {
	f := newRetractFixture(t)
	id := f.items[0].ID
	if _, ok, err := f.s.Reach(id); ok || err != nil {
		t.Fatalf("Reach before any report = %v, %v", ok, err)
	}
	first := storage.Reach{At: time.Unix(100, 5), Subscribers: 30, Delivered: 29, Read: 3}
	latest := storage.Reach{At: time.Unix(200, 7), Subscribers: 30, Delivered: 30, Read: 12, Acknowledged: 10,
		ReportedAcknowledged: 1002, UnverifiedAcknowledged: 3, UnverifiedPending: 4,
		Offline: []storage.OfflineReader{{Reader: storage.Reader{Name: "Cy", Key: "ed25519:CCC"}, LastSeen: time.Unix(150, 0)}},
		Pending: []storage.Reader{{Name: "Ada", Key: "ed25519:AAA"}, {Name: "", Key: "ed25519:BBB"}}}
	must(t, f.s.SetReach(id, first))
	must(t, f.s.SetReach(id, latest))
	if err := f.s.SetReach(uuid.New(), first); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("SetReach of an item not stored = %v, want ErrNotFound", err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)

	s := storagetest.MustOpenDir(t, f.dir)
	got, ok, err := s.Reach(id)
	if err != nil || !ok || !got.At.Equal(latest.At) {
		t.Fatalf("Reach after reopen = %+v, %v, %v", got, ok, err)
	}
	got.At = latest.At
	if !reflect.DeepEqual(got, latest) {
		t.Errorf("Reach after reopen = %+v, want %+v", got, latest)
	}
	if _, err := s.Purge(f.items[1].Received); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Reach(id); ok || err != nil {
		t.Errorf("Reach of a purged item = %v, %v", ok, err)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

// TestReachDamaged: a damaged reach entry is refused at open.
func TestReachDamaged(t *testing.T) {
	dir := t.TempDir()
	s, err := storage.Open(dir, storage.NoSync())
	must(t, err)
	it, err := news.NewItem("hr", "Policy", "body", "", uuid.New(), time.Unix(1, 0))
	must(t, err)
	it.SourceCount, it.Received = 1, time.Unix(1, 0)
	must(t, s.Put(t.Context(), it))
	id := it.ID
	must(t, s.SetReach(id, storage.Reach{At: time.Unix(1, 0), Subscribers: 1,
		Pending: []storage.Reader{{Name: "Ada", Key: "k"}}}))
	must(t, s.Close())
	editFile(t, dir, func(tx *bbolt.Tx) error {
		b := tx.Bucket(storage.BucketReach)
		v := b.Get(id[:])
		return b.Put(id[:], v[:len(v)-1]) // the key cut short
	})
	if s, err := storage.Open(dir, storage.NoSync()); !errors.Is(err, storage.ErrCorrupt) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open = %v, want ErrCorrupt", err)
	}
}

// TestMigrateToReach: a schema-6 store gains the reach bucket.
func TestMigrateToReach(t *testing.T) {
	f := newRetractFixture(t)
	storagetest.CheckAndClose(t, f.s, f.dir)
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketReach, storage.BucketKept} { // schema 7 and 8
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 6))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	must(t, s.SetReach(f.items[2].ID, storage.Reach{At: time.Unix(1, 0), Delivered: 1}))
	storagetest.CheckAndClose(t, s, f.dir)
}

// TestReachVersion1: a reach entry written before acknowledgements were
// verified (issue 32) reads with its acknowledged count as the relays'
// and nothing verified, after a store of schema 8 is upgraded.
func TestReachVersion1(t *testing.T) {
	f := newRetractFixture(t)
	id := f.items[0].ID
	storagetest.CheckAndClose(t, f.s, f.dir)
	v := []byte{1}
	v = binary.BigEndian.AppendUint64(v, uint64(time.Unix(5, 0).UnixNano()))
	for _, n := range []uint64{7, 6, 5, 4} {
		v = binary.AppendUvarint(v, n)
	}
	v = binary.AppendUvarint(v, 1)
	for _, s := range []string{"Ada", "ed25519:AAA"} {
		v = binary.AppendUvarint(v, uint64(len(s)))
		v = append(v, s...)
	}
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		if err := tx.Bucket(storage.BucketReach).Put(id[:], v); err != nil {
			return err
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 8))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	got, ok, err := s.Reach(id)
	want := storage.Reach{At: time.Unix(5, 0), Subscribers: 7, Delivered: 6, Read: 5, ReportedAcknowledged: 4,
		Pending: []storage.Reader{{Name: "Ada", Key: "ed25519:AAA"}}}
	if err != nil || !ok || !got.At.Equal(want.At) {
		t.Fatalf("Reach = %+v, %v, %v", got, ok, err)
	}
	got.At = want.At
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Reach = %+v, want %+v", got, want)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

// TestReachVersion2: a reach entry written before the relays counted
// pending readers (schema 9) reads with everything it had and no
// reported pending count, after the store is upgraded; one written now
// keeps the count.
func TestReachVersion2(t *testing.T) {
	f := newRetractFixture(t)
	id := f.items[0].ID
	storagetest.CheckAndClose(t, f.s, f.dir)
	v := []byte{2}
	v = binary.BigEndian.AppendUint64(v, uint64(time.Unix(5, 0).UnixNano()))
	for _, n := range []uint64{7, 6, 5, 4, 9, 1, 2} {
		v = binary.AppendUvarint(v, n)
	}
	v = binary.AppendUvarint(v, 1)
	for _, s := range []string{"Ada", "ed25519:AAA"} {
		v = binary.AppendUvarint(v, uint64(len(s)))
		v = append(v, s...)
	}
	v = binary.AppendUvarint(v, 0) // no offline readers
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		if err := tx.Bucket(storage.BucketReach).Put(id[:], v); err != nil {
			return err
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 9))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	got, ok, err := s.Reach(id)
	want := storage.Reach{At: time.Unix(5, 0), Subscribers: 7, Delivered: 6, Read: 5, Acknowledged: 4,
		ReportedAcknowledged: 9, UnverifiedAcknowledged: 1, UnverifiedPending: 2,
		Pending: []storage.Reader{{Name: "Ada", Key: "ed25519:AAA"}}}
	if err != nil || !ok {
		t.Fatalf("Reach = %+v, %v, %v", got, ok, err)
	}
	got.At = want.At
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Reach = %+v, want %+v", got, want)
	}
	want.ReportedPending = 312
	must(t, s.SetReach(id, want))
	if got, _, err := s.Reach(id); err != nil || got.ReportedPending != 312 {
		t.Errorf("after SetReach: %+v, %v", got, err)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}
