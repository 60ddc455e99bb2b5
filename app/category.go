package app

import (
	"errors"
	"slices"

	"newsdesk/categories"
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
