package categories

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// someLanguages are more than MaxTitleLanguages language tags.
var someLanguages = strings.Fields("aa ab af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el")

func titledCatalog(t *testing.T) *Catalog {
	t.Helper()
	cats := Default().All()
	for i, c := range cats {
		switch c.ID {
		case "sales":
			cats[i].Titles = MustTitles(Title{"de", "Vertrieb"}, Title{"ja", "営業"}, Title{"de-CH", "Verkauf"})
		case "hr":
			cats[i].Titles = MustTitles(Title{"ja", "人事"}, Title{"ru", "Кадры"}, Title{"ar", "الموارد البشرية"})
		}
	}
	c, err := NewCatalog(2, cats)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The titles encode canonically (IDs and languages sorted), parse back to
// the same catalog, and leave the catalog document as it was.
func TestTitlesRoundTrip(t *testing.T) {
	c := titledCatalog(t)
	doc, err := c.MarshalTitles()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hr":{"ar":"الموارد البشرية","ja":"人事","ru":"Кадры"},"sales":{"de":"Vertrieb","de-CH":"Verkauf","ja":"営業"}}`
	if string(doc) != want {
		t.Errorf("MarshalTitles:\n%s\nwant\n%s", doc, want)
	}
	base, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(base, []byte("Vertrieb")) || bytes.Contains(base, []byte("titles")) {
		t.Errorf("the catalog document carries titles: %s", base)
	}
	plain, err := Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if plain.HasTitles() {
		t.Error("Parse gave titles")
	}
	back, err := plain.WithTitles(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range c.IDs() {
		a, _ := c.Get(id)
		b, _ := back.Get(id)
		if a != b {
			t.Errorf("%s: %+v, want %+v", id, b, a)
		}
	}
	if back.Version() != c.Version() {
		t.Errorf("version %d", back.Version())
	}
	none, err := back.WithTitles(nil)
	if err != nil || none.HasTitles() {
		t.Errorf("WithTitles(nil): %v %v", none.HasTitles(), err)
	}
	if d, err := none.MarshalTitles(); d != nil || err != nil {
		t.Errorf("MarshalTitles without titles: %q %v", d, err)
	}
}

// Fallback: the reader's language, then its base language, then the Name.
func TestCategoryTitleFallback(t *testing.T) {
	sales, _ := titledCatalog(t).Get("sales")
	for lang, want := range map[string]string{
		"de":         "Vertrieb",
		"de-CH":      "Verkauf",
		"de_CH":      "Verkauf",
		"de-ch":      "Verkauf",
		"de-AT":      "Vertrieb",
		"de-Latn-AT": "Vertrieb",
		"ja":         "営業",
		"ja-JP":      "営業",
		"en":         "Sales",
		"fr-FR":      "Sales",
		"":           "Sales",
		"not a tag!": "Sales",
	} {
		if got := sales.Title(lang); got != want {
			t.Errorf("Title(%q) = %q, want %q", lang, got, want)
		}
	}
	it, _ := titledCatalog(t).Get("it")
	if got := it.Title("de"); got != "IT" {
		t.Errorf("a category without titles: %q", got)
	}
}

func TestNewTitlesRules(t *testing.T) {
	good, err := NewTitles([]Title{{"de_ch", "Verkauf"}, {"JA", "営業"}, {"zh-hant-tw", "業務"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(good.All()); got != "[{de-CH Verkauf} {ja 営業} {zh-Hant-TW 業務}]" {
		t.Errorf("canonical languages: %s", got)
	}
	if good != MustTitles(Title{"zh-Hant-TW", "業務"}, Title{"ja", "営業"}, Title{"de-CH", "Verkauf"}) {
		t.Error("equal titles are not ==")
	}
	if good.Len() != 3 {
		t.Errorf("Len %d", good.Len())
	}
	many := make([]Title, MaxTitleLanguages+1)
	for i := range many {
		many[i] = Title{someLanguages[i], "x"}
	}
	if _, err := NewTitles(many[:MaxTitleLanguages]); err != nil {
		t.Errorf("%d languages: %v", MaxTitleLanguages, err)
	}
	bad := map[string][]Title{
		"language: required":     {{"", "x"}},
		"not a language tag":     {{"deutsch!", "x"}},
		"not a language tag ":    {{"de CH", "x"}},
		"names no language":      {{"und", "x"}},
		"longer than 35 bytes":   {{"de-" + strings.Repeat("x", 40), "x"}},
		"twice":                  {{"de", "a"}, {"DE", "b"}},
		"required":               {{"de", "  "}},
		"control character":      {{"de", "Ver\ntrieb"}},
		"control character ":     {{"de", "Ver\u0085trieb"}},
		"not valid UTF-8":        {{"de", "\xff"}},
		"longer than 100":        {{"de", strings.Repeat("営", MaxTitleRunes+1)}},
		"more than 32 languages": many,
	}
	for want, ts := range bad {
		if _, err := NewTitles(ts); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
			t.Errorf("NewTitles(%q) = %v, want %q", ts, err, want)
		}
	}
	if _, err := NewTitles([]Title{{"de", strings.Repeat("営", MaxTitleRunes)}}); err != nil {
		t.Errorf("a title of %d runes: %v", MaxTitleRunes, err)
	}
}

// WithTitles takes the canonical encoding only, for categories of the
// catalog only.
func TestWithTitlesRejects(t *testing.T) {
	c := Default()
	for name, doc := range map[string]string{
		"unknown category":   `{"nope":{"de":"x"}}`,
		"empty document":     `{}`,
		"category no titles": `{"sales":{}}`,
		"null titles":        `{"sales":null}`,
		"not canonical tag":  `{"sales":{"de-ch":"x"}}`,
		"bad tag":            `{"sales":{"x!":"x"}}`,
		"unsorted":           `{"sales":{"ja":"営業","de":"Vertrieb"}}`,
		"spaces":             `{"sales": {"de":"Vertrieb"}}`,
		"duplicate":          `{"sales":{"de":"a","de":"b"}}`,
		"trailing":           `{"sales":{"de":"a"}} {}`,
		"not an object":      `["sales"]`,
		"number title":       `{"sales":{"de":1}}`,
		"empty title":        `{"sales":{"de":""}}`,
		"control":            `{"sales":{"de":"a\u0007"}}`,
	} {
		if _, err := c.WithTitles([]byte(doc)); err == nil {
			t.Errorf("%s: %s accepted", name, doc)
		}
	}
	if _, err := c.WithTitles([]byte(`{"sales":{"de":"Vertrieb","ja":"営業"}}`)); err != nil {
		t.Errorf("canonical: %v", err)
	}
	if _, err := c.WithTitles(bytes.Repeat([]byte{' '}, MaxTitlesBytes+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized: %v", err)
	}
}

// The titles of a catalog are bounded as a whole, besides per category.
func TestTitlesTotalLimit(t *testing.T) {
	var cats []Category
	langs := make([]Title, MaxTitleLanguages)
	for i := range langs {
		langs[i] = Title{someLanguages[i], strings.Repeat("é", MaxTitleRunes)}
	}
	titles := MustTitles(langs...)
	for i := range 200 { // 200 × 32 × ~210 bytes: about 1.3 MB
		cats = append(cats, Category{ID: fmt.Sprintf("c%d", i), Name: "C", Titles: titles})
	}
	if _, err := NewCatalog(1, cats); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("titles beyond %d bytes: %v", MaxTitlesBytes, err)
	}
	if _, err := NewCatalog(1, cats[:100]); err != nil {
		t.Errorf("100 categories with titles: %v", err)
	}
}

// Names and titles in any script pass the catalog's text rules; only
// control characters and broken UTF-8 are refused.
func TestNamesInAnyScript(t *testing.T) {
	for _, name := range []string{
		"営業", "人事部のお知らせ", "销售", "영업", "Продажи", "المبيعات", "מכירות", "विक्रय", "ฝ่ายขาย",
		"Ελληνικά", "Vertrieb Österreich", "نشر\u200cها", "👩\u200d💻 IT", "Ünïcödé ½",
	} {
		c := Category{ID: "x", Name: name, Description: name, Titles: MustTitles(Title{"ja", name})}
		if err := c.Validate(); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"a\tb", "a\x00b", "a\x1bb", "a\u009bb", "a\xc3"} {
		if err := (Category{ID: "x", Name: name}).Validate(); err == nil {
			t.Errorf("%q accepted", name)
		}
	}
}
