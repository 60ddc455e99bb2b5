package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"newsdesk/categories"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
)

// The rules of the settings and the first run that need nothing but their
// input: App applies them before anything that depends on its store or on
// this computer (a free port), and the UI's test fake
// (ui/internal/fakebackend) calls the same functions, so there is one copy
// of each.

// CheckDisplayName applies the author rules of an item to a display name;
// required is for the first run, where it may not be empty.
func CheckDisplayName(name string, required bool) error {
	name = strings.TrimSpace(name)
	switch {
	case name == "" && required:
		return &DisplayNameError{Rule: news.RuleRequired}
	case !utf8.ValidString(name):
		return &DisplayNameError{Rule: news.RuleInvalidUTF8}
	case utf8.RuneCountInString(name) > news.MaxAuthorRunes:
		return &DisplayNameError{Rule: news.RuleTooLong, Limit: news.MaxAuthorRunes}
	case strings.ContainsFunc(name, unicode.IsControl):
		return &DisplayNameError{Rule: news.RuleControlCharacter}
	}
	return nil
}

// DisplayNameError is a display name CheckDisplayName refuses: the item
// rule it breaks (news.RuleRequired, RuleInvalidUTF8, RuleTooLong with
// the Limit in characters, RuleControlCharacter).
type DisplayNameError struct {
	Rule  news.Rule
	Limit int
}

func (e *DisplayNameError) Error() string {
	switch e.Rule {
	case news.RuleRequired:
		return "display name: required"
	case news.RuleInvalidUTF8:
		return "display name: not valid UTF-8"
	case news.RuleTooLong:
		return fmt.Sprintf("display name: longer than %d characters", e.Limit)
	case news.RuleControlCharacter:
		return "display name: control characters are not allowed"
	}
	return "display name: " + e.Rule.String()
}

// SeedError is a seed list CheckSeeds refuses: the seed (Index counts
// from 1) is not a servant address (Err, a *newsnet.AddrError), or is
// listed twice (Twice).
type SeedError struct {
	Index int
	Addr  string
	Twice bool
	Err   error
}

func (e *SeedError) Error() string {
	if e.Twice {
		return fmt.Sprintf("seed %d: %s is listed twice", e.Index, e.Addr)
	}
	return fmt.Sprintf("seed %d: %v", e.Index, e.Err)
}

// Unwrap returns Err.
func (e *SeedError) Unwrap() error { return e.Err }

// ErrNoSeeds: a first run that joins a network names no seed.
var ErrNoSeeds = errors.New("seeds: at least one seed is needed to join a network")

// CheckSeeds checks a seed list: each a servant address ("host:port",
// surrounding space ignored), none twice.
func CheckSeeds(addrs []string) error {
	for i, s := range addrs {
		s = strings.TrimSpace(s)
		if _, err := newsnet.ParseServantID(s); err != nil {
			return &SeedError{Index: i + 1, Addr: s, Err: err}
		}
		if slices.ContainsFunc(addrs[:i], func(o string) bool { return strings.TrimSpace(o) == s }) {
			return &SeedError{Index: i + 1, Addr: s, Twice: true}
		}
	}
	return nil
}

// CheckSetupSeeds checks the seeds of a first run: none for a new network
// (they are ignored), else at least one, as CheckSeeds.
func CheckSetupSeeds(s Setup) error {
	if s.NewNetwork {
		return nil
	}
	if len(s.Seeds) == 0 {
		return ErrNoSeeds
	}
	return CheckSeeds(s.Seeds)
}

// CheckSettings checks settings as SaveSettings does before it looks at
// this computer: the display name (may be empty), the listen address
// ("host:port"), the advertised address (empty, or a servant address), the
// notification categories (category IDs), the retention and the storage
// quota.
func CheckSettings(s Settings) error {
	if err := CheckDisplayName(s.DisplayName, false); err != nil {
		return err
	}
	if _, err := CheckHostPort(s.Listen); err != nil {
		return fmt.Errorf("listen address: %w", err)
	}
	if s.Advertise != "" {
		if _, err := newsnet.ParseServantID(s.Advertise); err != nil {
			return fmt.Errorf("advertised address: %w", err)
		}
	}
	for _, c := range s.NotifyCategories {
		if err := categories.ValidateID(c); err != nil {
			return fmt.Errorf("notification categories: %w", err)
		}
	}
	if err := CheckRetention(s.Retention); err != nil {
		return err
	}
	if err := CheckStorageQuota(s.StorageQuota); err != nil {
		return err
	}
	return checkLanguage(s.Language)
}

// CheckDraftCategory checks the category of a draft against catalog cat
// as Publish does: not a system group (network.ErrSystemCategory), and a
// category one may enter now (CheckNewCategoryIn), else a
// *news.FieldError of the category field.
func CheckDraftCategory(cat *categories.Catalog, c string) error {
	if err := network.CheckNotSystem(c); err != nil {
		return err
	}
	if err := CheckNewCategoryIn(cat, c, nil); err != nil {
		rule := news.RuleInvalidCategory
		if c == "" {
			rule = news.RuleRequired
		}
		return &news.FieldError{Field: news.FieldCategory, Rule: rule, Err: err}
	}
	return nil
}
