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
