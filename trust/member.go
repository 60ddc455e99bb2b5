package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Reach you can trust (issue 32, part 4). A must-read item's publisher
// counts who confirmed it and lists who has it without having done so
// from blobs that travel up the tree in reach reports, merged by every
// servant on the way. Version-1 blobs (ack.go) prove little: an identity
// is not signed at all, and a confirmation is signed by whatever key it
// names, so a relay could invent readers, list a real key under a second
// name, or confirm with keys it made up. The blobs of this file prove
// themselves to any servant holding the network definition, offline:
//
//   - a MemberCert says that an admin of the network admitted a key: the
//     admin's servant signs one for each key that redeemed one of its
//     invitations (network/redeem.go, kind "certify"). Admins and the
//     publishers the definition lists are admitted by the definition
//     itself and need none. A revoked key is never admitted.
//   - an identity blob (a pending reader) and a confirmation blob are
//     signed by the reader's key over the item, the network and the name,
//     and carry the reader's certificate.
//
// Blob (format 2):
//
//	marker   1 byte (= 0: sorts before every version-1 blob, so that
//	         version-1 junk can never push a verified blob out of a list
//	         the overlay bounds by sorting, newsnet identityList)
//	format   1 byte (= 2)
//	key      32 bytes, the reader's installation key
//	sig      64 bytes, Ed25519 by key over reachSigningBytes
//	certlen  1 byte, 0 or MemberCertSize
//	cert     certlen bytes (MemberCert.Marshal)
//	name     the rest, UTF-8, at most MaxReachName2 bytes
//
// A blob without a certificate verifies only for an admin or a listed
// publisher. An installation that holds no certificate and is neither
// makes version-1 blobs (ack.go): the publisher counts those as reported
// by relays, never as verified.

// MemberCertSize is the encoded size of a MemberCert.
const MemberCertSize = 8 + adminHintSize + ed25519.SignatureSize

// adminHintSize: the first bytes of the admin key that signed a
// certificate, so a verifier tries one admin key, not all of them.
const adminHintSize = 8

const (
	memberCertDomain    = "newsdesk member v1\x00"
	reachIdentityDomain = "newsdesk reach identity v2\x00"
	reachAckDomain      = "newsdesk ack v2\x00"
	reachBlobMarker     = 0
	reachBlobFormat2    = 2
	reachBlob2Head      = 2 + ed25519.PublicKeySize + ed25519.SignatureSize + 1
)

// MaxReachName2 bounds the display name in a format-2 blob: what is left
// of MaxReachBlob with a certificate (77 bytes).
const MaxReachName2 = MaxReachBlob - reachBlob2Head - MemberCertSize

// Errors of VerifyReachBlob besides ErrBadReachBlob, errors.Is targets.
var (
	// ErrLegacyReachBlob: a version-1 blob (ack.go), from an installation
	// of an older release or one without a certificate: it proves no
	// membership, so it counts as reported by relays.
	ErrLegacyReachBlob = errors.New("trust: reach blob of version 1 proves no membership")
	// ErrNotAdmitted: the blob verifies, but its key is not admitted to
	// the network (no valid certificate, not an admin or publisher, or
	// revoked).
	ErrNotAdmitted = errors.New("trust: key not admitted to the network")
)

// MemberCert is an admin's statement that Key was admitted to network
// Network at Issued.
type MemberCert struct {
	Network uuid.UUID
	Key     ed25519.PublicKey
	Issued  time.Time // whole seconds
	// AdminHint is the first bytes of the admin key that signed it.
	AdminHint [adminHintSize]byte
	Signature []byte
}

func memberCertSigningBytes(network uuid.UUID, key ed25519.PublicKey, issued int64) []byte {
	b := make([]byte, 0, len(memberCertDomain)+16+ed25519.PublicKeySize+8)
	b = append(b, memberCertDomain...)
	b = append(b, network[:]...)
	b = append(b, key...)
	return binary.BigEndian.AppendUint64(b, uint64(issued))
}

// SignMemberCert returns admin's certificate that key was admitted to
// network at now.
func (id *Identity) SignMemberCert(network uuid.UUID, key ed25519.PublicKey, now time.Time) *MemberCert {
	c := &MemberCert{Network: network, Key: bytes.Clone(key), Issued: time.Unix(now.Unix(), 0).UTC()}
	copy(c.AdminHint[:], id.Public)
	c.Signature = id.Sign(memberCertSigningBytes(network, key, now.Unix()))
	return c
}

// Marshal encodes c without its network and key (MemberCertSize bytes):
// the verifier knows the network, and the blob that carries c names the
// key.
func (c *MemberCert) Marshal() []byte {
	b := make([]byte, 0, MemberCertSize)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Issued.Unix()))
	b = append(b, c.AdminHint[:]...)
	return append(b, c.Signature...)
}

