package app

import (
	"net/netip"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/trust"
)

// The audience rides in the multicast header so relays route on it
// without decoding the item; Verify refuses a header whose audience is
// not the signed item's, so no relay can widen, narrow, add or drop it.
func TestVerifyRefusesAnotherAudienceInTheHeader(t *testing.T) {
	a := openApp(t, Options{})
	it, err := news.NewItem("it", "For Berlin", "", "x", a.Source(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 3
	it.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")}
	trust.SignItem(a.Identity(), it)
	plain, err := news.NewItem("it", "For everyone", "", "x", a.Source(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	plain.SourceCount = 4
	trust.SignItem(a.Identity(), plain)

	for _, tc := range []struct {
		name     string
		item     *news.Item
		audience []string
		want     string
	}{
		{"as signed", it, []string{"10.1.4.0/22"}, ""},
		{"everyone, as signed", plain, nil, ""},
		{"widened", it, []string{"10.0.0.0/8"}, string(trust.Mismatch)},
		{"narrowed", it, []string{"10.1.4.0/24"}, string(trust.Mismatch)},
		{"another range added", it, []string{"10.1.4.0/22", "10.2.0.0/16"}, string(trust.Mismatch)},
		{"dropped", it, nil, string(trust.Mismatch)},
		{"added to an item for everyone", plain, []string{"10.1.4.0/22"}, string(trust.Mismatch)},
	} {
		m, err := multicastOf(tc.item)
		if err != nil {
			t.Fatal(err)
		}
		m.Audience = nil
		for _, r := range tc.audience {
			m.Audience = append(m.Audience, netip.MustParsePrefix(r))
		}
		if got := a.net.Verify(m); got != tc.want {
			t.Errorf("%s: Verify = %q, want %q", tc.name, got, tc.want)
		}
	}
}
