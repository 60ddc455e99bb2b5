package trust

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// An acknowledgement verifies for its item and name only, and a reader's
// identity and proof name the same reader.
func TestAckProofVerifiesForItsItemOnly(t *testing.T) {
	reader := fixedIdentity(9)
	item := [16]byte{1, 2, 3}
	proof := SignAck(reader, item, "Ada Lovelace")
	if len(proof) > MaxReachBlob {
		t.Fatalf("proof of %d bytes", len(proof))
	}
	got, err := VerifyAck(proof, item)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ParseReaderIdentity(ReaderIdentity(reader, "Ada Lovelace"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Ada Lovelace" || id.Name != got.Name || id.KeyString() != got.KeyString() ||
		got.KeyString() != PublicKeyString(reader.Public) {
		t.Fatalf("proof names %+v, identity %+v", got, id)
	}
	if _, err := VerifyAck(proof, [16]byte{1, 2, 4}); !errors.Is(err, ErrBadReachBlob) {
		t.Fatalf("proof for another item: %v", err)
	}
	renamed := append(append([]byte(nil), proof...), 'x')
	if _, err := VerifyAck(renamed, item); !errors.Is(err, ErrBadReachBlob) {
		t.Fatalf("proof with another name: %v", err)
	}
	forged := append([]byte(nil), proof...)
	copy(forged[1:], fixedIdentity(10).Public) // someone else's key, the same signature
	if _, err := VerifyAck(forged, item); !errors.Is(err, ErrBadReachBlob) {
		t.Fatalf("proof under another key: %v", err)
	}
	for _, bad := range [][]byte{nil, {1}, proof[:40], append([]byte{2}, proof[1:]...)} {
		if _, err := VerifyAck(bad, item); !errors.Is(err, ErrBadReachBlob) {
			t.Fatalf("VerifyAck(%x): %v", bad, err)
		}
		if _, err := ParseReaderIdentity(bad); !errors.Is(err, ErrBadReachBlob) && len(bad) < 33 {
			t.Fatalf("ParseReaderIdentity(%x): %v", bad, err)
		}
	}
}

// A long display name is cut at a character boundary so both blobs fit a
// reach report, and the proof still verifies.
func TestReachBlobsFitWithLongNames(t *testing.T) {
	reader := fixedIdentity(9)
	name := strings.Repeat("é", 200) // 400 bytes
	id := ReaderIdentity(reader, name)
	proof := SignAck(reader, [16]byte{7}, name)
	if len(id) > MaxReachBlob || len(proof) > MaxReachBlob {
		t.Fatalf("identity %d, proof %d bytes", len(id), len(proof))
	}
	r, err := VerifyAck(proof, [16]byte{7})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseReaderIdentity(id)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(r.Name) || r.Name != p.Name || !strings.HasPrefix(name, r.Name) || len(r.Name) < MaxReachName-1 {
		t.Fatalf("names %q / %q", r.Name, p.Name)
	}
}
