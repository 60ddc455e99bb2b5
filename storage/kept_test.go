package storage_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// TestPurgeKeepsKeptAndUnconfirmed (issue 26): retention purges old items,
// but never one the reader keeps or a must-read item the reader has not
// confirmed yet; a confirmed one goes like any other, and so does an item
// the reader let go. The marks survive a reopen and go with the item.
func TestPurgeKeepsKeptAndUnconfirmed(t *testing.T) {
	f := newRetractFixture(t) // sales, sales/emea, it: received 1 May 2025
	old := f.items[0].Created
	confirmed := f.putMustRead(t, "hr", "Confirmed policy", 4, old.Add(time.Minute))
	pending := f.putMustRead(t, "hr", "Policy still to confirm", 5, old.Add(2*time.Minute))
	// Retracted before the reader confirmed it: nothing is left to
	// confirm, so it must not stay forever.
	withdrawn := f.putMustRead(t, "hr", "Policy withdrawn", 6, old.Add(3*time.Minute))
	if _, err := f.s.Retract(storage.Retraction{ItemID: withdrawn.ID, Reason: "Withdrawn", At: old.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.Acknowledge(confirmed.ID, old.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	kept, letGo := f.items[0].ID, f.items[1].ID
	must(t, f.s.SetKept(kept, true))
	must(t, f.s.SetKept(letGo, true))
	must(t, f.s.SetKept(letGo, false))
	if err := f.s.SetKept(uuid.New(), true); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("keeping an unknown item: %v", err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
	f.s = storagetest.MustOpenDir(t, f.dir)
	if e, _ := f.s.Get(kept); !e.Kept {
		t.Errorf("the kept mark did not survive a reopen: %+v", e)
	}
	if e, _ := f.s.Get(letGo); e.Kept {
		t.Errorf("an item let go is still kept")
	}

	n, err := f.s.Purge(old.Add(24 * time.Hour))
	if err != nil || n != 4 { // sales/emea, it, the confirmed and the withdrawn must-read items
		t.Fatalf("Purge = %d, %v; want 4", n, err)
	}
	for id, want := range map[uuid.UUID]bool{kept: true, pending.ID: true, letGo: false, f.items[2].ID: false, confirmed.ID: false, withdrawn.ID: false} {
		if ok, _ := f.s.Has(id); ok != want {
			t.Errorf("item %s stored %v after the purge, want %v", id, ok, want)
		}
	}
	// Once confirmed, the must-read item goes at the next purge; a kept
	// item retracted and purged takes its mark with it (Check).
	if _, _, err := f.s.Acknowledge(pending.ID, old.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.Purge(old.Add(24 * time.Hour)); err != nil || n != 1 {
		t.Errorf("Purge after the confirmation = %d, %v; want 1", n, err)
	}
	storagetest.CheckAndClose(t, f.s, f.dir)
}

// TestMigrateToKept: a schema-7 store gains the kept bucket.
func TestMigrateToKept(t *testing.T) {
	f := newRetractFixture(t)
	storagetest.CheckAndClose(t, f.s, f.dir)
	editFile(t, f.dir, func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket(storage.BucketKept); err != nil {
			return err
		}
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, binary.BigEndian.AppendUint32(nil, 7))
	})
	s := storagetest.MustOpenDir(t, f.dir)
	must(t, s.SetKept(f.items[0].ID, true))
	storagetest.CheckAndClose(t, s, f.dir)
}
