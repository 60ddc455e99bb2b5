package categories

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestValidateID(t *testing.T) {
	good := []string{"a", "it", "sales/emea", "sales/emea/uk-north", "2025", "a-b/c-d/e", strings.Repeat("a", MaxIDLen)}
	for _, id := range good {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v, want nil", id, err)
		}
	}
	bad := map[string]string{
		"":                              "required",
		strings.Repeat("a", MaxIDLen+1): "longer than 64 bytes",
		"Sales":                         "invalid character 'S'",
		"sales emea":                    "invalid character ' '",
		"sales_emea":                    "invalid character '_'",
		"ventes/été":                    "invalid character",
		"/sales":                        "leading '/'",
		"sales/":                        "trailing '/'",
		"sales//emea":                   "empty segment",
		"/":                             "leading '/'",
		"a\x00b":                        "invalid character",
	}
	for id, want := range bad {
		err := ValidateID(id)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateID(%q) = %v, want error containing %q", id, err, want)
		}
	}
}

// An ID entered now starts every level with a letter or a digit; one
// named before the rule (stored, in a signed catalog, arriving from an
// older servant) still passes ValidateID.
func TestValidateNewID(t *testing.T) {
	for _, id := range []string{"a", "it", "2025", "sales/emea", "a-b/c-d/e", "x-/y-"} {
		if err := ValidateNewID(id); err != nil {
			t.Errorf("ValidateNewID(%q) = %v, want nil", id, err)
		}
	}
	bad := map[string]string{
		"-x":       "must start with a letter or a digit",
		"-":        "must start with a letter or a digit",
		"--help":   "must start with a letter or a digit",
		"sales/-x": "level at byte 6",
		"a/b/-":    "level at byte 4",
		"Sales":    "invalid character 'S'",
		"sales//x": "empty segment",
		"":         "required",
	}
	for id, want := range bad {
		err := ValidateNewID(id)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateNewID(%q) = %v, want error containing %q", id, err, want)
		}
	}
	for _, old := range []string{"-x", "sales/-x"} {
		if err := ValidateID(old); err != nil {
			t.Errorf("ValidateID(%q) = %v: an ID named before the rule must still load", old, err)
		}
	}
	if _, err := NewCatalog(1, []Category{{ID: "sales", Name: "S"}, {ID: "sales/-x", Name: "Old"}, {ID: "-x", Name: "Old"}}); err != nil {
		t.Errorf("a catalog named before the rule no longer loads: %v", err)
	}
}

func TestMulticastIDIsIdentity(t *testing.T) {
	for _, id := range Default().IDs() {
		if MulticastID(id) != id {
			t.Errorf("MulticastID(%q) = %q", id, MulticastID(id))
		}
	}
}

func TestCovers(t *testing.T) {
	cases := []struct {
		sub, cat string
		want     bool
	}{
		{"sales", "sales", true},
		{"sales", "sales/emea", true},
		{"sales", "sales/emea/uk", true},
		{"sales/emea", "sales", false},
		{"sales", "salesforce", false},
		{"sales", "sales-ops", false},
		{"sales/emea", "sales/emea-north", false},
		{"it", "sales", false},
	}
	for _, c := range cases {
		if got := Covers(c.sub, c.cat); got != c.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", c.sub, c.cat, got, c.want)
		}
	}
}

// TestCoversMatchesAncestorWalk checks Covers against the rule the overlay
// uses: walk the category's '/'-ancestors and look each up in the set.
func TestCoversMatchesAncestorWalk(t *testing.T) {
	ids := []string{"a", "a/b", "a/b/c", "a-b", "a/bc", "ab", "b", "b/a"}
	for _, sub := range ids {
		for _, cat := range ids {
			walk := cat == sub
			for _, anc := range Ancestors(cat) {
				walk = walk || anc == sub
			}
			if Covers(sub, cat) != walk {
				t.Errorf("Covers(%q, %q) = %v, ancestor walk says %v", sub, cat, !walk, walk)
			}
		}
	}
}

func TestParentAndAncestors(t *testing.T) {
	if p, ok := Parent("a/b/c"); !ok || p != "a/b" {
		t.Errorf("Parent(a/b/c) = %q, %v", p, ok)
	}
	if _, ok := Parent("a"); ok {
		t.Errorf("Parent(a) reported a parent")
	}
	if got := Ancestors("a/b/c"); !slices.Equal(got, []string{"a/b", "a"}) {
		t.Errorf("Ancestors(a/b/c) = %v", got)
	}
}

func TestDefaultCatalog(t *testing.T) {
	c := Default()
	want := []string{"company", "facilities", "hr", "it", "sales", "sales/americas", "sales/apac", "sales/emea"}
	if !slices.Equal(c.IDs(), want) {
		t.Fatalf("Default IDs = %v, want %v", c.IDs(), want)
	}
	if c.Version() != 1 {
		t.Errorf("Default version = %d", c.Version())
	}
	for _, cat := range c.All() {
		if cat.Name == "" || cat.Description == "" {
			t.Errorf("default category %q lacks a name or description", cat.ID)
		}
	}
	if got := c.Expand([]string{"sales"}); !slices.Equal(got, []string{"sales", "sales/americas", "sales/apac", "sales/emea"}) {
		t.Errorf("Expand(sales) = %v", got)
	}
	if got := c.Expand([]string{"it", "sales/apac", "nope"}); !slices.Equal(got, []string{"it", "sales/apac"}) {
		t.Errorf("Expand(it, sales/apac, nope) = %v", got)
	}
	if got := len(c.Children("")); got != 5 {
		t.Errorf("top-level categories = %d, want 5", got)
	}
	if got := len(c.Children("sales")); got != 3 {
		t.Errorf("children of sales = %d, want 3", got)
	}
	if got := len(c.Descendants("sales")); got != 3 {
		t.Errorf("descendants of sales = %d, want 3", got)
	}
}

