package news

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// An audience limits an item to the servants whose advertised address
// lies in one of its network ranges (IPv4 or IPv6 CIDR prefixes). It is
// part of the signed item, so nobody on the way can widen or narrow it.
//
// An audience is canonical when every prefix is masked (10.1.4.0/24, not
// 10.1.4.7/24), IPv4 is written as IPv4 (not IPv4-mapped IPv6), no prefix
// lies inside another, and the prefixes are sorted (IPv4 first, then by
// address). Equal sets of addresses then have one encoding, which the
// signature and the overlay's routing both rely on.

// MaxAudienceRanges bounds the ranges of one audience: enough for a list
// of offices, small enough that the overlay checks them on every hop.
const MaxAudienceRanges = 32

// ErrEmptyAudience is the error of an audience given as an empty list: it
// would reach nobody, which is never what a publisher means.
var ErrEmptyAudience = errors.New("audience: no network ranges (leave the audience out to reach everyone)")

// ParseAudience parses network ranges in CIDR notation ("10.1.4.0/24",
// "2001:db8:4::/48") into a canonical audience. A malformed range, an
// empty list or more than MaxAudienceRanges ranges is an error naming the
// problem; a range with host bits set is masked.
func ParseAudience(ranges []string) ([]netip.Prefix, error) {
	if len(ranges) == 0 {
		return nil, ErrEmptyAudience
	}
	ps := make([]netip.Prefix, 0, len(ranges))
	for _, r := range ranges {
		p, err := netip.ParsePrefix(strings.TrimSpace(r))
		if err != nil {
			return nil, &FieldError{Field: FieldAudience, Rule: RuleInvalidRange,
				Err: fmt.Errorf("%q is not a network range in CIDR notation (like 10.1.4.0/24)", r)}
		}
		ps = append(ps, p)
	}
	ps = CanonicalAudience(ps)
	if fe := checkAudience(ps); fe != nil {
		return nil, fe
	}
	return ps, nil
}

// CanonicalAudience returns ps in canonical form (see above): masked,
// unmapped, without zones, without prefixes inside others, sorted. A nil
// or empty ps stays nil.
func CanonicalAudience(ps []netip.Prefix) []netip.Prefix {
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
	slices.SortFunc(out, comparePrefixes)
	// After sorting by address, a prefix holding another comes first (its
	// masked address is the lower or equal one), so one pass drops those
	// inside the last prefix kept.
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

func comparePrefixes(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

// checkAudience reports how ps breaks the audience rules: too many ranges
// or not canonical. An empty audience (everyone) passes.
func checkAudience(ps []netip.Prefix) *FieldError {
	if len(ps) == 0 {
		return nil
	}
	if len(ps) > MaxAudienceRanges {
		return &FieldError{Field: FieldAudience, Rule: RuleInvalidRange,
			Err: fmt.Errorf("%d network ranges, at most %d", len(ps), MaxAudienceRanges)}
	}
	if !slices.Equal(ps, CanonicalAudience(ps)) {
		return &FieldError{Field: FieldAudience, Rule: RuleInvalidRange,
			Err: errors.New("network ranges not canonical (masked, sorted, none inside another)")}
	}
	return nil
}

// InAudience reports whether addr lies in the item's audience: always for
// an item without one. The check is exact, on the servant's advertised
// address; an IPv4-mapped address counts as IPv4.
func (it *Item) InAudience(addr netip.Addr) bool {
	return AudienceContains(it.Audience, addr)
}

// AudienceContains reports whether addr lies in one of the ranges of an
// audience, or the audience is empty (everyone).
func AudienceContains(ps []netip.Prefix, addr netip.Addr) bool {
	if len(ps) == 0 {
		return true
	}
	addr = addr.Unmap().WithZone("")
	for _, p := range ps {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// FormatAudience returns the ranges in CIDR notation, for the control API
// and the UI.
func FormatAudience(ps []netip.Prefix) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// appendAudience encodes an audience for format 2 (flag bit 5): a uvarint
// count, then per range a family byte (4 or 6), the prefix length, and the
// address bytes the prefix covers (⌈bits/8⌉; the masked bits are zero).
func appendAudience(b []byte, ps []netip.Prefix) []byte {
	b = appendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		family, raw := byte(6), p.Addr().AsSlice()
		if p.Addr().Is4() {
			family = 4
		}
		b = append(b, family, byte(p.Bits()))
		b = append(b, raw[:(p.Bits()+7)/8]...)
	}
	return b
}

// audience decodes appendAudience's encoding, refusing anything the
// encoder would not write: a count of 0 or above the limit, an unknown
// family, a prefix too long for it, set bits past the prefix, and a list
// that is not canonical.
func (d *decoder) audience() []netip.Prefix {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n == 0 || n > MaxAudienceRanges {
		d.fail("audience: %d ranges, want 1 to %d", n, MaxAudienceRanges)
		return nil
	}
	ps := make([]netip.Prefix, 0, n)
	for range n {
		hdr := d.take(2, "audience range")
		if hdr == nil {
			return nil
		}
		size := 4
		switch hdr[0] {
		case 4:
		case 6:
			size = 16
		default:
			d.fail("audience: unknown address family %d", hdr[0])
			return nil
		}
		bits := int(hdr[1])
		if bits > size*8 {
			d.fail("audience: prefix length %d for a %d-byte address", bits, size)
			return nil
		}
		var raw [16]byte
		copy(raw[:], d.take((bits+7)/8, "audience range"))
		if d.err != nil {
			return nil
		}
		addr, _ := netip.AddrFromSlice(raw[:size])
		p := netip.PrefixFrom(addr, bits)
		if p.Masked() != p {
			d.fail("audience: %s has bits set past its prefix", p)
			return nil
		}
		ps = append(ps, p)
	}
	if !slices.Equal(ps, CanonicalAudience(ps)) {
		d.fail("audience: ranges not canonical")
		return nil
	}
	return ps
}
