package trust

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"newsdesk/news"
)

// Named ranges (issue 15): the admin names the network ranges of the
// company's places in the definition ("Berlin office" = 10.1.4.0/22), so
// a publisher picks an audience by name instead of typing CIDR. They are
// a convenience for composing and reading: an item's audience is still
// its own list of ranges, signed with it, and names never travel in
// items.
//
// The member is optional in the canonical encoding: a definition without
// named ranges has no "audiences" member, so every definition signed
// before the field existed keeps its bytes and its signature.

// Limits of the named ranges.
const (
	MaxNamedRanges    = 64
	MaxRangeNameRunes = 100
	MaxRangesPerName  = news.MaxAudienceRanges
	namedRangesField  = "audiences"
)

// NamedRange is a set of network ranges the admin gave a name.
type NamedRange struct {
	// Name is shown to publishers and readers: one line, at most
	// MaxRangeNameRunes, unique in the definition.
	Name string
	// Ranges are canonical as news.ParseAudience makes them (masked,
	// sorted, none inside another), 1 to MaxRangesPerName.
	Ranges []netip.Prefix
}

// NamedRangeByName returns the named range called name.
func (n *Network) NamedRangeByName(name string) (NamedRange, bool) {
	i, ok := slices.BinarySearchFunc(n.Audiences, name, func(r NamedRange, name string) int { return strings.Compare(r.Name, name) })
	if !ok {
		return NamedRange{}, false
	}
	return n.Audiences[i], true
}

func cloneNamedRanges(rs []NamedRange) []NamedRange {
	if rs == nil {
		return nil
	}
	out := make([]NamedRange, len(rs))
	for i, r := range rs {
		out[i] = NamedRange{Name: r.Name, Ranges: slices.Clone(r.Ranges)}
	}
	return out
}

func sameNamedRanges(a, b []NamedRange) bool {
	return slices.EqualFunc(a, b, func(x, y NamedRange) bool { return x.Name == y.Name && slices.Equal(x.Ranges, y.Ranges) })
}

// normalizeNamedRanges sorts the names and makes each set of ranges
// canonical, in place.
func normalizeNamedRanges(rs []NamedRange) []NamedRange {
	rs = nilIfEmpty(rs)
	for i := range rs {
		rs[i].Ranges = news.CanonicalAudience(rs[i].Ranges)
	}
	slices.SortFunc(rs, func(a, b NamedRange) int { return strings.Compare(a.Name, b.Name) })
	return rs
}

// checkNamedRanges applies the rules above: a bounded count, names valid
// one-line names, unique and sorted, ranges canonical.
func checkNamedRanges(rs []NamedRange) error {
	if len(rs) > MaxNamedRanges {
		return fmt.Errorf("%s: more than %d named ranges", namedRangesField, MaxNamedRanges)
	}
	for i, r := range rs {
		if err := r.validate(); err != nil {
			return err
		}
		if i > 0 {
			switch strings.Compare(rs[i-1].Name, r.Name) {
			case 0:
				return fmt.Errorf("%s: %q named twice", namedRangesField, r.Name)
			case 1:
				return fmt.Errorf("%s: not sorted by name", namedRangesField)
			}
		}
	}
	return nil
}

func (r NamedRange) validate() error {
	if strings.TrimSpace(r.Name) == "" {
		return fmt.Errorf("%s: name: required", namedRangesField)
	}
	where := fmt.Sprintf("%s: %q", namedRangesField, r.Name)
	if err := news.CheckLine(where+": name", r.Name, MaxRangeNameRunes); err != nil {
		return err
	}
	if r.Name != strings.TrimSpace(r.Name) {
		return fmt.Errorf("%s: name: spaces at either end", where)
	}
	if len(r.Ranges) == 0 {
		return fmt.Errorf("%s: no network ranges", where)
	}
	if len(r.Ranges) > MaxRangesPerName {
		return fmt.Errorf("%s: %d network ranges, at most %d", where, len(r.Ranges), MaxRangesPerName)
	}
	if !slices.Equal(r.Ranges, news.CanonicalAudience(r.Ranges)) {
		return fmt.Errorf("%s: network ranges not canonical (masked, sorted, none inside another)", where)
	}
	return nil
}

// namedRangeDoc is a named range in the canonical encoding.
type namedRangeDoc struct {
	Name   string   `json:"name"`
	Ranges []string `json:"ranges"`
}

func namedRangeDocs(rs []NamedRange) []namedRangeDoc {
	if len(rs) == 0 {
		return nil // the member is left out
	}
	out := make([]namedRangeDoc, len(rs))
	for i, r := range rs {
		out[i] = namedRangeDoc{Name: r.Name, Ranges: news.FormatAudience(r.Ranges)}
	}
	return out
}

// namedRangeIn is a named range as parsed: a member left out is nil.
type namedRangeIn struct {
	Name   *string   `json:"name"`
	Ranges *[]string `json:"ranges"`
}

// parseNamedRanges decodes the member; the caller validates the result.
// A range written other than canonically ("10.1.4.7/22") parses here and
// is refused by validation or by the canonical-form comparison.
func parseNamedRanges(docs *[]namedRangeIn) ([]NamedRange, error) {
	if docs == nil {
		return nil, nil // a definition from before named ranges
	}
	if len(*docs) == 0 {
		return nil, fmt.Errorf("%s: empty (leave the member out)", namedRangesField)
	}
	if len(*docs) > MaxNamedRanges {
		return nil, fmt.Errorf("%s: more than %d named ranges", namedRangesField, MaxNamedRanges)
	}
	out := make([]NamedRange, 0, len(*docs))
	for _, d := range *docs {
		if d.Name == nil || d.Ranges == nil {
			return nil, errors.New(namedRangesField + ": name and ranges: required")
		}
		if len(*d.Ranges) > MaxRangesPerName {
			return nil, fmt.Errorf("%s: %q: %d network ranges, at most %d", namedRangesField, *d.Name, len(*d.Ranges), MaxRangesPerName)
		}
		r := NamedRange{Name: *d.Name, Ranges: make([]netip.Prefix, 0, len(*d.Ranges))}
		for _, s := range *d.Ranges {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %q is not a network range in CIDR notation", namedRangesField, *d.Name, s)
			}
			r.Ranges = append(r.Ranges, p)
		}
		out = append(out, r)
	}
	return out, nil
}
