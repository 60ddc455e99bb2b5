package netrange

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func prefixes(t testing.TB, ss ...string) []netip.Prefix {
	t.Helper()
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden is the list of news's golden item and newsnet's golden multicast:
// the bytes both packages must write for it.
const golden = "02" + // two ranges
	"04 16 0a0104" + // 4, /22, 10.1.4
	"06 30 20010db80004" // 6, /48, 2001:db8:4

func TestGolden(t *testing.T) {
	ps := prefixes(t, "10.1.4.0/22", "2001:db8:4::/48")
	if err := Check(ps); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, golden)
	if got := Append(nil, ps); !bytes.Equal(got, want) {
		t.Fatalf("encoding\n got %x\nwant %x", got, want)
	}
	got, rest, err := Decode(want)
	if err != nil || !slices.Equal(got, ps) || len(rest) != 0 {
		t.Fatalf("Decode = %v, %x, %v", got, rest, err)
	}
}

// Every list that passes Check comes back from its encoding unchanged,
// and Decode leaves the bytes after it.
func TestRoundTrip(t *testing.T) {
	full := make([]netip.Prefix, MaxRanges)
	for i := range full {
		full[i] = netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i), 15: 1}), 128)
	}
	for _, ps := range [][]netip.Prefix{
		nil,
		prefixes(t, "0.0.0.0/0"),
		prefixes(t, "::/0"),
		prefixes(t, "0.0.0.0/0", "::/0"),
		prefixes(t, "10.0.0.0/8", "11.0.0.0/9", "192.168.1.1/32"),
		prefixes(t, "10.1.4.0/23", "10.1.6.0/24", "172.16.0.0/12", "2001:db8::/33", "2001:db8:8000::/35", "fe80::/10"),
		prefixes(t, "255.255.255.255/32", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128"),
		prefixes(t, "::fffe:0:0/95"), // ::ffff:0:0/95 masked: below /96 nothing is IPv4-mapped
		full,
	} {
		if err := Check(ps); err != nil {
			t.Fatalf("%v: %v", ps, err)
		}
		tail := []byte{0xaa, 0xbb}
		enc := Append([]byte{0x01}, ps)
		if enc[0] != 0x01 {
			t.Fatalf("%v: Append changed the bytes before it", ps)
		}
		got, rest, err := Decode(append(enc[1:], tail...))
		if err != nil {
			t.Fatalf("%v: %v", ps, err)
		}
		if !slices.Equal(got, ps) || !bytes.Equal(rest, tail) {
			t.Errorf("%v: decoded %v, rest %x", ps, got, rest)
		}
		if len(enc)-1 > MaxEncodedLen {
			t.Errorf("%v: %d bytes, MaxEncodedLen %d", ps, len(enc)-1, MaxEncodedLen)
		}
	}
	if n := len(Append(nil, full)); n != MaxEncodedLen {
		t.Errorf("the longest list takes %d bytes, MaxEncodedLen %d", n, MaxEncodedLen)
	}
}

// A count of zero is an empty list: nil, so a decoded message without
// ranges equals one built without them.
func TestDecodeEmpty(t *testing.T) {
	ps, rest, err := Decode([]byte{0, 7})
	if ps != nil || !bytes.Equal(rest, []byte{7}) || err != nil {
		t.Errorf("Decode(00 07) = %#v, %x, %v", ps, rest, err)
	}
	if got := Append(nil, nil); !bytes.Equal(got, []byte{0}) {
		t.Errorf("Append(nil) = %x", got)
	}
}

