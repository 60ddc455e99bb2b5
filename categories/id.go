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

// ValidateID reports whether id is a well-formed category ID. The error,
// an *IDError, names the rule that was broken.
//
// Rules: not empty; at most MaxIDLen bytes; only 'a'–'z', '0'–'9', '-' and
// '/'; no leading or trailing '/'; no empty segment ("a//b").
func ValidateID(id string) error {
	if id == "" {
		return &IDError{ID: id, Problem: IDRequired}
	}
	if len(id) > MaxIDLen {
		return &IDError{ID: id, Problem: IDTooLong}
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-':
		case c == Separator:
			switch {
			case i == 0:
				return &IDError{ID: id, Problem: IDLeadingSlash}
			case i == len(id)-1:
				return &IDError{ID: id, Problem: IDTrailingSlash, At: i}
			case id[i-1] == Separator:
				return &IDError{ID: id, Problem: IDEmptyLevel, At: i}
			}
		default:
			return &IDError{ID: id, Problem: IDInvalidCharacter, At: i}
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
			return &IDError{ID: id, Problem: IDLevelStart, At: i}
		}
	}
	return nil
}

// IDProblem names the rule a category ID breaks in an IDError.
type IDProblem int

// The rules of a category ID (ValidateID, ValidateNewID).
const (
	IDRequired         IDProblem = iota + 1 // empty
	IDTooLong                               // longer than MaxIDLen bytes
	IDLeadingSlash                          // starts with '/'
	IDTrailingSlash                         // ends with '/'
	IDEmptyLevel                            // "a//b"
	IDInvalidCharacter                      // a byte outside a-z, 0-9, '-', '/' at At
	IDLevelStart                            // a level (the one at byte At) starts with neither a letter nor a digit
)

// IDError is a category ID ValidateID or ValidateNewID refuses: the ID,
// the rule, and the byte the rule points at (IDInvalidCharacter,
// IDLevelStart). Its message is for logs and the control API; an
// interface that speaks other languages says it from Problem.
type IDError struct {
	ID      string
	Problem IDProblem
	At      int // the byte offset the problem is at
}

func (e *IDError) Error() string {
	switch e.Problem {
	case IDRequired:
		return "category id: required"
	case IDTooLong:
		return fmt.Sprintf("category id %.20q…: longer than %d bytes", e.ID, MaxIDLen)
	case IDLeadingSlash:
		return fmt.Sprintf("category id %q: leading '/'", e.ID)
	case IDTrailingSlash:
		return fmt.Sprintf("category id %q: trailing '/'", e.ID)
	case IDEmptyLevel:
		return fmt.Sprintf("category id %q: empty segment ('//')", e.ID)
	case IDInvalidCharacter:
		return fmt.Sprintf("category id %q: invalid character %q at byte %d (allowed: a-z, 0-9, '-', '/')", e.ID, rune(e.ID[e.At]), e.At)
	case IDLevelStart:
		if e.At == 0 {
			return fmt.Sprintf("category id %q: must start with a letter or a digit", e.ID)
		}
		return fmt.Sprintf("category id %q: level at byte %d must start with a letter or a digit", e.ID, e.At)
	}
	return fmt.Sprintf("category id %q: invalid", e.ID)
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
