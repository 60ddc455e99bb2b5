package trust

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"

	"github.com/google/uuid"
)

// A source is the UUID an installation publishes under (news.Item.Source):
// every servant numbers, orders and repairs items per source. If any key
// could sign items under any source, one publisher could label an item with
// another's source and a huge count, and every servant would drop the
// victim's real items from then on as old. So a source is bound to the key
// that signs its items, with no registry to keep in step: the source is
// derived from the key.
//
// The layout is an RFC 9562 version-8 ("custom") UUID:
//
//	bytes 0..11   SHA-256("newsdesk source v1\x00" || public key), first 12
//	              bytes, with the version (byte 6) and variant (byte 8) bits
//	              set as RFC 9562 requires: 90 bits of the key's hash
//	bytes 12..15  the epoch: 4 random bytes chosen when the source is made
//
// The epoch lets one key publish under a new source (a store reset must never
// reuse a count, so it starts a new source rather than counting again from
// 1) and lets two installations that share a key keep separate streams.
// Forging a source for another key needs a second preimage of 90 bits of
// SHA-256.
const sourceDomain = "newsdesk source v1\x00"

// sourcePrefix returns the 12 key-bound bytes of a source of key.
func sourcePrefix(key ed25519.PublicKey) [12]byte {
	h := sha256.New()
	h.Write([]byte(sourceDomain))
	h.Write(key)
	var p [12]byte
	copy(p[:], h.Sum(nil))
	p[6] = p[6]&0x0f | 0x80 // version 8
	p[8] = p[8]&0x3f | 0x80 // variant 10 (RFC 9562)
	return p
}

// NewSource returns a fresh source for key: its key-bound prefix and a new
// random epoch.
func NewSource(key ed25519.PublicKey) (uuid.UUID, error) {
	if len(key) != ed25519.PublicKeySize {
		return uuid.Nil, fmt.Errorf("source: key of %d bytes", len(key))
	}
	var u uuid.UUID
	p := sourcePrefix(key)
	copy(u[:12], p[:])
	if _, err := rand.Read(u[12:]); err != nil {
		return uuid.Nil, fmt.Errorf("source: %w", err)
	}
	return u, nil
}

// SourceOwnedBy reports whether items of source src may be signed by key:
// whether src was made by NewSource(key).
func SourceOwnedBy(src uuid.UUID, key ed25519.PublicKey) bool {
	if len(key) != ed25519.PublicKeySize {
		return false
	}
	p := sourcePrefix(key)
	return subtle.ConstantTimeCompare(src[:12], p[:]) == 1
}
