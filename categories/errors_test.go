package categories

import (
	"errors"
	"strings"
	"testing"
)

// The errors of a category ID and of a display text say the rule by type
// (for an interface that words it itself), with their messages unchanged.
func TestTypedErrors(t *testing.T) {
	for _, c := range []struct {
		err     error
		problem IDProblem
		at      int
		msg     string
	}{
		{ValidateID(""), IDRequired, 0, "category id: required"},
		{ValidateID(strings.Repeat("a", MaxIDLen+1)), IDTooLong, 0, "longer than 64 bytes"},
		{ValidateID("/a"), IDLeadingSlash, 0, `category id "/a": leading '/'`},
		{ValidateID("a/"), IDTrailingSlash, 1, `category id "a/": trailing '/'`},
		{ValidateID("a//b"), IDEmptyLevel, 2, `category id "a//b": empty segment ('//')`},
		{ValidateID("aB"), IDInvalidCharacter, 1, `category id "aB": invalid character 'B' at byte 1 (allowed: a-z, 0-9, '-', '/')`},
		{ValidateNewID("-a"), IDLevelStart, 0, `category id "-a": must start with a letter or a digit`},
		{ValidateNewID("a/-b"), IDLevelStart, 2, `category id "a/-b": level at byte 2 must start with a letter or a digit`},
	} {
		var e *IDError
		if !errors.As(c.err, &e) || e.Problem != c.problem || e.At != c.at || !strings.Contains(c.err.Error(), c.msg) {
			t.Errorf("%v: %+v, want problem %d at %d, message with %q", c.err, e, c.problem, c.at, c.msg)
		}
	}
	for _, c := range []struct {
		err     error
		field   string
		problem TextProblem
		msg     string
	}{
		{Category{ID: "a"}.Validate(), "name", TextRequired, `category "a": name: required`},
		{Category{ID: "a", Name: "A\x1b"}.Validate(), "name", TextControlCharacter, `category "a": name: control character at byte 1`},
		{Category{ID: "a", Name: "A", Description: strings.Repeat("x", MaxDescriptionRunes+1)}.Validate(), "description", TextTooLong, "description: longer than"},
	} {
		var e *TextError
		if !errors.As(c.err, &e) || e.Field != c.field || e.Problem != c.problem || !strings.Contains(c.err.Error(), c.msg) {
			t.Errorf("%v: %+v, want %s %d, message with %q", c.err, e, c.field, c.problem, c.msg)
		}
	}
}
