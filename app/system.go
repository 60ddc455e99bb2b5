package app

// The system groups: categories every servant joins that carry the
// network's own business rather than news. They are not part of any
// catalog, are hidden from the subscription lists, the status and the item
// lists users see, are caught up however old (newsnet.Config.Durable) and
// are never purged (storage.WithPinned): there are few of their items, and
// each still matters to a servant that was away for months.

import (
	"errors"
	"fmt"
	"slices"

	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

const (
	// NetworkCategory carries new versions of the network definition
	// (spread.go).
	NetworkCategory = "newsdesk-network"
	// RetractionCategory carries signed retractions (retract.go).
	RetractionCategory = "newsdesk-retractions"
)

// systemCategories lists the system groups.
var systemCategories = []string{NetworkCategory, RetractionCategory}

// IsSystemCategory reports whether c is reserved for the network's own
// business (a system group or below one): nobody publishes there, and the
// catalog does not offer it.
func IsSystemCategory(c string) bool { return isSystemCategory(c) }

// isSystemCategory reports whether c is a system group or a category below
// one ("newsdesk-network/x"): a subscription to a group covers its
// subcategories, so every servant would receive them too.
func isSystemCategory(c string) bool {
	return slices.ContainsFunc(systemCategories, func(sys string) bool { return categories.Covers(sys, c) })
}

// isSystemItem reports whether an item belongs to a system group.
func isSystemItem(it *news.Item) bool { return it != nil && isSystemCategory(it.Category) }

// hideSystem removes the system groups from a category list (a copy when
// there is one to remove).
func hideSystem[S ~[]E, E ~string](s S) S {
	if !slices.ContainsFunc(s, func(c E) bool { return isSystemCategory(string(c)) }) {
		return s
	}
	return slices.DeleteFunc(slices.Clone(s), func(c E) bool { return isSystemCategory(string(c)) })
}

// hideSystemStatus removes the system groups from what a status shows.
func hideSystemStatus(st *newsnet.Status) {
	st.Subscriptions = hideSystem(st.Subscriptions)
	links := slices.Clone(st.Links)
	for i := range links {
		links[i].Received = hideSystem(links[i].Received)
		links[i].Sent = hideSystem(links[i].Sent)
	}
	st.Links = links
}

// hideSystemEntries drops the system groups' items from a list users see.
func hideSystemEntries(es []storage.Entry) []storage.Entry {
	return slices.DeleteFunc(es, func(e storage.Entry) bool { return isSystemItem(e.Item) })
}

// verifyCarrier checks the item signature of a system item. Its authority
// is the signed document it carries (an admin-signed definition, a
// retraction signed by an admin or the original publisher), so any member
// may relay or announce one: only a carrier that is malformed, unsigned,
// tampered with or signed by a revoked key is refused here.
func verifyCarrier(sn *trust.SignedNetwork, it *news.Item) string {
	_, err := sn.VerifyItem(it)
	if err == nil {
		return ""
	}
	switch r := trust.ReasonOf(err); r {
	case trust.UntrustedKey, trust.CategoryNotAllowed:
		return ""
	case "":
		return string(trust.Invalid)
	default:
		return string(r)
	}
}

// ErrSystemCategory: a publication into a system group (or a category
// below one) from the UI or the control API. The groups carry signed
// documents of the network's own business; every receiver would reject a
// news item there, so it is refused before it takes a count.
var ErrSystemCategory = errors.New("a system group of the network, not a news category: nobody may publish there")

// CheckNotSystem refuses a system group as the category of a publication.
func CheckNotSystem(c string) error {
	if isSystemCategory(c) {
		return fmt.Errorf("category %q is %w", c, ErrSystemCategory)
	}
	return nil
}
