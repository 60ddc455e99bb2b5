package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// itemDomain prefixes the item encoding in the signed message, so an item
// signature is valid for nothing else.
const itemDomain = "newsdesk item v1\x00"

// The signature blob stored in news.Item.Signature:
//
//	scheme     1 byte (= 1: Ed25519)
//	key        32 bytes, the publisher's public key
//	signature  64 bytes, Ed25519 over ItemSigningBytes
//
// The key travels with the item because Source is a UUID, not the key: the
// receiver checks that the key owns the source (SourceOwnedBy) and looks the
// key up in the network definition (is it a publisher, in which categories,
// is it revoked). Ed25519 binds the key
// into the signature, so the key cannot be swapped for another. The scheme
// byte lets a later format (another algorithm, a key ID) be told apart.
// 97 bytes fit news.MaxSignatureBytes.
const (
	sigSchemeEd25519  = 1
	ItemSignatureSize = 1 + ed25519.PublicKeySize + ed25519.SignatureSize
)

// ItemSigningBytes returns the message an item's signature covers: the
// domain prefix followed by the item's canonical wire encoding (news.Item
// MarshalBinary) with Signature empty and Received left out
// (Received is local and never encoded). So every field that travels is
// covered: ID, Source, SourceCount, Created (to the nanosecond), Urgent,
// Supersedes, At, Expires, MustRead, Category, Title, Author and Body. (An
// item with At, Expires or MustRead is encoded in format 2; one without
// them in format 1, so
// the signatures of items made before those fields existed still verify.) The news encoding is
// canonical (minimal varints, no optional spellings), so a receiver
// rebuilds these bytes exactly. An invalid item has no signing bytes.
func ItemSigningBytes(it *news.Item) ([]byte, error) {
	if enc := it.KeptEncoding(); enc != nil {
		// An envelope format's item is its encoding as it came: the
		// signed message is the part before its signature, as for any
		// format.
		h, err := news.ParseHeader(enc)
		if err != nil {
			return nil, err
		}
		msg := make([]byte, 0, len(itemDomain)+h.Unsigned+1)
		return append(append(append(msg, itemDomain...), enc[:h.Unsigned]...), 0), nil
	}
	c := *it // shallow: the strings are shared, not copied
	c.Signature = nil
	c.Received = time.Time{}
	buf := make([]byte, 0, len(itemDomain)+64+len(c.Category)+len(c.Title)+len(c.Author)+len(c.Body))
	return c.AppendBinary(append(buf, itemDomain...))
}

// SignItem signs it with id's key and sets it.Signature. Sign after every
// field is final, SourceCount included: the network layer assigns the count
// before it signs, and a change afterwards breaks the signature.
func SignItem(id *Identity, it *news.Item) error {
	if it.Newer != 0 {
		return fmt.Errorf("sign item: item %s is of a newer format", it.ID)
	}
	msg, err := ItemSigningBytes(it)
	if err != nil {
		return fmt.Errorf("sign item: %w", err)
	}
	sig := make([]byte, 0, ItemSignatureSize)
	sig = append(sig, sigSchemeEd25519)
	sig = append(sig, id.Public...)
	sig = append(sig, id.Sign(msg)...)
	it.Signature = sig
	return nil
}

// SignEncoded is SignItem that also returns the item's encoding with its
// signature (news.Item.MarshalBinary), encoding and validating the item
// once: the signed message is the encoding with an empty signature, and
// the signed encoding differs from it only in that last field.
func SignEncoded(id *Identity, it *news.Item) ([]byte, error) {
	if it.Newer != 0 {
		return nil, fmt.Errorf("sign item: item %s is of a newer format", it.ID)
	}
	c := *it // shallow: the strings are shared, not copied
	c.Signature = nil
	c.Received = time.Time{}
	buf := make([]byte, 0, len(itemDomain)+64+len(c.Category)+len(c.Title)+len(c.Author)+len(c.Body)+1+ItemSignatureSize)
	msg, err := c.AppendWritten(append(buf, itemDomain...))
	if err != nil {
		return nil, fmt.Errorf("sign item: %w", err)
	}
	sig := make([]byte, 0, ItemSignatureSize)
	sig = append(sig, sigSchemeEd25519)
	sig = append(sig, id.Public...)
	sig = append(sig, id.Sign(msg)...)
	// msg ends in the empty signature's length, a single zero byte.
	enc := binary.AppendUvarint(msg[len(itemDomain):len(msg)-1], uint64(len(sig)))
	enc = append(enc, sig...)
	it.Signature = sig
	return enc, nil
}

// verifyItemSignature checks that the item's signature verifies for the key
// its blob names and that the key owns the item's source, and returns that
// key. It says nothing about whether the key may publish.
func verifyItemSignature(it *news.Item) (ed25519.PublicKey, error) {
	if it == nil {
		return nil, reject(Invalid, "no item")
	}
	if len(it.Signature) == 0 {
		return nil, reject(Unsigned, "item "+it.ID.String()+" has no signature")
	}
	msg, err := ItemSigningBytes(it)
	if err != nil {
		return nil, reject(Invalid, err.Error())
	}
	return checkItemSignature(it.ID, it.Source, it.Signature, msg)
}

