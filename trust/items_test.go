package trust

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

func TestSignVerifyItemRoundTrip(t *testing.T) {
	sn := signedExample(t)
	it := signedItem(t, newsroomID, "company")
	if len(it.Signature) != ItemSignatureSize || len(it.Signature) > news.MaxSignatureBytes {
		t.Fatalf("signature of %d bytes", len(it.Signature))
	}
	key, err := sn.VerifyItem(it)
	if err != nil {
		t.Fatal(err)
	}
	if !key.Equal(newsroomID.Public) {
		t.Fatal("VerifyItem returned another key")
	}
	// Across the wire: the decoded item (Created in UTC, no Received)
	// still verifies.
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got news.Item
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	got.Received = time.Now()
	if _, err := sn.VerifyItem(&got); err != nil {
		t.Fatalf("after the wire: %v", err)
	}
	// Received is local: changing it never breaks the signature.
	it.Received = testNow.Add(time.Hour)
	if _, err := sn.VerifyItem(it); err != nil {
		t.Fatalf("Received changed: %v", err)
	}
	// The Created time zone is not content.
	it.Created = it.Created.In(time.FixedZone("X", 3600))
	if _, err := sn.VerifyItem(it); err != nil {
		t.Fatalf("Created in another zone: %v", err)
	}
}

