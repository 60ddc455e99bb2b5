package news

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestFieldErrors: every rule of every field is a *FieldError naming the
// field and the rule, with the message the control API and the command
// line have always printed; errors.As finds it through NewItem, encoding
// and decoding too.
func TestFieldErrors(t *testing.T) {
	v4 := uuid.MustParse("6ba7b810-9dad-41d1-80b4-00c04fd430c8")
	cases := []struct {
		name   string
		mutate func(*Item)
		field  Field
		rule   Rule
		want   string // the whole message
	}{
		{"nil id", func(it *Item) { it.ID = uuid.Nil }, FieldID, RuleRequired, "id: required"},
		{"v4 id", func(it *Item) { it.ID = v4 }, FieldID, RuleNotUUIDv7, "id: not a UUIDv7"},
		{"no category", func(it *Item) { it.Category = "" }, FieldCategory, RuleRequired, "category: category id: required"},
		{"bad category", func(it *Item) { it.Category = "Sales" }, FieldCategory, RuleInvalidCategory,
			`category: category id "Sales": invalid character 'S' at byte 0 (allowed: a-z, 0-9, '-', '/')`},
		{"empty level", func(it *Item) { it.Category = "a//b" }, FieldCategory, RuleInvalidCategory, `category: category id "a//b": empty segment ('//')`},
		{"no title", func(it *Item) { it.Title = "" }, FieldTitle, RuleRequired, "title: required"},
		{"blank title", func(it *Item) { it.Title = " \t " }, FieldTitle, RuleRequired, "title: required"},
		{"invalid title", func(it *Item) { it.Title = "a\xc3" }, FieldTitle, RuleInvalidUTF8, "title: not valid UTF-8"},
		{"long title", func(it *Item) { it.Title = strings.Repeat("ü", MaxTitleRunes+1) }, FieldTitle, RuleTooLong, "title: longer than 200 characters"},
		{"escape in title", func(it *Item) { it.Title = "ab\x1b[31m" }, FieldTitle, RuleControlCharacter, "title: control character at byte 2"},
		{"long body", func(it *Item) { it.Body = strings.Repeat("x", MaxBodyBytes+1) }, FieldBody, RuleTooLong, "body: longer than 65536 bytes"},
		{"invalid body", func(it *Item) { it.Body = "ok \xff" }, FieldBody, RuleInvalidUTF8, "body: not valid UTF-8"},
		{"invalid author", func(it *Item) { it.Author = "\xff" }, FieldAuthor, RuleInvalidUTF8, "author: not valid UTF-8"},
		{"long author", func(it *Item) { it.Author = strings.Repeat("a", MaxAuthorRunes+1) }, FieldAuthor, RuleTooLong, "author: longer than 100 characters"},
		{"tab in author", func(it *Item) { it.Author = "a\tb" }, FieldAuthor, RuleControlCharacter, "author: control character at byte 1"},
		{"no source", func(it *Item) { it.Source = uuid.Nil }, FieldSource, RuleRequired, "source: required"},
		{"no created", func(it *Item) { it.Created = time.Time{} }, FieldCreated, RuleRequired, "created: required"},
		{"created far future", func(it *Item) { it.Created = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) }, FieldCreated, RuleOutOfRange, "created: outside the years 1678 to 2262"},
		{"created far past", func(it *Item) { it.Created = time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC) }, FieldCreated, RuleOutOfRange, "created: outside the years 1678 to 2262"},
		{"supersedes self", func(it *Item) { it.Supersedes = it.ID }, FieldSupersedes, RuleSelfReference, "supersedes: equals the item's own id"},
		{"supersedes v4", func(it *Item) { it.Supersedes = v4 }, FieldSupersedes, RuleNotUUIDv7, "supersedes: not a UUIDv7"},
		{"long signature", func(it *Item) { it.Signature = make([]byte, MaxSignatureBytes+1) }, FieldSignature, RuleTooLong, "signature: longer than 1024 bytes"},
		{"at not after created", func(it *Item) { it.At = it.Created }, FieldAt, RuleNotAfter, "at: not after the creation time"},
		{"at far future", func(it *Item) { it.At = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) }, FieldAt, RuleOutOfRange, "at: outside the years 1678 to 2262"},
		{"expires before at", func(it *Item) { it.At, it.Expires = it.Created.Add(time.Hour), it.Created.Add(time.Minute) }, FieldExpires, RuleNotAfter, "expires: not after the publication time"},
	}
	seen := map[Field]map[Rule]bool{}
	for _, c := range cases {
		it := validItem(t)
		c.mutate(it)
		err := it.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: Validate() = %#v, want a *FieldError", c.name, err)
			continue
		}
		if fe.Field != c.field || fe.Rule != c.rule || err.Error() != c.want {
			t.Errorf("%s: %v %v %q, want %v %v %q", c.name, fe.Field, fe.Rule, err, c.field, c.rule, c.want)
		}
		if d := fe.Detail(); d != strings.TrimPrefix(c.want, c.field.String()+": ") {
			t.Errorf("%s: Detail() = %q", c.name, d)
		}
		if seen[fe.Field] == nil {
			seen[fe.Field] = map[Rule]bool{}
		}
		seen[fe.Field][fe.Rule] = true

		// The same error on every path that validates.
		_, err = it.MarshalBinary()
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Rule != c.rule {
			t.Errorf("%s: MarshalBinary: %v", c.name, err)
		}
		if c.field == FieldCategory || c.field == FieldTitle || c.field == FieldBody || c.field == FieldAuthor {
			_, err = NewItem(it.Category, it.Title, it.Body, it.Author, it.Source, it.Created)
			if !errors.As(err, &fe) || fe.Field != c.field || fe.Rule != c.rule || err.Error() != c.want {
				t.Errorf("%s: NewItem: %v", c.name, err)
			}
		}
	}
	// Every field has its rules covered.
	for f := FieldID; f <= FieldExpires; f++ {
		if len(seen[f]) == 0 {
			t.Errorf("no case for field %v", f)
		}
	}
	// And every rule is met.
	for r := RuleRequired; r <= RuleNotAfter; r++ { // RulePast needs a clock: not an item rule
		met := false
		for _, rules := range seen {
			met = met || rules[r]
		}
		if !met {
			t.Errorf("no case for rule %v", r)
		}
	}
	// The category's reason stays reachable.
	it := validItem(t)
	it.Category = "Sales"
	if fe := new(FieldError); !errors.As(it.Validate(), &fe) || fe.Err == nil || errors.Unwrap(fe) != fe.Err {
		t.Errorf("category error does not wrap the reason: %#v", fe)
	}
}

