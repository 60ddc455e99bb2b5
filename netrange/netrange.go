// Package netrange is the encoding of a list of network ranges (IPv4 and
// IPv6 CIDR prefixes): its canonical form, the check for it, the encoder
// and the decoder.
//
// Two packages carry such a list, and they must agree byte for byte:
//
//   - news encodes an item's audience (Item.Audience) inside the item, so
//     the list is covered by the publisher's signature;
//   - newsnet carries the same list in the multicast header
//     (Multicast.Audience), so every servant on the way routes the item by
//     it without decoding the payload.
//
// A receiver refuses a header whose audience differs from the signed
// item's, so one list must have one encoding everywhere: that is why the
// codec lives here once, and why it is canonical. news and newsnet do not
// depend on each other; both depend on this package, which depends on
// neither.
//
// The encoding is a uvarint count (minimal), then per range a family byte
// (4 or 6), the prefix length, and the address bytes the prefix covers,
// ⌈bits/8⌉ of them, with the bits past the prefix zero:
//
//	02              two ranges
//	04 16 0a 01 04  10.1.4.0/22
//	06 30 20 01 0d b8 00 04
//	                2001:db8:4::/48
//
// A list is canonical when every range is valid and masked (10.1.4.0/24,
// not 10.1.4.7/24), IPv4 is IPv4 (not IPv4-mapped IPv6), no address has a
// zone, the ranges are sorted (IPv4 first, then by address) and none lies
// inside another. Equal sets of addresses then have one list. Decode
// accepts exactly the canonical lists of at most MaxRanges, in the one
// encoding Append writes, so Append(Decode(b)) == b.
package netrange

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// MaxRanges bounds the ranges of one list: enough for a list of offices,
// small enough that the overlay checks them on every hop.
const MaxRanges = 32

// MaxEncodedLen is the longest encoding of a list: a one-byte count (32
// fits in one) and MaxRanges IPv6 ranges of full length.
const MaxEncodedLen = 1 + MaxRanges*(2+16)

// Family bytes of the encoding.
const (
	family4 = 4
	family6 = 6
)

// The errors of Check and Decode wrap one of these; the message adds the
// detail.
var (
	// ErrTruncated: the input ends inside the list.
	ErrTruncated = errors.New("truncated")
	// ErrBadCount: the count is not a minimal uvarint of 64 bits.
	ErrBadCount = errors.New("count not a minimal uvarint")
	// ErrTooMany: more than MaxRanges ranges.
	ErrTooMany = errors.New("too many ranges")
	// ErrBadRange: a range that is invalid, has bits set past its prefix,
	// is IPv4-mapped or has a zone; in an encoding also an unknown family
	// byte or a prefix longer than the family's addresses.
	ErrBadRange = errors.New("bad range")
	// ErrNotCanonical: ranges out of order, repeated, or inside the one
	// before.
	ErrNotCanonical = errors.New("ranges not canonical")
)

