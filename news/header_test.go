package news_test

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// TestParseHeader: the header of an encoding holds the item's fields up
// to its text, and Unsigned marks where the signature field starts, so
// the bytes before it plus an empty signature are the encoding of the
// item without its signature, which is what a signature covers.
func TestParseHeader(t *testing.T) {
	now := time.Now()
	it, err := news.NewItem("hr/payroll", "Pay day", "Friday.", "HR", uuid.New(), now)
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 300
	it.MustRead = true
	it.Supersedes = mustV7(t)
	it.Expires = now.Add(time.Hour)
	it.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	unsigned, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	it.Signature = bytes.Repeat([]byte{7}, 97)
	enc, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	h, err := news.ParseHeader(enc)
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != it.ID || h.Source != it.Source || h.Count != 300 || h.Category != "hr/payroll" || !h.MustRead ||
		h.Supersedes != it.Supersedes || !h.Expires.Equal(it.Expires) || !h.Created.Equal(it.Created) ||
		len(h.Audience) != 1 || h.Audience[0] != it.Audience[0] || h.Format != 2 {
		t.Errorf("header %+v of item %+v", h, it)
	}
	if !bytes.Equal(h.Signature, it.Signature) {
		t.Error("signature field differs")
	}
	if got := append(enc[:h.Unsigned:h.Unsigned], 0); !bytes.Equal(got, unsigned) {
		t.Errorf("the bytes before the signature plus an empty one are not the unsigned encoding")
	}
	if !h.PublishedAt().Equal(it.PublishedAt()) {
		t.Errorf("published %v, want %v", h.PublishedAt(), it.PublishedAt())
	}

	d, err := news.Decode(enc)
	if err != nil || d.Item.Title != "Pay day" || !bytes.Equal(d.Bytes, enc) {
		t.Fatalf("decode: %+v, %v", d, err)
	}
}

// TestParseHeaderRefuses: what UnmarshalBinary refuses for its structure
// or its header fields, ParseHeader refuses too; text rules wait for the
// decode.
func TestParseHeaderRefuses(t *testing.T) {
	it, err := news.NewItem("it", "Title", "Body", "", uuid.New(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":          nil,
		"unknown format": append([]byte{9}, enc[1:]...),
		"truncated":      enc[:len(enc)-1],
		"trailing":       append(append([]byte(nil), enc...), 0),
	} {
		if _, err := news.ParseHeader(b); !errors.Is(err, news.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	badID := append([]byte(nil), enc...)
	badID[1+6] = 0x40 // version 4
	if _, err := news.ParseHeader(badID); err == nil {
		t.Error("a non-v7 ID passed")
	}
	// A title of invalid UTF-8: the header is fine, the item is not.
	bad := bytes.Replace(enc, []byte("Title"), []byte("Titl\xff"), 1)
	if _, err := news.ParseHeader(bad); err != nil {
		t.Errorf("header of an item with a bad title: %v", err)
	}
	if _, err := news.Decode(bad); err == nil {
		t.Error("an item with a bad title decoded")
	}
}

func mustV7(t *testing.T) uuid.UUID {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestNewerFormat: an item of a format after this release's decodes to
// its envelope (ID, source, count, created, category, title, signature)
// with Newer set, encodes to the very bytes it came from, and its header
// marks where the signature starts, as for the known formats.
func TestNewerFormat(t *testing.T) {
	it, err := news.NewItem("hr", "Neue Gleitzeitregelung", "", "", uuid.New(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 12
	unsigned, err := news.AppendEnvelope(nil, 9, it, []byte("fields of format 9"))
	if err != nil {
		t.Fatal(err)
	}
	it.Signature = bytes.Repeat([]byte{9}, 97)
	enc, err := news.AppendEnvelope(nil, 9, it, []byte("fields of format 9"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := news.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Item
	if got.Newer != 9 || got.ID != it.ID || got.Source != it.Source || got.SourceCount != 12 || got.Category != "hr" ||
		got.Title != it.Title || !got.Created.Equal(it.Created) || !bytes.Equal(got.Signature, it.Signature) || got.Body != "" {
		t.Errorf("decoded %+v", got)
	}
	again, err := got.MarshalBinary()
	if err != nil || !bytes.Equal(again, enc) {
		t.Errorf("re-encoded to other bytes (%v)", err)
	}
	if c := got.Clone(); c.Newer != 9 {
		t.Error("a clone forgot the format")
	} else if b, err := c.MarshalBinary(); err != nil || !bytes.Equal(b, enc) {
		t.Errorf("a clone encodes to other bytes (%v)", err)
	}
	h, err := news.ParseHeader(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Newer() || h.Title != it.Title || h.Count != 12 || !bytes.Equal(append(enc[:h.Unsigned:h.Unsigned], 0), unsigned) {
		t.Errorf("header %+v", h)
	}
	// The audience is in the envelope: it decides who may see the title.
	aud := *it
	aud.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")}
	b, err := news.AppendEnvelope(nil, 10, &aud, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := news.ParseHeader(b); err != nil || len(h.Audience) != 1 || h.Audience[0] != aud.Audience[0] || h.Format != 10 {
		t.Errorf("header of a newer item with an audience: %+v, %v", h, err)
	}
	if d, err := news.Decode(b); err != nil || len(d.Item.Audience) != 1 {
		t.Errorf("newer item with an audience: %+v, %v", d.Item, err)
	}
	// What the envelope holds is checked as for any item.
	bad := *it
	bad.Category = "Not A Category"
	b, _ = news.AppendEnvelope(nil, 9, &bad, nil)
	if _, err := news.Decode(b); err == nil {
		t.Error("an envelope with a bad category decoded")
	}
	if _, err := news.AppendEnvelope(nil, 2, it, nil); err == nil {
		t.Error("format 2 written as an envelope")
	}
	// A bare Item can never claim a newer format it has no bytes of.
	fake := *it
	fake.Newer = 3
	if _, err := fake.MarshalBinary(); err == nil {
		t.Error("an item with Newer and no encoding encoded")
	}
}
