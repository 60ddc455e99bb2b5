package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"newsdesk/categories"
)

func TestCheckCategory(t *testing.T) {
	for _, c := range []string{"it", "hr", "sales/emea", "a-b/c-d/0", strings.Repeat("x", categories.MaxIDLen)} {
		if err := checkCategory(c); err != nil {
			t.Errorf("checkCategory(%q) = %v", c, err)
		}
	}
	for _, c := range []string{"", "IT", "a b", "a_b", "/a", "a/", "a//b", "é", "*", strings.Repeat("x", categories.MaxIDLen+1)} {
		if err := checkCategory(c); err == nil {
			t.Errorf("checkCategory(%q) accepted", c)
		}
	}
}

// Issue 11, minor point: a category entered now starts every level with a
// letter or a digit ("-it" looked like a flag), in the desktop compose path
// and the subscription list (cli's TestCategoryFirstCharacter checks the
// control API). A category named before the rule still works where it is
// known: in the catalog, or among the current subscriptions.
func TestCategoryFirstCharacter(t *testing.T) {
	a := openApp(t, Options{})
	if _, err := a.Publish(Draft{Category: "-x", Title: "t"}); err == nil || !strings.Contains(err.Error(), "start with a letter or a digit") {
		t.Errorf("Publish in -x: %v", err)
	}
	if err := a.SetSubscriptions([]string{"it", "-x"}); err == nil || !strings.Contains(err.Error(), "start with a letter or a digit") {
		t.Errorf("SetSubscriptions with -x: %v", err)
	}
	// Named before the rule: a catalog entry, a stored subscription.
	cat, err := categories.NewCatalog(2, append(a.Catalog().All(), categories.Category{ID: "-old", Name: "Old"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetCatalog(cat); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Publish(Draft{Category: "-old", Title: "t"}); err != nil {
		t.Errorf("Publish in the catalog's -old: %v", err)
	}
	if err := a.store.SetSubscriptions([]string{"sales/-legacy"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetSubscriptions([]string{"-old", "sales/-legacy", "it"}); err != nil {
		t.Errorf("SetSubscriptions keeping names from before the rule: %v", err)
	}
	if err := a.SetSubscriptions([]string{"it", "sales/-new"}); err == nil {
		t.Error("SetSubscriptions took a new sales/-new")
	}
}

// App.Retract refuses an ID no item can have (cli's TestRetractBadID
// checks POST /v1/retract).
func TestRetractBadID(t *testing.T) {
	a := openApp(t, Options{})
	if err := a.Retract(uuid.Nil, ""); !errors.Is(err, ErrBadItemID) {
		t.Errorf("Retract(nil UUID) = %v, want ErrBadItemID", err)
	}
}
