package trust

import (
	"bytes"
	"crypto/ed25519"
	"errors"
)

// Rival definitions. Two admins who edit at the same moment each sign the
// next version of the definition they hold: two different documents with
// one version number. Each servant accepts the first it sees and refuses
// the other as not newer, so without a rule the network would stay split
// between them. AcceptRival is that rule: the same at every servant,
// whichever it received first, so all end with the same one.

// ErrLosesTie: a rival of the definition held that does not replace it.
var ErrLosesTie = errors.New("network definition: a rival of the same version that does not win")

// AcceptRival decides whether next, a different definition with the same
// version as cur, replaces it. The rule looks at the two rivals only, so
// every servant decides alike whichever it holds:
//
//   - next's signer must be an admin of cur and not revoked by it: an admin
//     that cur removes cannot come back through a rival (it could choose
//     its signature to win a tie);
//   - if cur's signer is an admin of next too, the lower signature in byte
//     order wins; if next removed cur's signer, next wins outright.
//
// Two rivals that each remove the other's signer both stay where they are
// held, until a later version. Errors wrap ErrNotNewer (another version),
// ErrOtherNetwork, ErrNotAdmin, ErrBadSignature or ErrLosesTie.
func (cur *SignedNetwork) AcceptRival(next *SignedNetwork) error {
	switch {
	case next == nil:
		return ruleErr(ErrInvalidDefinition, "missing")
	case next.Version != cur.Version:
		return ruleErr(ErrNotNewer, "version %d is not a rival of version %d", next.Version, cur.Version)
	case next.ID != cur.ID:
		return ruleErr(ErrOtherNetwork, "for network %s (%q), not %s (%q)", next.ID, next.Name, cur.ID, cur.Name)
	case bytes.Equal(next.Signature, cur.Signature):
		return ruleErr(ErrLosesTie, "the definition held")
	case !trustedAdmin(&cur.Network, next.Signer):
		return ruleErr(ErrNotAdmin, "rival signed by a key that is not an admin of the version held (%s)", PublicKeyString(next.Signer))
	}
	if err := next.verifySignature(); err != nil {
		return err
	}
	if trustedAdmin(&next.Network, cur.Signer) && bytes.Compare(next.Signature, cur.Signature) >= 0 {
		return ruleErr(ErrLosesTie, "version %d signed by %s loses to the one held", next.Version, PublicKeyString(next.Signer))
	}
	return nil
}

// trustedAdmin reports whether k is an admin of n that n does not revoke.
func trustedAdmin(n *Network, k ed25519.PublicKey) bool { return n.IsAdmin(k) && !n.IsRevoked(k) }

// SameContent reports whether n and o say the same, version included:
// their canonical encodings, lists sorted, are equal.
func (n *Network) SameContent(o *Network) bool {
	x, y := n.Clone(), o.Clone()
	x.normalize()
	y.normalize()
	bx, err1 := x.marshalNetwork()
	by, err2 := y.marshalNetwork()
	return err1 == nil && err2 == nil && bytes.Equal(bx, by)
}