// TestFieldErrorDecoded: an item that arrives well-formed but breaks a rule
// is the FieldError, not ErrMalformed.
func TestFieldErrorDecoded(t *testing.T) {
	it := validItem(t)
	enc, _ := it.MarshalBinary()
	i := strings.Index(string(enc), it.Title)
	enc[i+1] = '\n'
	var got Item
	err := got.UnmarshalBinary(enc)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != FieldTitle || fe.Rule != RuleControlCharacter || fe.At != 1 {
		t.Errorf("decoded: %v", err)
	}
	if errors.Is(err, ErrMalformed) {
		t.Errorf("a rule broken is not a malformed encoding")
	}
}

func TestFieldAndRuleNames(t *testing.T) {
	fields := map[Field]string{
		FieldID: "id", FieldCategory: "category", FieldTitle: "title", FieldBody: "body", FieldAuthor: "author",
		FieldSource: "source", FieldCreated: "created", FieldSupersedes: "supersedes", FieldSignature: "signature",
		FieldAt: "at", FieldExpires: "expires", FieldAudience: "audience", FieldFormat: "format",
		FieldAttachments: "attachments", 0: "Field(0)", FieldAttachments + 1: "Field(15)",
	}
	for f, want := range fields {
		if f.String() != want {
			t.Errorf("Field %d: %q, want %q", int(f), f, want)
		}
	}
	for r := RuleRequired; r <= RuleInvalidManifest; r++ {
		if s := r.String(); s == "" || strings.HasPrefix(s, "Rule(") {
			t.Errorf("rule %d has no name", int(r))
		}
	}
	if s := Rule(0).String(); s != "Rule(0)" {
		t.Errorf("Rule(0): %q", s)
	}
}

// TestCheckLine: the one-line rules for other texts than an item's keep
// their messages, with the caller's name for the field.
func TestCheckLine(t *testing.T) {
	cases := map[string]string{
		"fine":                     "",
		"a\xc3":                    "retraction: reason: not valid UTF-8",
		strings.Repeat("ä", 11):    "retraction: reason: longer than 10 characters",
		"x\ny":                     "retraction: reason: control character at byte 1",
		strings.Repeat("ä", 10):    "",
		"tab\tafter ten bytes ok?": "retraction: reason: longer than 10 characters",
	}
	for s, want := range cases {
		err := CheckLine("retraction: reason", s, 10)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckLine(%q) = %q, want %q", s, got, want)
		}
	}
}