// Canonical masks host bits, unmaps IPv4-mapped ranges of /96 and longer,
// drops zones, invalid prefixes, duplicates and ranges inside others, and
// sorts IPv4 before IPv6; the input is not changed.
func TestCanonical(t *testing.T) {
	in := []netip.Prefix{
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("10.1.4.77/24"),
		netip.MustParsePrefix("10.1.4.0/24"), netip.MustParsePrefix("10.1.5.0/24"),
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::ffff:192.168.1.0/120"),
		netip.MustParsePrefix("2001:db8:4::/48"), netip.MustParsePrefix("172.16.0.1/32"),
		{}, netip.PrefixFrom(netip.MustParseAddr("fe80::1%eth0"), 64),
		netip.MustParsePrefix("172.16.0.1/32"),
	}
	orig := slices.Clone(in)
	got := Canonical(in)
	want := prefixes(t, "10.0.0.0/8", "172.16.0.1/32", "192.168.1.0/24", "2001:db8::/32", "fe80::/64")
	if !slices.Equal(got, want) {
		t.Errorf("Canonical = %v, want %v", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("Canonical changed its input: %v", in)
	}
	if err := Check(got); err != nil {
		t.Errorf("Check(Canonical) = %v", err)
	}
	for _, ps := range [][]netip.Prefix{nil, {}, {{}}} {
		if got := Canonical(ps); got != nil {
			t.Errorf("Canonical(%#v) = %#v, want nil", ps, got)
		}
	}
	if got := Canonical(prefixes(t, "::ffff:0:0/95")); !slices.Equal(got, prefixes(t, "::fffe:0:0/95")) {
		t.Errorf("a mapped-looking range shorter than /96 = %v, want it masked and kept IPv6", got)
	}
}

func TestCheckRefusals(t *testing.T) {
	tooMany := make([]netip.Prefix, MaxRanges+1)
	for i := range tooMany {
		tooMany[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), 0, 0}), 16)
	}
	for _, c := range []struct {
		name string
		ps   []netip.Prefix
		want error
	}{
		{"too many", tooMany, ErrTooMany},
		{"invalid", []netip.Prefix{{}}, ErrBadRange},
		{"prefix too long", []netip.Prefix{netip.PrefixFrom(netip.MustParseAddr("10.0.0.0"), 33)}, ErrBadRange},
		{"host bits", prefixes(t, "10.1.4.7/24"), ErrBadRange},
		{"IPv4-mapped", prefixes(t, "::ffff:10.1.4.0/120"), ErrBadRange},
		{"IPv4-mapped /96", prefixes(t, "::ffff:0.0.0.0/96"), ErrBadRange},
		{"unsorted", prefixes(t, "10.1.5.0/24", "10.1.4.0/24"), ErrNotCanonical},
		{"IPv6 first", prefixes(t, "2001:db8::/32", "10.0.0.0/8"), ErrNotCanonical},
		{"duplicate", prefixes(t, "10.1.4.0/24", "10.1.4.0/24"), ErrNotCanonical},
		{"same address, longer", prefixes(t, "10.0.0.0/8", "10.0.0.0/16"), ErrNotCanonical},
		{"same address, shorter", prefixes(t, "10.0.0.0/16", "10.0.0.0/8"), ErrNotCanonical},
		{"inside", prefixes(t, "10.0.0.0/8", "10.1.4.0/24"), ErrNotCanonical},
	} {
		if err := Check(c.ps); !errors.Is(err, c.want) {
			t.Errorf("%s: Check = %v, want %v", c.name, err, c.want)
		}
	}
	if err := Check(tooMany[:MaxRanges]); err != nil {
		t.Errorf("%d ranges: %v", MaxRanges, err)
	}
}

// Check passes exactly the short lists that Canonical leaves unchanged,
// checked against Canonical on random lists made to hit every rule:
// mapped, unmasked, repeated and nested ranges of both families.
func TestCheckIsCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	passed := 0
	for range 20000 {
		ps := randomList(rng)
		if rng.IntN(2) == 0 {
			ps = Canonical(ps)
		}
		want := len(ps) <= MaxRanges && slices.Equal(ps, Canonical(ps))
		err := Check(ps)
		if (err == nil) != want {
			t.Fatalf("Check(%v) = %v, canonical %v", ps, err, want)
		}
		if err == nil {
			passed++
			got, rest, derr := Decode(Append(nil, ps))
			if derr != nil || !slices.Equal(got, ps) || len(rest) != 0 {
				t.Fatalf("%v: decoded %v, rest %x, %v", ps, got, rest, derr)
			}
		}
	}
	if passed < 1000 {
		t.Errorf("only %d canonical lists: the generator misses the point", passed)
	}
}

// randomList returns up to 6 ranges, mostly inside 10.0.0.0/14 and
// 2001:db8::/46 so they nest and repeat, some IPv4-mapped.
func randomList(rng *rand.Rand) []netip.Prefix {
	ps := make([]netip.Prefix, rng.IntN(7))
	for i := range ps {
		var addr netip.Addr
		var bits int
		switch rng.IntN(3) {
		case 0:
			addr = netip.AddrFrom4([4]byte{10, byte(rng.IntN(4)), byte(rng.IntN(2) * 128), byte(rng.IntN(2))})
			bits = 6 + rng.IntN(27)
		case 1:
			addr = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, byte(rng.IntN(4)), 15: byte(rng.IntN(2))})
			bits = 30 + rng.IntN(99)
		default:
			addr = netip.AddrFrom16(netip.AddrFrom4([4]byte{10, byte(rng.IntN(4)), 0, byte(rng.IntN(2))}).As16())
			bits = 90 + rng.IntN(39)
		}
		p := netip.PrefixFrom(addr, bits)
		if rng.IntN(3) > 0 {
			p = p.Masked()
		}
		ps[i] = p
	}
	return ps
}

