package storage_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
)

func TestPutGetNewest(t *testing.T) {
	s := mustOpen(t)
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	var items []*news.Item
	for i := range 30 {
		it := randomItem(t, rng, uint64(i+1))
		items = append(items, it)
		if err := s.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	// Duplicate: ignored.
	if err := s.Put(ctx, items[0]); err != nil {
		t.Fatal(err)
	}
	e, err := s.Get(items[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Item.Title != items[3].Title || !e.Item.Received.Equal(items[3].Received) || e.Read {
		t.Errorf("Get = %+v", e)
	}
	if _, err := s.Get(uuid.Must(news.NewID(time.Now()))); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Get(missing) = %v", err)
	}
	got, next, err := s.Newest(nil, 100, "")
	if err != nil || next != "" {
		t.Fatal(err, next)
	}
	if len(got) != 30 {
		t.Fatalf("Newest returned %d", len(got))
	}
	if !slices.IsSortedFunc(got, func(a, b storage.Entry) int { return -compareUUID(a.Item.ID, b.Item.ID) }) {
		t.Errorf("not newest first")
	}
	counts, _ := s.UnreadCounts()
	total := uint64(0)
	for _, n := range counts {
		total += n
	}
	if total != 30 {
		t.Errorf("unread total %d", total)
	}
}

func compareUUID(a, b uuid.UUID) int {
	return slices.Compare(a[:], b[:])
}

func TestInvalidItemRefused(t *testing.T) {
	s := mustOpen(t)
	it := randomItem(t, rand.New(rand.NewPCG(1, 1)), 1)
	it.Title = ""
	if err := s.Put(context.Background(), it); err == nil || err.Error() != "title: required" {
		t.Errorf("Put(invalid) = %v", err)
	}
	if got, _, _ := s.Newest(nil, 10, ""); len(got) != 0 {
		t.Errorf("invalid item stored")
	}
}
