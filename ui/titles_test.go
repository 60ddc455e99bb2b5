package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/trust"
)

// titledFake is readerFake with a catalog whose "sales" and "sales/emea"
// have titles in German, Swiss German and Japanese.
func titledFake(t *testing.T) *fake {
	t.Helper()
	b := readerFake(t)
	cats := b.Catalog().All()
	for i, c := range cats {
		switch c.ID {
		case "sales":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "de", Text: "Vertrieb"}, categories.Title{Lang: "de-CH", Text: "Verkauf"},
				categories.Title{Lang: "ja", Text: "営業"})
		case "sales/emea":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "de", Text: "Vertrieb EMEA"}, categories.Title{Lang: "ja", Text: "営業 EMEA"})
		}
	}
	c, err := categories.NewCatalog(b.Catalog().Version()+1, cats)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetCatalog(c); err != nil {
		t.Fatal(err)
	}
	return b
}

// A category shows under its title in the interface's language, in the
// sidebar, the subscriptions and the item list; one without a title in
// it under its name; a regional language takes its own title first.
func TestCategoryTitlesInGermanAndJapanese(t *testing.T) {
	for _, c := range []struct {
		code, sales, emea, company string
	}{
		{"en", "Sales", "Sales EMEA", "Company"},
		{"de", "Vertrieb", "Vertrieb EMEA", "Company"},
		{"de-CH", "Verkauf", "Vertrieb EMEA", "Company"},
		{"ja", "営業", "営業 EMEA", "Company"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			h := newHarness(t, titledFake(t))
			var names []string
			for _, f := range h.u.reader.sidebar.feeds {
				names = append(names, f.name)
			}
			for _, want := range []string{c.sales, c.emea, c.company} {
				if !slices.Contains(names, want) {
					t.Errorf("sidebar %q lacks %q", names, want)
				}
			}
			if !hasLabel(h.u.reader.sidebar.list, c.sales) {
				t.Errorf("the sidebar shows %q", labels(h.u.reader.sidebar.list))
			}
			if !hasLabel(h.u.reader.list, c.emea+" ·") {
				t.Errorf("the item list shows %q", labels(h.u.reader.list))
			}
			h.u.tabs.SelectIndex(1)
			h.sync()
			v := h.u.subsView
			for _, name := range []string{c.sales, c.emea, c.company} {
				if checkNamed(v, name) == nil {
					t.Errorf("subscriptions: no %q", name)
				}
			}
			if !hasLabel(v.list, c.sales) {
				t.Errorf("subscriptions: no hint naming %q: %q", c.sales, labels(v.list))
			}
			if !slices.Contains(trimmed(h.u.compose.category.Options), c.sales) {
				t.Errorf("compose offers %q", h.u.compose.category.Options)
			}
		})
	}
}

// The catalog editor edits a category's titles: languages the interface
// speaks are offered, any language tag is taken in its canonical form,
// bad tags, empty titles and a language twice are refused, and the saved
// catalog (a new version of the network definition) carries them.
func TestCatalogEditorTitles(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.catalogTab)
	h.sync()
	e := h.u.catalogEd
	e.list.Select(slices.IndexFunc(e.cats, func(c categories.Category) bool { return c.ID == "sales" }))
	h.sync()
	if len(e.titles.rows) != 0 {
		t.Fatalf("sales has %d title rows", len(e.titles.rows))
	}
	addTitle := func(code, text string) {
		t.Helper()
		h.tap(e.titles.add)
		r := e.titles.rows[len(e.titles.rows)-1]
		r.lang.SetText(code)
		h.typeInto(r.text, text)
	}
	if got := offeredLanguages(); !slices.Equal(got, []string{"en", "de", "ja"}) {
		t.Errorf("languages offered: %q", got)
	}
	addTitle("de", "Vertrieb")
	addTitle("JA", "営業")
	for _, c := range []struct{ code, text, problem string }{
		{"x!", "Nope", "“x!” is not a language tag"},
		{"", "Ventes", "needs its language"},
		{"fr", "Ven\ttes", "control characters"},
		{"de", "Verkauf", "two titles in de"},
		{"fr", strings.Repeat("V", categories.MaxTitleRunes+1), "too long"},
	} {
		addTitle(c.code, c.text)
		h.tap(e.apply)
		if !strings.Contains(e.problem.Text, c.problem) {
			t.Errorf("%q %q: problem %q, want %q", c.code, c.text, e.problem.Text, c.problem)
		}
		h.tap(e.titles.rows[len(e.titles.rows)-1].remove)
	}
	if !e.save.Disabled() {
		t.Fatal("refused titles made the catalog dirty")
	}
	addTitle("de_ch", "Verkauf")
	addTitle("", "") // an empty row is left out
	h.tap(e.apply)
	if e.problem.Text != "" {
		t.Fatalf("problem %q", e.problem.Text)
	}
	h.tap(e.save)
	c := b.Catalog()
	sales, _ := c.Get("sales")
	want := []categories.Title{{Lang: "de", Text: "Vertrieb"}, {Lang: "de-CH", Text: "Verkauf"}, {Lang: "ja", Text: "営業"}}
	if got := sales.Titles.All(); !slices.Equal(got, want) || sales.Name != "Sales" {
		t.Errorf("saved sales %q with %q, want %q", sales.Name, got, want)
	}
	if sn := b.Network(); sn.Version != 2 || sn.Catalog != c {
		t.Errorf("network definition v%d", sn.Version)
	}
	// Loaded again, the rows show the titles; removing one saves a
	// catalog without it.
	e.list.Select(slices.IndexFunc(e.cats, func(c categories.Category) bool { return c.ID == "sales" }))
	h.sync()
	if len(e.titles.rows) != 3 || e.titles.rows[1].lang.Text != "de-CH" || e.titles.rows[1].text.Text != "Verkauf" {
		t.Fatalf("rows after saving: %d", len(e.titles.rows))
	}
	h.tap(e.titles.rows[1].remove)
	h.tap(e.apply)
	h.tap(e.save)
	sales, _ = b.Catalog().Get("sales")
	if got := sales.Titles.All(); len(got) != 2 || sales.Title("de-CH") != "Vertrieb" {
		t.Errorf("after removing de-CH: %q", got)
	}
}

