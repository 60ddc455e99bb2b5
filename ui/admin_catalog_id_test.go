package ui

import (
	"strings"
	"testing"

	"newsdesk/categories"
)

// A category added in the catalog editor starts every level with a letter
// or a digit (categories.ValidateNewID); one named before the rule, already
// in the catalog, can still be edited.
func TestCatalogEditorNewIDRule(t *testing.T) {
	cats := []categories.Category{{ID: "sales", Name: "Sales"}, {ID: "-old", Name: "Old"}}
	for _, id := range []string{"-x", "sales/-emea"} {
		err := checkCategory(categories.Category{ID: id, Name: "New"}, cats, true)
		if err == nil || !strings.Contains(err.Error(), "start with a letter or a digit") {
			t.Errorf("adding %q: %v", id, err)
		}
	}
	if err := checkCategory(categories.Category{ID: "sales/emea", Name: "EMEA"}, cats, true); err != nil {
		t.Errorf("adding sales/emea: %v", err)
	}
	if err := checkCategory(categories.Category{ID: "-old", Name: "Renamed"}, cats, false); err != nil {
		t.Errorf("editing an entry named before the rule: %v", err)
	}
	// The system groups are not categories anyone publishes in.
	for _, id := range []string{"newsdesk-network", "newsdesk-retractions/x"} {
		if err := checkCategory(categories.Category{ID: id, Name: "Mine"}, cats, true); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("adding %q: %v", id, err)
		}
	}
}