// Canonical returns ps in canonical form: masked, unmapped, without zones,
// without ranges inside others, sorted; invalid prefixes are dropped. A nil
// or empty ps gives nil. ps is not changed.
func Canonical(ps []netip.Prefix) []netip.Prefix {
	if len(ps) == 0 {
		return nil
	}
	out := make([]netip.Prefix, 0, len(ps))
	for _, p := range ps {
		if !p.IsValid() {
			continue
		}
		addr, bits := p.Addr().WithZone(""), p.Bits()
		if addr.Is4In6() && bits >= 96 {
			addr, bits = addr.Unmap(), bits-96
		}
		out = append(out, netip.PrefixFrom(addr, bits).Masked())
	}
	slices.SortFunc(out, compare)
	// After sorting by address, a range holding another comes first (its
	// masked address is the lower or equal one), so one pass drops those
	// inside the last range kept.
	kept := out[:0]
	for _, p := range out {
		if n := len(kept); n > 0 && kept[n-1].Bits() <= p.Bits() && kept[n-1].Contains(p.Addr()) {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

func compare(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

// Check reports why ps is not a list Append may write: more than MaxRanges
// ranges, or not canonical. An empty list passes. Check(ps) == nil exactly
// when ps has at most MaxRanges ranges and equals Canonical(ps), without
// computing it.
func Check(ps []netip.Prefix) error {
	if len(ps) > MaxRanges {
		return fmt.Errorf("%w: %d, at most %d", ErrTooMany, len(ps), MaxRanges)
	}
	for i, p := range ps {
		if err := checkRange(p); err != nil {
			return err
		}
		if i > 0 {
			if err := checkOrder(ps[i-1], p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRange refuses a range that canonical form would change on its own.
// A masked range shorter than /96 is never IPv4-mapped (its bit 95 is
// zero), so refusing every mapped address refuses exactly those that
// Canonical unmaps.
func checkRange(p netip.Prefix) error {
	switch {
	case !p.IsValid():
		return fmt.Errorf("%w: invalid prefix %s", ErrBadRange, p)
	case p.Masked() != p:
		return fmt.Errorf("%w: %s has bits set past its prefix", ErrBadRange, p)
	case p.Addr().Is4In6():
		return fmt.Errorf("%w: %s is IPv4-mapped", ErrBadRange, p)
	case p.Addr().Zone() != "":
		return fmt.Errorf("%w: %s has a zone", ErrBadRange, p)
	}
	return nil
}

// checkOrder refuses p after prev unless p comes strictly later and lies
// outside prev. Checking neighbours is enough: a later masked range never
// holds an earlier one, and a range that lies, by address, between a range
// and one inside it is inside it as well, so of ranges sorted by address
// the first one inside another is inside the one just before it.
func checkOrder(prev, p netip.Prefix) error {
	switch {
	case prev.Addr().Compare(p.Addr()) >= 0:
		return fmt.Errorf("%w: %s after %s", ErrNotCanonical, p, prev)
	case prev.Contains(p.Addr()):
		return fmt.Errorf("%w: %s inside %s", ErrNotCanonical, p, prev)
	}
	return nil
}

// Append appends the encoding of ps to b. ps must pass Check; Append does
// not check it (callers do, to refuse with their own errors), and the
// bytes of a list that does not pass are not decodable.
func Append(b []byte, ps []netip.Prefix) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		family, raw := byte(family6), p.Addr().AsSlice()
		if p.Addr().Is4() {
			family = family4
		}
		b = append(b, family, byte(p.Bits()))
		b = append(b, raw[:addrBytes(p.Bits())]...)
	}
	return b
}

// addrBytes is the number of address bytes a prefix of bits covers.
func addrBytes(bits int) int { return (bits + 7) / 8 }

// Decode decodes one list from the start of b and returns it with the
// bytes after it. It accepts only what Append writes for a list that
// passes Check; anything else is an error wrapping ErrTruncated,
// ErrBadCount, ErrTooMany, ErrBadRange or ErrNotCanonical, with ps and
// rest nil. A count of zero gives a nil list (callers that need ranges
// refuse it). Decode never allocates for more than MaxRanges ranges, nor
// for more ranges than the bytes left can hold.
func Decode(b []byte) (ps []netip.Prefix, rest []byte, err error) {
	n, l := binary.Uvarint(b)
	switch {
	case l == 0:
		return nil, nil, fmt.Errorf("%w: count", ErrTruncated)
	case l < 0:
		return nil, nil, fmt.Errorf("%w: overflows 64 bits", ErrBadCount)
	case l > 1 && b[l-1] == 0:
		return nil, nil, fmt.Errorf("%w: %d in %d bytes", ErrBadCount, n, l)
	}
	b = b[l:]
	if n > MaxRanges {
		return nil, nil, fmt.Errorf("%w: %d, at most %d", ErrTooMany, n, MaxRanges)
	}
	if n == 0 {
		return nil, b, nil
	}
	if 2*n > uint64(len(b)) { // a range takes at least its two header bytes
		return nil, nil, fmt.Errorf("%w: %d ranges in %d bytes", ErrTruncated, n, len(b))
	}
	ps = make([]netip.Prefix, 0, n)
	for i := range int(n) {
		if len(b) < 2 {
			return nil, nil, fmt.Errorf("%w: range %d of %d", ErrTruncated, i+1, n)
		}
		size := 4
		switch b[0] {
		case family4:
		case family6:
			size = 16
		default:
			return nil, nil, fmt.Errorf("%w: unknown family %d", ErrBadRange, b[0])
		}
		bits := int(b[1])
		if bits > size*8 {
			return nil, nil, fmt.Errorf("%w: /%d for a %d-byte address", ErrBadRange, bits, size)
		}
		b = b[2:]
		k := addrBytes(bits)
		if len(b) < k {
			return nil, nil, fmt.Errorf("%w: range %d of %d", ErrTruncated, i+1, n)
		}
		var raw [16]byte
		copy(raw[:], b[:k])
		b = b[k:]
		addr, _ := netip.AddrFromSlice(raw[:size])
		p := netip.PrefixFrom(addr, bits)
		if err := checkRange(p); err != nil {
			return nil, nil, err
		}
		if i > 0 {
			if err := checkOrder(ps[i-1], p); err != nil {
				return nil, nil, err
			}
		}
		ps = append(ps, p)
	}
	return ps, b, nil
}
