package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// Fuzz targets for the decoders of stored keys and values (issue 11);
// pagecheck_test.go fuzzes the page walk that stands between a damaged file
// and bbolt. Under plain `go test` they run their seeds; `go test -fuzz
// FuzzX ./storage/` explores further. Every one asserts that nothing
// panics, that a refusal is ErrCorrupt, and that what is accepted encodes
// back to the same bytes.

func fuzzItem(tb testing.TB, rng *rand.Rand, source uuid.UUID, count uint64) *news.Item {
	tb.Helper()
	created := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(count) * time.Minute)
	it, err := news.NewItem([]string{"company", "it", "sales/emea"}[rng.IntN(3)],
		"Title "+strings.Repeat("x", rng.IntN(20)), strings.Repeat("body text ", 1+rng.IntN(30)), "Author", source, created)
	if err != nil {
		tb.Fatal(err)
	}
	it.SourceCount = count
	it.Received = created.Add(time.Second)
	return it
}

func wantCorrupt(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%s: %v, not ErrCorrupt", what, err)
	}
}

// FuzzDecodeValue: the items bucket's values.
func FuzzDecodeValue(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 3 {
		it := fuzzItem(f, rng, uuid.New(), uint64(i+1))
		it.Urgent = i == 1
		if i == 2 {
			it.Signature = []byte("signature")
		}
		v, err := encodeValue(it)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(it.ID[:], v)
		f.Add(it.ID[:], v[:len(v)-1])
		f.Add(it.ID[:8], v)
	}
	f.Add([]byte{}, []byte{})
	f.Add(make([]byte, 16), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, id, v []byte) {
		it, err := decodeValue(id, v)
		wantCorrupt(t, "decodeValue", err)
		if err != nil {
			return
		}
		if !bytes.Equal(it.ID[:], id) {
			t.Fatalf("item %s decoded under key %x", it.ID, id)
		}
		again, err := encodeValue(it)
		if err != nil {
			t.Fatalf("decoded item does not encode: %v", err)
		}
		if !bytes.Equal(again, v) {
			t.Fatalf("round trip changed the value:\n%x\n%x", v, again)
		}
	})
}

