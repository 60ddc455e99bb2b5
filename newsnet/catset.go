package newsnet

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ValidCategory reports whether c can be carried as a multicast ID: non-empty
// UTF-8 of at most MaxCategoryBytes. (The category catalog has stricter
// rules for the IDs people choose; the overlay only needs these.)
func ValidCategory(c string) error {
	switch {
	case c == "":
		return fmt.Errorf("category: empty")
	case len(c) > MaxCategoryBytes:
		return fmt.Errorf("category %.20q…: longer than %d bytes", c, MaxCategoryBytes)
	case !utf8.ValidString(c):
		return fmt.Errorf("category %q: not UTF-8", c)
	}
	return nil
}

// CategorySet is an immutable, sorted, duplicate-free set of multicast IDs
// (category IDs). Sorted slices make equality (the "send only when changed"
// rule) a cheap comparison and keep frames deterministic.
type CategorySet []string

// NewCategorySet builds a set from any list of categories.
func NewCategorySet(cats ...string) CategorySet {
	s := slices.Clone(cats)
	slices.Sort(s)
	return CategorySet(slices.Compact(s))
}

// Has reports whether c is in the set exactly.
func (s CategorySet) Has(c string) bool {
	_, ok := slices.BinarySearch(s, c)
	return ok
}

// Matches reports whether an item of category c is wanted by this set: c
// itself or one of its '/'-separated ancestors is in it ("sales" matches
// "sales/emea"). Subscribing to a parent subscribes to everything under it.
func (s CategorySet) Matches(c string) bool {
	if s.Has(AllCategories) {
		return true
	}
	for {
		if s.Has(c) {
			return true
		}
		i := strings.LastIndexByte(c, '/')
		if i < 0 {
			return false
		}
		c = c[:i]
	}
}

// Lineage returns the members of s that match an item of category c: c
// itself and those of its ancestors that are in s. AllCategories does not
// count (direct delivery relies on that: an archive would take every busy
// source's budget for what the tree brings it anyway).
func (s CategorySet) Lineage(c string) CategorySet {
	var out []string
	for x := c; ; {
		if s.Has(x) {
			out = append(out, x)
		}
		i := strings.LastIndexByte(x, '/')
		if i < 0 {
			break
		}
		x = x[:i]
	}
	return NewCategorySet(out...)
}

// Overlaps reports whether s wants any item under category g: g or an
// ancestor of it is in s, or a category below g is.
func (s CategorySet) Overlaps(g string) bool {
	if s.Matches(g) {
		return true
	}
	for _, c := range s {
		if strings.HasPrefix(c, g+"/") {
			return true
		}
	}
	return false
}

// Equal reports whether both sets hold the same categories.
func (s CategorySet) Equal(o CategorySet) bool { return slices.Equal(s, o) }

// Union returns s ∪ o.
func (s CategorySet) Union(o CategorySet) CategorySet {
	if len(o) == 0 {
		return s
	}
	if len(s) == 0 {
		return o
	}
	if s.includes(o) {
		return s // the common case of routeInfo's fold: nothing to allocate
	}
	out := make(CategorySet, 0, len(s)+len(o))
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		switch {
		case s[i] < o[j]:
			out = append(out, s[i])
			i++
		case s[i] > o[j]:
			out = append(out, o[j])
			j++
		default:
			out = append(out, s[i])
			i++
			j++
		}
	}
	out = append(out, s[i:]...)
	return append(out, o[j:]...)
}

// includes reports whether every member of o is in s.
func (s CategorySet) includes(o CategorySet) bool {
	if len(o) > len(s) {
		return false
	}
	i := 0
	for _, c := range o {
		for i < len(s) && s[i] < c {
			i++
		}
		if i == len(s) || s[i] != c {
			return false
		}
		i++
	}
	return true
}

// With returns s ∪ {c}.
func (s CategorySet) With(c string) CategorySet { return s.Union(CategorySet{c}) }

// Without returns s \ {c}.
func (s CategorySet) Without(c string) CategorySet {
	i, ok := slices.BinarySearch(s, c)
	if !ok {
		return s
	}
	return slices.Delete(slices.Clone(s), i, i+1)
}
