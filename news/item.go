// Package news defines the news item: what a newsroom publishes, what the
// overlay carries as a multicast payload, and what storage keeps.
package news

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/categories"
)

// Limits. Titles and author names are counted in characters (runes) because
// that is what a reader sees; the body is counted in bytes because it bounds
// a frame and a storage value.
const (
	MaxTitleRunes     = 200
	MaxAuthorRunes    = 100
	MaxBodyBytes      = 64 << 10
	MaxSignatureBytes = 1024 // room for any common signature scheme plus a key ID
)

// Item is one news item.
type Item struct {
	ID          uuid.UUID // UUIDv7: its first 48 bits are the creation time in ms, so IDs sort by time
	Category    string    // category ID, see categories.ValidateID
	Title       string    // required, at most MaxTitleRunes, one line
	Body        string    // Markdown, at most MaxBodyBytes, valid UTF-8
	Author      string    // display name of the author, at most MaxAuthorRunes, may be empty
	Source      uuid.UUID // the publishing installation's persistent UUID
	SourceCount uint64    // the source's communication count, set by the network layer
	Created     time.Time // when the author published it (publisher's clock)
	Received    time.Time // when this installation stored it; local, never on the wire
	Urgent      bool
	Supersedes  uuid.UUID // an earlier item this one corrects; uuid.Nil for none
	Signature   []byte    // filled by a later issue; carried and stored as is
	// At is the publication time of a scheduled item, later than Created;
	// zero for an item published when it was written. The item goes out
	// (and is numbered and signed) at this time.
	At time.Time
	// Expires is when the item stops being shown anywhere; zero for never.
	// After At (or Created) when set. Part of the signed item, so no
	// retraction is needed to hide it.
	Expires time.Time
	// MustRead asks every reader to confirm having read the item ("I have
	// read this"); the confirmation is kept where it was given and
	// reported to the publisher. Encoded in format 2 only, so items
	// without it keep their format 1 encoding and signatures.
	MustRead bool
	// Audience limits the item to servants whose advertised address lies
	// in one of these network ranges (audience.go); nil for everyone.
	// Canonical, at most MaxAudienceRanges, encoded in format 2 only.
	Audience []netip.Prefix
	// Newer is the format of an item of a newer release (3 and up), 0 for
	// one this release reads. Of such an item only the fields of the
	// envelope every format keeps are known (encoding.go): ID, Source,
	// SourceCount, Created, Category, Title and Signature; it encodes to
	// the bytes it was decoded from, so it is stored and passed on as it
	// came, and never shown as if it were read.
	Newer byte
	raw   []byte // the encoding of an item of an envelope format (3 and up)
}

// KeptEncoding returns the encoding an item of an envelope format (3 and
// up, see Newer) was decoded from, which it encodes to; nil for the formats
// this release writes itself.
func (it *Item) KeptEncoding() []byte { return it.raw }

// PublishedAt returns when the item was published: At for a scheduled
// item, else Created.
func (it *Item) PublishedAt() time.Time {
	if !it.At.IsZero() {
		return it.At
	}
	return it.Created
}

// ExpiredAt reports whether the item has expired at now, allowing skew for
// the difference between the publisher's clock and this one: an item is
// expired once now is more than skew past Expires.
func (it *Item) ExpiredAt(now time.Time, skew time.Duration) bool {
	return !it.Expires.IsZero() && now.After(it.Expires.Add(skew))
}

// The range of creation times the encoding can carry (int64 nanoseconds
// since the Unix epoch: years 1678 to 2262).
var (
	minCreated = time.Unix(0, math.MinInt64)
	maxCreated = time.Unix(0, math.MaxInt64)
)