// FuzzDecodeRetraction: the retracted bucket's entries.
func FuzzDecodeRetraction(f *testing.F) {
	id := uuid.MustParse("01972a83-a118-7000-852f-22f0aba7e43c")
	for _, r := range []string{"", "withdrawn", "Straße gesperrt", strings.Repeat("x", MaxRetractionReason)} {
		v, err := encodeRetraction(Retraction{ItemID: id, Reason: r, At: time.Unix(1750000000, 5)})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(id[:], v)
	}
	f.Add(id[:8], []byte{1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(id[:], []byte{1, 0, 0})
	f.Add(id[:], []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, id, v []byte) {
		r, err := decodeRetraction(id, v)
		wantCorrupt(t, "decodeRetraction", err)
		if err != nil {
			return
		}
		if !bytes.Equal(r.ItemID[:], id) {
			t.Fatalf("retraction of %s decoded under key %x", r.ItemID, id)
		}
		again, err := encodeRetraction(*r)
		if err != nil || !bytes.Equal(again, v) {
			t.Fatalf("round trip: %v\n%x\n%x", err, v, again)
		}
	})
}

// FuzzDecodeKeys: the index buckets' keys (by-source, by-received,
// by-category).
func FuzzDecodeKeys(f *testing.F) {
	src, id := uuid.MustParse("00000000-0000-4000-8000-0000000000aa"), uuid.MustParse("01972a83-a118-7000-852f-22f0aba7e43c")
	f.Add(sourceKey(src, 42, id))
	f.Add(receivedKey(time.Unix(1750000000, 7), id))
	f.Add(receivedKey(time.Unix(-5, 0), id))
	f.Add(categoryKey("sales/emea", id))
	f.Add(categoryKey("company", id)[:12])
	f.Add(append([]byte{0}, id[:]...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, k []byte) {
		if s, n, kid, err := decodeSourceKey(k); err == nil {
			if len(kid) != 16 || !bytes.Equal(sourceKey(s, n, uuid.UUID(kid)), k) {
				t.Fatalf("by-source key %x decoded to %s %d %x", k, s, n, kid)
			}
		} else {
			wantCorrupt(t, "decodeSourceKey", err)
		}
		if at, kid, err := decodeReceivedKey(k); err == nil {
			ns := int64(binary.BigEndian.Uint64(at) ^ 1<<63)
			if len(kid) != 16 || !bytes.Equal(receivedKey(time.Unix(0, ns), uuid.UUID(kid)), k) {
				t.Fatalf("by-received key %x decoded to %d %x", k, ns, kid)
			}
		} else {
			wantCorrupt(t, "decodeReceivedKey", err)
		}
		if c, kid, err := decodeCategoryKey(k); err == nil {
			if len(kid) != 16 || !bytes.Equal(categoryKey(c, uuid.UUID(kid)), k) {
				t.Fatalf("by-category key %x decoded to %q %x", k, c, kid)
			}
		} else {
			wantCorrupt(t, "decodeCategoryKey", err)
		}
	})
}

// FuzzDecodeSmallValues: counts, per-source and per-category counts, the
// outbox, seeds and subscriptions: the entries checkStartup reads at every
// Open.
func FuzzDecodeSmallValues(f *testing.F) {
	rng := rand.New(rand.NewPCG(2, 2))
	it := fuzzItem(f, rng, uuid.New(), 9)
	enc, err := it.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	eight := binary.BigEndian.AppendUint64(nil, 77)
	f.Add(binary.BigEndian.AppendUint64(nil, 3), enc)
	f.Add(it.Source[:], eight)
	f.Add([]byte("sales/emea"), eight)
	f.Add([]byte("Sales"), eight)
	f.Add(binary.BigEndian.AppendUint32(nil, 0), []byte("10.0.0.1:7000"))
	f.Add([]byte("company"), []byte{})
	f.Add([]byte{}, eight[:7])
	f.Fuzz(func(t *testing.T, k, v []byte) {
		if n, err := decodeCount(v); err == nil {
			if !bytes.Equal(binary.BigEndian.AppendUint64(nil, n), v) {
				t.Fatalf("count %x decoded to %d", v, n)
			}
		}
		if src, n, err := decodeSourceCount(k, v); err == nil {
			if !bytes.Equal(src[:], k) || !bytes.Equal(binary.BigEndian.AppendUint64(nil, n), v) {
				t.Fatalf("source count %x → %x decoded to %s %d", k, v, src, n)
			}
		} else {
			wantCorrupt(t, "decodeSourceCount", err)
		}
		if c, n, err := decodeCategoryCount("counter", k, v); err == nil {
			if c != string(k) || !bytes.Equal(binary.BigEndian.AppendUint64(nil, n), v) {
				t.Fatalf("counter %x → %x decoded to %q %d", k, v, c, n)
			}
		} else {
			wantCorrupt(t, "decodeCategoryCount", err)
		}
		if e, err := decodeOutboxEntry(k, v); err == nil {
			again, err := e.Item.MarshalBinary()
			if err != nil || !bytes.Equal(again, v) || !bytes.Equal(binary.BigEndian.AppendUint64(nil, e.Seq), k) {
				t.Fatalf("outbox entry %x round trip: %v", k, err)
			}
		} else {
			wantCorrupt(t, "decodeOutboxEntry", err)
		}
		if a, err := decodeSeed(k, v); err == nil {
			if a != string(v) || a == "" {
				t.Fatalf("seed %x → %x decoded to %q", k, v, a)
			}
		} else {
			wantCorrupt(t, "decodeSeed", err)
		}
		if c, err := decodeSubscription(k, v); err == nil {
			if c != string(k) {
				t.Fatalf("subscription %x decoded to %q", k, c)
			}
		} else {
			wantCorrupt(t, "decodeSubscription", err)
		}
	})
}

// FuzzDecodeAck: the acks bucket's entries.
func FuzzDecodeAck(f *testing.F) {
	id := uuid.MustParse("01972a83-a118-7000-852f-22f0aba7e43c")
	f.Add(id[:], encodeAck(time.Unix(1750000000, 5)))
	f.Add(id[:8], encodeAck(time.Unix(1750000000, 5)))
	f.Add(id[:], []byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, id, v []byte) {
		at, err := decodeAck(id, v)
		wantCorrupt(t, "decodeAck", err)
		if err != nil {
			return
		}
		if again := encodeAck(at); !bytes.Equal(again, v) {
			t.Fatalf("round trip: %x, %x", v, again)
		}
	})
}
