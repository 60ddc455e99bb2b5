package network

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// A document split into parts comes back whole in any order, with
// duplicates; every part is valid UTF-8 within the body limit, also when
// a cut would fall inside a character; parts that do not add up to the
// hash they name are refused.
func TestDefinitionPartsRoundTrip(t *testing.T) {
	doc := []byte(strings.Repeat("Zoë Ångström 東京 ", 12000)) // multi-byte characters across every cut
	bodies, err := splitDefinition(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) < 3 {
		t.Fatalf("%d parts for %d bytes", len(bodies), len(doc))
	}
	var parts []definitionPart
	for _, b := range bodies {
		if len(b) > 64<<10 || !utf8.ValidString(b) {
			t.Fatalf("a part of %d bytes, valid UTF-8 %v", len(b), utf8.ValidString(b))
		}
		p, ok, err := parseDefinitionPart(b)
		if !ok || err != nil {
			t.Fatalf("parse: %v %v", ok, err)
		}
		parts = append(parts, p)
	}
	r := rand.New(rand.NewPCG(1, 2))
	announcer := ed25519.PublicKey(bytes.Repeat([]byte{7}, ed25519.PublicKeySize))
	var d definitionAssembler
	order := append(r.Perm(len(parts)), 0) // and a duplicate
	var got []byte
	for i, k := range order {
		out, err := d.add(announcer, parts[k])
		if err != nil {
			t.Fatal(err)
		}
		if out != nil {
			if i != len(order)-2 {
				t.Fatalf("complete after %d of %d parts", i+1, len(parts))
			}
			got = out
		}
	}
	if !bytes.Equal(got, doc) {
		t.Fatal("the document did not come back whole")
	}

	// Another key's parts claiming the same document do not spoil the
	// announcer's: a forged first part with another count, and a garbage
	// chunk in a slot, go to an assembly of their own.
	var f definitionAssembler
	forger := ed25519.PublicKey(bytes.Repeat([]byte{9}, ed25519.PublicKeySize))
	bogus := parts[1]
	bogus.chunk = "garbage"
	f.add(forger, bogus)
	got = nil
	for _, p := range parts {
		out, err := f.add(announcer, p)
		if err != nil {
			t.Fatal(err)
		}
		if out != nil {
			got = out
		}
	}
	if !bytes.Equal(got, doc) {
		t.Fatal("a forger's part spoiled the announcer's document")
	}

	// Swap two chunks: the hash says no.
	var e definitionAssembler
	bad := append([]definitionPart(nil), parts...)
	bad[0].chunk, bad[1].chunk = bad[1].chunk, bad[0].chunk
	var lastErr error
	for _, p := range bad {
		if _, err := e.add(announcer, p); err != nil {
			lastErr = err
		}
	}
	if lastErr == nil {
		t.Error("parts that do not match their hash were accepted")
	}

	small, err := splitDefinition([]byte(`{"small":true}`))
	if err != nil || len(small) != 1 || small[0] != `{"small":true}` {
		t.Errorf("a small document: %q, %v", small, err)
	}
	if _, ok, _ := parseDefinitionPart(small[0]); ok {
		t.Error("a whole document parsed as a part")
	}
}

// Malformed part headers are errors, never panics.
func TestDefinitionPartHeaders(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, body := range []string{
		partHeaderPrefix,
		partHeaderPrefix + "1/2 " + sum,
		partHeaderPrefix + "1/2 " + sum + "\n",
		partHeaderPrefix + "0/2 " + sum + "\nx",
		partHeaderPrefix + "3/2 " + sum + "\nx",
		partHeaderPrefix + "1/1 " + sum + "\nx",
		partHeaderPrefix + fmt.Sprintf("1/%d ", maxDefinitionParts+1) + sum + "\nx",
		partHeaderPrefix + "1/2 abc\nx",
		partHeaderPrefix + "x/2 " + sum + "\nx",
		partHeaderPrefix + "1-2 " + sum + "\nx",
		partHeaderPrefix + "1/2 " + sum + " extra\nx",
	} {
		if _, ok, err := parseDefinitionPart(body); !ok || err == nil {
			t.Errorf("%q: ok %v, err %v", body, ok, err)
		}
	}
}

// Whatever a part's body holds, parsing never panics, and a part it
// accepts is within the limits the assembler relies on.
func FuzzDefinitionPart(f *testing.F) {
	sum := strings.Repeat("0f", 32)
	f.Add(partHeaderPrefix + "1/2 " + sum + "\n{\"name\":")
	f.Add(partHeaderPrefix + "2/2 " + sum + "\n\"Zoë\"}")
	f.Add(partHeaderPrefix + "1/2 zz\n")
	f.Add(`{"id":"x"}`)
	f.Fuzz(func(t *testing.T, body string) {
		p, ok, err := parseDefinitionPart(body)
		if !ok || err != nil {
			return
		}
		if p.index < 1 || p.index > p.total || p.total > maxDefinitionParts || p.chunk == "" || len(p.chunk) > partChunkBytes {
			t.Fatalf("accepted part %d of %d with %d bytes", p.index, p.total, len(p.chunk))
		}
		var d definitionAssembler
		d.add(nil, p)
	})
}
