package news

import "fmt"

// Field names a field of an Item in a FieldError. The zero Field names
// none.
type Field int

// The fields of an Item that Validate checks, in the order it checks them.
const (
	FieldID Field = iota + 1
	FieldCategory
	FieldTitle
	FieldBody
	FieldAuthor
	FieldSource
	FieldCreated
	FieldSupersedes
	FieldSignature
	FieldAt      // the scheduled publication time
	FieldExpires // the expiry time
	FieldAudience
	FieldFormat      // the encoding's format, of an item of a newer release
	FieldAttachments // the manifest at the end of the body (attach.go)
)

var fieldNames = [...]string{
	FieldID:          "id",
	FieldCategory:    "category",
	FieldTitle:       "title",
	FieldBody:        "body",
	FieldAuthor:      "author",
	FieldSource:      "source",
	FieldCreated:     "created",
	FieldSupersedes:  "supersedes",
	FieldSignature:   "signature",
	FieldAt:          "at",
	FieldExpires:     "expires",
	FieldAudience:    "audience",
	FieldFormat:      "format",
	FieldAttachments: "attachments",
}

// String returns the field's name as validation messages spell it
// ("title").
func (f Field) String() string {
	if f > 0 && int(f) < len(fieldNames) {
		return fieldNames[f]
	}
	return fmt.Sprintf("Field(%d)", int(f))
}

// Rule names the rule a field breaks in a FieldError. The zero Rule names
// none.
type Rule int

// The item rules.
const (
	// RuleRequired: the field is empty (a title of only spaces is empty).
	RuleRequired Rule = iota + 1
	// RuleTooLong: longer than FieldError.Limit, counted in characters
	// (runes) for the title and the author, in bytes for the body and the
	// signature.
	RuleTooLong
	// RuleInvalidUTF8: the text is not valid UTF-8.
	RuleInvalidUTF8
	// RuleControlCharacter: a one-line text holds a control character (a
	// newline, an escape) at byte FieldError.At.
	RuleControlCharacter
	// RuleNotUUIDv7: an ID that is not a UUIDv7.
	RuleNotUUIDv7
	// RuleOutOfRange: a creation time outside what the encoding carries
	// (the years 1678 to 2262).
	RuleOutOfRange
	// RuleSelfReference: the item supersedes itself.
	RuleSelfReference
	// RuleInvalidCategory: not a category ID; FieldError.Err is the
	// categories package's reason.
	RuleInvalidCategory
	// RuleNotAfter: a time that must come later than another does not:
	// the publication time (at) after the creation time, the expiry after
	// the publication time (at, else the creation time).
	RuleNotAfter
	// RulePast: a time that must lie in the future (a new item's expiry
	// or publication time) has passed. Not an item rule (Validate knows
	// no clock): publishers check it for new items.
	RulePast
	// RuleInvalidRange: an audience that is not a canonical list of
	// network ranges (audience.go); FieldError.Err says how.
	RuleInvalidRange
	// RuleNotItsEncoding: an item of a newer format whose Newer does not
	// match the encoding it keeps.
	RuleNotItsEncoding
	// RuleInvalidManifest: the attachments' manifest is malformed or
	// beyond its limits, or the text refers to an attachment it does not
	// carry (attach.go); FieldError.Err says how.
	RuleInvalidManifest
)

var ruleNames = [...]string{
	RuleRequired:         "required",
	RuleTooLong:          "too long",
	RuleInvalidUTF8:      "invalid UTF-8",
	RuleControlCharacter: "control character",
	RuleNotUUIDv7:        "not a UUIDv7",
	RuleOutOfRange:       "out of range",
	RuleSelfReference:    "self reference",
	RuleInvalidCategory:  "invalid category",
	RuleNotAfter:         "not after",
	RulePast:             "in the past",
	RuleInvalidRange:     "invalid range",
	RuleNotItsEncoding:   "not its encoding",
	RuleInvalidManifest:  "invalid manifest",
}

// String returns a short name of the rule ("too long"), for logs; the
// message of a FieldError says more.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// FieldError is the error of every item rule a field breaks (Validate,
// NewItem, decoding): which field, which rule, and the rule's detail. Its
// message names the field and the rule ("title: required", "body: longer
// than 65536 bytes"); the control API and the command line print it as is.
// Callers that need the field use errors.As, never the message.
type FieldError struct {
	Field Field
	Rule  Rule
	Limit int   // RuleTooLong: the limit (see RuleTooLong for the unit)
	At    int   // RuleControlCharacter: the byte offset of the character
	Err   error // the underlying reason where another package has it (the category's); its message then stands for the rule
}

// Error returns "field: detail".
func (e *FieldError) Error() string { return e.Field.String() + ": " + e.Detail() }

// Detail returns the message without the field's name ("longer than 100
// characters").
func (e *FieldError) Detail() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	switch e.Rule {
	case RuleRequired:
		return "required"
	case RuleTooLong:
		unit := "characters"
		if e.Field == FieldBody || e.Field == FieldSignature {
			unit = "bytes"
		}
		return fmt.Sprintf("longer than %d %s", e.Limit, unit)
	case RuleInvalidUTF8:
		return "not valid UTF-8"
	case RuleControlCharacter:
		return fmt.Sprintf("control character at byte %d", e.At)
	case RuleNotUUIDv7:
		return "not a UUIDv7"
	case RuleOutOfRange:
		return "outside the years 1678 to 2262"
	case RuleNotAfter:
		if e.Field == FieldExpires {
			return "not after the publication time"
		}
		return "not after the creation time"
	case RulePast:
		return "in the past"
	case RuleSelfReference:
		return "equals the item's own id"
	}
	return e.Rule.String()
}

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }
