package news

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"
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
	d.bytes("title", maxTitleBytes)
	d.bytes("author", maxAuthorBytes)
	d.bytes("body", MaxBodyBytes)
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
	it.Title = "header"
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return &h, nil
}

// PublishedAt returns when the item was published: At for a scheduled
// item, else Created.
func (h *Header) PublishedAt() time.Time {
	if !h.At.IsZero() {
		return h.At
	}
	return h.Created
}

// item returns an item with the header's fields and no text.
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
	}
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
