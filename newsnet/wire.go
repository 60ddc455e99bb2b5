package newsnet

// The wire format.
//
// A connection starts with a hello from each side (hello.go): the magic
// "NDSK", the range of wire versions the side speaks and its release. The
// link runs at the highest version both speak, and every frame on it is
// encoded at that version. Frames follow:
//
//	length  uint32, big-endian: 1 + len(payload), 1..MaxFrameBytes
//	type    byte: the message's type byte (registry.go; append only)
//	payload the message's fields, in declaration order
//
// Field encodings:
//
//	uint64            uvarint
//	string, ServantID uvarint length, then the bytes (per-field limit)
//	[]byte            uvarint length, then the bytes (bounded by the frame)
//	[16]byte          16 raw bytes
//	lists             uvarint count, then the elements
//
// Encodings are canonical: uvarints are minimal, category sets sorted and
// duplicate-free, empty lists and payloads decode as nil. The decoder accepts
// exactly the bytes the encoder produces, so decode(b) succeeding implies
// encode(decode(b)) == b. Every limit is checked before anything is
// allocated; a malformed frame yields an error, never a panic.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

const headerLen = 4 // the frame length prefix

var (
	errFrameTooLarge   = errors.New("frame too large")
	errEmptyFrame      = errors.New("empty frame")
	errUnknownType     = errors.New("unknown message type")
	errNilMessage      = errors.New("nil message")
	errTruncated       = errors.New("truncated")
	errTrailingBytes   = errors.New("trailing bytes")
	errBadVarint       = errors.New("malformed uvarint")
	errNonCanonical    = errors.New("non-minimal uvarint")
	errTooLong         = errors.New("too long")
	errTooMany         = errors.New("too many elements")
	errEmptyCategory   = errors.New("empty category")
	errUnsortedCatSet  = errors.New("category set not sorted")
	errDuplicateCatSet = errors.New("duplicate category")
	errBadFlag         = errors.New("flag must be 0 or 1")
	errBadReach        = errors.New("reach must be 0, 1 or 2")
	errEmptyRun        = errors.New("history run of length 0")
	errUnsortedLasts   = errors.New("lasts not strictly ascending")
	errBadLast         = errors.New("last count not before the message")
)

// AppendFrame appends m's frame (length prefix, type byte, payload) to dst.
// It fails, leaving dst as it was, if a field breaks its limit or the frame
// would exceed MaxFrameBytes.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	return AppendFrameAt(dst, m, ProtocolVersion)
}

// AppendFrameAt is AppendFrame for a link running at wire version v: the
// fields newer than v are left out.
func AppendFrameAt(dst []byte, m Message, v uint16) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst, err := appendMessage(dst, m, v)
	if err != nil {
		return dst[:start], err
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-headerLen))
	return dst, nil
}

// WriteFrame encodes m and writes its frame with a single Write. Hosts that
// write many frames can reuse a buffer with AppendFrame instead.
func WriteFrame(w io.Writer, m Message) error {
	b, err := AppendFrame(nil, m)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("newsnet: write frame: %w", err)
	}
	return nil
}

// ReadFrame reads one frame and decodes it. The length prefix is checked
// against MaxFrameBytes before any allocation. buf is used as scratch space
// if it is large enough (pass one of MaxFrameBytes to never allocate for the
// frame itself); the returned message never aliases it.
//
// A clean end of stream before the frame starts returns io.EOF; one inside a
// frame returns an error wrapping io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, buf []byte) (Message, error) {
	return ReadFrameAt(r, buf, ProtocolVersion)
}

// ReadFrameAt is ReadFrame for a link running at wire version v.
func ReadFrameAt(r io.Reader, buf []byte, v uint16) (Message, error) {
	var hdr []byte
	if cap(buf) >= headerLen {
		hdr = buf[:headerLen]
	} else {
		hdr = make([]byte, headerLen)
	}
	if _, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("newsnet: read frame header: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr)
	if n == 0 {
		return nil, fmt.Errorf("newsnet: read frame: %w", errEmptyFrame)
	}
	if n > MaxFrameBytes {
		return nil, fmt.Errorf("newsnet: read frame: %w: %d bytes > %d", errFrameTooLarge, n, MaxFrameBytes)
	}
	if uint32(cap(buf)) >= n {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("newsnet: read frame body: %w", err)
	}
	return DecodeMessageAt(buf, v)
}

// EncodeMessage returns m's type byte and payload: a frame without its
// length prefix.
func EncodeMessage(m Message) ([]byte, error) {
	return appendMessage(nil, m, ProtocolVersion)
}

// DecodeMessage decodes a frame without its length prefix: the type byte and
// the payload. The message does not alias frame.
func DecodeMessage(frame []byte) (Message, error) {
	return DecodeMessageAt(frame, ProtocolVersion)
}

// DecodeMessageAt is DecodeMessage for a frame of a link running at wire
// version v.
func DecodeMessageAt(frame []byte, v uint16) (Message, error) {
	if len(frame) == 0 {
		return nil, fmt.Errorf("newsnet: decode: %w", errEmptyFrame)
	}
	if len(frame) > MaxFrameBytes {
		return nil, fmt.Errorf("newsnet: decode: %w: %d bytes > %d", errFrameTooLarge, len(frame), MaxFrameBytes)
	}
	t := msgType(frame[0])
	if t == (*Multicast).msgType(nil) {
		return decodeMulticast(frame[1:], v)
	}
	k := kindAt(t)
	if k == nil {
		return nil, fmt.Errorf("newsnet: decode: %w %d", errUnknownType, t)
	}
	m := k.new()
	d := decoder{b: frame[1:], version: v}
	m.unmarshal(&d)
	return decoded(m, k.name, &d)
}

// decodeMulticast is DecodeMessage for the frame that every hop of every
// item decodes. Called directly rather than through the Message
// interface, the decoder stays on the stack, so advancing it costs no
// garbage collector write barrier (it did, once per field and history run,
// whenever a collection was marking).
func decodeMulticast(payload []byte, v uint16) (Message, error) {
	m := new(Multicast)
	d := decoder{b: payload, version: v}
	m.unmarshal(&d)
	return decoded(m, "Multicast", &d)
}

// decoded finishes a decoding: the message, or the decoder's error.
func decoded(m Message, name string, d *decoder) (Message, error) {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d after the message", errTrailingBytes, len(d.b))
	}
	if d.err != nil {
		return nil, fmt.Errorf("newsnet: decode %s: %w", name, d.err)
	}
	return m, nil
}

