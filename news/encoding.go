package news

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"newsdesk/categories"
	"newsdesk/netrange"
)

// The wire encoding of an item, formats 1 and 2. Fixed fields first, then
// length-prefixed strings:
//
//	format      1 byte (= 1, or 2 when at, expires or must-read is present)
//	id          16 bytes
//	source      16 bytes
//	count       uvarint
//	created     8 bytes, big-endian int64 Unix nanoseconds
//	flags       1 byte: bit 0 urgent, bit 1 supersedes present
//	            (format 2 only: bit 2 at present, bit 3 expires present,
//	            bit 4 must-read, bit 5 audience present)
//	supersedes  16 bytes, only with flag bit 1
//	at          8 bytes, big-endian int64 Unix nanoseconds, only with flag bit 2
//	expires     8 bytes, as at, only with flag bit 3
//	audience    only with flag bit 5: package netrange's encoding, 1 to 32 ranges
//	category, title, author, body, signature: uvarint length + bytes each
//
// The encoding is canonical: varints are minimal, unknown flag bits and
// trailing bytes are errors, so Marshal(Unmarshal(b)) == b for every b that
// decodes. A signature can then be computed over bytes a receiver reproduces
// exactly. Received is local and not encoded.
//
// Format 2 is format 1 with the scheduling fields (at, expires) and the
// must-read flag. An item without them is still written as format 1, byte
// for byte as before, so the encodings and signatures of existing items do
// not change and installations that know only format 1 still read them; a
// format 2 encoding without any of them is not canonical and refused.
//
// Formats 3 and later belong to newer releases. So that this one can pass
// them on, store them and show that they exist, every later format keeps
// this envelope, and is signed as formats 1 and 2 are:
//
//	format      1 byte (3 or more)
//	id          16 bytes
//	source      16 bytes
//	count       uvarint
//	created     8 bytes, big-endian int64 Unix nanoseconds
//	audience    package netrange's encoding, 0 to 32 ranges (0: everyone)
//	category, title: uvarint length + bytes each
//	fields      uvarint length + bytes: whatever the newer format holds
//	signature   uvarint length + bytes
//
// Decoding one gives an item with only those fields and Newer set to its
// format; it encodes to the bytes it came from (Item.raw). The audience is
// in the envelope because it decides who may see even the title: a relay
// must be able to check the overlay's copy of it against the signed one.
const (
	formatV1 = 1
	formatV2 = 2
)

// maxNewerFields bounds the fields of a newer format, so that its items are
// no larger than this version's largest.
const maxNewerFields = MaxEncodedLen - (1 + 16 + 16 + binary.MaxVarintLen64 + 8 +
	binary.MaxVarintLen32 + MaxAudienceRanges*(2+16) +
	4*binary.MaxVarintLen32 + maxCategoryBytes + maxTitleBytes + MaxSignatureBytes)

const (
	flagUrgent     = 1 << 0
	flagSupersedes = 1 << 1
	flagAt         = 1 << 2
	flagExpires    = 1 << 3
	flagMustRead   = 1 << 4
	flagAudience   = 1 << 5
	knownFlagsV1   = flagUrgent | flagSupersedes
	knownFlagsV2   = knownFlagsV1 | flagAt | flagExpires | flagMustRead | flagAudience
	// formatV2Flags are the flags only format 2 has: one of them makes an
	// item format 2, and a format 2 encoding needs one.
	formatV2Flags = flagAt | flagExpires | flagMustRead | flagAudience
)

// Per-field byte limits checked before allocating: a rune is at most 4 bytes.
const (
	maxCategoryBytes = categories.MaxIDLen
	maxTitleBytes    = MaxTitleRunes * utf8MaxRune
	maxAuthorBytes   = MaxAuthorRunes * utf8MaxRune
	utf8MaxRune      = 4
)

// MaxEncodedLen is an upper bound on the length of an encoded item, for frame
// size limits in the network layer.
const MaxEncodedLen = 1 + 16 + 16 + binary.MaxVarintLen64 + 8 + 1 + 16 + 8 + 8 +
	binary.MaxVarintLen32 + MaxAudienceRanges*(2+16) +
	5*binary.MaxVarintLen32 + maxCategoryBytes + maxTitleBytes + maxAuthorBytes + MaxBodyBytes + MaxSignatureBytes

// ErrMalformed is wrapped by every structural decoding error.
var ErrMalformed = errors.New("malformed item encoding")

// MarshalBinary encodes a valid item; an invalid one is an error, so an
// invalid item never leaves this installation.
func (it *Item) MarshalBinary() ([]byte, error) {
	return it.AppendBinary(make([]byte, 0, 64+len(it.Category)+len(it.Title)+len(it.Author)+len(it.Body)+len(it.Signature)))
}

// AppendBinary appends the encoding of a valid item to b.
func (it *Item) AppendBinary(b []byte) ([]byte, error) {
	if err := it.Validate(); err != nil {
		return nil, err
	}
	if it.raw != nil {
		return append(b, it.raw...), nil
	}
	flags := it.flags()
	format := byte(formatV1)
	if flags&formatV2Flags != 0 {
		format = formatV2
	}
	b = append(b, format)
	b = append(b, it.ID[:]...)
	b = append(b, it.Source[:]...)
	b = binary.AppendUvarint(b, it.SourceCount)
	b = binary.BigEndian.AppendUint64(b, uint64(it.Created.UnixNano()))
	b = append(b, flags)
	if it.Supersedes != uuid.Nil {
		b = append(b, it.Supersedes[:]...)
	}
	if !it.At.IsZero() {
		b = binary.BigEndian.AppendUint64(b, uint64(it.At.UnixNano()))
	}
	if !it.Expires.IsZero() {
		b = binary.BigEndian.AppendUint64(b, uint64(it.Expires.UnixNano()))
	}
	if len(it.Audience) > 0 {
		b = netrange.Append(b, it.Audience)
	}
	for _, s := range []string{it.Category, it.Title, it.Author, it.Body} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(it.Signature)))
	b = append(b, it.Signature...)
	return b, nil
}

