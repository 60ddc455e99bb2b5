package categories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// Titles: a category's name in other languages.
//
// A category has one Name, in whatever language and script the admin
// writes it, and may have a title per language besides ("Vertrieb" for
// "de", "営業" for "ja"). A reader sees the title of their language, else
// of its base language ("de" for "de-CH"), else the Name (Category.Title).
//
// The titles do not travel in the catalog document (Marshal, Parse): that
// document refuses members it does not know, and releases before titles
// would refuse a whole network definition whose catalog had them. They
// travel as a document of their own (MarshalTitles, WithTitles), which
// the network definition carries as a member after every member older
// releases know (trust/network_encoding.go).

// Limits on titles. With MaxCategories they bound the titles document,
// and MaxTitlesBytes bounds it again as a whole, so the catalog and its
// titles together stay well within a network definition.
const (
	MaxTitleLanguages = 32           // titles per category
	MaxTitleRunes     = MaxNameRunes // per title, as the Name
	MaxLanguageBytes  = 35           // a language tag ("de-CH", "zh-Hant-TW")
	MaxTitlesBytes    = 1 << 20      // the titles document (MarshalTitles)
)

// Title is a category's name in one language.
type Title struct {
	Lang string // a BCP 47 language tag in canonical form ("de", "de-CH", "ja")
	Text string // one line, at most MaxTitleRunes
}

// Titles are a category's titles, one per language. It is a value:
// comparable with == (equal titles are equal values), the zero value has
// none, and NewTitles is the only way to make others, so every Titles is
// valid.
type Titles struct {
	// enc holds "lang\x00text\x00" per title, sorted by lang: neither a
	// tag nor a title may contain a control character, so it splits
	// unambiguously.
	enc string
}

// CanonicalLanguage returns the canonical form of a BCP 47 language tag
// ("de-ch" and "de_CH" are "de-CH"), or an error for something that is not
// one, is undetermined ("und") or is longer than MaxLanguageBytes.
func CanonicalLanguage(tag string) (string, error) {
	s := strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")
	if s == "" {
		return "", errors.New("language: required")
	}
	if len(s) > MaxLanguageBytes {
		return "", fmt.Errorf("language %.20q…: longer than %d bytes", s, MaxLanguageBytes)
	}
	t, err := language.Parse(s)
	if err != nil {
		return "", fmt.Errorf("language %q: not a language tag such as \"de\", \"de-CH\" or \"ja\"", tag)
	}
	c := t.String()
	if c == "und" || strings.HasPrefix(c, "und-") {
		return "", fmt.Errorf("language %q: names no language", tag)
	}
	if len(c) > MaxLanguageBytes {
		return "", fmt.Errorf("language %.20q…: longer than %d bytes", c, MaxLanguageBytes)
	}
	return c, nil
}

// NewTitles checks ts and returns them as Titles: every language a tag
// (taken in its canonical form, see CanonicalLanguage) and none twice,
// every text one line of at most MaxTitleRunes that is not empty (the
// catalog's rules for names), at most MaxTitleLanguages of them.
func NewTitles(ts []Title) (Titles, error) {
	if len(ts) > MaxTitleLanguages {
		return Titles{}, fmt.Errorf("titles: more than %d languages", MaxTitleLanguages)
	}
	out := make([]Title, len(ts))
	for i, t := range ts {
		l, err := CanonicalLanguage(t.Lang)
		if err != nil {
			return Titles{}, fmt.Errorf("titles: %w", err)
		}
		field := "title (" + l + ")"
		if err := checkText(field, t.Text, MaxTitleRunes); err != nil {
			return Titles{}, fmt.Errorf("titles: %w", err)
		}
		if strings.TrimSpace(t.Text) == "" {
			return Titles{}, fmt.Errorf("titles: %w", &TextError{Field: field, Problem: TextRequired})
		}
		out[i] = Title{Lang: l, Text: t.Text}
	}
	slices.SortFunc(out, func(a, b Title) int { return strings.Compare(a.Lang, b.Lang) })
	var b strings.Builder
	for i, t := range out {
		if i > 0 && out[i-1].Lang == t.Lang {
			return Titles{}, fmt.Errorf("titles: language %q: twice", t.Lang)
		}
		b.WriteString(t.Lang)
		b.WriteByte(0)
		b.WriteString(t.Text)
		b.WriteByte(0)
	}
	return Titles{enc: b.String()}, nil
}

// MustTitles is NewTitles for literals; it panics on an error.
func MustTitles(ts ...Title) Titles {
	t, err := NewTitles(ts)
	if err != nil {
		panic(err)
	}
	return t
}

// All returns the titles, sorted by language; nil when there are none.
func (t Titles) All() []Title {
	var out []Title
	for rest := t.enc; rest != ""; {
		var l, text string
		l, rest, _ = strings.Cut(rest, "\x00")
		text, rest, _ = strings.Cut(rest, "\x00")
		out = append(out, Title{Lang: l, Text: text})
	}
	return out
}