// Every field that travels is covered by the signature: changing any one of
// them breaks it. The table must name every field of news.Item, so a field
// added later fails this test until it is covered.
func TestTamperingAnyItemFieldBreaksSignature(t *testing.T) {
	sn := signedExample(t)
	otherID, _ := news.NewID(testNow.Add(time.Minute))
	tamper := map[string]func(it *news.Item){
		"ID":          func(it *news.Item) { it.ID = otherID },
		"Category":    func(it *news.Item) { it.Category = "it" },
		"Title":       func(it *news.Item) { it.Title += "!" },
		"Body":        func(it *news.Item) { it.Body = strings.Replace(it.Body, "Friday", "Monday", 1) },
		"Author":      func(it *news.Item) { it.Author = "CEO" },
		"Source":      func(it *news.Item) { it.Source = uuid.MustParse("99999999-9999-4999-8999-999999999999") },
		"SourceCount": func(it *news.Item) { it.SourceCount++ },
		"Created":     func(it *news.Item) { it.Created = it.Created.Add(time.Nanosecond) },
		"Urgent":      func(it *news.Item) { it.Urgent = !it.Urgent },
		"Supersedes":  func(it *news.Item) { it.Supersedes = uuid.Nil },
		"Signature":   func(it *news.Item) { it.Signature[len(it.Signature)-1] ^= 1 },
		"At":          func(it *news.Item) { it.At = it.Created.Add(time.Hour) },
		"Expires":     func(it *news.Item) { it.Expires = it.Created.Add(time.Hour) },
		"MustRead":    func(it *news.Item) { it.MustRead = !it.MustRead },
		"Audience":    func(it *news.Item) { it.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")} },
	}
	// Newer and raw are the format and the bytes of a newer release's
	// item, whose signature is checked over those bytes
	// (TestNewerFormatSignature).
	notSigned := map[string]bool{"Received": true, "Newer": true, "raw": true}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[news.Item]()) {
		if _, ok := tamper[f.Name]; !ok && !notSigned[f.Name] {
			t.Errorf("news.Item.%s is not in the tampering table: is it signed?", f.Name)
		}
	}
	for name, change := range tamper {
		t.Run(name, func(t *testing.T) {
			it := signedItem(t, newsroomID, "company")
			change(it)
			_, err := sn.VerifyItem(it)
			wantReason(t, err, BadSignature)
			// The same over the bytes, as a relay checks them.
			enc, err := it.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			h, err := news.ParseHeader(enc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = EncodedSigner(h, enc)
			wantReason(t, err, BadSignature)
		})
	}
	// Each region of the signature blob.
	for i, region := range []string{"scheme", "key", "signature"} {
		t.Run("blob "+region, func(t *testing.T) {
			it := signedItem(t, newsroomID, "company")
			it.Signature[[]int{0, 1, 40}[i]] ^= 0x80
			_, err := sn.VerifyItem(it)
			wantReason(t, err, BadSignature)
		})
	}
}

func TestVerifyItemRejections(t *testing.T) {
	sn := signedExample(t)
	open := exampleNetwork()
	open.OpenPublishing = true
	for _, tc := range []struct {
		name string
		n    *Network
		item func(t *testing.T) *news.Item
		want Rejection
	}{
		{"unsigned", &sn.Network, func(t *testing.T) *news.Item { return newItem(t, "company", "x") }, Unsigned},
		{"nil item", &sn.Network, func(t *testing.T) *news.Item { return nil }, Invalid},
		{"invalid item", &sn.Network, func(t *testing.T) *news.Item {
			it := signedItem(t, newsroomID, "company")
			it.Title = ""
			return it
		}, Invalid},
		{"truncated signature", &sn.Network, func(t *testing.T) *news.Item {
			it := signedItem(t, newsroomID, "company")
			it.Signature = it.Signature[:ItemSignatureSize-1]
			return it
		}, BadSignature},
		{"unknown scheme", &sn.Network, func(t *testing.T) *news.Item {
			it := signedItem(t, newsroomID, "company")
			it.Signature[0] = 2
			return it
		}, BadSignature},
		{"key swapped for a trusted one", &sn.Network, func(t *testing.T) *news.Item {
			it := signedItem(t, outsiderID, "company")
			copy(it.Signature[1:], newsroomID.Public)
			return it
		}, BadSignature},
		{"another installation's source", &sn.Network, func(t *testing.T) *news.Item {
			// hr may publish in hr, but not as the newsroom.
			it := newItem(t, "hr", "x")
			it.Source = sourceOf(newsroomID)
			if err := SignItem(hrID, it); err != nil {
				t.Fatal(err)
			}
			return it
		}, ForeignSource},
		{"a source not derived from any key", &sn.Network, func(t *testing.T) *news.Item {
			it := newItem(t, "company", "x") // a random version-4 UUID
			if err := SignItem(newsroomID, it); err != nil {
				t.Fatal(err)
			}
			return it
		}, ForeignSource},
		{"untrusted key", &sn.Network, func(t *testing.T) *news.Item { return signedItem(t, outsiderID, "company") }, UntrustedKey},
		{"wrong category", &sn.Network, func(t *testing.T) *news.Item { return signedItem(t, hrID, "company") }, CategoryNotAllowed},
		{"allowed category", &sn.Network, func(t *testing.T) *news.Item { return signedItem(t, hrID, "hr") }, ""},
		{"revoked key", &sn.Network, func(t *testing.T) *news.Item { return signedItem(t, revokedID, "company") }, RevokedKey},
		{"admin anywhere", &sn.Network, func(t *testing.T) *news.Item { return signedItem(t, adminID, "sales/apac") }, ""},
		{"open publishing: any member key", open, func(t *testing.T) *news.Item { return signedItem(t, outsiderID, "company") }, ""},
		{"open publishing: still signed", open, func(t *testing.T) *news.Item { return newItem(t, "company", "x") }, Unsigned},
		{"open publishing: revoked", open, func(t *testing.T) *news.Item { return signedItem(t, revokedID, "company") }, RevokedKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.n.VerifyItem(tc.item(t))
			wantReason(t, err, tc.want)
			if tc.want != "" && !errors.Is(err, tc.want) {
				t.Errorf("errors.Is(%v, %s) is false", err, tc.want)
			}
		})
	}
}

func TestSignItemRefusesInvalidItem(t *testing.T) {
	it := newItem(t, "company", "x")
	it.Category = "Not A Slug"
	if err := SignItem(newsroomID, it); err == nil {
		t.Fatal("signed an invalid item")
	}
	if it.Signature != nil {
		t.Fatal("signature set on failure")
	}
}

// The signing encoding is pinned like the network document: a change
// invalidates every stored item's signature.
func TestItemSigningBytesGolden(t *testing.T) {
	it := &news.Item{
		ID:          uuid.MustParse("0195943b-2c4d-7e5f-8a1b-2c3d4e5f6a7b"),
		Category:    "sales/emea",
		Title:       "Q1 results",
		Body:        "We **beat** the plan.",
		Author:      "Sales ops",
		Source:      uuid.MustParse("0b7d4a52-9c1e-4f11-a9e0-5d2c6b8f7e31"),
		SourceCount: 300,
		Created:     time.Date(2025, 3, 14, 9, 26, 53, 589793238, time.UTC),
		Urgent:      true,
		Supersedes:  uuid.MustParse("0195943a-0000-7000-8000-000000000001"),
		Received:    time.Now(),
		Signature:   []byte("ignored"),
	}
	msg, err := ItemSigningBytes(it)
	if err != nil {
		t.Fatal(err)
	}
	if err := SignItem(adminID, it); err != nil {
		t.Fatal(err)
	}
	golden(t, "item-signing.golden", []byte(hex.EncodeToString(msg)+"\n"+hex.EncodeToString(it.Signature)+"\n"))
	if !strings.HasPrefix(string(msg), "newsdesk item v1\x00") {
		t.Error("no domain prefix")
	}
}