// EncodedSigner is ItemSigner for an item's encoding as it arrived, of
// which h is the header (news.ParseHeader): the signature is checked over
// those bytes, so nothing is decoded or encoded again, and the check does
// not depend on reading the item's text.
func EncodedSigner(h *news.Header, encoded []byte) (ed25519.PublicKey, error) {
	if len(h.Signature) == 0 {
		return nil, reject(Unsigned, "item "+h.ID.String()+" has no signature")
	}
	if h.Unsigned > len(encoded) {
		return nil, reject(Invalid, "item "+h.ID.String()+": header of other bytes")
	}
	msg := make([]byte, 0, len(itemDomain)+h.Unsigned+1)
	msg = append(append(append(msg, itemDomain...), encoded[:h.Unsigned]...), 0) // an empty signature
	return checkItemSignature(h.ID, h.Source, h.Signature, msg)
}

// checkItemSignature checks the signature blob sig of item id over msg,
// and that the key it names owns source.
func checkItemSignature(id, source uuid.UUID, sig, msg []byte) (ed25519.PublicKey, error) {
	if len(sig) != ItemSignatureSize || sig[0] != sigSchemeEd25519 {
		return nil, reject(BadSignature, fmt.Sprintf("item %s: malformed signature (%d bytes)", id, len(sig)))
	}
	key := ed25519.PublicKey(bytes.Clone(sig[1 : 1+ed25519.PublicKeySize]))
	if !ed25519.Verify(key, msg, sig[1+ed25519.PublicKeySize:]) {
		return nil, reject(BadSignature, fmt.Sprintf("item %s: signature does not verify for %s", id, PublicKeyString(key)))
	}
	if !SourceOwnedBy(source, key) {
		return nil, reject(ForeignSource, fmt.Sprintf("item %s: source %s does not belong to %s", id, source, PublicKeyString(key)))
	}
	return key, nil
}

// ItemSigner returns the key that signed the item, once its signature
// verifies for it and the key owns the item's source; it says nothing about
// what the key may do.
func ItemSigner(it *news.Item) (ed25519.PublicKey, error) { return verifyItemSignature(it) }

// VerifyItem checks an item before it is stored, shown or relayed, and
// returns the publisher key that signed it. The signature is checked first,
// so a refusal for the key (UntrustedKey, RevokedKey, CategoryNotAllowed) is
// always about a key that really signed the item; a forgery is
// BadSignature whatever key it names. The error is a *RejectionError
// (ReasonOf gives the reason to count).
//
// The key must own the item's Source (ForeignSource otherwise), so no key
// can publish into another installation's stream.
//
// What it does not check: duplicates and replays (same ID or same source
// count: the ordering layer's job) and whether the category is in the
// catalog (an item may outlive a catalog change).
func (n *Network) VerifyItem(it *news.Item) (ed25519.PublicKey, error) {
	key, err := verifyItemSignature(it)
	if err != nil {
		return nil, err
	}
	if err := n.MayPublish(key, it.Category); err != nil {
		return nil, err
	}
	return key, nil
}

// VerifyCorrection checks that correction may replace original: it
// supersedes original, it passes VerifyItem, and its key is the key that
// signed original or an admin key. A correction whose original this
// servant does not hold cannot be checked; the caller keeps it as a plain
// item (VerifyItem) and hides nothing.
func (n *Network) VerifyCorrection(original, correction *news.Item) error {
	if original == nil || correction == nil {
		return reject(Mismatch, "correction check without both items")
	}
	if correction.Supersedes != original.ID {
		return reject(Mismatch, fmt.Sprintf("item %s supersedes %s, not %s", correction.ID, correction.Supersedes, original.ID))
	}
	key, err := n.VerifyItem(correction)
	if err != nil {
		return err
	}
	return n.MayCorrect(key, correction.ID, original)
}

// MayCorrect reports whether key, whose signature on correction was
// checked, may replace original: it signed original too, or it is an
// admin's.
func (n *Network) MayCorrect(key ed25519.PublicKey, correction uuid.UUID, original *news.Item) error {
	origKey, err := verifyItemSignature(original)
	if err != nil {
		return fmt.Errorf("original: %w", err)
	}
	if !key.Equal(origKey) && !n.IsAdmin(key) {
		return reject(NotAuthorized, fmt.Sprintf("correction %s by %s: only the original's publisher or an admin may correct %s", correction, PublicKeyString(key), original.ID))
	}
	return nil
}

// SignatureKey returns the key an item's signature blob names, without
// checking the signature: for an item that passed VerifyItem or
// ItemSigner already (the relays' limits count items per key after the
// check). Nil for a malformed blob.
func SignatureKey(it *news.Item) ed25519.PublicKey {
	sig := it.Signature
	if len(sig) != ItemSignatureSize || sig[0] != sigSchemeEd25519 {
		return nil
	}
	return ed25519.PublicKey(bytes.Clone(sig[1 : 1+ed25519.PublicKeySize]))
}
