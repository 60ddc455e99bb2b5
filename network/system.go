package network

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
	"newsdesk/trust"
)

const (
	// NetworkCategory carries new versions of the network definition
	// (spread.go).
	NetworkCategory = "newsdesk-network"
	// RetractionCategory carries signed retractions (retract.go).
	RetractionCategory = "newsdesk-retractions"
)

// SystemCategories lists the system groups: every servant subscribes to
// them, catches them up however old (newsnet.Config.Durable) and never
// purges their items (storage.WithPinned). Do not modify it.
var SystemCategories = []string{NetworkCategory, RetractionCategory}

// IsSystemCategory reports whether c is reserved for the network's own
// business: a system group (also one of AdminCategories) or a category
// below one ("newsdesk-network/x";
// a subscription to a group covers its subcategories, so every servant
// would receive them too). Nobody publishes there, and the catalog does
// not offer it.
func IsSystemCategory(c string) bool {
	covers := func(sys string) bool { return categories.Covers(sys, c) }
	return slices.ContainsFunc(SystemCategories, covers) || slices.ContainsFunc(AdminCategories, covers)
}

// IsSystemItem reports whether an item belongs to a system group.
func IsSystemItem(it *news.Item) bool { return it != nil && IsSystemCategory(it.Category) }

// VerifyCarrier checks the item signature of a system item. Its authority
// is the signed document it carries (an admin-signed definition, a
// retraction signed by an admin or the original publisher), so any member
// may relay or announce one: only a carrier that is malformed, unsigned,
// tampered with or signed by a revoked key is refused here.
func VerifyCarrier(sn *trust.SignedNetwork, it *news.Item) string {
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
	if IsSystemCategory(c) {
		return fmt.Errorf("category %q is %w", c, ErrSystemCategory)
	}
	return nil
}
