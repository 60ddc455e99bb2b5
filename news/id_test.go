package news

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// IDAt gives a valid item ID carrying t, the same one for the same t and
// n, ordered by t first and n second, as CompareIDs and storage order them.
func TestIDAt(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	id := IDAt(at, 7)
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		t.Fatalf("%v: version %d, variant %v", id, id.Version(), id.Variant())
	}
	if !IDTime(id).Equal(at) {
		t.Errorf("time %v, want %v", IDTime(id), at)
	}
	if IDAt(at, 7) != id {
		t.Error("the same time and n gave another ID")
	}
	it := &Item{ID: id, Category: "it", Title: "x", Source: IDAt(at, 8), Created: at}
	if err := it.Validate(); err != nil {
		t.Errorf("an item with the ID: %v", err)
	}
	for _, c := range []struct {
		a, b uuid.UUID
		want int
	}{
		{IDAt(at, 1), IDAt(at, 2), -1},
		{IDAt(at, 2), IDAt(at, 1), 1},
		{IDAt(at, 1<<40), IDAt(at.Add(time.Millisecond), 0), -1},
		{id, id, 0},
	} {
		if got := CompareIDs(c.a, c.b); got != c.want {
			t.Errorf("CompareIDs(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
