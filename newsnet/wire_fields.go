package newsnet

import (
	"encoding/binary"
	"fmt"
)

// The per-message codecs. Each marshal/unmarshal pair is a mirror image: the
// same fields, in the same order, with the same limits.

// encoder appends fields to b. The first error sticks and makes the rest
// no-ops, so marshal methods read as a plain list of fields.
type encoder struct {
	b       []byte
	err     error
	version uint16 // the link's wire version: newer fields are left out
	// sizing: opaque byte fields are counted in skipped, not appended
	// (CheckFrame).
	sizing  bool
	skipped int
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) uvarint(v uint64) {
	if e.err == nil {
		e.b = binary.AppendUvarint(e.b, v)
	}
}

func (e *encoder) raw16(v [16]byte) {
	if e.err == nil {
		e.b = append(e.b, v[:]...)
	}
}

func (e *encoder) string(field, s string, max int) {
	if e.err != nil {
		return
	}
	if len(s) > max {
		e.fail(fmt.Errorf("%s: %w: %d bytes > %d", field, errTooLong, len(s), max))
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) id(field string, id ServantID) { e.string(field, string(id), MaxIDBytes) }

// bytes is bounded by the frame only; refuse the hopeless case before
// copying it.
func (e *encoder) bytes(field string, p []byte) {
	if e.err != nil {
		return
	}
	if len(p) > MaxFrameBytes {
		e.fail(fmt.Errorf("%s: %w: %d bytes", field, errFrameTooLarge, len(p)))
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(p)))
	if e.sizing {
		e.skipped += len(p)
		return
	}
	e.b = append(e.b, p...)
}

func (e *encoder) ids(field string, ids []ServantID) { e.idsUpTo(field, ids, MaxPathLen) }

func (e *encoder) idsUpTo(field string, ids []ServantID, max int) {
	if e.err != nil {
		return
	}
	if len(ids) > max {
		e.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, len(ids), max))
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(ids)))
	for _, id := range ids {
		e.id(field, id)
	}
}

// categories refuses what the decoder would refuse, so a bad set fails at
// the sender rather than closing the link at the receiver.
func (e *encoder) categories(field string, cs CategorySet) {
	if e.err != nil {
		return
	}
	if len(cs) > MaxCategories {
		e.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, len(cs), MaxCategories))
		return
	}
	if err := checkCategorySet(cs); err != nil {
		e.fail(fmt.Errorf("%s: %w", field, err))
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(cs)))
	for _, c := range cs {
		e.string(field, c, MaxCategoryBytes)
	}
}

// checkCategorySet reports whether cs is a well-formed CategorySet: sorted,
// duplicate-free, no empty category.
func (e *encoder) reach(r Reach) {
	if r > ReachUnreachable {
		e.fail(fmt.Errorf("reach: %w: %d", errBadReach, r))
		return
	}
	e.uvarint(uint64(r))
}

func (e *encoder) flag(b bool) {
	if b {
		e.uvarint(1)
	} else {
		e.uvarint(0)
	}
}

func checkCategorySet(cs CategorySet) error {
	for i, c := range cs {
		if c == "" {
			return fmt.Errorf("%w at index %d", errEmptyCategory, i)
		}
		if i > 0 {
			switch {
			case cs[i-1] == c:
				return fmt.Errorf("%w %q", errDuplicateCatSet, c)
			case cs[i-1] > c:
				return fmt.Errorf("%w: %q before %q", errUnsortedCatSet, cs[i-1], c)
			}
		}
	}
	return nil
}