// flags is the item's flag byte.
func (it *Item) flags() byte {
	var flags byte
	if it.Urgent {
		flags |= flagUrgent
	}
	if it.Supersedes != uuid.Nil {
		flags |= flagSupersedes
	}
	if !it.At.IsZero() {
		flags |= flagAt
	}
	if !it.Expires.IsZero() {
		flags |= flagExpires
	}
	if it.MustRead {
		flags |= flagMustRead
	}
	if len(it.Audience) > 0 {
		flags |= flagAudience
	}
	return flags
}

// UnmarshalBinary decodes an item and validates it; on error *it is left
// unchanged. It never panics and never allocates more than the field limits
// allow, whatever the input. Created comes back in UTC, Received zero, and an
// empty signature as nil.
func (it *Item) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	h := d.header()
	if d.err != nil {
		return d.err
	}
	n := h.item()
	if h.Format > formatV2 {
		return it.unmarshalNewer(data, &d, n)
	}
	n.Title = string(d.bytes("title", maxTitleBytes))
	n.Author = string(d.bytes("author", maxAuthorBytes))
	n.Body = string(d.bytes("body", MaxBodyBytes))
	if sig := d.bytes("signature", MaxSignatureBytes); len(sig) > 0 {
		n.Signature = append([]byte(nil), sig...)
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(d.b))
	}
	if err := n.Validate(); err != nil {
		return err
	}
	*it = n
	return nil
}

// unmarshalNewer is UnmarshalBinary for an item of a newer format, of which
// d has read the envelope's fields up to the title (in n).
func (it *Item) unmarshalNewer(data []byte, d *decoder, n Item) error {
	fields := d.bytes("fields", maxNewerFields)
	if sig := d.bytes("signature", MaxSignatureBytes); len(sig) > 0 {
		n.Signature = append([]byte(nil), sig...)
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(d.b))
	}
	if n.Newer == 0 {
		// An envelope format this build reads (format_next.go).
		if err := readFields(&n, fields); err != nil {
			return err
		}
	}
	n.raw = append([]byte(nil), data...)
	if err := n.Validate(); err != nil {
		return err
	}
	*it = n
	return nil
}

// header decodes the fields before the title (header.go); of a newer
// format, the envelope up to and with the title. A format 0 or a flag
// this version does not know is an error.
func (d *decoder) header() (h Header) {
	h.Format = d.byte()
	known := byte(knownFlagsV1)
	switch {
	case d.err != nil:
		return h
	case h.Format == formatV2:
		known = knownFlagsV2
	case h.Format > formatV2:
		h.ID = d.uuid()
		h.Source = d.uuid()
		h.Count = d.uvarint()
		h.Created = time.Unix(0, int64(d.uint64())).UTC()
		h.Audience = d.audienceOrNone()
		h.Category = string(d.bytes("category", maxCategoryBytes))
		h.Title = string(d.bytes("title", maxTitleBytes))
		return h
	case h.Format != formatV1:
		d.fail("unknown format %d", h.Format)
		return h
	}
	h.ID = d.uuid()
	h.Source = d.uuid()
	h.Count = d.uvarint()
	h.Created = time.Unix(0, int64(d.uint64())).UTC()
	flags := d.byte()
	switch {
	case d.err != nil:
		return h
	case flags&^known != 0:
		d.fail("unknown flags %#x for format %d", flags, h.Format)
		return h
	case h.Format == formatV2 && flags&formatV2Flags == 0:
		d.fail("format 2 without at, expires, must-read or audience")
		return h
	}
	h.Urgent = flags&flagUrgent != 0
	h.MustRead = flags&flagMustRead != 0
	if flags&flagSupersedes != 0 {
		h.Supersedes = d.uuid()
		if d.err == nil && h.Supersedes == uuid.Nil {
			d.fail("supersedes flag with a nil id")
			return h
		}
	}
	if flags&flagAt != 0 {
		h.At = time.Unix(0, int64(d.uint64())).UTC()
	}
	if flags&flagExpires != 0 {
		h.Expires = time.Unix(0, int64(d.uint64())).UTC()
	}
	if flags&flagAudience != 0 {
		h.Audience = d.audience()
	}
	h.Category = string(d.bytes("category", maxCategoryBytes))
	return h
}

// decoder reads fields off the front of b; after the first error every read
// returns a zero value, so the caller checks err once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
	}
	d.b = nil
}

func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.fail("truncated %s", what)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if v := d.take(1, "header"); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) uuid() (u uuid.UUID) {
	copy(u[:], d.take(16, "uuid"))
	return u
}

func (d *decoder) uint64() uint64 {
	if v := d.take(8, "time"); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	// Only the minimal encoding is accepted, so re-encoding is exact.
	if n != uvarintLen(v) {
		d.fail("non-minimal varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// bytes reads a length-prefixed field, checking the length against max
// before touching the data.
func (d *decoder) bytes(field string, max int) []byte {
	l := d.uvarint()
	if d.err != nil {
		return nil
	}
	if l > uint64(max) {
		d.fail("%s: length %d over the limit %d", field, l, max)
		return nil
	}
	return d.take(int(l), field)
}
