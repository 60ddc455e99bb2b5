package news

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// goldenAudienceV2 is goldenItem with the audience 10.1.4.0/22 and
// 2001:db8:4::/48: format 2, flag bit 5, and the ranges after the fixed
// fields, each as family, prefix length and the address bytes it covers.
const goldenAudienceV2 = "02" + // format 2
	"0197a3c27a1e7b2c9d3eaabbccddeeff" + // id
	"0196a3c27a1e7b2c9d3e112233445566" + // source
	"ac02" + // count 300
	"1844e13b4c25bd15" + // created
	"23" + // flags: urgent, supersedes, audience
	"0197a3c2000070008000000000000001" + // supersedes
	"02" + // two ranges
	"0416" + "0a0104" + // 4, /22, 10.1.4
	"0630" + "20010db80004" + // 6, /48, 2001:db8:4
	"026974" + "0b452d6d61696c20646f776e" + "024954" + // category, title, author
	"1743616c6c20746865202a2a68656c70206465736b2a2a2e" + // body
	"03010203" // signature

func TestAudienceGolden(t *testing.T) {
	it := goldenItem(t)
	var err error
	it.Audience, err = ParseAudience([]string{"2001:db8:4::/48", "10.1.4.0/22"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != goldenAudienceV2 {
		t.Fatalf("audience encoding:\n got %s\nwant %s", got, goldenAudienceV2)
	}
	var back Item
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !equalItems(&back, it) {
		t.Errorf("round trip: %+v", back.Audience)
	}
	// Without the audience the item is format 1 again, byte for byte.
	it.Audience = nil
	if b, _ := it.MarshalBinary(); hex.EncodeToString(b) != goldenV1 {
		t.Errorf("an item without audience is no longer format 1: %x", b)
	}
}

// ParseAudience masks host bits, unmaps IPv4-mapped ranges, drops ranges
// inside others and duplicates, and sorts IPv4 before IPv6.
func TestParseAudienceCanonical(t *testing.T) {
	got, err := ParseAudience([]string{
		"2001:db8::/32", "10.1.4.77/24", " 10.1.4.0/24", "10.1.5.0/24",
		"10.0.0.0/8", "::ffff:192.168.1.0/120", "2001:db8:4::/48", "172.16.0.1/32",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "172.16.0.1/32", "192.168.1.0/24", "2001:db8::/32"}
	if !slices.Equal(FormatAudience(got), want) {
		t.Errorf("canonical audience %v, want %v", FormatAudience(got), want)
	}
}

func TestParseAudienceRefusals(t *testing.T) {
	if _, err := ParseAudience(nil); !errors.Is(err, ErrEmptyAudience) {
		t.Errorf("empty list: %v", err)
	}
	for _, bad := range []string{"", "10.1.4.0", "10.1.4.0/33", "berlin", "10.1.4.0/24/1", "fe80::1%eth0/64"} {
		_, err := ParseAudience([]string{"10.0.0.0/8", bad})
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != FieldAudience || !strings.Contains(err.Error(), "CIDR") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	many := make([]string, MaxAudienceRanges+1)
	for i := range many {
		many[i] = netip.AddrFrom4([4]byte{10, byte(i), 0, 0}).String() + "/16"
	}
	if _, err := ParseAudience(many); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d ranges: %v", len(many), err)
	}
}

// Validate refuses an audience that is not canonical, so such an item is
// never encoded or signed.
func TestValidateAudience(t *testing.T) {
	it := validItem(t)
	it.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.5.0/24"), netip.MustParsePrefix("10.1.4.0/24")}
	var fe *FieldError
	if err := it.Validate(); !errors.As(err, &fe) || fe.Field != FieldAudience {
		t.Errorf("unsorted audience: %v", err)
	}
	it.Audience = []netip.Prefix{netip.MustParsePrefix("10.1.4.9/24")}
	if _, err := it.MarshalBinary(); err == nil {
		t.Error("unmasked audience encoded")
	}
}

// The decoder accepts only what the encoder writes.
func TestAudienceDecodeRefusals(t *testing.T) {
	good, _ := hex.DecodeString(goldenAudienceV2)
	at := strings.Index(goldenAudienceV2, "020416") / 2 // the audience's count
	cases := map[string]func(b []byte) []byte{
		"zero ranges":   func(b []byte) []byte { b[at] = 0; return b },
		"too many":      func(b []byte) []byte { b[at] = MaxAudienceRanges + 1; return b },
		"family 5":      func(b []byte) []byte { b[at+1] = 5; return b },
		"prefix /33":    func(b []byte) []byte { b[at+2] = 33; return b },
		"host bits":     func(b []byte) []byte { b[at+5] |= 1; return b },
		"unsorted":      func(b []byte) []byte { return swapRanges(b, at) },
		"format 1 flag": func(b []byte) []byte { b[0] = formatV1; return b },
	}
	for name, damage := range cases {
		var it Item
		if err := it.UnmarshalBinary(damage(bytes.Clone(good))); !errors.Is(err, ErrMalformed) && err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// swapRanges puts the golden item's IPv6 range before its IPv4 one.
func swapRanges(b []byte, at int) []byte {
	v4 := bytes.Clone(b[at+1 : at+6])
	v6 := bytes.Clone(b[at+6 : at+14])
	out := append(bytes.Clone(b[:at+1]), v6...)
	out = append(out, v4...)
	return append(out, b[at+14:]...)
}

func TestInAudience(t *testing.T) {
	it := validItem(t)
	if !it.InAudience(netip.MustParseAddr("192.0.2.1")) {
		t.Error("an item without audience is not for everyone")
	}
	it.Audience, _ = ParseAudience([]string{"10.1.4.0/22", "2001:db8:4::/48"})
	for addr, in := range map[string]bool{
		"10.1.4.1": true, "10.1.7.255": true, "10.1.8.0": false, "::ffff:10.1.5.5": true,
		"2001:db8:4:ffff::1": true, "2001:db8:5::1": false, "fe80::1%eth0": false,
	} {
		if got := it.InAudience(netip.MustParseAddr(addr)); got != in {
			t.Errorf("%s in audience: %v, want %v", addr, got, in)
		}
	}
}
