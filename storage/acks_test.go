package storage_test

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// putMustRead stores a must-read item of the fixture's source.
func (f *retractFixture) putMustRead(t *testing.T, cat, title string, count uint64, created time.Time) *news.Item {
	t.Helper()
	it, err := news.NewItem(cat, title, "body", "Author", f.src, created)
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount, it.Received, it.MustRead = count, created, true
	must(t, f.s.Put(context.Background(), it))
	return it
}

// TestAcknowledge: a must-read item is acknowledged once, at the time of
// the first confirmation, which also marks it read; the acknowledgement
// survives a reopen, shows in Get and the listings and is listed by
// Acknowledgements. Other items are refused and nothing changes.
func TestAcknowledge(t *testing.T) {
	f := newRetractFixture(t)
	mr := f.putMustRead(t, "hr", "Read the new policy", 4, f.items[2].Created.Add(time.Hour))
	at := time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

	if e, _ := f.s.Get(mr.ID); !e.Acknowledged.IsZero() || e.Read {
		t.Fatalf("a new must-read item: %+v", e)
	}
	when, added, err := f.s.Acknowledge(mr.ID, at)
	if err != nil || !added || !when.Equal(at) {
		t.Fatalf("Acknowledge = %v, %v, %v", when, added, err)
	}
	when, added, err = f.s.Acknowledge(mr.ID, at.Add(time.Hour))
	if err != nil || added || !when.Equal(at) {
		t.Errorf("second Acknowledge = %v, %v, %v; want the first time, not added", when, added, err)
	}
	if e, _ := f.s.Get(mr.ID); !e.Acknowledged.Equal(at) || !e.Read {
		t.Errorf("Get after Acknowledge: acknowledged %v, read %v", e.Acknowledged, e.Read)
	}
	if c, _ := f.s.UnreadCounts(); c["hr"] != 0 {
		t.Errorf("unread counts %v: the acknowledged item still counts", c)
	}
	if page, _, _ := f.s.Newest([]string{"hr"}, 10, ""); len(page) != 1 || !page[0].Acknowledged.Equal(at) {
		t.Errorf("Newest does not carry the acknowledgement: %+v", page)
	}

	// Refusals: a plain item, an unknown one, a retracted one.
	if _, _, err := f.s.Acknowledge(f.items[0].ID, at); !errors.Is(err, storage.ErrNotMustRead) {
		t.Errorf("Acknowledge of a plain item = %v, want ErrNotMustRead", err)
	}
	if _, _, err := f.s.Acknowledge(uuid.Must(uuid.NewV7()), at); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Acknowledge of an unknown item = %v, want ErrNotFound", err)
	}
	gone := f.putMustRead(t, "hr", "Withdrawn policy", 5, f.items[2].Created.Add(2*time.Hour))
	if _, err := f.s.Retract(storage.Retraction{ItemID: gone.ID, At: at}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.Acknowledge(gone.ID, at); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Acknowledge of a retracted item = %v, want ErrNotFound", err)
	}
	if e, _ := f.s.Get(f.items[0].ID); e.Read || !e.Acknowledged.IsZero() {
		t.Errorf("a refused acknowledgement changed the item: %+v", e)
	}

	storagetest.CheckAndClose(t, f.s, f.dir)
	s := storagetest.MustOpenDir(t, f.dir)
	acks, err := s.Acknowledgements()
	if err != nil || len(acks) != 1 || acks[0].ItemID != mr.ID || !acks[0].At.Equal(at) {
		t.Errorf("Acknowledgements after a reopen = %+v, %v", acks, err)
	}
	// Marking it unread leaves the acknowledgement: the reader confirmed.
	if _, err := s.MarkUnread(mr.ID); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get(mr.ID); !e.Acknowledged.Equal(at) {
		t.Errorf("MarkUnread dropped the acknowledgement")
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

// TestAckPurged: purging an item removes its acknowledgement with it, so
// the integrity check (run by CheckAndClose) finds none left over.
func TestAckPurged(t *testing.T) {
	f := newRetractFixture(t)
	old := time.Now().Add(-48 * time.Hour)
	mr := f.putMustRead(t, "hr", "Read the new policy", 4, old)
	if _, _, err := f.s.Acknowledge(mr.ID, old.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Purge(time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if acks, err := f.s.Acknowledgements(); err != nil || len(acks) != 0 {
		t.Errorf("Acknowledgements after the purge = %+v, %v", acks, err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
}

// TestAckDamaged: a malformed acknowledgement is refused when the store
// opens (the start-up check decodes every one); one of an item that asks
// for none, by the integrity check.
func TestAckDamaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(b *bbolt.Bucket, mr, plain uuid.UUID) error
		opts   [][]storage.Option // the opens that must refuse it
	}{
		{"value", func(b *bbolt.Bucket, mr, _ uuid.UUID) error { return b.Put(mr[:], []byte{1, 2}) },
			[][]storage.Option{{storage.WithIntegrityCheck()}, nil, {storage.ReadOnly()}}},
		{"not must-read", func(b *bbolt.Bucket, _, plain uuid.UUID) error {
			return b.Put(plain[:], binary.BigEndian.AppendUint64(nil, 1))
		}, [][]storage.Option{{storage.WithIntegrityCheck()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := storage.Open(dir, storage.NoSync())
			must(t, err)
			created := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
			var ids []uuid.UUID
			for i, mustRead := range []bool{true, false} {
				it, err := news.NewItem("hr", "Policy", "body", "", uuid.New(), created.Add(time.Duration(i)*time.Minute))
				must(t, err)
				it.SourceCount, it.Received, it.MustRead = 1, created, mustRead
				must(t, s.Put(context.Background(), it))
				ids = append(ids, it.ID)
			}
			must(t, s.Check())
			must(t, s.Close())
			editFile(t, dir, func(tx *bbolt.Tx) error { return tc.damage(tx.Bucket(storage.BucketAcks), ids[0], ids[1]) })
			for _, opts := range tc.opts {
				if s, err := storage.Open(dir, opts...); !errors.Is(err, storage.ErrCorrupt) {
					if err == nil {
						s.Close()
					}
					t.Fatalf("Open(%d options) = %v, want ErrCorrupt", len(opts), err)
				}
			}
		})
	}
}

// TestMigrateToAcks: a schema-5 store gains the acks bucket and takes
// acknowledgements.
func TestMigrateToAcks(t *testing.T) {
	f := newRetractFixture(t)
	mr := f.putMustRead(t, "hr", "Read the new policy", 4, f.items[2].Created.Add(time.Hour))
	storagetest.CheckAndClose(t, f.s, f.dir)
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{storage.BucketAcks, storage.BucketReach, storage.BucketKept} { // schema 6, 7 and 8
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 5))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	if _, added, err := s.Acknowledge(mr.ID, time.Now()); err != nil || !added {
		t.Fatalf("Acknowledge after migration = %v, %v", added, err)
	}
	if c, _ := s.UnreadCounts(); !maps.Equal(c, map[string]uint64{"sales": 1, "sales/emea": 1, "it": 1}) {
		t.Errorf("unread counts %v", c)
	}
	storagetest.CheckAndClose(t, s, f.dir)
}

// Issue 26: an unconfirmed must-read item stays whatever its age, but one
// of this installation's own posts does not: nobody confirms their own
// post, so it follows the clock like any other item.
func TestPurgeOwnMustRead(t *testing.T) {
	f := newRetractFixture(t)
	old := time.Now().Add(-48 * time.Hour)
	mr := f.putMustRead(t, "hr", "Our own policy", 4, old)
	f.s.SetOwnSource(f.src)
	if _, err := f.s.Purge(time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Get(mr.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the own must-read post outlived its retention: %v", err)
	}
	f.s.SetOwnSource(uuid.New())
	theirs := f.putMustRead(t, "hr", "Read the new policy", 5, old)
	if _, err := f.s.Purge(time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Get(theirs.ID); err != nil {
		t.Errorf("an unconfirmed must-read item of another source was purged: %v", err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
}
