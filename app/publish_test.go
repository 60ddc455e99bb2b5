package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
)

// Issue 12, item 4: a draft that breaks an item rule is refused with a
// *news.FieldError, so the desktop app tells the field without reading the
// message; the message is the one it always was.
func TestPublishFieldErrors(t *testing.T) {
	a := openApp(t, Options{})
	v4 := uuid.MustParse("6ba7b810-9dad-41d1-80b4-00c04fd430c8")
	cases := []struct {
		name  string
		d     Draft
		field news.Field
		rule  news.Rule
		want  string // the whole message
	}{
		{"no category", Draft{Title: "t"}, news.FieldCategory, news.RuleRequired, "category: category is empty"},
		{"bad category", Draft{Category: "IT", Title: "t"}, news.FieldCategory, news.RuleInvalidCategory,
			`category: category id "IT": invalid character 'I' at byte 0 (allowed: a-z, 0-9, '-', '/')`},
		{"flag-like category", Draft{Category: "-x", Title: "t"}, news.FieldCategory, news.RuleInvalidCategory, `category: category id "-x": must start with a letter or a digit`},
		{"no title", Draft{Category: "it", Title: "  "}, news.FieldTitle, news.RuleRequired, "title: required"},
		{"long title", Draft{Category: "it", Title: strings.Repeat("x", 201)}, news.FieldTitle, news.RuleTooLong, "title: longer than 200 characters"},
		{"escape in title", Draft{Category: "it", Title: "a\x1b[1m"}, news.FieldTitle, news.RuleControlCharacter, "title: control character at byte 1"},
		{"long body", Draft{Category: "it", Title: "t", Body: strings.Repeat("b", 64<<10+1)}, news.FieldBody, news.RuleTooLong, "body: longer than 65536 bytes"},
		{"invalid body", Draft{Category: "it", Title: "t", Body: "\xff"}, news.FieldBody, news.RuleInvalidUTF8, "body: not valid UTF-8"},
		{"supersedes v4", Draft{Category: "it", Title: "t", Supersedes: v4}, news.FieldSupersedes, news.RuleNotUUIDv7, "supersedes: not a UUIDv7"},
	}
	for _, c := range cases {
		_, err := a.Publish(c.d)
		var fe *news.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Rule != c.rule {
			t.Errorf("%s: %#v, want a FieldError %v %v", c.name, err, c.field, c.rule)
			continue
		}
		if got := err.Error(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	// A display name stored before its rules: the author's field.
	if err := a.store.SetSetting(keyDisplayName, "Ann\tExample"); err != nil {
		t.Fatal(err)
	}
	_, err := a.Publish(Draft{Category: "it", Title: "t"})
	if fe := new(news.FieldError); !errors.As(err, &fe) || fe.Field != news.FieldAuthor || err.Error() != "author: control character at byte 3" {
		t.Errorf("bad display name: %v", err)
	}

	// Not an item rule: the system groups, as before.
	if _, err := a.Publish(Draft{Category: network.NetworkCategory, Title: "t"}); !errors.Is(err, network.ErrSystemCategory) {
		t.Errorf("system group: %v", err)
	}
	if es, _, err := a.Newest(nil, 10, ""); err != nil || len(es) != 0 {
		t.Errorf("refused drafts were stored: %d %v", len(es), err)
	}
}
