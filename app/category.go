package app

import (
	"errors"
	"strings"

	"newsdesk/categories"
)

// checkCategory reports why c is not a valid category ID (see
// categories.ValidateID): lower-case ASCII letters, digits and '-', in
// levels separated by '/' ("sales/emea"), no empty level, at most
// categories.MaxIDLen bytes. Levels matter to the overlay: a subscription
// to "sales" receives "sales/emea" too.
func checkCategory(c string) error {
	if c == "" {
		return errors.New("category is empty")
	}
	return categories.ValidateID(c)
}

// parseCategoryList splits a comma-separated list of categories, ignoring
// blanks around entries and empty entries, and checks each.
func parseCategoryList(s string) ([]string, error) {
	var cats []string
	for c := range strings.SplitSeq(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if err := checkCategory(c); err != nil {
			return nil, err
		}
		cats = append(cats, c)
	}
	return cats, nil
}