func TestVerifyCorrection(t *testing.T) {
	sn := signedExample(t)
	original := signedItem(t, hrID, "hr")
	correction := func(by *Identity, supersedes uuid.UUID) *news.Item {
		c := newItem(t, "hr", "Corrected: the office opens at noon.")
		c.Supersedes = supersedes
		signAs(t, by, c)
		return c
	}
	for _, tc := range []struct {
		name       string
		original   *news.Item
		correction *news.Item
		want       Rejection
	}{
		{"by the original's publisher", original, correction(hrID, original.ID), ""},
		{"by an admin", original, correction(adminID, original.ID), ""},
		{"by another trusted publisher", original, correction(newsroomID, original.ID), NotAuthorized},
		{"by an untrusted key", original, correction(outsiderID, original.ID), UntrustedKey},
		{"of another item", original, correction(hrID, uuid.MustParse("0195943a-0000-7000-8000-000000000001")), Mismatch},
		{"of an unsigned original", func() *news.Item { o := original.Clone(); o.Signature = nil; return o }(), correction(newsroomID, original.ID), Unsigned},
		{"forged original", func() *news.Item { o := original.Clone(); o.Title = "changed"; return o }(), correction(newsroomID, original.ID), BadSignature},
		{"missing original", nil, correction(hrID, original.ID), Mismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReason(t, sn.VerifyCorrection(tc.original, tc.correction), tc.want)
		})
	}
}

func TestRejectionsAreDistinct(t *testing.T) {
	seen := map[Rejection]bool{}
	for _, r := range Rejections() {
		if seen[r] || r == "" || strings.ContainsAny(string(r), " -_") {
			t.Errorf("reason %q duplicate or not a camelCase word", r)
		}
		seen[r] = true
	}
	if ReasonOf(nil) != "" || ReasonOf(errors.New("x")) != "" {
		t.Error("ReasonOf of a non-rejection")
	}
}

