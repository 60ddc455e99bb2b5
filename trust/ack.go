package trust

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Must-read reach (issue 15): a reader who has a must-read item is listed
// in its publisher's pending list under a ReaderIdentity until they
// confirm it; the confirmation is an AckProof, signed with the reader's
// installation key, so a servant on the way cannot confirm in someone
// else's name. Both travel as opaque blobs of at most MaxReachBlob bytes
// in the overlay's reach reports (newsnet.MaxIdentityBytes).
//
// Identity blob:            Proof blob:
//
//	version 1 byte (= 1)      version   1 byte (= 1)
//	key     32 bytes          key       32 bytes
//	name    the rest          signature 64 bytes, Ed25519 over AckSigningBytes
//	                          name      the rest
//
// The name is the reader's display name, cut to MaxReachName bytes at a
// character boundary, the same in both, so a confirmation replaces the
// same pending entry the newsroom saw.

// MaxReachBlob bounds an identity or proof blob (newsnet.MaxIdentityBytes).
const MaxReachBlob = 256

// MaxReachName bounds the display name in both blobs: what a proof has
// room for.
const MaxReachName = MaxReachBlob - 1 - ed25519.PublicKeySize - ed25519.SignatureSize

const (
	reachBlobVersion = 1
	// ackDomain prefixes the signed message of an acknowledgement, so it
	// is valid for nothing else.
	ackDomain = "newsdesk ack v1\x00"
)

// ErrBadReachBlob: an identity or proof blob that does not parse or, for
// a proof, whose signature does not verify.
var ErrBadReachBlob = errors.New("trust: bad reader identity or acknowledgement")

// Reader is who a blob names.
type Reader struct {
	Name string
	Key  ed25519.PublicKey
}

// KeyString is the reader's key in text form (PublicKeyString).
func (r Reader) KeyString() string { return PublicKeyString(r.Key) }

// ReaderIdentity returns the identity blob of id's installation under
// display name name.
func ReaderIdentity(id *Identity, name string) []byte {
	name = reachName(name)
	b := make([]byte, 0, 1+ed25519.PublicKeySize+len(name))
	b = append(b, reachBlobVersion)
	b = append(b, id.Public...)
	return append(b, name...)
}

// ParseReaderIdentity decodes an identity blob.
func ParseReaderIdentity(b []byte) (Reader, error) {
	if len(b) < 1+ed25519.PublicKeySize || len(b) > MaxReachBlob || b[0] != reachBlobVersion {
		return Reader{}, fmt.Errorf("%w: identity of %d bytes", ErrBadReachBlob, len(b))
	}
	name := b[1+ed25519.PublicKeySize:]
	if !utf8.Valid(name) {
		return Reader{}, fmt.Errorf("%w: name is not UTF-8", ErrBadReachBlob)
	}
	return Reader{Name: string(name), Key: ed25519.PublicKey(append([]byte(nil), b[1:1+ed25519.PublicKeySize]...))}, nil
}

// AckSigningBytes is the message an acknowledgement's signature covers:
// the domain prefix, the item ID and the name.
func AckSigningBytes(item [16]byte, name string) []byte {
	b := make([]byte, 0, len(ackDomain)+16+len(name))
	b = append(b, ackDomain...)
	b = append(b, item[:]...)
	return append(b, name...)
}

// SignAck returns the proof that the reader of id's installation, under
// display name name, confirmed must-read item.
func SignAck(id *Identity, item [16]byte, name string) []byte {
	name = reachName(name)
	sig := id.Sign(AckSigningBytes(item, name))
	b := make([]byte, 0, 1+ed25519.PublicKeySize+ed25519.SignatureSize+len(name))
	b = append(b, reachBlobVersion)
	b = append(b, id.Public...)
	b = append(b, sig...)
	return append(b, name...)
}

// VerifyAck checks a proof of item and returns whom it names; a proof
// that does not parse, or whose signature is not the named key's over
// this item and name, is ErrBadReachBlob.
func VerifyAck(proof []byte, item [16]byte) (Reader, error) {
	const head = 1 + ed25519.PublicKeySize + ed25519.SignatureSize
	if len(proof) < head || len(proof) > MaxReachBlob || proof[0] != reachBlobVersion {
		return Reader{}, fmt.Errorf("%w: acknowledgement of %d bytes", ErrBadReachBlob, len(proof))
	}
	key := ed25519.PublicKey(append([]byte(nil), proof[1:1+ed25519.PublicKeySize]...))
	sig := proof[1+ed25519.PublicKeySize : head]
	name := proof[head:]
	if !utf8.Valid(name) {
		return Reader{}, fmt.Errorf("%w: name is not UTF-8", ErrBadReachBlob)
	}
	if !ed25519.Verify(key, AckSigningBytes(item, string(name)), sig) {
		return Reader{}, fmt.Errorf("%w: signature does not verify", ErrBadReachBlob)
	}
	return Reader{Name: string(name), Key: key}, nil
}

// reachName cuts name to MaxReachName bytes at a character boundary.
func reachName(name string) string {
	if len(name) <= MaxReachName {
		return name
	}
	n := MaxReachName
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}
