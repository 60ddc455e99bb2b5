package categories

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on the display fields. They keep a catalog small enough to sign and
// distribute in one message and to show in a menu.
const (
	MaxNameRunes        = 100
	MaxDescriptionRunes = 1000
	MaxCategories       = 10000
)

// Category is one entry of the catalog.
type Category struct {
	ID          string `json:"id"`          // slug, see ValidateID; also the multicast ID
	Name        string `json:"name"`        // display name, required
	Description string `json:"description"` // one line for tooltips and the admin view; may be empty
	// Titles are the name in other languages (titles.go). They are not
	// part of the catalog document: MarshalTitles and WithTitles carry
	// them.
	Titles Titles `json:"-"`
}

// Validate checks the category on its own (ID syntax and display fields).
func (c Category) Validate() error {
	if err := ValidateID(c.ID); err != nil {
		return err
	}
	if err := checkText("name", c.Name, MaxNameRunes); err != nil {
		return fmt.Errorf("category %q: %w", c.ID, err)
	}
	if c.Name == "" {
		return fmt.Errorf("category %q: %w", c.ID, &TextError{Field: "name", Problem: TextRequired})
	}
	if err := checkText("description", c.Description, MaxDescriptionRunes); err != nil {
		return fmt.Errorf("category %q: %w", c.ID, err)
	}
	return nil
}

// checkText applies the rules shared by display strings: valid UTF-8, a rune
// limit, and no control characters (they break one-line layouts and can hide
// text in a terminal).
func checkText(field, s string, maxRunes int) error {
	if !utf8.ValidString(s) {
		return &TextError{Field: field, Problem: TextInvalidUTF8}
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return &TextError{Field: field, Problem: TextTooLong, Limit: maxRunes}
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return &TextError{Field: field, Problem: TextControlCharacter, At: i}
	}
	return nil
}

// TextProblem names the rule a display text breaks in a TextError.
type TextProblem int

// The rules of a category's display texts (its name, description and
// titles).
const (
	TextRequired         TextProblem = iota + 1 // empty
	TextInvalidUTF8                             // not valid UTF-8
	TextTooLong                                 // longer than Limit characters
	TextControlCharacter                        // a control character at byte At
)

// TextError is a display text of a category that breaks a rule: Field is
// "name", "description" or "title (LANG)". Its message ("name: required")
// is for logs and the control API.
type TextError struct {
	Field   string
	Problem TextProblem
	Limit   int // TextTooLong: the limit in characters
	At      int // TextControlCharacter: the byte offset
}

func (e *TextError) Error() string {
	switch e.Problem {
	case TextRequired:
		return e.Field + ": required"
	case TextInvalidUTF8:
		return e.Field + ": not valid UTF-8"
	case TextTooLong:
		return fmt.Sprintf("%s: longer than %d characters", e.Field, e.Limit)
	case TextControlCharacter:
		return fmt.Sprintf("%s: control character at byte %d", e.Field, e.At)
	}
	return e.Field + ": invalid"
}

// Catalog is a validated, immutable set of categories sorted by ID.
//
// Every category's parent must be in the catalog too ("sales/emea" needs
// "sales"). The rule keeps the catalog a tree the UI can show and makes every
// parent something a user can subscribe to by name; the overlay itself would
// route an orphan fine, so the rule is about the catalog, not about delivery.
type Catalog struct {
	version uint64
	cats    []Category // sorted by ID, unique
}

// NewCatalog validates cats (any order) and returns the catalog. version is
// the catalog's revision: a distributed catalog with a higher version
// replaces one with a lower version. It must be at least 1.
func NewCatalog(version uint64, cats []Category) (*Catalog, error) {
	if version == 0 {
		return nil, fmt.Errorf("catalog: version: must be at least 1")
	}
	if len(cats) > MaxCategories {
		return nil, fmt.Errorf("catalog: more than %d categories", MaxCategories)
	}
	sorted := slices.Clone(cats)
	slices.SortFunc(sorted, func(a, b Category) int { return strings.Compare(a.ID, b.ID) })
	for i, c := range sorted {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if i > 0 && sorted[i-1].ID == c.ID {
			return nil, fmt.Errorf("catalog: category %q: duplicate id", c.ID)
		}
	}
	cat := &Catalog{version: version, cats: sorted}
	for _, c := range sorted {
		if p, ok := Parent(c.ID); ok && !cat.Has(p) {
			return nil, fmt.Errorf("catalog: category %q: parent %q missing", c.ID, p)
		}
	}
	if _, err := cat.MarshalTitles(); err != nil { // the titles' size as a whole
		return nil, err
	}
	return cat, nil
}

// Version is the catalog's revision number.
func (c *Catalog) Version() uint64 { return c.version }

// Len is the number of categories.
func (c *Catalog) Len() int { return len(c.cats) }

// All returns a copy of the categories, sorted by ID (parents before their
// children, since "a" < "a/…").
func (c *Catalog) All() []Category { return slices.Clone(c.cats) }

// IDs returns the category IDs, sorted.
func (c *Catalog) IDs() []string {
	out := make([]string, len(c.cats))
	for i, cat := range c.cats {
		out[i] = cat.ID
	}
	return out
}

func (c *Catalog) find(id string) (int, bool) {
	return slices.BinarySearchFunc(c.cats, id, func(cat Category, id string) int { return strings.Compare(cat.ID, id) })
}

// Get returns the category with the given ID.
func (c *Catalog) Get(id string) (Category, bool) {
	i, ok := c.find(id)
	if !ok {
		return Category{}, false
	}
	return c.cats[i], true
}

// Has reports whether id is in the catalog.
func (c *Catalog) Has(id string) bool {
	_, ok := c.find(id)
	return ok
}

// Children returns the direct children of id ("sales" → "sales/emea", not
// "sales/emea/uk"); id "" returns the top-level categories.
func (c *Catalog) Children(id string) []Category {
	var out []Category
	for _, cat := range c.cats {
		p, ok := Parent(cat.ID)
		if (id == "" && !ok) || (ok && p == id) {
			out = append(out, cat)
		}
	}
	return out
}

// Descendants returns every category strictly under id, sorted.
func (c *Catalog) Descendants(id string) []Category {
	var out []Category
	for _, cat := range c.cats {
		if cat.ID != id && Covers(id, cat.ID) {
			out = append(out, cat)
		}
	}
	return out
}

// Expand returns the IDs of every catalog category that a subscription set
// receives: each subscription and everything under it. Subscriptions to IDs
// not in the catalog contribute their catalog descendants only (an old
// subscription outliving its category still receives the children that
// remain). The result is sorted and duplicate-free.
func (c *Catalog) Expand(subs []string) []string {
	var out []string
	for _, cat := range c.cats {
		if CoveredByAny(subs, cat.ID) {
			out = append(out, cat.ID)
		}
	}
	return out
}

// Minimize returns subs without the entries another entry already covers
// ({"sales", "sales/emea"} → {"sales"}), sorted and duplicate-free. The
// overlay routes on the minimal set with the same result and smaller frames.
func Minimize(subs []string) []string {
	s := slices.Clone(subs)
	slices.Sort(s)
	s = slices.Compact(s)
	out := s[:0]
	for _, id := range s {
		// Sorting puts an ancestor before everything it covers, so checking
		// against the entries kept so far is enough.
		if CoveredByAny(out, id) {
			continue
		}
		out = append(out, id)
	}
	return out
}
