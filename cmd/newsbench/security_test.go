package main

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

func testSecurity(t *testing.T) *security {
	t.Helper()
	sec, err := newSecurity(2, func(_ int, src uuid.UUID) string { return src.String() })
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// A benchmark whose verifier passed everything would report a cost without
// a check behind it: forgeries must be refused for the app's reasons.
func TestVerifyRefusesForgeries(t *testing.T) {
	sec := testSecurity(t)
	now := time.Now()
	good, err := sec.item(0, "it", 1, now)
	if err != nil {
		t.Fatal(err)
	}

	tampered := *good
	it := new(news.Item)
	if err := it.UnmarshalBinary(good.Payload); err != nil {
		t.Fatal(err)
	}
	it.Body = "changed after signing"
	if tampered.Payload, err = it.MarshalBinary(); err != nil {
		t.Fatal(err)
	}

	renumbered := *good
	renumbered.Count = 2

	stranger, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	it = new(news.Item)
	if err := it.UnmarshalBinary(good.Payload); err != nil {
		t.Fatal(err)
	}
	if err := trust.SignItem(stranger, it); err != nil {
		t.Fatal(err)
	}
	untrusted := *good
	if untrusted.Payload, err = it.MarshalBinary(); err != nil {
		t.Fatal(err)
	}

	bare := &newsnet.Multicast{ID: good.ID, Category: good.Category, Source: good.Source, Count: good.Count}

	sec.startBatch(verifiedItems)
	for _, tc := range []struct {
		name string
		m    *newsnet.Multicast
		want trust.Rejection
	}{
		{"signed", good, ""},
		{"tampered body", &tampered, trust.BadSignature},
		{"count changed", &renumbered, trust.Mismatch},
		{"another key under the publisher's source", &untrusted, trust.ForeignSource},
		{"no payload", bare, trust.Invalid},
	} {
		if got := sec.verify(tc.m); got != string(tc.want) {
			t.Errorf("%s: verify = %q, want %q", tc.name, got, tc.want)
		}
	}
	if v, r := sec.verifications.Load(), sec.rejected.Load(); v != 5 || r != 4 {
		t.Errorf("counted %d verifications, %d rejected; want 5, 4", v, r)
	}

	sec.startBatch(signedItems)
	if got := sec.verify(&tampered); got != "" || sec.verifications.Load() != 0 {
		t.Errorf("signed-only batch: verify = %q after %d verifications, want a pass without a check", got, sec.verifications.Load())
	}
}

// Every delivery of the verified batch must have passed a check at the
// servant that delivered it (and relays check too), and nothing is lost.
func TestSimSecurityVerifiesEveryDelivery(t *testing.T) {
	rs, err := runSimSecurity(40, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(itemModes) {
		t.Fatalf("%d rows, want %d", len(rs), len(itemModes))
	}
	for _, r := range rs {
		if r.Delivered != r.Expected || r.Delivered == 0 {
			t.Errorf("%s: delivered %d of %d", r.Mode, r.Delivered, r.Expected)
		}
		if r.Rejected != 0 {
			t.Errorf("%s: %d rejected", r.Mode, r.Rejected)
		}
		switch {
		case r.Mode == verifiedItems && r.Verifications < uint64(r.Delivered):
			t.Errorf("%s: %d verifications for %d deliveries", r.Mode, r.Verifications, r.Delivered)
		case r.Mode != verifiedItems && r.Verifications != 0:
			t.Errorf("%s: %d verifications, want none", r.Mode, r.Verifications)
		}
	}
}
