package app

import (
	"strings"
	"testing"

	"newsdesk/app/apptest"
	"newsdesk/categories"
)

func titled(t *testing.T, version uint64) *categories.Catalog {
	t.Helper()
	cats := categories.Default().All()
	for i, c := range cats {
		switch c.ID {
		case "sales":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "de", Text: "Vertrieb"}, categories.Title{Lang: "de-CH", Text: "Verkauf"}, categories.Title{Lang: "ja", Text: "営業"})
		case "hr":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "ja", Text: "人事"})
		}
	}
	c, err := categories.NewCatalog(version, cats)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The name a view shows: the reader's language, its base language, the
// catalog's Name, and the ID for a category the catalog does not have.
func TestCategoryTitle(t *testing.T) {
	cat := titled(t, 2)
	for _, c := range []struct{ id, lang, want string }{
		{"sales", "de", "Vertrieb"},
		{"sales", "de-CH", "Verkauf"},
		{"sales", "de_CH", "Verkauf"},
		{"sales", "de-AT", "Vertrieb"},
		{"sales", "ja", "営業"},
		{"sales", "ja-JP", "営業"},
		{"sales", "en", "Sales"},
		{"sales", "en-GB", "Sales"},
		{"sales", "", "Sales"},
		{"hr", "de-CH", "HR"},
		{"hr", "ja", "人事"},
		{"it", "ja", "IT"},
		{"gone/old", "de", "gone/old"},
	} {
		if got := CategoryTitle(cat, c.id, c.lang); got != c.want {
			t.Errorf("CategoryTitle(%q, %q) = %q, want %q", c.id, c.lang, got, c.want)
		}
	}
	if got := CategoryTitle(nil, "sales", "de"); got != "sales" {
		t.Errorf("without a catalog: %q", got)
	}
}

// An installation's own catalog keeps its titles across a restart; titles
// stored for another catalog version are left out.
func TestCatalogTitlesPersist(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	if err := a.SetCatalog(titled(t, 2)); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := openApp(t, Options{DataDir: dir})
	if got := CategoryTitle(b.Catalog(), "sales", "ja"); got != "営業" {
		t.Errorf("after reopening: %q", got)
	}
	// A catalog without titles removes them.
	if err := b.SetCatalog(mustCatalog(t, 3, categories.Default().All())); err != nil {
		t.Fatal(err)
	}
	if b.Catalog().HasTitles() {
		t.Error("titles kept")
	}
	if _, ok, _ := b.store.Setting(keyCatalogTitles); ok {
		t.Error("stored titles kept")
	}
	// Titles written for a catalog version that is not the stored one
	// (a write cut short) are left out.
	if err := b.store.SetSetting(keyCatalogTitles, `{"version":9,"titles":{"sales":{"de":"Vertrieb"}}}`); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	c := openApp(t, Options{DataDir: dir})
	if c.Catalog().Version() != 3 || c.Catalog().HasTitles() {
		t.Errorf("v%d with titles %v", c.Catalog().Version(), c.Catalog().HasTitles())
	}
}

// An admin's titles reach the installation with the network definition.
func TestDefinitionTitlesApplied(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	cur := a.Network()
	n := cur.Network.Clone()
	n.Version++
	n.Catalog = titled(t, cur.Catalog.Version()+1)
	next, err := apptest.NetworkAdmin(t).SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.PublishNetwork(next); err != nil {
		t.Fatal(err)
	}
	if got := CategoryTitle(a.Catalog(), "sales", "de-CH"); got != "Verkauf" {
		t.Errorf("after the definition: %q", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := openApp(t, Options{DataDir: dir, Network: next})
	if got := CategoryTitle(b.Catalog(), "hr", "ja"); got != "人事" {
		t.Errorf("after reopening: %q", got)
	}
}

// Display names in any script are taken; only control characters, broken
// UTF-8 and length are refused.
func TestDisplayNameAnyScript(t *testing.T) {
	for _, name := range []string{
		"山田 太郎", "李小龙", "김민준", "Анна Петрова", "محمد الأحمد", "דוד כהן", "अनुष्का शर्मा", "สมชาย",
		"Zoë Ångström", "Ελένη", "Nguyễn Văn An", "مریم\u200cنژاد", "Ann 👩\u200d💻",
	} {
		if err := CheckDisplayName(name, true); err != nil {
			t.Errorf("CheckDisplayName(%q) = %v", name, err)
		}
		if err := CheckSettings(Settings{Listen: DefaultListen, DisplayName: name}); err != nil {
			t.Errorf("CheckSettings with %q: %v", name, err)
		}
	}
	for name, want := range map[string]string{
		"山田\n太郎":                  "control",
		"Anna\x00":                "control",
		"An\u0085na":              "control",
		"\xffAnna":                "UTF-8",
		strings.Repeat("山", 1000): "longer than",
	} {
		if err := CheckDisplayName(name, true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckDisplayName(%q) = %v, want %q", name, err, want)
		}
	}
}

func mustCatalog(t *testing.T, version uint64, cats []categories.Category) *categories.Catalog {
	t.Helper()
	c, err := categories.NewCatalog(version, cats)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