// Len is the number of titles.
func (t Titles) Len() int { return strings.Count(t.enc, "\x00") / 2 }

// Get returns the title in exactly the language lang (canonical form).
func (t Titles) Get(lang string) (string, bool) {
	for rest := t.enc; rest != ""; {
		var l, text string
		l, rest, _ = strings.Cut(rest, "\x00")
		text, rest, _ = strings.Cut(rest, "\x00")
		if l == lang {
			return text, true
		}
	}
	return "", false
}

// Title returns the category's name for a reader of language lang (a BCP
// 47 tag, "_" taken for "-"): its title in lang, else in lang's base
// language ("de" for "de-CH", "zh" for "zh-Hant-TW"), else Name. A lang
// that is not a tag, or "", gives Name.
func (c Category) Title(lang string) string {
	if c.Titles.enc == "" || lang == "" {
		return c.Name
	}
	tag, err := language.Parse(strings.ReplaceAll(lang, "_", "-"))
	if err != nil {
		return c.Name
	}
	if s, ok := c.Titles.Get(tag.String()); ok {
		return s
	}
	if b, conf := tag.Base(); conf != language.No {
		if s, ok := c.Titles.Get(b.String()); ok {
			return s
		}
	}
	return c.Name
}

// HasTitles reports whether any category has a title.
func (c *Catalog) HasTitles() bool {
	return slices.ContainsFunc(c.cats, func(cat Category) bool { return cat.Titles.enc != "" })
}

// MarshalTitles returns the canonical encoding of the categories' titles,
// nil when no category has any: a JSON object from category ID (sorted)
// to an object from language (sorted) to title.
//
//	{"sales":{"de":"Vertrieb","ja":"営業"},"sales/emea":{"de":"Vertrieb EMEA"}}
func (c *Catalog) MarshalTitles() ([]byte, error) {
	if !c.HasTitles() {
		return nil, nil
	}
	doc := map[string]map[string]string{}
	for _, cat := range c.cats {
		if cat.Titles.enc == "" {
			continue
		}
		m := map[string]string{}
		for _, t := range cat.Titles.All() {
			m[t.Lang] = t.Text
		}
		doc[cat.ID] = m
	}
	out, err := json.Marshal(doc) // maps marshal with sorted keys: one encoding
	if err != nil {
		return nil, fmt.Errorf("catalog titles: %w", err)
	}
	if len(out) > MaxTitlesBytes {
		return nil, fmt.Errorf("catalog titles: larger than %d bytes", MaxTitlesBytes)
	}
	return out, nil
}

// WithTitles returns a catalog of c's version and categories with the
// titles of doc (MarshalTitles' encoding, exactly; empty for none) in
// place of c's. Titles of a category the catalog does not have, a category
// listed without titles, and any encoding other than the canonical one
// are errors: a signed document has one encoding.
func (c *Catalog) WithTitles(doc []byte) (*Catalog, error) {
	cats := c.All()
	for i := range cats {
		cats[i].Titles = Titles{}
	}
	if len(doc) == 0 {
		return NewCatalog(c.version, cats)
	}
	if len(doc) > MaxTitlesBytes {
		return nil, fmt.Errorf("catalog titles: larger than %d bytes", MaxTitlesBytes)
	}
	var m map[string]map[string]string
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("catalog titles: %w", err)
	}
	if dec.More() {
		return nil, errors.New("catalog titles: trailing data after the document")
	}
	if len(m) == 0 {
		return nil, errors.New("catalog titles: empty (no titles are written by leaving the titles out)")
	}
	for id, byLang := range m {
		i, ok := c.find(id)
		if !ok {
			return nil, fmt.Errorf("catalog titles: category %q: not in the catalog", id)
		}
		if len(byLang) == 0 {
			return nil, fmt.Errorf("catalog titles: category %q: no titles (a category without titles is left out)", id)
		}
		if len(byLang) > MaxTitleLanguages {
			return nil, fmt.Errorf("catalog titles: category %q: more than %d languages", id, MaxTitleLanguages)
		}
		ts := make([]Title, 0, len(byLang))
		for l, text := range byLang {
			if canon, err := CanonicalLanguage(l); err != nil || canon != l {
				if err == nil {
					err = fmt.Errorf("language %q: not in canonical form (%q)", l, canon)
				}
				return nil, fmt.Errorf("catalog titles: category %q: %w", id, err)
			}
			ts = append(ts, Title{Lang: l, Text: text})
		}
		t, err := NewTitles(ts)
		if err != nil {
			return nil, fmt.Errorf("catalog titles: category %q: %w", id, err)
		}
		cats[i].Titles = t
	}
	out, err := NewCatalog(c.version, cats)
	if err != nil {
		return nil, err
	}
	canon, err := out.MarshalTitles()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(canon, doc) {
		return nil, errors.New("catalog titles: not in canonical form")
	}
	return out, nil
}
