package categories

import (
	"fmt"
	"strings"
)

// MaxIDLen is the longest category ID in bytes. IDs are keys in storage
// indexes and travel in every multicast frame and routing set, so they are
// kept short.
const MaxIDLen = 64

// Separator splits the levels of a hierarchical category ID.
const Separator = '/'

// ValidateID reports whether id is a well-formed category ID. The error names
// the rule that was broken.
//
// Rules: not empty; at most MaxIDLen bytes; only 'a'–'z', '0'–'9', '-' and
// '/'; no leading or trailing '/'; no empty segment ("a//b").
func ValidateID(id string) error {
	if id == "" {
		return fmt.Errorf("category id: required")
	}
	if len(id) > MaxIDLen {
		return fmt.Errorf("category id %.20q…: longer than %d bytes", id, MaxIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-':
		case c == Separator:
			switch {
			case i == 0:
				return fmt.Errorf("category id %q: leading '/'", id)
			case i == len(id)-1:
				return fmt.Errorf("category id %q: trailing '/'", id)
			case id[i-1] == Separator:
				return fmt.Errorf("category id %q: empty segment ('//')", id)
			}
		default:
			return fmt.Errorf("category id %q: invalid character %q at byte %d (allowed: a-z, 0-9, '-', '/')", id, rune(c), i)
		}
	}
	return nil
}

// ValidateNewID is ValidateID for a category ID someone enters now (a
// publication, a subscription, a new catalog entry): in addition, every
// level starts with a letter or a digit, so that no ID looks like a
// command-line flag ("-x") and "sales/-emea" is not a level of its own.
//
// Stored items, catalogs and network definitions, and items that arrive
// from the network, are checked with ValidateID only: IDs named before this
// rule keep loading and travelling.
func ValidateNewID(id string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	for i := 0; i < len(id); i++ {
		if (i == 0 || id[i-1] == Separator) && !isAlnum(id[i]) {
			if i == 0 {
				return fmt.Errorf("category id %q: must start with a letter or a digit", id)
			}
			return fmt.Errorf("category id %q: level at byte %d must start with a letter or a digit", id, i)
		}
	}
	return nil
}

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// MulticastID returns the overlay multicast ID of a category. It is the
// category ID itself: the routing sets carry IDs that people can read in a
// status dump, and an admin renaming a category's display name never changes
// where its items go.
func MulticastID(id string) string { return id }

// Parent returns the parent of a hierarchical ID ("sales" for "sales/emea")
// and false for a top-level ID.
func Parent(id string) (string, bool) {
	i := strings.LastIndexByte(id, Separator)
	if i < 0 {
		return "", false
	}
	return id[:i], true
}

// Ancestors returns the proper ancestors of id, nearest first:
// "a/b/c" → ["a/b", "a"].
func Ancestors(id string) []string {
	var out []string
	for {
		p, ok := Parent(id)
		if !ok {
			return out
		}
		out = append(out, p)
		id = p
	}
}

// Covers reports whether a subscription to subscription receives items of
// category: they are equal, or subscription is an ancestor of category
// ("sales" covers "sales/emea" but not "salesforce"). It is the same rule the
// overlay applies when it walks an item's ancestors against a routing set.
func Covers(subscription, category string) bool {
	if len(category) < len(subscription) || category[:len(subscription)] != subscription {
		return false
	}
	return len(category) == len(subscription) || category[len(subscription)] == Separator
}

// CoveredByAny reports whether any of subs covers category.
func CoveredByAny(subs []string, category string) bool {
	for _, s := range subs {
		if Covers(s, category) {
			return true
		}
	}
	return false
}
