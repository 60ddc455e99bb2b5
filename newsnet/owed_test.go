package newsnet

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// An item ID made as the application makes them (a UUIDv7) gives back its
// time; an ID of another kind gives none.
func TestPublishedAtReadsUUIDv7(t *testing.T) {
	before := time.Now().Truncate(time.Millisecond)
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got, ok := PublishedAt(id)
	if !ok || got.Before(before) || got.After(after) {
		t.Errorf("PublishedAt(v7) = %v, %v; want a time in [%v, %v]", got, ok, before, after)
	}
	for _, other := range [][16]byte{uuid.New(), {}, {0x70, 6: 0x70, 8: 0x40}} {
		if got, ok := PublishedAt(other); ok {
			t.Errorf("PublishedAt(%x) = %v, true; want false", other, got)
		}
	}
}

// The search for the first owed count B asks, in turn: the count the first
// header's chain names, count 1, then halves; each answer narrows (lo, hi]
// until one count is left. Against every B, for a source met at an item
// (owed: hi starts at it) and at an edge (its own count undated: hi starts
// above it).
func TestOpeningFindsTheBoundary(t *testing.T) {
	const first = 200
	for _, c := range []struct{ guess, hi uint64 }{{0, first}, {150, first}, {199, first}, {0, first + 1}, {150, first + 1}} {
		guess := c.guess
		for b := uint64(1); b <= c.hi; b++ {
			o := &opening{first: first, hi: c.hi, guess: guess, probed: map[uint64]bool{}}
			probes := 0
			for o.hi-o.lo > 1 {
				p := o.nextProbe()
				if p <= o.lo || p >= o.hi {
					t.Fatalf("guess %d, B %d: probe %d outside (%d, %d)", guess, b, p, o.lo, o.hi)
				}
				o.probed[p] = true
				if p >= b {
					o.hi = p
				} else {
					o.lo = p
				}
				if probes++; probes > 12 {
					t.Fatalf("guess %d, B %d: more than 12 probes", guess, b)
				}
			}
			if o.hi != b {
				t.Errorf("guess %d: found B %d, want %d", guess, o.hi, b)
			}
		}
	}
}