func TestMinimize(t *testing.T) {
	got := Minimize([]string{"sales/emea", "it", "sales", "sales-ops", "it", "sales/apac/jp"})
	want := []string{"it", "sales", "sales-ops"}
	if !slices.Equal(got, want) {
		t.Errorf("Minimize = %v, want %v", got, want)
	}
}

func TestNewCatalogRules(t *testing.T) {
	ok := Category{ID: "a", Name: "A"}
	cases := []struct {
		name    string
		version uint64
		cats    []Category
		want    string
	}{
		{"version zero", 0, []Category{ok}, "version: must be at least 1"},
		{"duplicate", 1, []Category{ok, ok}, `"a": duplicate id`},
		{"bad slug", 1, []Category{{ID: "A", Name: "x"}}, "invalid character"},
		{"missing name", 1, []Category{{ID: "a"}}, "name: required"},
		{"long name", 1, []Category{{ID: "a", Name: strings.Repeat("é", MaxNameRunes+1)}}, "name: longer than 100 characters"},
		{"control in name", 1, []Category{{ID: "a", Name: "a\tb"}}, "name: control character"},
		{"bad utf8", 1, []Category{{ID: "a", Name: "a\xffb"}}, "name: not valid UTF-8"},
		{"long description", 1, []Category{{ID: "a", Name: "A", Description: strings.Repeat("x", MaxDescriptionRunes+1)}}, "description: longer than"},
		{"orphan", 1, []Category{ok, {ID: "b/c", Name: "C"}}, `"b/c": parent "b" missing`},
	}
	for _, c := range cases {
		_, err := NewCatalog(c.version, c.cats)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.want)
		}
	}
	// A name of exactly the limit in multi-byte runes is fine.
	if _, err := NewCatalog(1, []Category{{ID: "a", Name: strings.Repeat("é", MaxNameRunes)}}); err != nil {
		t.Errorf("name at the limit: %v", err)
	}
}

func TestMarshalCanonical(t *testing.T) {
	c := Default()
	b1, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// Same content in another order encodes to the same bytes.
	shuffled := c.All()
	slices.Reverse(shuffled)
	c2, err := NewCatalog(1, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := c2.Marshal()
	if !bytes.Equal(b1, b2) {
		t.Errorf("encodings differ:\n%s\n%s", b1, b2)
	}
	if !bytes.HasPrefix(b1, []byte(`{"version":1,"categories":[{"id":"company","name":"Company","description":`)) {
		t.Errorf("unexpected encoding: %s", b1)
	}
	p, err := Parse(b1)
	if err != nil {
		t.Fatal(err)
	}
	b3, _ := p.Marshal()
	if !bytes.Equal(b1, b3) {
		t.Errorf("Parse/Marshal is not a fixpoint")
	}
	empty, _ := NewCatalog(7, nil)
	if b, _ := empty.Marshal(); string(b) != `{"version":7,"categories":[]}` {
		t.Errorf("empty catalog encodes as %s", b)
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"version":1,"categories":[{"id":"a","name":"A","description":""}]} x`, "trailing data"},
		{`{"version":1,"categories":[{"id":"a","name":"A","colour":"red"}]}`, "unknown field"},
		{`{"categories":[]}`, "version: required"},
		{`{"version":1}`, "categories: required"},
		{`{"version":0,"categories":[]}`, "version: must be at least 1"},
		{`{"version":-1,"categories":[]}`, "cannot unmarshal"},
		{`{"version":1,"categories":[{"id":"a","name":"A"},{"id":"a","name":"B"}]}`, "duplicate id"},
		{`{"version":1,"categories":[{"id":"a/","name":"A"}]}`, "trailing '/'"},
		{`{"version":1,"categories":[{"id":"x/y","name":"Y"}]}`, `parent "x" missing`},
		{`[1,2]`, "cannot unmarshal"},
		{``, "EOF"},
		{`{"version":1,"categories":[{"id":"a","name":"A"}]}{"version":2,"categories":[{"id":"b","name":"B"}]}`, "trailing data"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want error containing %q", c.doc, err, c.want)
		}
	}
	if _, err := Parse(bytes.Repeat([]byte(" "), MaxDocumentBytes+1)); err == nil {
		t.Errorf("oversized document accepted")
	}
}

func FuzzParse(f *testing.F) {
	b, _ := Default().Marshal()
	f.Add(b)
	f.Add([]byte(`{"version":1,"categories":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		// Whatever parses re-encodes canonically and parses to the same.
		enc, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parse of canonical form: %v", err)
		}
		enc2, _ := c2.Marshal()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("canonical form not stable")
		}
	})
}