// decoder consumes fields from b. Like encoder, the first error sticks and
// later reads return zero values. Everything returned is a copy.
type decoder struct {
	b       []byte
	err     error
	version uint16 // the link's wire version: newer fields are not there
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// uvarint reads a minimal uvarint: the decoder accepts only what the encoder
// writes, so a frame has exactly one encoding.
func (d *decoder) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	switch {
	case n == 0:
		d.fail(fmt.Errorf("%s: %w", field, errTruncated))
		return 0
	case n < 0:
		d.fail(fmt.Errorf("%s: %w (overflows 64 bits)", field, errBadVarint))
		return 0
	case n > 1 && d.b[n-1] == 0:
		d.fail(fmt.Errorf("%s: %w", field, errNonCanonical))
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) raw16(field string) (v [16]byte) {
	if d.err != nil {
		return v
	}
	if len(d.b) < len(v) {
		d.fail(fmt.Errorf("%s: %w", field, errTruncated))
		return v
	}
	copy(v[:], d.b)
	d.b = d.b[len(v):]
	return v
}

// count reads a list length, checking it against max and against the bytes
// left (every element takes at least one) before the caller allocates.
func (d *decoder) count(field string, max int) int {
	n := d.uvarint(field)
	if d.err != nil {
		return 0
	}
	if n > uint64(max) {
		d.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, n, max))
		return 0
	}
	if n > uint64(len(d.b)) {
		d.fail(fmt.Errorf("%s: %w: %d elements in %d bytes", field, errTruncated, n, len(d.b)))
		return 0
	}
	return int(n)
}

// span reads a length-prefixed byte string of at most max bytes and returns
// it without copying; callers copy.
func (d *decoder) span(field string, max int) []byte {
	n := d.uvarint(field)
	if d.err != nil {
		return nil
	}
	if n > uint64(max) {
		d.fail(fmt.Errorf("%s: %w: %d bytes > %d", field, errTooLong, n, max))
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(fmt.Errorf("%s: %w: %d bytes, %d left", field, errTruncated, n, len(d.b)))
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string(field string, max int) string { return string(d.span(field, max)) }

func (d *decoder) id(field string) ServantID { return ServantID(d.span(field, MaxIDBytes)) }

// bytes reads a payload, bounded by the frame; empty decodes as nil.
func (d *decoder) bytes(field string) []byte {
	s := d.span(field, MaxFrameBytes)
	if len(s) == 0 {
		return nil
	}
	return append([]byte(nil), s...)
}

func (d *decoder) ids(field string) []ServantID { return d.idsUpTo(field, MaxPathLen) }

func (d *decoder) idsUpTo(field string, max int) []ServantID {
	return decodeStrings[ServantID](d, field, max, MaxIDBytes)
}

func (d *decoder) categories(field string) CategorySet {
	cs := CategorySet(decodeStrings[string](d, field, MaxCategories, MaxCategoryBytes))
	if d.err != nil {
		return nil
	}
	if err := checkCategorySet(cs); err != nil {
		d.fail(fmt.Errorf("%s: %w", field, err))
		return nil
	}
	return cs
}

func (d *decoder) reach(field string) Reach {
	switch v := d.uvarint(field); {
	case d.err != nil:
		return ReachUnknown
	case v > uint64(ReachUnreachable):
		d.fail(fmt.Errorf("%s: %w: %d", field, errBadReach, v))
		return ReachUnknown
	default:
		return Reach(v)
	}
}

func (d *decoder) flag(field string) bool {
	switch v := d.uvarint(field); {
	case d.err != nil:
		return false
	case v > 1:
		d.fail(fmt.Errorf("%s: %w: %d", field, errBadFlag, v))
		return false
	default:
		return v == 1
	}
}

// uint32 reads a uvarint that must fit 32 bits.
func (d *decoder) uint32(field string) uint32 {
	v := d.uvarint(field)
	if v > 1<<32-1 {
		d.fail(fmt.Errorf("%s: %w: %d", field, errTooLong, v))
		return 0
	}
	return uint32(v)
}

// decodeStrings reads a list of at most maxCount length-prefixed strings of
// at most maxLen bytes each; an empty list is nil. The whole list is checked
// before anything is allocated, then copied out in one allocation that the
// strings share, so a list costs two allocations however long it is.
func decodeStrings[S ~string](d *decoder, field string, maxCount, maxLen int) []S {
	n := d.count(field, maxCount)
	if n == 0 {
		return nil
	}
	scan := *d
	for range n {
		scan.span(field, maxLen)
	}
	if scan.err != nil {
		d.fail(scan.err)
		return nil
	}
	list := d.b
	blob := string(list[:len(list)-len(scan.b)])
	out := make([]S, n)
	for i := range out {
		s := d.span(field, maxLen) // cannot fail: scanned above
		end := len(list) - len(d.b)
		out[i] = S(blob[end-len(s) : end])
	}
	return out
}
