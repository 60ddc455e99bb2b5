package trust

import (
	"testing"

	"github.com/google/uuid"
)

func TestSourceIsBoundToItsKey(t *testing.T) {
	a, err := NewSource(newsroomID.Public)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSource(newsroomID.Public)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("two sources of one key are equal: the epoch is not random")
	}
	for _, src := range []uuid.UUID{a, b} {
		if src.Version() != 8 || src.Variant() != uuid.RFC4122 {
			t.Errorf("%s: version %d variant %s, want an RFC 9562 version-8 UUID", src, src.Version(), src.Variant())
		}
		if !SourceOwnedBy(src, newsroomID.Public) {
			t.Errorf("%s is not owned by the key it was made for", src)
		}
		if SourceOwnedBy(src, hrID.Public) {
			t.Errorf("%s is owned by another key", src)
		}
	}
	if SourceOwnedBy(uuid.New(), newsroomID.Public) {
		t.Error("a random UUID is owned by a key")
	}
	if SourceOwnedBy(a, nil) || SourceOwnedBy(a, newsroomID.Public[:31]) {
		t.Error("a malformed key owns a source")
	}
	if _, err := NewSource(newsroomID.Public[:31]); err == nil {
		t.Error("NewSource accepted a 31-byte key")
	}
}

// Changing any bit of the key-bound part of a source breaks the binding;
// the epoch is free.
func TestSourceEveryBoundBitCounts(t *testing.T) {
	src := sourceOf(newsroomID)
	for i := range 12 * 8 {
		if i/8 == 6 && i%8 < 4 || i/8 == 8 && i%8 < 2 {
			continue // version and variant bits: fixed, not derived
		}
		mod := src
		mod[i/8] ^= 0x80 >> (i % 8)
		if SourceOwnedBy(mod, newsroomID.Public) {
			t.Fatalf("bit %d flipped: still owned", i)
		}
	}
	for i := 12; i < 16; i++ {
		mod := src
		mod[i] ^= 0xff
		if !SourceOwnedBy(mod, newsroomID.Public) {
			t.Fatalf("epoch byte %d changed: no longer owned", i)
		}
	}
}
