package app

import (
	"errors"
	"fmt"
	"strings"

	"newsdesk/newsnet"
)

// checkCategory reports why c is not a valid category slug: lower-case ASCII
// letters, digits and '-', in levels separated by '/' ("sales/emea"), no
// empty level, at most newsnet.MaxCategoryBytes bytes. Levels matter to the
// overlay: a subscription to "sales" receives "sales/emea" too.
func checkCategory(c string) error {
	switch {
	case c == "":
		return errors.New("category is empty")
	case len(c) > newsnet.MaxCategoryBytes:
		return fmt.Errorf("category is longer than %d bytes", newsnet.MaxCategoryBytes)
	}
	for _, r := range c {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '/') {
			return fmt.Errorf("category %q: only lower-case letters, digits, '-' and '/' are allowed", c)
		}
	}
	if strings.HasPrefix(c, "/") || strings.HasSuffix(c, "/") || strings.Contains(c, "//") {
		return fmt.Errorf("category %q: '/' separates non-empty levels", c)
	}
	return nil
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