// String is c's text form, kept by the installation: base64url of
// network, key and Marshal.
func (c *MemberCert) String() string {
	b := append(append(bytes.Clone(c.Network[:]), c.Key...), c.Marshal()...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseMemberCert decodes String's form.
func ParseMemberCert(s string) (*MemberCert, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16+ed25519.PublicKeySize+MemberCertSize {
		return nil, errors.New("trust: malformed membership certificate")
	}
	var netID uuid.UUID
	copy(netID[:], b)
	return unmarshalMemberCert(netID, ed25519.PublicKey(bytes.Clone(b[16:16+ed25519.PublicKeySize])), b[16+ed25519.PublicKeySize:])
}

func unmarshalMemberCert(network uuid.UUID, key ed25519.PublicKey, b []byte) (*MemberCert, error) {
	if len(b) != MemberCertSize {
		return nil, fmt.Errorf("%w: certificate of %d bytes", ErrBadReachBlob, len(b))
	}
	c := &MemberCert{Network: network, Key: key, Issued: time.Unix(int64(binary.BigEndian.Uint64(b)), 0).UTC()}
	copy(c.AdminHint[:], b[8:])
	c.Signature = bytes.Clone(b[8+adminHintSize:])
	return c, nil
}

// VerifyMemberCert reports whether c admits its key to n now: signed by
// an admin of n, for n, and the key not revoked. A certificate by an
// admin n no longer lists does not admit: its member asks again.
func (n *Network) VerifyMemberCert(c *MemberCert) error {
	if c.Network != n.ID {
		return fmt.Errorf("%w: certificate of another network", ErrNotAdmitted)
	}
	if n.IsRevoked(c.Key) {
		return fmt.Errorf("%w: key revoked", ErrNotAdmitted)
	}
	msg := memberCertSigningBytes(c.Network, c.Key, c.Issued.Unix())
	for _, a := range n.Admins {
		if bytes.HasPrefix(a, c.AdminHint[:]) && ed25519.Verify(a, msg, c.Signature) {
			return nil
		}
	}
	return fmt.Errorf("%w: certificate not signed by an admin of the network", ErrNotAdmitted)
}

// Admitted reports whether key is admitted by n itself (an admin or a
// listed publisher, not revoked): such a key needs no certificate.
func (n *Network) Admitted(key ed25519.PublicKey) bool {
	if n.IsRevoked(key) {
		return false
	}
	_, pub := n.Publisher(key)
	return pub || n.IsAdmin(key)
}

func reachSigningBytes(ack bool, network uuid.UUID, item [16]byte, cert []byte, name string) []byte {
	domain := reachIdentityDomain
	if ack {
		domain = reachAckDomain
	}
	b := make([]byte, 0, len(domain)+16+16+len(cert)+len(name))
	b = append(b, domain...)
	b = append(b, network[:]...)
	b = append(b, item[:]...)
	b = append(b, cert...)
	return append(b, name...)
}

// SignReachBlob returns the format-2 identity (ack false) or confirmation
// (ack true) blob of must-read item by id's reader under display name
// name in network, carrying cert (nil for an admin or listed publisher).
func SignReachBlob(id *Identity, network uuid.UUID, cert *MemberCert, item [16]byte, name string, ack bool) []byte {
	name = cutName(name, MaxReachName2)
	var c []byte
	if cert != nil {
		c = cert.Marshal()
	}
	sig := id.Sign(reachSigningBytes(ack, network, item, c, name))
	b := make([]byte, 0, reachBlob2Head+len(c)+len(name))
	b = append(b, reachBlobMarker, reachBlobFormat2)
	b = append(b, id.Public...)
	b = append(b, sig...)
	b = append(b, byte(len(c)))
	b = append(b, c...)
	return append(b, name...)
}

// VerifyReachBlob checks an identity (ack false) or confirmation (ack
// true) blob of must-read item against n and returns whom it names: its
// signature by the key it names, for this item and network, and the key
// admitted (a certificate VerifyMemberCert accepts, or Admitted). A
// version-1 blob is ErrLegacyReachBlob (with the reader it names, when it
// parses and, for a confirmation, its signature verifies); one that does
// not verify is ErrBadReachBlob; a key not admitted is ErrNotAdmitted.
func (n *Network) VerifyReachBlob(item [16]byte, b []byte, ack bool) (Reader, error) {
	if len(b) > 0 && b[0] == reachBlobVersion {
		var r Reader
		var err error
		if ack {
			r, err = VerifyAck(b, item)
		} else {
			r, err = ParseReaderIdentity(b)
		}
		if err != nil {
			return Reader{}, err
		}
		return r, ErrLegacyReachBlob
	}
	if len(b) < reachBlob2Head || len(b) > MaxReachBlob || b[0] != reachBlobMarker || b[1] != reachBlobFormat2 {
		return Reader{}, fmt.Errorf("%w: blob of %d bytes", ErrBadReachBlob, len(b))
	}
	key := ed25519.PublicKey(bytes.Clone(b[2 : 2+ed25519.PublicKeySize]))
	sig := b[2+ed25519.PublicKeySize : reachBlob2Head-1]
	certLen := int(b[reachBlob2Head-1])
	if certLen != 0 && certLen != MemberCertSize || len(b) < reachBlob2Head+certLen {
		return Reader{}, fmt.Errorf("%w: certificate of %d bytes", ErrBadReachBlob, certLen)
	}
	cert := b[reachBlob2Head : reachBlob2Head+certLen]
	name := b[reachBlob2Head+certLen:]
	if !utf8.Valid(name) {
		return Reader{}, fmt.Errorf("%w: name is not UTF-8", ErrBadReachBlob)
	}
	if !ed25519.Verify(key, reachSigningBytes(ack, n.ID, item, cert, string(name)), sig) {
		return Reader{}, fmt.Errorf("%w: signature does not verify", ErrBadReachBlob)
	}
	r := Reader{Name: string(name), Key: key}
	if certLen == 0 {
		if !n.Admitted(key) {
			return r, fmt.Errorf("%w: %s has no certificate and is no admin or publisher", ErrNotAdmitted, r.KeyString())
		}
		return r, nil
	}
	c, err := unmarshalMemberCert(n.ID, key, cert)
	if err != nil {
		return Reader{}, err
	}
	if err := n.VerifyMemberCert(c); err != nil {
		return r, err
	}
	return r, nil
}

// cutName cuts name to max bytes at a character boundary.
func cutName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	n := max
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}
