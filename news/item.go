// Package news defines the news item: what a newsroom publishes, what the
// overlay carries as a multicast payload, and what storage keeps.
package news

import (
	"fmt"
	"math"
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
}

// The range of creation times the encoding can carry (int64 nanoseconds
// since the Unix epoch: years 1678 to 2262).
var (
	minCreated = time.Unix(0, math.MinInt64)
	maxCreated = time.Unix(0, math.MaxInt64)
)

// NewItem returns a new, valid item with a fresh UUIDv7 taken from now.
// SourceCount is left for the network layer to set and Received for storage.
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

// Validate reports the first rule the item breaks, naming the field and the
// rule ("title: required"). Received is local bookkeeping and not checked.
func (it *Item) Validate() error {
	if err := checkV7("id", it.ID); err != nil {
		return err
	}
	if err := categories.ValidateID(it.Category); err != nil {
		return fmt.Errorf("category: %w", err)
	}
	if strings.TrimSpace(it.Title) == "" {
		return fmt.Errorf("title: required")
	}
	if err := CheckLine("title", it.Title, MaxTitleRunes); err != nil {
		return err
	}
	if len(it.Body) > MaxBodyBytes {
		return fmt.Errorf("body: longer than %d bytes", MaxBodyBytes)
	}
	if !utf8.ValidString(it.Body) {
		return fmt.Errorf("body: not valid UTF-8")
	}
	if err := CheckLine("author", it.Author, MaxAuthorRunes); err != nil {
		return err
	}
	if it.Source == uuid.Nil {
		return fmt.Errorf("source: required")
	}
	if it.Created.IsZero() {
		return fmt.Errorf("created: required")
	}
	if it.Created.Before(minCreated) || it.Created.After(maxCreated) {
		return fmt.Errorf("created: outside the years 1678 to 2262")
	}
	if it.Supersedes != uuid.Nil {
		if it.Supersedes == it.ID {
			return fmt.Errorf("supersedes: equals the item's own id")
		}
		if err := checkV7("supersedes", it.Supersedes); err != nil {
			return err
		}
	}
	if len(it.Signature) > MaxSignatureBytes {
		return fmt.Errorf("signature: longer than %d bytes", MaxSignatureBytes)
	}
	return nil
}

func checkV7(field string, id uuid.UUID) error {
	if id == uuid.Nil {
		return fmt.Errorf("%s: required", field)
	}
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return fmt.Errorf("%s: not a UUIDv7", field)
	}
	return nil
}

// CheckLine applies the one-line text rules (titles, names, reasons): valid
// UTF-8, at most maxRunes characters and no control characters (a newline
// or an escape sequence in a title breaks list layouts and notifications).
// Errors name the field and the rule.
func CheckLine(field, s string, maxRunes int) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not valid UTF-8", field)
	}
	if utf8.RuneCountInString(s) > maxRunes {
		return fmt.Errorf("%s: longer than %d characters", field, maxRunes)
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s: control character at byte %d", field, i)
	}
	return nil
}

// Clone returns a deep copy (the Signature slice is not shared).
func (it *Item) Clone() *Item {
	c := *it
	if it.Signature != nil {
		c.Signature = append([]byte(nil), it.Signature...)
	}
	return &c
}
