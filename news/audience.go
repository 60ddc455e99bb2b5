package news

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"newsdesk/netrange"
)

// An audience limits an item to the servants whose advertised address
// lies in one of its network ranges (IPv4 or IPv6 CIDR prefixes). It is
// part of the signed item, so nobody on the way can widen or narrow it.
//
// An audience is canonical when every prefix is masked (10.1.4.0/24, not
// 10.1.4.7/24), IPv4 is written as IPv4 (not IPv4-mapped IPv6), no prefix
// lies inside another, and the prefixes are sorted (IPv4 first, then by
// address). Equal sets of addresses then have one encoding, which the
// signature and the overlay's routing both rely on. The canonical form
// and the encoding are package netrange's, shared with the multicast
// header (newsnet's Multicast.Audience), which must carry the same bytes.

// MaxAudienceRanges bounds the ranges of one audience: enough for a list
// of offices, small enough that the overlay checks them on every hop.
const MaxAudienceRanges = netrange.MaxRanges

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
			return nil, &FieldError{Field: FieldAudience, Rule: RuleInvalidRange, Err: &RangeError{Range: r}}
		}
		ps = append(ps, p)
	}
	ps = CanonicalAudience(ps)
	if fe := checkAudience(ps); fe != nil {
		return nil, fe
	}
	return ps, nil
}

// RangeError: a text ParseAudience cannot read as a network range.
type RangeError struct{ Range string }

func (e *RangeError) Error() string {
	return fmt.Sprintf("%q is not a network range in CIDR notation (like 10.1.4.0/24)", e.Range)
}

// AudienceSizeError: an audience of N network ranges, more than
// MaxAudienceRanges.
type AudienceSizeError struct{ N int }

func (e *AudienceSizeError) Error() string {
	return fmt.Sprintf("%d network ranges, at most %d", e.N, MaxAudienceRanges)
}

// CanonicalAudience returns ps in canonical form (see above): masked,
// unmapped, without zones, without prefixes inside others, sorted. A nil
// or empty ps stays nil.
func CanonicalAudience(ps []netip.Prefix) []netip.Prefix { return netrange.Canonical(ps) }

// checkAudience reports how ps breaks the audience rules: too many ranges
// or not canonical. An empty audience (everyone) passes.
func checkAudience(ps []netip.Prefix) *FieldError {
	err := netrange.Check(ps)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, netrange.ErrTooMany):
		err = &AudienceSizeError{N: len(ps)}
	default:
		err = errors.New("network ranges not canonical (masked, sorted, none inside another)")
	}
	return &FieldError{Field: FieldAudience, Rule: RuleInvalidRange, Err: err}
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

// audience decodes an item's audience (format 2, flag bit 5) in the
// encoding of package netrange, which the multicast header shares: the
// flag says there is one, so a count of 0 is refused as well.
func (d *decoder) audience() []netip.Prefix {
	if d.err != nil {
		return nil
	}
	ps, rest, err := netrange.Decode(d.b)
	switch {
	case err != nil:
		d.fail("audience: %w", err)
		return nil
	case len(ps) == 0:
		d.fail("audience: 0 ranges, want 1 to %d", MaxAudienceRanges)
		return nil
	}
	d.b = rest
	return ps
}

// audienceOrNone decodes an audience that may be empty (a newer format's
// envelope: a count of 0 is an item for everyone).
func (d *decoder) audienceOrNone() []netip.Prefix {
	if d.err != nil {
		return nil
	}
	if len(d.b) > 0 && d.b[0] == 0 {
		d.b = d.b[1:]
		return nil
	}
	return d.audience()
}
