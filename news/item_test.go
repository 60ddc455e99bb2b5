package news

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var testSource = uuid.MustParse("0196a3c2-7a1e-7b2c-9d3e-112233445566")

func validItem(t testing.TB) *Item {
	t.Helper()
	it, err := NewItem("sales/emea", "Q3 results beat the forecast", "**Well done** everyone.\n\nDetails follow.", "Ann Example", testSource, time.Date(2025, 6, 1, 9, 30, 0, 123456789, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 42
	return it
}

func TestValidateRules(t *testing.T) {
	other, _ := NewID(time.Now())
	v4 := uuid.New()
	cases := []struct {
		name   string
		mutate func(*Item)
		want   string
	}{
		{"nil id", func(it *Item) { it.ID = uuid.Nil }, "id: required"},
		{"v4 id", func(it *Item) { it.ID = v4 }, "id: not a UUIDv7"},
		{"bad category", func(it *Item) { it.Category = "Sales" }, "category: category id \"Sales\": invalid character"},
		{"no category", func(it *Item) { it.Category = "" }, "category: category id: required"},
		{"no title", func(it *Item) { it.Title = "" }, "title: required"},
		{"blank title", func(it *Item) { it.Title = "   " }, "title: required"},
		{"long title", func(it *Item) { it.Title = strings.Repeat("ü", MaxTitleRunes+1) }, "title: longer than 200 characters"},
		{"newline in title", func(it *Item) { it.Title = "a\nb" }, "title: control character"},
		{"escape in title", func(it *Item) { it.Title = "a\x1b[31mb" }, "title: control character"},
		{"invalid title", func(it *Item) { it.Title = "a\xc3" }, "title: not valid UTF-8"},
		{"long body", func(it *Item) { it.Body = strings.Repeat("x", MaxBodyBytes+1) }, "body: longer than 65536 bytes"},
		{"invalid body", func(it *Item) { it.Body = "\xff" }, "body: not valid UTF-8"},
		{"long author", func(it *Item) { it.Author = strings.Repeat("a", MaxAuthorRunes+1) }, "author: longer than 100 characters"},
		{"tab in author", func(it *Item) { it.Author = "a\tb" }, "author: control character"},
		{"no source", func(it *Item) { it.Source = uuid.Nil }, "source: required"},
		{"no created", func(it *Item) { it.Created = time.Time{} }, "created: required"},
		{"created far future", func(it *Item) { it.Created = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) }, "created: outside"},
		{"supersedes self", func(it *Item) { it.Supersedes = it.ID }, "supersedes: equals the item's own id"},
		{"supersedes v4", func(it *Item) { it.Supersedes = v4 }, "supersedes: not a UUIDv7"},
		{"long signature", func(it *Item) { it.Signature = make([]byte, MaxSignatureBytes+1) }, "signature: longer than"},
	}
	for _, c := range cases {
		it := validItem(t)
		c.mutate(it)
		err := it.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want containing %q", c.name, err, c.want)
		}
		if _, err := it.MarshalBinary(); err == nil {
			t.Errorf("%s: MarshalBinary accepted an invalid item", c.name)
		}
	}
	// Limits are inclusive, and characters are runes, not bytes.
	it := validItem(t)
	it.Title = strings.Repeat("ü", MaxTitleRunes)
	it.Author = strings.Repeat("ß", MaxAuthorRunes)
	it.Body = strings.Repeat("x", MaxBodyBytes)
	it.Supersedes = other
	it.Signature = make([]byte, MaxSignatureBytes)
	it.Body = "tabs\tand\nnewlines are fine in Markdown"
	if err := it.Validate(); err != nil {
		t.Errorf("item at the limits: %v", err)
	}
}

func TestNewItem(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	it, err := NewItem("it", "Mail outage tonight", "", "", testSource, now)
	if err != nil {
		t.Fatal(err)
	}
	if it.ID.Version() != 7 || !IDTime(it.ID).Equal(now) || !it.Created.Equal(now) {
		t.Errorf("id %v (time %v), created %v", it.ID, IDTime(it.ID), it.Created)
	}
	if _, err := NewItem("it", "", "", "", testSource, now); err == nil || err.Error() != "title: required" {
		t.Errorf("NewItem without title: %v", err)
	}
}

