package app

import (
	"errors"
	"fmt"
	"slices"

	"newsdesk/categories"
	"newsdesk/trust"
)

// checkCategory reports why c is not a valid category ID to enter now (see
// categories.ValidateNewID): lower-case ASCII letters, digits and '-', in
// levels separated by '/' ("sales/emea"), each level starting with a
// letter or a digit, at most categories.MaxIDLen bytes. Levels matter to
// the overlay: a subscription to "sales" receives "sales/emea" too.
func checkCategory(c string) error {
	if c == "" {
		return errors.New("category is empty")
	}
	return categories.ValidateNewID(c)
}

// CheckNewCategory is checkCategory for a category entered here (a
// publication, a subscription: the UI, the control API), except that an ID named before
// ValidateNewID's rule is still taken when it is in the catalog or among
// known (the current subscriptions): those keep working; only new ones
// must follow the rule.
func (a *App) CheckNewCategory(c string, known []string) error {
	return CheckNewCategoryIn(a.Catalog(), c, known)
}

// CheckNewCategoryIn is CheckNewCategory with catalog cat: the rule
// itself, for the UI tests' fake too.
func CheckNewCategoryIn(cat *categories.Catalog, c string, known []string) error {
	err := checkCategory(c)
	if err != nil && categories.ValidateID(c) == nil && (cat.Has(c) || slices.Contains(known, c)) {
		return nil
	}
	return err
}

// CategoryTitle is how every view names category id to a reader of
// language lang (a BCP 47 tag, the interface's language): the catalog's
// title in lang, else in lang's base language ("de" for "de-CH"), else the
// category's Name (categories.Category.Title); the ID itself when the
// catalog (nil: none yet) does not have the category, as for an item that
// outlived its category.
func CategoryTitle(cat *categories.Catalog, id, lang string) string {
	if cat != nil {
		if c, ok := cat.Get(id); ok {
			return c.Title(lang)
		}
	}
	return id
}

// ErrCatalogChanged: the catalog of the definition held is no longer the
// version an edit started from; another admin changed it.
var ErrCatalogChanged = errors.New("another admin changed the catalog meanwhile")

// SetNetworkCatalog makes cats (names, descriptions and titles) the
// network's catalog (admins only: ErrNotAdmin) and returns the new catalog
// version and the version of the definition that carries it, signed with
// this installation's key and published; everything else in it stays as
// held. base is the catalog version the edit started from: when the
// definition holds another by now, nothing is published and the error is
// ErrCatalogChanged. A category that is not in the catalog yet follows the
// rules for a new ID and is not a system group. When cats is the catalog
// held, nothing is published and the versions held are returned.
func (a *App) SetNetworkCatalog(base uint64, cats []categories.Category) (catalogVersion, definitionVersion uint64, err error) {
	for attempt := 1; ; attempt++ {
		cur := a.Network()
		if !cur.IsAdmin(a.identity.Public) {
			return 0, 0, ErrNotAdmin
		}
		held := cur.Catalog
		if held.Version() != base {
			return 0, 0, fmt.Errorf("%w (version %d, not %d)", ErrCatalogChanged, held.Version(), base)
		}
		for _, c := range cats {
			if held.Has(c.ID) {
				continue
			}
			if err := categories.ValidateNewID(c.ID); err != nil {
				return 0, 0, err
			}
			if IsSystemCategory(c.ID) {
				return 0, 0, fmt.Errorf("category %q is reserved for the network's own business", c.ID)
			}
		}
		version := held.Version() + 1
		if local := a.Catalog(); local != nil && local.Version() >= version {
			version = local.Version() + 1 // the application adopts only a newer catalog
		}
		next, err := categories.NewCatalog(version, cats)
		if err != nil {
			return 0, 0, err
		}
		if slices.Equal(next.All(), held.All()) {
			return held.Version(), cur.Version, nil
		}
		n := cur.Network.Clone()
		n.Version = cur.Version + 1
		n.Catalog = next
		signed, err := a.identity.SignNetwork(n)
		if err != nil {
			return 0, 0, err
		}
		err = a.PublishNetwork(signed)
		switch {
		case err == nil:
			a.log.Info("catalog published", "version", next.Version(), "definition", signed.Version)
			return next.Version(), signed.Version, nil
		case !errors.Is(err, trust.ErrNotNewer) || attempt == namedAudienceAttempts:
			return 0, 0, fmt.Errorf("publishing the catalog: %w", err)
		}
	}
}