func benchItem(b *testing.B) *news.Item {
	it, err := news.NewItem("company", "Benchmark item", strings.Repeat("Lorem ipsum dolor sit amet. ", 37)[:1024], "Bench", uuid.New(), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	it.SourceCount = 1
	return it
}

func BenchmarkSignItem(b *testing.B) {
	it := benchItem(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := SignItem(newsroomID, it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyItem(b *testing.B) {
	sn := signedExample(b)
	it := benchItem(b)
	signAs(b, newsroomID, it)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sn.VerifyItem(it); err != nil {
			b.Fatal(err)
		}
	}
}

// A scheduled, expiring item signs and verifies across the wire, and moving
// either time breaks the signature.
func TestSignVerifyScheduledItem(t *testing.T) {
	sn := signedExample(t)
	it := newItem(t, "company", "The **office** is closed on Friday.")
	it.At = it.Created.Add(time.Hour)
	it.Expires = it.Created.Add(24 * time.Hour)
	signAs(t, newsroomID, it)
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got news.Item
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if _, err := sn.VerifyItem(&got); err != nil {
		t.Fatalf("after the wire: %v", err)
	}
	for name, change := range map[string]func(*news.Item){
		"at":        func(it *news.Item) { it.At = it.At.Add(time.Second) },
		"expires":   func(it *news.Item) { it.Expires = it.Expires.Add(time.Hour) },
		"no expiry": func(it *news.Item) { it.Expires = time.Time{} },
	} {
		c := got.Clone()
		change(c)
		_, err := sn.VerifyItem(c)
		if ReasonOf(err) != BadSignature {
			t.Errorf("%s changed: %v, want a bad signature", name, err)
		}
	}
}

// TestEncodedSigner: the signature checked over an item's encoding as it
// arrived names the same key as the check over the decoded item, for items
// of both formats, and an item of another key's source is ForeignSource.
func TestEncodedSigner(t *testing.T) {
	plain := signedItem(t, newsroomID, "company")
	scheduled := newItem(t, "company", "Later.")
	scheduled.At = scheduled.Created.Add(time.Hour)
	scheduled.MustRead = true
	signAs(t, newsroomID, scheduled)
	for _, it := range []*news.Item{plain, scheduled} {
		enc, err := it.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		h, err := news.ParseHeader(enc)
		if err != nil {
			t.Fatal(err)
		}
		key, err := EncodedSigner(h, enc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ItemSigner(it)
		if err != nil || !key.Equal(want) {
			t.Errorf("format %d: key %x, the item's %x (%v)", h.Format, key, want, err)
		}
	}
	foreign := newItem(t, "company", "Not mine.")
	if err := SignItem(newsroomID, foreign); err != nil { // under newItem's fixed source
		t.Fatal(err)
	}
	enc, _ := foreign.MarshalBinary()
	h, err := news.ParseHeader(enc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = EncodedSigner(h, enc)
	wantReason(t, err, ForeignSource)
}

// TestSignEncoded: signing and encoding at once gives the signature
// SignItem gives and the encoding MarshalBinary gives, for both formats.
func TestSignEncoded(t *testing.T) {
	plain := newItem(t, "company", "Plain.")
	scheduled := newItem(t, "company", "Later.")
	scheduled.At = scheduled.Created.Add(time.Hour)
	scheduled.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")}
	for _, it := range []*news.Item{plain, scheduled} {
		it.Source = sourceOf(newsroomID)
		other := it.Clone()
		enc, err := SignEncoded(newsroomID, it)
		if err != nil {
			t.Fatal(err)
		}
		if err := SignItem(newsroomID, other); err != nil {
			t.Fatal(err)
		}
		want, err := other.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, want) || !bytes.Equal(it.Signature, other.Signature) {
			t.Errorf("SignEncoded differs from SignItem and MarshalBinary")
		}
	}
	bad := newItem(t, "company", "x")
	bad.Title = ""
	if _, err := SignEncoded(newsroomID, bad); err == nil {
		t.Error("an invalid item was signed")
	}
}

// BenchmarkSignEncoded compares signing and encoding a 1 KiB item at once
// with signing it and then encoding it, as publishers did before.
func BenchmarkSignEncoded(b *testing.B) {
	it := newItem(b, "company", strings.Repeat("A paragraph of company news. ", 36))
	it.Source = sourceOf(newsroomID)
	b.Run("sign then encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := SignItem(newsroomID, it); err != nil {
				b.Fatal(err)
			}
			if _, err := it.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("at once", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := SignEncoded(newsroomID, it); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNewerFormatSignature: an item of a newer release's format is
// verified over its bytes, decoded or not, and its envelope cannot be
// changed without breaking the signature.
func TestNewerFormatSignature(t *testing.T) {
	sn := signedExample(t)
	it := newItem(t, "company", "")
	it.Source = sourceOf(newsroomID)
	fields := []byte("the fields of format 9")
	unsigned, err := news.AppendEnvelope(nil, 9, it, fields)
	if err != nil {
		t.Fatal(err)
	}
	it.Signature = append([]byte{sigSchemeEd25519}, newsroomID.Public...)
	it.Signature = append(it.Signature, newsroomID.Sign(append([]byte(itemDomain), unsigned...))...)
	enc, err := news.AppendEnvelope(nil, 9, it, fields)
	if err != nil {
		t.Fatal(err)
	}
	d, err := news.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sn.VerifyItem(d.Item); err != nil {
		t.Errorf("decoded newer item: %v", err)
	}
	h, err := news.ParseHeader(enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EncodedSigner(h, enc); err != nil {
		t.Errorf("newer item's bytes: %v", err)
	}
	if err := SignItem(newsroomID, d.Item); err == nil {
		t.Error("an item of a newer format was signed again")
	}
	tampered := bytes.Replace(enc, []byte("Office closed"), []byte("Office opened"), 1)
	if h, err := news.ParseHeader(tampered); err != nil {
		t.Fatal(err)
	} else if _, err := EncodedSigner(h, tampered); ReasonOf(err) != BadSignature {
		t.Errorf("tampered title: %v, want %s", err, BadSignature)
	}
}
