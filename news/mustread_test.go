package news

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
)

// goldenItem is a fixed item with every format 1 feature (urgent, a
// correction, a signature), so its encoding can be compared with bytes
// written down before format 2 existed.
func goldenItem(t *testing.T) *Item {
	t.Helper()
	return &Item{
		ID:          uuid.MustParse("0197a3c2-7a1e-7b2c-9d3e-aabbccddeeff"),
		Category:    "it",
		Title:       "E-mail down",
		Body:        "Call the **help desk**.",
		Author:      "IT",
		Source:      testSource,
		SourceCount: 300,
		Created:     time.Date(2025, 6, 1, 9, 30, 0, 123456789, time.UTC),
		Urgent:      true,
		Supersedes:  uuid.MustParse("0197a3c2-0000-7000-8000-000000000001"),
		Signature:   []byte{1, 2, 3},
	}
}

// goldenV1 is goldenItem's format 1 encoding, as the code before the
// must-read flag wrote it: items without format 2 features keep these
// exact bytes, so their signatures stay valid and installations that know
// only format 1 still read them.
const goldenV1 = "01" + // format 1
	"0197a3c27a1e7b2c9d3eaabbccddeeff" + // id
	"0196a3c27a1e7b2c9d3e112233445566" + // source
	"ac02" + // count 300
	"1844e13b4c25bd15" + // created
	"03" + // flags: urgent, supersedes
	"0197a3c2000070008000000000000001" + // supersedes
	"026974" + "0b452d6d61696c20646f776e" + "024954" + // category, title, author
	"1743616c6c20746865202a2a68656c70206465736b2a2a2e" + // body
	"03010203" // signature

func TestFormat1Golden(t *testing.T) {
	b, err := goldenItem(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != goldenV1 {
		t.Fatalf("format 1 encoding changed:\n got %s\nwant %s", got, goldenV1)
	}
	want, _ := hex.DecodeString(goldenV1)
	var it Item
	if err := it.UnmarshalBinary(want); err != nil {
		t.Fatal(err)
	}
	if !equalItems(&it, goldenItem(t)) {
		t.Errorf("golden bytes decode to %+v", it)
	}
}

// A must-read item is format 2 with flag bit 4, alone or with the
// scheduling fields; the flag round-trips, and the rest of the encoding
// is format 1's.
func TestRoundTripMustRead(t *testing.T) {
	it := goldenItem(t)
	it.MustRead = true
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hex.DecodeString(goldenV1)
	want[0] = formatV2
	want[1+16+16+2+8] |= flagMustRead
	if !bytes.Equal(b, want) {
		t.Errorf("must-read encoding:\n got %x\nwant %x", b, want)
	}
	var got Item
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !got.MustRead || !equalItems(&got, it) {
		t.Errorf("round trip: got %+v", got)
	}

	it.Expires = it.Created.Add(time.Hour)
	b, err = it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got = Item{}
	if err := got.UnmarshalBinary(b); err != nil || !got.MustRead || !got.Expires.Equal(it.Expires) {
		t.Errorf("must-read with expiry: %v, %+v", err, got)
	}
}

// The must-read flag is no format 1 flag; a format 2 encoding needs one
// of its features.
func TestMustReadRefusals(t *testing.T) {
	v1, _ := hex.DecodeString(goldenV1)
	flags := 1 + 16 + 16 + 2 + 8
	var it Item

	withFlag := bytes.Clone(v1)
	withFlag[flags] |= flagMustRead
	if err := it.UnmarshalBinary(withFlag); !errors.Is(err, ErrMalformed) {
		t.Errorf("format 1 with the must-read flag: %v", err)
	}
	v2 := bytes.Clone(v1)
	v2[0] = formatV2
	if err := it.UnmarshalBinary(v2); !errors.Is(err, ErrMalformed) {
		t.Errorf("format 2 without a format 2 feature: %v", err)
	}
	unknown := bytes.Clone(v2)
	unknown[flags] |= flagMustRead << 1
	if err := it.UnmarshalBinary(unknown); !errors.Is(err, ErrMalformed) {
		t.Errorf("format 2 with an unknown flag: %v", err)
	}
	if it.ID != uuid.Nil {
		t.Errorf("item modified by a failed decode")
	}
}
