package storage_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// scheduledItem is a valid own item written at created, due at.
func scheduledItem(t *testing.T, title string, created, at time.Time) *news.Item {
	t.Helper()
	it, err := news.NewItem("it", title, "body", "Newsroom", uuid.MustParse("0191a000-0000-7000-8000-00000000beef"), created)
	must(t, err)
	it.At = at
	return it
}

// The scheduled list keeps items in the order they are due, whatever the
// order they were scheduled in, across a reopen; removing takes one off,
// and removing it again is ErrNotFound. Scheduled items are in no listing.
func TestScheduledList(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	late := scheduledItem(t, "late", now, now.Add(3*time.Hour))
	early := scheduledItem(t, "early", now.Add(time.Second), now.Add(time.Hour))
	middle := scheduledItem(t, "middle", now.Add(2*time.Second), now.Add(2*time.Hour))
	for _, it := range []*news.Item{late, early, middle} {
		must(t, s.ScheduledPush(it))
	}
	if err := s.ScheduledPush(early); err == nil {
		t.Error("the same item scheduled twice: no error")
	}
	if got, _, err := s.Newest(nil, 10, ""); err != nil || len(got) != 0 {
		t.Errorf("Newest = %d items, %v; scheduled items are not stored items", len(got), err)
	}
	storagetest.CheckAndClose(t, s, dir)

	s = storagetest.MustOpenDir(t, dir)
	got, err := s.Scheduled()
	must(t, err)
	if want := []uuid.UUID{early.ID, middle.ID, late.ID}; !slices.Equal(itemIDs(got), want) {
		t.Fatalf("Scheduled = %v, want the due order %v", itemIDs(got), want)
	}
	if !got[0].At.Equal(early.At) || got[0].Title != "early" {
		t.Errorf("first scheduled item %+v, want %+v", got[0], early)
	}
	must(t, s.ScheduledRemove(middle.ID))
	if err := s.ScheduledRemove(middle.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("removing it again = %v, want ErrNotFound", err)
	}
	got, err = s.Scheduled()
	must(t, err)
	if want := []uuid.UUID{early.ID, late.ID}; !slices.Equal(itemIDs(got), want) {
		t.Errorf("after the removal %v, want %v", itemIDs(got), want)
	}
}

// Only valid items with a publication time are scheduled.
func TestScheduledPushRefuses(t *testing.T) {
	s := mustOpen(t)
	now := time.Now()
	untitled := scheduledItem(t, "t", now, now.Add(time.Hour))
	untitled.Title = ""
	for name, it := range map[string]*news.Item{
		"no at":        scheduledItem(t, "t", now, time.Time{}),
		"at too early": scheduledItem(t, "t", now, now.Add(-time.Hour)),
		"no title":     untitled,
	} {
		if err := s.ScheduledPush(it); err == nil {
			t.Errorf("%s: scheduled", name)
		}
	}
	if got, err := s.Scheduled(); err != nil || len(got) != 0 {
		t.Errorf("Scheduled = %v, %v; want none", got, err)
	}
}

// A damaged scheduled entry, or one filed under another time, is refused
// when the store opens.
func TestScheduledCorrupt(t *testing.T) {
	for name, damage := range map[string]func(b *bbolt.Bucket, k, v []byte) error{
		"value": func(b *bbolt.Bucket, k, v []byte) error { return b.Put(k, v[:len(v)/2]) },
		"key": func(b *bbolt.Bucket, k, v []byte) error {
			moved := slices.Clone(k)
			moved[7]++
			if err := b.Delete(k); err != nil {
				return err
			}
			return b.Put(moved, v)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := storage.Open(dir)
			must(t, err)
			now := time.Now()
			must(t, s.ScheduledPush(scheduledItem(t, "t", now, now.Add(time.Hour))))
			must(t, s.Close())
			editFile(t, dir, func(tx *bbolt.Tx) error {
				b := tx.Bucket(storage.BucketScheduled)
				k, v := b.Cursor().First()
				return damage(b, slices.Clone(k), slices.Clone(v))
			})
			if s, err := storage.Open(dir); !errors.Is(err, storage.ErrCorrupt) {
				if err == nil {
					s.Close()
				}
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
		})
	}
}