// The decoder accepts only what the encoder writes: every refusal, with
// the error it wraps.
func TestDecodeRefusals(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrTruncated},
		{"count cut", "80", ErrTruncated},
		{"count overflows", "ffffffffffffffffffff01", ErrBadCount},
		{"count not minimal", "8100 04 08 0a", ErrBadCount},
		{"zero count not minimal", "8000", ErrBadCount},
		{"too many", "21" + strings.Repeat("04 00", 33), ErrTooMany},
		{"huge count", "ffffffffffffffff7f", ErrTooMany},
		{"count past the bytes", "03 04 00 04 00", ErrTruncated},
		{"header cut", "02 04 00 04", ErrTruncated},
		{"address cut", "01 04 18 0a01", ErrTruncated},
		{"IPv6 address cut", "01 06 30 20010db8", ErrTruncated},
		{"second range cut", "02 04 08 0a 06 30 2001", ErrTruncated},
		{"family 0", "01 00 00", ErrBadRange},
		{"family 5", "01 05 00", ErrBadRange},
		{"family 16", "01 10 00", ErrBadRange},
		{"IPv4 /33", "01 04 21 0a010400 00", ErrBadRange},
		{"IPv6 /129", "01 06 81 " + strings.Repeat("00", 17), ErrBadRange},
		{"host bits", "01 04 16 0a0105", ErrBadRange},
		{"host bits in the last byte's tail", "01 04 09 0ac0", ErrBadRange},
		{"IPv4-mapped", "01 06 78 00000000000000000000ffff0a0104", ErrBadRange},
		{"IPv4-mapped /96", "01 06 60 00000000000000000000ffff", ErrBadRange},
		{"unsorted", "02 06 30 20010db80004 04 16 0a0104", ErrNotCanonical},
		{"IPv4 unsorted", "02 04 18 0a0105 04 18 0a0104", ErrNotCanonical},
		{"duplicate", "02 04 18 0a0104 04 18 0a0104", ErrNotCanonical},
		{"inside", "02 04 08 0a 04 18 0a0104", ErrNotCanonical},
		{"same address, longer", "02 04 08 0a 04 10 0a00", ErrNotCanonical},
		{"IPv6 inside", "02 06 20 20010db8 06 30 20010db80004", ErrNotCanonical},
	} {
		ps, rest, err := Decode(unhex(t, c.in))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Decode = %v, %v; want %v", c.name, ps, err, c.want)
		}
		if ps != nil || rest != nil {
			t.Errorf("%s: Decode returned %v, rest %x with its error", c.name, ps, rest)
		}
	}
}

// FuzzDecodeRanges: Decode never panics, and whatever it accepts is a list
// Check passes, canonical, that Append writes as exactly the bytes it read.
func FuzzDecodeRanges(f *testing.F) {
	f.Add(unhex(f, golden))
	f.Add(unhex(f, golden+"ff"))
	f.Add([]byte{0})
	f.Add([]byte{})
	f.Add(unhex(f, "01 06 00"))
	f.Add(unhex(f, "02 04 00 06 00"))
	f.Add(unhex(f, "01 06 80 ffffffffffffffffffffffffffffffff"))
	f.Add(unhex(f, "01 06 60 00000000000000000000ffff"))
	f.Add(unhex(f, "02 04 08 0a 04 18 0a0104"))
	f.Add(Append(nil, prefixes(f, "10.1.4.0/23", "10.1.6.0/24", "172.16.0.0/12", "2001:db8::/33", "fe80::/10")))
	f.Fuzz(func(t *testing.T, in []byte) {
		ps, rest, err := Decode(in)
		if err != nil {
			if ps != nil || rest != nil {
				t.Fatalf("Decode returned %v, rest %x with error %v", ps, rest, err)
			}
			return
		}
		if len(rest) > len(in) || !bytes.Equal(rest, in[len(in)-len(rest):]) {
			t.Fatalf("rest %x is not a tail of %x", rest, in)
		}
		if err := Check(ps); err != nil {
			t.Fatalf("decoded %v fails Check: %v", ps, err)
		}
		if c := Canonical(ps); !slices.Equal(c, ps) {
			t.Fatalf("decoded %v, canonical %v", ps, c)
		}
		read := in[:len(in)-len(rest)]
		if enc := Append(nil, ps); !bytes.Equal(enc, read) {
			t.Fatalf("non-canonical input accepted:\n  in %x\n enc %x", read, enc)
		}
	})
}