// appendMessage appends m's type byte and payload to dst.
func appendMessage(dst []byte, m Message, v uint16) ([]byte, error) {
	return appendMessageSizing(dst, m, v, false)
}

// appendMessageSizing is appendMessage; with sizing set, opaque byte
// fields are counted toward the frame's size but not copied (CheckFrame).
func appendMessageSizing(dst []byte, m Message, v uint16, sizing bool) ([]byte, error) {
	if m == nil {
		return dst, fmt.Errorf("newsnet: encode %T: %w", m, errNilMessage)
	}
	t, ok := typeOf(m)
	if !ok {
		return dst, fmt.Errorf("newsnet: encode %T: message type not registered under type byte %d (registry.go)", m, t)
	}
	// Registered messages are pointers (kindOf): a nil one would panic on
	// its first field.
	if reflect.ValueOf(m).IsNil() {
		return dst, fmt.Errorf("newsnet: encode %T: %w", m, errNilMessage)
	}
	start := len(dst)
	e := encoder{b: append(dst, byte(t)), version: v, sizing: sizing}
	m.marshal(&e)
	if n := len(e.b) - start + e.skipped; e.err == nil && n > MaxFrameBytes {
		e.err = fmt.Errorf("%w: %d bytes > %d", errFrameTooLarge, n, MaxFrameBytes)
	}
	if e.err != nil {
		return dst[:start], fmt.Errorf("newsnet: encode %s: %w", kindAt(t).name, e.err)
	}
	return e.b, nil
}

// CheckFrame reports whether m can be sent: the error AppendFrame would
// return, found without copying its opaque bytes (a multicast's payload),
// so a publisher refuses a message that no link could carry at the cost
// of encoding its small fields only.
func CheckFrame(m Message) error {
	bp := checkBufs.Get().(*[]byte)
	b, err := appendMessageSizing((*bp)[:0], m, ProtocolVersion, true)
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		checkBufs.Put(bp)
	}
	return err
}

var checkBufs = sync.Pool{New: func() any { return new([]byte) }}

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

// SizeOf estimates the bytes of m's frame. Flow control counts queued
// frames with it on both sides (the core when it sends, the host when it
// reports them written), so it only needs to be cheap, deterministic and
// close: payloads, paths and lists are counted exactly, small fixed fields
// roughly.
func SizeOf(m Message) int {
	const frame = headerLen + 1 + 8 // length prefix, type byte, a few small fields
	switch m := m.(type) {
	case *Multicast:
		return frame + multicastSize(m)
	case *Recovered:
		n := frame + pathSize(m.Trail) + len(m.Source) + 5*len(m.Missing)
		if m.Msg != nil {
			n += multicastSize(m.Msg)
		}
		for _, cc := range m.Categories {
			n += len(cc.Category) + 6
		}
		return n
	case *Recover:
		return frame + len(m.Source) + 5*len(m.Counts) + pathSize(m.Trail)
	case *CatchUp:
		n := frame + pathSize(m.Trail) + catSetSize(m.Categories)
		for _, k := range m.Known {
			n += len(k.Source) + 6
		}
		return n
	case *CatchUpDone:
		n := frame + pathSize(m.Trail)
		for _, k := range m.Next {
			n += len(k.Source) + 6
		}
		return n
	case *LatestHeader:
		return frame + len(m.Source) + len(m.Category) + historySize(m.History, m.historyWire) + 6*len(m.Lasts)
	case *RoutingInfo:
		return frame + catSetSize(m.Categories)
	case *PartitionInfo:
		return frame + 16 + pathSize(m.Path)
	case *JoinAccept:
		return frame + 16 + pathSize(m.Path)
	case *Siblings:
		return frame + pathSize(m.IDs)
	case *DirectRequest:
		return frame + len(m.Source) + catSetSize(m.Categories) + pathSize(m.Trail)
	case *DirectAnswer:
		return frame + len(m.Source) + len(m.Publisher) + len(m.Refused) + catSetSize(m.Categories) + pathSize(m.Trail)
	case *DirectHello:
		return frame + len(m.From) + len(m.Source) + catSetSize(m.Categories)
	case *DirectCover:
		return frame + len(m.Source) + catSetSize(m.Categories)
	case *ReachReport:
		return frame + reachReportSize(m)
	}
	return frame + 64
}

func multicastSize(m *Multicast) int {
	return 16 + 10 + len(m.Category) + len(m.Source) + len(m.Payload) + historySize(m.History, m.historyWire) + 6*len(m.Lasts) + 18*len(m.Audience)
}

func pathSize(p []ServantID) int {
	n := 1
	for _, id := range p {
		n += len(id) + 1
	}
	return n
}

func catSetSize(cs CategorySet) int {
	n := 1
	for _, c := range cs {
		n += len(c) + 1
	}
	return n
}