func TestNewIDOrdering(t *testing.T) {
	// A burst in one millisecond still gives increasing IDs.
	now := time.Date(2025, 3, 3, 3, 3, 3, 0, time.UTC)
	prev, _ := NewID(now)
	for range 1000 {
		id, err := NewID(now)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Compare(id[:], prev[:]) <= 0 {
			t.Fatalf("ID %v not after %v", id, prev)
		}
		prev = id
	}
	// Later times sort later; an earlier time is not bumped forward.
	later, _ := NewID(now.Add(time.Millisecond))
	if bytes.Compare(later[:], prev[:]) <= 0 {
		t.Errorf("later ID sorts first")
	}
	early, _ := NewID(now.Add(-time.Hour))
	if !IDTime(early).Equal(now.Add(-time.Hour)) {
		t.Errorf("earlier ID has time %v", IDTime(early))
	}
	if _, err := NewID(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Errorf("ID for 1969 accepted")
	}
}

func TestRoundTrip(t *testing.T) {
	it := validItem(t)
	it.Urgent = true
	it.Supersedes, _ = NewID(it.Created.Add(-time.Hour))
	it.Signature = []byte{1, 2, 3}
	it.Received = time.Now()
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Item
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !got.Received.IsZero() {
		t.Errorf("received time travelled on the wire")
	}
	want := it.Clone()
	want.Received = time.Time{}
	if !equalItems(&got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, *want)
	}
	if len(b) > MaxEncodedLen {
		t.Errorf("encoded length %d over MaxEncodedLen", len(b))
	}
}

func equalItems(a, b *Item) bool {
	return a.ID == b.ID && a.Category == b.Category && a.Title == b.Title && a.Body == b.Body &&
		a.Author == b.Author && a.Source == b.Source && a.SourceCount == b.SourceCount &&
		a.Created.Equal(b.Created) && a.Received.Equal(b.Received) && a.Urgent == b.Urgent &&
		a.Supersedes == b.Supersedes && bytes.Equal(a.Signature, b.Signature) &&
		a.At.Equal(b.At) && a.Expires.Equal(b.Expires) && a.MustRead == b.MustRead &&
		slices.Equal(a.Audience, b.Audience)
}

func TestUnmarshalRejects(t *testing.T) {
	good, _ := validItem(t).MarshalBinary()
	cases := map[string][]byte{
		"empty":       nil,
		"format":      append([]byte{2}, good[1:]...),
		"truncated":   good[:len(good)-1],
		"trailing":    append(append([]byte(nil), good...), 0),
		"header only": good[:20],
	}
	for name, b := range cases {
		var it Item
		err := it.UnmarshalBinary(b)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	// A huge declared length is refused before allocating.
	b := append([]byte(nil), good[:1+16+16+1+8+1]...)
	b = append(b, 0xff, 0xff, 0xff, 0xff, 0x0f)
	var it Item
	if err := it.UnmarshalBinary(b); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("huge length: %v", err)
	}
	// Structurally fine but semantically invalid: the validation error.
	bad := validItem(t)
	enc, _ := bad.MarshalBinary()
	i := bytes.Index(enc, []byte(bad.Title))
	enc[i] = '\n'
	if err := it.UnmarshalBinary(enc); err == nil || !strings.HasPrefix(err.Error(), "title: control character") {
		t.Errorf("invalid title on the wire: %v", err)
	}
	// Unchanged on error.
	if it.ID != uuid.Nil {
		t.Errorf("item modified by a failed decode")
	}
}

