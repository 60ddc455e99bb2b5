// Package trust is the authority model of a Newsdesk network (issue 6): who
// may publish, who may change the network, and who may get in. It holds the
// cryptography and the rules and nothing else: no sockets, no goroutines, no
// storage, no UI. Everything is built from Go's standard library
// (crypto/ed25519, crypto/hmac, crypto/sha256, crypto/tls, crypto/x509).
//
// The pieces, one file each:
//
//   - identity.go: an installation's Ed25519 key pair, kept in the data
//     directory (identity.key, owner-only, PEM PKCS#8) and its text form
//     "ed25519:<base64url>" that admins paste into the publisher list.
//   - network.go: the network definition (name, version, admins, seeds,
//     catalog, publishers, revoked keys, fanout, secret), its signature by
//     an admin, and the acceptance rule for a newer definition;
//     network_encoding.go: its canonical JSON encoding and strict parser.
//   - rival.go: which of two versions with one number wins, the same on
//     every servant; merge.go: the three-way merge of an admin's edit onto
//     another admin's version, shared by the admin editors and the servant
//     whose version lost to a rival.
//   - items.go: the signature of a news item over a canonical encoding of all
//     its fields, and the checks a receiver makes before storing, showing or
//     relaying it; corrections.
//   - retraction.go: a signed retraction that hides an item everywhere.
//   - rejection.go: the typed reasons an item or retraction is dropped, for
//     per-reason counters.
//   - linkproof.go: the proof of membership exchanged on a link after the TLS
//     handshake (an HMAC of a TLS exporter value keyed by the network secret).
//   - tlsconfig.go: TLS 1.3 configurations with a self-signed certificate for
//     the installation key.
//
// # Trust model in one paragraph
//
// The network definition is the root of trust. A servant holds one; it
// replaces it only with a definition signed by an admin of the one it holds
// and with a higher version (SignedNetwork.Accept). The first definition is
// imported by the operator (a file the IT department deploys, or one the
// first-run wizard creates) and only checked for being self-consistent
// (VerifySelfSigned). Membership is knowledge of the network secret, proven
// per link and bound to the TLS session, so outsiders can neither read nor
// inject. Authorship is the item signature: among members, only keys the
// definition trusts may publish, each within its categories.
package trust
