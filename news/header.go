package news

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"newsdesk/netrange"
)

// A Header is what an item's encoding says before its text: enough to
// route, sequence, limit and check the signature of an item without
// decoding its title, author and body. A relay needs no more; the
// subscriber that shows the item decodes it whole (Decode).
type Header struct {
	Format     byte
	ID         uuid.UUID
	Source     uuid.UUID
	Count      uint64 // the item's SourceCount
	Created    time.Time
	Urgent     bool
	MustRead   bool
	Supersedes uuid.UUID
	At         time.Time
	Expires    time.Time
	Audience   []netip.Prefix
	Category   string
	// Title is read of an item of a newer format only (Newer), which
	// keeps it in its envelope for older releases to show.
	Title string
	// Signature is the signature field as encoded; it shares the bytes
	// the header was parsed from.
	Signature []byte
	// Unsigned is the length of the encoding before its signature field:
	// the item's signature covers those bytes followed by an empty
	// signature (a single zero byte), which is what SignItem signed.
	Unsigned int
}

// ParseHeader parses an item's encoding up to its text, skips the title,
// author and body without copying them, and checks every field it read by
// the rules of Validate; the text fields are checked when the item is
// decoded. It allocates only the category and the audience, and never
// more than the field limits allow, whatever the input.
func ParseHeader(data []byte) (*Header, error) {
	d := decoder{b: data}
	h := d.header()
	if h.Format > formatV2 {
		d.bytes("fields", maxNewerFields)
	} else {
		d.bytes("title", maxTitleBytes)
		d.bytes("author", maxAuthorBytes)
		d.bytes("body", MaxBodyBytes)
	}
	h.Unsigned = len(data) - len(d.b)
	h.Signature = d.bytes("signature", MaxSignatureBytes)
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(d.b))
	}
	// The text fields stand in valid: Validate checks them on decode.
	it := h.item()
	if h.Newer() {
		it.raw = data
	} else {
		it.Title = "header"
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return &h, nil
}

// Newer reports whether the item is of a format of a newer release: its
// envelope is read (its title too), the rest is not.
func (h *Header) Newer() bool { return h.Format > readsFormat }

// PublishedAt returns when the item was published: At for a scheduled
// item, else Created.
func (h *Header) PublishedAt() time.Time {
	if !h.At.IsZero() {
		return h.At
	}
	return h.Created
}

// item returns an item with the header's fields and no text (but the
// title of a newer format's).
func (h *Header) item() Item {
	return Item{
		ID:          h.ID,
		Source:      h.Source,
		SourceCount: h.Count,
		Created:     h.Created,
		Urgent:      h.Urgent,
		MustRead:    h.MustRead,
		Supersedes:  h.Supersedes,
		At:          h.At,
		Expires:     h.Expires,
		Audience:    h.Audience,
		Category:    h.Category,
		Title:       h.Title,
		Newer:       h.newer(),
	}
}

// newer is the item's Newer: its format when it is a newer release's.
func (h *Header) newer() byte {
	if h.Newer() {
		return h.Format
	}
	return 0
}

// An Encoded item is an item decoded from its wire encoding, kept with
// those bytes: what arrived is what is stored and passed on, byte for
// byte, and is never encoded again.
type Encoded struct {
	Item  *Item
	Bytes []byte
}

// Decode decodes and validates an item's encoding (UnmarshalBinary) and
// keeps the bytes with it. The caller must not modify them afterwards.
func Decode(data []byte) (Encoded, error) {
	it := new(Item)
	if err := it.UnmarshalBinary(data); err != nil {
		return Encoded{}, err
	}
	return Encoded{Item: it, Bytes: data}, nil
}

// AppendEnvelope appends the encoding of it in a format after this
// release's (3 and up), whose own fields are fields: the envelope every
// format keeps (encoding.go) around them. A newer release writes its
// items with it, and tests make such items with it.
func AppendEnvelope(b []byte, format byte, it *Item, fields []byte) ([]byte, error) {
	if format <= formatV2 {
		return nil, fmt.Errorf("news: format %d is not a newer format", format)
	}
	if len(fields) > maxNewerFields {
		return nil, &FieldError{Field: FieldFormat, Rule: RuleTooLong, Limit: maxNewerFields}
	}
	b = append(b, format)
	b = append(b, it.ID[:]...)
	b = append(b, it.Source[:]...)
	b = binary.AppendUvarint(b, it.SourceCount)
	b = binary.BigEndian.AppendUint64(b, uint64(it.Created.UnixNano()))
	b = netrange.Append(b, it.Audience)
	for _, s := range []string{it.Category, it.Title} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(fields)))
	b = append(b, fields...)
	b = binary.AppendUvarint(b, uint64(len(it.Signature)))
	return append(b, it.Signature...), nil
}