func FuzzUnmarshalBinary(f *testing.F) {
	it := validItem(f)
	b, _ := it.MarshalBinary()
	f.Add(b)
	it.Urgent = true
	it.Supersedes, _ = NewID(time.Now())
	it.Signature = []byte("sig")
	b, _ = it.MarshalBinary()
	f.Add(b)
	it.MustRead = true
	b, _ = it.MarshalBinary()
	f.Add(b)
	it.Expires = it.Created.Add(time.Hour)
	b, _ = it.MarshalBinary()
	f.Add(b)
	it.Audience, _ = ParseAudience([]string{"10.1.4.0/22", "192.168.7.1/32", "2001:db8:4::/48", "::/0"})
	b, _ = it.MarshalBinary()
	f.Add(b)
	f.Add([]byte{1})
	b, _ = AppendEnvelope(nil, 9, it, []byte("fields of a newer format"))
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, herr := ParseHeader(data)
		var it Item
		if err := it.UnmarshalBinary(data); err != nil {
			return
		}
		// What decodes has a header, and the header says what the item
		// says: a relay that reads only headers sees the same item.
		if herr != nil {
			t.Fatalf("the item decodes, its header does not: %v", herr)
		}
		if h.ID != it.ID || h.Source != it.Source || h.Count != it.SourceCount || h.Category != it.Category ||
			h.Supersedes != it.Supersedes || !bytes.Equal(h.Signature, it.Signature) || !h.PublishedAt().Equal(it.PublishedAt()) {
			t.Fatalf("header %+v differs from the item %+v", h, it)
		}
		// Round-trip property: whatever decodes re-encodes to the same bytes
		// and decodes to the same item.
		enc, err := it.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded item does not encode: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", data, enc)
		}
		var again Item
		if err := again.UnmarshalBinary(enc); err != nil || !equalItems(&it, &again) {
			t.Fatalf("second decode: %v", err)
		}
	})
}

// The scheduling fields round-trip in format 2, each alone and together;
// an item without them stays format 1, byte for byte.
func TestRoundTripScheduling(t *testing.T) {
	plain := validItem(t)
	old, err := plain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if old[0] != formatV1 {
		t.Fatalf("an item without at/expires encoded as format %d", old[0])
	}
	at := plain.Created.Add(time.Hour)
	exp := plain.Created.Add(48 * time.Hour)
	for name, set := range map[string]func(*Item){
		"at":         func(it *Item) { it.At = at },
		"expires":    func(it *Item) { it.Expires = exp },
		"at+expires": func(it *Item) { it.At, it.Expires = at, exp },
		"none (nil)": func(*Item) {},
	} {
		t.Run(name, func(t *testing.T) {
			it := validItem(t)
			set(it)
			b, err := it.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			wantFormat := byte(formatV2)
			if it.At.IsZero() && it.Expires.IsZero() {
				wantFormat = formatV1
			}
			if b[0] != wantFormat {
				t.Errorf("format %d, want %d", b[0], wantFormat)
			}
			var got Item
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !equalItems(&got, it) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, *it)
			}
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Errorf("re-encoding differs")
			}
			if len(b) > MaxEncodedLen {
				t.Errorf("encoded length %d over MaxEncodedLen", len(b))
			}
		})
	}
	// Format 1 carries no scheduling flags; format 2 needs one.
	withAt := validItem(t)
	withAt.At = at
	b, _ := withAt.MarshalBinary()
	var it Item
	if err := it.UnmarshalBinary(append([]byte{formatV1}, b[1:]...)); !errors.Is(err, ErrMalformed) {
		t.Errorf("format 1 with the at flag: %v", err)
	}
	if err := it.UnmarshalBinary(append([]byte{formatV2}, old[1:]...)); !errors.Is(err, ErrMalformed) {
		t.Errorf("format 2 without at or expires: %v", err)
	}
}

func TestValidateScheduling(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*Item)
		field Field
		rule  Rule
	}{
		{"at not after created", func(it *Item) { it.At = it.Created }, FieldAt, RuleNotAfter},
		{"expires before created", func(it *Item) { it.Expires = it.Created.Add(-time.Second) }, FieldExpires, RuleNotAfter},
		{"expires before at", func(it *Item) { it.At, it.Expires = it.Created.Add(2*time.Hour), it.Created.Add(time.Hour) }, FieldExpires, RuleNotAfter},
		{"at out of range", func(it *Item) { it.At = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }, FieldAt, RuleOutOfRange},
	}
	for _, c := range cases {
		it := validItem(t)
		c.set(it)
		var fe *FieldError
		if err := it.Validate(); !errors.As(err, &fe) || fe.Field != c.field || fe.Rule != c.rule {
			t.Errorf("%s: %v, want %v %v", c.name, err, c.field, c.rule)
		}
	}
	it := validItem(t)
	it.Expires = it.Created.Add(time.Hour)
	if it.ExpiredAt(it.Expires.Add(time.Minute), 2*time.Minute) {
		t.Error("expired within the skew")
	}
	if !it.ExpiredAt(it.Expires.Add(3*time.Minute), 2*time.Minute) {
		t.Error("not expired after the skew")
	}
	if validItem(t).ExpiredAt(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), 0) {
		t.Error("an item without expiry expired")
	}
}