// NewItem returns a new, valid item with a fresh UUIDv7 taken from now.
// SourceCount is left for the network layer to set and Received for storage.
// An item that would break a rule is the *FieldError of Validate.
func NewItem(category, title, body, author string, source uuid.UUID, now time.Time) (*Item, error) {
	id, err := NewID(now)
	if err != nil {
		return nil, err
	}
	it := &Item{
		ID:       id,
		Category: category,
		Title:    title,
		Body:     body,
		Author:   author,
		Source:   source,
		Created:  now,
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return it, nil
}

// Validate reports the first rule the item breaks as a *FieldError, whose
// message names the field and the rule ("title: required"). Received is
// local bookkeeping and not checked.
func (it *Item) Validate() error {
	if fe := it.check(); fe != nil {
		return fe
	}
	return nil
}

func (it *Item) check() *FieldError {
	if fe := checkV7(FieldID, it.ID); fe != nil {
		return fe
	}
	if it.Newer != 0 {
		return it.checkNewer()
	}
	if err := categories.ValidateID(it.Category); err != nil {
		rule := RuleInvalidCategory
		if it.Category == "" {
			rule = RuleRequired
		}
		return &FieldError{Field: FieldCategory, Rule: rule, Err: err}
	}
	if strings.TrimSpace(it.Title) == "" {
		return &FieldError{Field: FieldTitle, Rule: RuleRequired}
	}
	if fe := checkLine(FieldTitle, it.Title, MaxTitleRunes); fe != nil {
		return fe
	}
	if len(it.Body) > MaxBodyBytes {
		return &FieldError{Field: FieldBody, Rule: RuleTooLong, Limit: MaxBodyBytes}
	}
	if !utf8.ValidString(it.Body) {
		return &FieldError{Field: FieldBody, Rule: RuleInvalidUTF8}
	}
	if mayReferAttachments(it.Body) {
		if _, _, err := SplitManifest(it.Body); err != nil {
			return &FieldError{Field: FieldAttachments, Rule: RuleInvalidManifest, Err: err}
		}
	}
	if fe := checkLine(FieldAuthor, it.Author, MaxAuthorRunes); fe != nil {
		return fe
	}
	if it.Source == uuid.Nil {
		return &FieldError{Field: FieldSource, Rule: RuleRequired}
	}
	if it.Created.IsZero() {
		return &FieldError{Field: FieldCreated, Rule: RuleRequired}
	}
	if it.Created.Before(minCreated) || it.Created.After(maxCreated) {
		return &FieldError{Field: FieldCreated, Rule: RuleOutOfRange}
	}
	if it.Supersedes != uuid.Nil {
		if it.Supersedes == it.ID {
			return &FieldError{Field: FieldSupersedes, Rule: RuleSelfReference}
		}
		if fe := checkV7(FieldSupersedes, it.Supersedes); fe != nil {
			return fe
		}
	}
	if len(it.Signature) > MaxSignatureBytes {
		return &FieldError{Field: FieldSignature, Rule: RuleTooLong, Limit: MaxSignatureBytes}
	}
	if !it.At.IsZero() {
		if it.At.Before(minCreated) || it.At.After(maxCreated) {
			return &FieldError{Field: FieldAt, Rule: RuleOutOfRange}
		}
		if !it.At.After(it.Created) {
			return &FieldError{Field: FieldAt, Rule: RuleNotAfter}
		}
	}
	if !it.Expires.IsZero() {
		if it.Expires.Before(minCreated) || it.Expires.After(maxCreated) {
			return &FieldError{Field: FieldExpires, Rule: RuleOutOfRange}
		}
		if !it.Expires.After(it.PublishedAt()) {
			return &FieldError{Field: FieldExpires, Rule: RuleNotAfter}
		}
	}
	return checkAudience(it.Audience)
}

// checkNewer checks what an item of a newer format shows of itself: its
// envelope. Its title may be empty: the newer format may not need one.
func (it *Item) checkNewer() *FieldError {
	if err := categories.ValidateID(it.Category); err != nil {
		return &FieldError{Field: FieldCategory, Rule: RuleInvalidCategory, Err: err}
	}
	if fe := checkLine(FieldTitle, it.Title, MaxTitleRunes); fe != nil {
		return fe
	}
	if it.Source == uuid.Nil {
		return &FieldError{Field: FieldSource, Rule: RuleRequired}
	}
	if it.Created.IsZero() || it.Created.Before(minCreated) || it.Created.After(maxCreated) {
		return &FieldError{Field: FieldCreated, Rule: RuleOutOfRange}
	}
	if it.Newer <= formatV2 || len(it.raw) == 0 || it.raw[0] != it.Newer {
		return &FieldError{Field: FieldFormat, Rule: RuleNotItsEncoding}
	}
	if len(it.Audience) > 0 {
		return checkAudience(it.Audience)
	}
	return nil
}

func checkV7(f Field, id uuid.UUID) *FieldError {
	if id == uuid.Nil {
		return &FieldError{Field: f, Rule: RuleRequired}
	}
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return &FieldError{Field: f, Rule: RuleNotUUIDv7}
	}
	return nil
}

// CheckLine applies the one-line text rules (titles, names, reasons): valid
// UTF-8, at most maxRunes characters and no control characters (a newline
// or an escape sequence in a title breaks list layouts and notifications).
// Errors name the field and the rule, as a FieldError's do; field is free
// text ("reason"), so they are plain errors.
func CheckLine(field, s string, maxRunes int) error {
	if fe := checkLine(0, s, maxRunes); fe != nil {
		return fmt.Errorf("%s: %s", field, fe.Detail())
	}
	return nil
}

// checkLine is CheckLine for a field of an item.
func checkLine(f Field, s string, maxRunes int) *FieldError {
	if !utf8.ValidString(s) {
		return &FieldError{Field: f, Rule: RuleInvalidUTF8}
	}
	if utf8.RuneCountInString(s) > maxRunes {
		return &FieldError{Field: f, Rule: RuleTooLong, Limit: maxRunes}
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return &FieldError{Field: f, Rule: RuleControlCharacter, At: i}
	}
	return nil
}

// Clone returns a deep copy (the Signature slice is not shared).
func (it *Item) Clone() *Item {
	c := *it
	if it.Signature != nil {
		c.Signature = append([]byte(nil), it.Signature...)
	}
	c.Audience = slices.Clone(it.Audience)
	return &c
}