// The editor in German and Japanese: the titles' part of the form speaks
// the language.
func TestCatalogEditorTitlesTranslated(t *testing.T) {
	for _, c := range []struct{ code, label, add, problem string }{
		{"de", "In anderen Sprachen", "Sprache hinzufügen", "„x!“ ist kein Sprachcode"},
		{"ja", "他の言語での名称", "言語を追加", "「x!」は de、de-CH、ja のような言語タグではありません。"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			h := newHarness(t, newFake(t))
			h.u.tabs.SelectIndex(3)
			h.u.adminTabs.Select(h.u.catalogTab)
			h.sync()
			e := h.u.catalogEd
			if e.titles.add.Text != c.add {
				t.Errorf("button %q", e.titles.add.Text)
			}
			form := find[*widget.Form](e.content, func(*widget.Form) bool { return true })
			if form == nil || !slices.ContainsFunc(form.Items, func(it *widget.FormItem) bool { return it.Text == c.label }) {
				t.Errorf("no form item %q", c.label)
			}
			e.list.Select(0)
			h.sync()
			h.tap(e.titles.add)
			e.titles.rows[0].lang.SetText("x!")
			h.typeInto(e.titles.rows[0].text, "X")
			h.tap(e.apply)
			if !strings.Contains(e.problem.Text, c.problem) {
				t.Errorf("problem %q, want %q", e.problem.Text, c.problem)
			}
		})
	}
}

// trimmed returns opts without their indentation.
func trimmed(opts []string) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = strings.TrimSpace(o)
	}
	return out
}

// A refusal to publish in a category names it as every other screen
// does, by its title in the interface's language, in Compose's outcome
// and on a scheduled post held back; by its ID only where the catalog
// does not know it.
func TestNotAllowedNamesTheCategoryByTitle(t *testing.T) {
	refused := func(id string) error {
		return fmt.Errorf("publishing: %w", &app.NotAllowedError{Category: id, Err: trust.UntrustedKey})
	}
	for _, c := range []struct{ code, sales, gone string }{
		{"en", "“Sales”", "“gone”"},
		{"de", "„Vertrieb“", "„gone“"},
		{"de-CH", "„Verkauf“", "„gone“"},
		{"ja", "「営業」", "「gone」"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			b := titledFake(t)
			h, comp := composeHarness(t, b)
			cat := h.u.catalog
			if got := catalogErrorText(refused("gone"), cat); !strings.Contains(got, c.gone) {
				t.Errorf("a category the catalog lacks reads %q, want %s in it", got, c.gone)
			}
			if got := errorText(refused("sales")); !strings.Contains(got, strings.ReplaceAll(c.gone, "gone", "sales")) {
				t.Errorf("without the catalog: %q, want the ID", got)
			}

			chooseCategory(comp, "sales")
			h.typeInto(comp.title, "Q3")
			b.publishErr = refused("sales")
			h.tap(comp.publish)
			if !strings.Contains(comp.outcome.Text, c.sales) {
				t.Errorf("outcome %q, want %s in it", comp.outcome.Text, c.sales)
			}

			held := app.ScheduledPost{Item: &news.Item{Category: "sales", Title: "Q3", At: testNow.Add(-time.Minute)},
				Problem: refused("sales").Error(), Err: refused("sales")}
			if got := scheduledMeta(held, cat, testNow); !strings.Contains(got, c.sales) || strings.Contains(got, "sales") {
				t.Errorf("a scheduled post held back reads %q, want %s in it", got, c.sales)
			}
		})
	}
}
