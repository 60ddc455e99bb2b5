package trust

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// MaxRetractionReasonRunes bounds the reason shown in place of a retracted
// item.
const MaxRetractionReasonRunes = 500

// retractionDomain prefixes the signed message of a retraction.
const retractionDomain = "newsdesk retraction v1\x00"

// Retraction hides an item everywhere. It is valid when signed by an admin,
// or by the key that signed the item.
type Retraction struct {
	ItemID    uuid.UUID         // the retracted item
	Reason    string            // shown instead of the item; one line, may be empty
	Created   time.Time         // when it was signed (signer's clock)
	Signer    ed25519.PublicKey // who retracts
	Signature []byte            // Ed25519 over retractionDomain + the fields above
}

// The wire encoding, format 1:
//
//	format     1 byte (= 1)
//	item id    16 bytes
//	created    8 bytes, big-endian int64 Unix nanoseconds
//	reason     uvarint length + UTF-8 bytes
//	signer     32 bytes
//	signature  64 bytes
//
// Canonical like the item encoding (minimal varint, no trailing bytes), so
// Marshal(Unmarshal(b)) == b. The signed message is retractionDomain
// followed by the same bytes from item id to reason.
const (
	retractionFormatV1 = 1
	maxReasonBytes     = MaxRetractionReasonRunes * utf8MaxRune
	utf8MaxRune        = 4
	// MaxRetractionBytes bounds an encoded retraction.
	MaxRetractionBytes = 1 + 16 + 8 + binary.MaxVarintLen32 + maxReasonBytes + ed25519.PublicKeySize + ed25519.SignatureSize
)

// SignRetraction returns a retraction of itemID signed by id.
func (id *Identity) SignRetraction(itemID uuid.UUID, reason string, now time.Time) (*Retraction, error) {
	r := &Retraction{ItemID: itemID, Reason: reason, Created: now, Signer: slices.Clone(id.Public)}
	msg, err := r.signingBytes()
	if err != nil {
		return nil, err
	}
	r.Signature = id.Sign(msg)
	return r, nil
}

// validate checks the fields other than the signature.
func (r *Retraction) validate() error {
	if r.ItemID == uuid.Nil {
		return fmt.Errorf("retraction: item id: required")
	}
	if err := news.CheckLine("retraction: reason", r.Reason, MaxRetractionReasonRunes); err != nil {
		return err
	}
	if r.Created.IsZero() {
		return fmt.Errorf("retraction: created: required")
	}
	if r.Created.Before(time.Unix(0, math.MinInt64)) || r.Created.After(time.Unix(0, math.MaxInt64)) {
		return fmt.Errorf("retraction: created: outside the years 1678 to 2262")
	}
	return nil
}

func (r *Retraction) appendBody(b []byte) []byte {
	b = append(b, r.ItemID[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Created.UnixNano()))
	b = binary.AppendUvarint(b, uint64(len(r.Reason)))
	return append(b, r.Reason...)
}

func (r *Retraction) signingBytes() ([]byte, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r.appendBody([]byte(retractionDomain)), nil
}

// MarshalBinary encodes a signed retraction.
func (r *Retraction) MarshalBinary() ([]byte, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	if len(r.Signer) != ed25519.PublicKeySize || len(r.Signature) != ed25519.SignatureSize {
		return nil, fmt.Errorf("retraction: not signed")
	}
	b := append(make([]byte, 0, 1+16+8+2+len(r.Reason)+96), retractionFormatV1)
	b = r.appendBody(b)
	b = append(b, r.Signer...)
	return append(b, r.Signature...), nil
}

// UnmarshalBinary decodes a retraction (it does not verify the signature:
// see VerifyRetraction). On error *r is unchanged; it never panics.
func (r *Retraction) UnmarshalBinary(data []byte) error {
	if len(data) > MaxRetractionBytes {
		return fmt.Errorf("retraction: longer than %d bytes", MaxRetractionBytes)
	}
	const fixed = 1 + 16 + 8
	if len(data) < fixed+1+ed25519.PublicKeySize+ed25519.SignatureSize {
		return fmt.Errorf("retraction: truncated")
	}
	if data[0] != retractionFormatV1 {
		return fmt.Errorf("retraction: unknown format %d", data[0])
	}
	var n Retraction
	copy(n.ItemID[:], data[1:17])
	n.Created = time.Unix(0, int64(binary.BigEndian.Uint64(data[17:25]))).UTC()
	rest := data[fixed:]
	l, k := binary.Uvarint(rest)
	if k <= 0 || k != len(binary.AppendUvarint(nil, l)) {
		return fmt.Errorf("retraction: bad reason length")
	}
	rest = rest[k:]
	if l > maxReasonBytes || uint64(len(rest)) != l+ed25519.PublicKeySize+ed25519.SignatureSize {
		return fmt.Errorf("retraction: reason length %d does not fit the encoding", l)
	}
	n.Reason = string(rest[:l])
	rest = rest[l:]
	n.Signer = slices.Clone(rest[:ed25519.PublicKeySize])
	n.Signature = slices.Clone(rest[ed25519.PublicKeySize:])
	if err := n.validate(); err != nil {
		return err
	}
	*r = n
	return nil
}

// VerifyRetraction checks a retraction; original is the item it retracts,
// or nil when this servant does not hold it. It is accepted when the
// signature verifies and the signer is not revoked and is an admin, or is
// the key that signed original. Without the original only an admin's
// retraction can be decided: a publisher's is refused as UnknownItem, and
// the caller may keep it until the item arrives. Errors are
// *RejectionError.
func (n *Network) VerifyRetraction(r *Retraction, original *news.Item) error {
	if r == nil {
		return reject(Invalid, "no retraction")
	}
	if len(r.Signature) == 0 {
		return reject(Unsigned, "retraction of "+r.ItemID.String()+" has no signature")
	}
	msg, err := r.signingBytes()
	if err != nil {
		return reject(Invalid, err.Error())
	}
	if len(r.Signer) != ed25519.PublicKeySize || len(r.Signature) != ed25519.SignatureSize || !ed25519.Verify(r.Signer, msg, r.Signature) {
		return reject(BadSignature, "retraction of "+r.ItemID.String()+": signature does not verify")
	}
	if n.IsRevoked(r.Signer) {
		return reject(RevokedKey, "retraction by revoked key "+PublicKeyString(r.Signer))
	}
	if n.IsAdmin(r.Signer) {
		return nil
	}
	if original == nil {
		return reject(UnknownItem, fmt.Sprintf("retraction of %s by %s, a non-admin: the item is not here to check who published it", r.ItemID, PublicKeyString(r.Signer)))
	}
	if original.ID != r.ItemID {
		return reject(Mismatch, fmt.Sprintf("retraction of %s checked against item %s", r.ItemID, original.ID))
	}
	origKey, err := verifyItemSignature(original)
	if err != nil {
		return fmt.Errorf("original: %w", err)
	}
	if !origKey.Equal(r.Signer) {
		return reject(NotAuthorized, fmt.Sprintf("retraction of %s by %s: only its publisher or an admin may retract it", r.ItemID, PublicKeyString(r.Signer)))
	}
	return nil
}
