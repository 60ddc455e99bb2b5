package trust

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestRetractionRules(t *testing.T) {
	sn := signedExample(t)
	item := signedItem(t, hrID, "hr")
	retract := func(by *Identity, id uuid.UUID) *Retraction {
		r, err := by.SignRetraction(id, "posted by mistake", testNow)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tampered := retract(hrID, item.ID)
	tampered.Reason = "something else"
	otherItem := retract(hrID, uuid.MustParse("0195943a-0000-7000-8000-000000000001"))
	unsigned := retract(hrID, item.ID)
	unsigned.Signature = nil
	for _, tc := range []struct {
		name     string
		r        *Retraction
		original bool
		want     Rejection
	}{
		{"by the publisher", retract(hrID, item.ID), true, ""},
		{"by an admin", retract(adminID, item.ID), true, ""},
		{"by an admin, item not here", retract(adminID, item.ID), false, ""},
		{"by the publisher, item not here", retract(hrID, item.ID), false, UnknownItem},
		{"by another publisher", retract(newsroomID, item.ID), true, NotAuthorized},
		{"by an outsider", retract(outsiderID, item.ID), true, NotAuthorized},
		{"by a revoked key", retract(revokedID, item.ID), true, RevokedKey},
		{"tampered", tampered, true, BadSignature},
		{"unsigned", unsigned, true, Unsigned},
		{"checked against another item", otherItem, true, Mismatch},
		{"nil", nil, true, Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := item
			if !tc.original {
				orig = nil
			}
			wantReason(t, sn.VerifyRetraction(tc.r, orig), tc.want)
		})
	}
}

func TestRetractionEncodingRoundTrip(t *testing.T) {
	r, err := adminID.SignRetraction(uuid.MustParse("0195943b-2c4d-7e5f-8a1b-2c3d4e5f6a7b"), "wrong figures — see the correction", testNow)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Retraction
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, r) {
		t.Fatalf("round trip:\n%+v\n%+v", got, *r)
	}
	if err := signedExample(t).VerifyRetraction(&got, nil); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"format":    append([]byte{2}, b[1:]...),
		"truncated": b[:len(b)-1],
		"trailing":  append(bytes.Clone(b), 0),
		"too long":  bytes.Repeat([]byte{1}, MaxRetractionBytes+1),
	} {
		var x Retraction
		if err := x.UnmarshalBinary(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := adminID.SignRetraction(uuid.Nil, "", testNow); err == nil {
		t.Error("retraction of the nil ID signed")
	}
	if _, err := adminID.SignRetraction(r.ItemID, strings.Repeat("x", MaxRetractionReasonRunes+1), testNow); err == nil {
		t.Error("over-long reason signed")
	}
	if _, err := adminID.SignRetraction(r.ItemID, "a\nb", time.Time{}); err == nil {
		t.Error("retraction without time or with a newline signed")
	}
}

func FuzzRetractionUnmarshal(f *testing.F) {
	r, _ := adminID.SignRetraction(uuid.MustParse("0195943b-2c4d-7e5f-8a1b-2c3d4e5f6a7b"), "reason", testNow)
	b, _ := r.MarshalBinary()
	f.Add(b)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Retraction
		if r.UnmarshalBinary(data) != nil {
			return
		}
		out, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("not canonical:\n in %x\nout %x", data, out)
		}
	})
}
