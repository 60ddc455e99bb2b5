package newsnet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The hello opens every connection, in both directions, before any frame:
//
//	magic   "NDSK"
//	min     uint16, big-endian: the oldest wire version the side speaks
//	max     uint16, big-endian: the newest
//	release uint8 length, then the release ("0.1.0"): printable ASCII, at
//	        most MaxReleaseBytes
//
// Both sides write theirs, then read the other's, so the exchange costs no
// round trip; each then works out the same link version with
// NegotiateVersion: the highest version both speak. A peer whose range
// does not meet ours is refused, with both ranges in the reason.
const helloMagic = "NDSK"

// MaxReleaseBytes bounds the release a hello carries.
const MaxReleaseBytes = 32

var (
	errBadMagic   = errors.New("bad magic (peer is not a newsdesk servant)")
	errBadVersion = errors.New("no wire version in common")
	errBadHello   = errors.New("malformed hello")
)

// Hello is one side's hello.
type Hello struct {
	Min, Max uint16 // the wire versions it speaks
	Release  string // its release, "" when unknown
}

// OwnHello is this build's hello with release.
func OwnHello(release string) Hello {
	return Hello{Min: MinProtocolVersion, Max: ProtocolVersion, Release: release}
}

// String is the hello as the logs and refusals show it: "protocol 5–6
// (Newsdesk 0.2.0)".
func (h Hello) String() string {
	v := fmt.Sprintf("protocol %d", h.Max)
	if h.Min != h.Max {
		v = fmt.Sprintf("protocol %d–%d", h.Min, h.Max)
	}
	if h.Release != "" {
		v += " (Newsdesk " + h.Release + ")"
	}
	return v
}

// WriteHello writes h. The hello is at most 41 bytes, which a TCP send
// buffer always absorbs; over a synchronous pipe (net.Pipe) write it from
// a separate goroutine.
func WriteHello(w io.Writer, h Hello) error {
	if err := checkRelease(h.Release); err != nil {
		return fmt.Errorf("newsnet: write hello: %w", err)
	}
	b := make([]byte, 0, len(helloMagic)+5+len(h.Release))
	b = append(b, helloMagic...)
	b = binary.BigEndian.AppendUint16(b, h.Min)
	b = binary.BigEndian.AppendUint16(b, h.Max)
	b = append(b, byte(len(h.Release)))
	b = append(b, h.Release...)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("newsnet: write hello: %w", err)
	}
	return nil
}

// ReadHello reads the peer's hello. It fails on a wrong magic, a short
// read, a range with min above max or a malformed release; whether the
// range suits us is NegotiateVersion's to say.
func ReadHello(r io.Reader) (Hello, error) {
	var b [len(helloMagic) + 5]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w", err)
	}
	if string(b[:len(helloMagic)]) != helloMagic {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w: % x", errBadMagic, b[:len(helloMagic)])
	}
	h := Hello{
		Min: binary.BigEndian.Uint16(b[len(helloMagic):]),
		Max: binary.BigEndian.Uint16(b[len(helloMagic)+2:]),
	}
	if h.Min > h.Max || h.Min == 0 {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w: versions %d to %d", errBadHello, h.Min, h.Max)
	}
	n := int(b[len(b)-1])
	if n > MaxReleaseBytes {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w: release of %d bytes", errBadHello, n)
	}
	rel := make([]byte, n)
	if _, err := io.ReadFull(r, rel); err != nil {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w", err)
	}
	h.Release = string(rel)
	if err := checkRelease(h.Release); err != nil {
		return Hello{}, fmt.Errorf("newsnet: read hello: %w", err)
	}
	return h, nil
}

func checkRelease(rel string) error {
	if len(rel) > MaxReleaseBytes {
		return fmt.Errorf("%w: release longer than %d bytes", errBadHello, MaxReleaseBytes)
	}
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: release %q is not printable ASCII", errBadHello, rel)
		}
	}
	return nil
}

// NegotiateVersion returns the wire version of a link between own and
// peer: the highest both speak. When their ranges do not meet, the error
// says both, and what to do: "peer speaks protocol 2–3, this servant 4–5:
// update one of them".
func NegotiateVersion(own, peer Hello) (uint16, error) {
	v := min(own.Max, peer.Max)
	if v < max(own.Min, peer.Min) {
		return 0, fmt.Errorf("newsnet: %w: peer speaks %v, this servant %v: update one of them", errBadVersion, peer, own)
	}
	return v, nil
}
