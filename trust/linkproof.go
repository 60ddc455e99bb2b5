package trust

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// linkDomain starts every link proof's MAC input.
const linkDomain = "newsdesk link v1"

// The roles of the two ends of a link. Each side proves with its own role
// and checks the peer's proof with the peer's role, so a proof cannot be
// reflected back to the side that sent it.
const (
	RoleClient = "client" // the side that dialed
	RoleServer = "server" // the side that accepted
)

// LinkProofSize is the length of a link proof (HMAC-SHA256).
const LinkProofSize = sha256.Size

// LinkProof proves knowledge of the network secret on one TLS session:
//
//	HMAC-SHA256(secret, "newsdesk link v1" || uvarint(len(role)) || role || exporter)
//
// where exporter is the session's ExporterValue. The exporter is unique to
// the session (both ends derive it from the TLS 1.3 key schedule, nobody
// else can), so a proof seen on one link is worthless on any other, and a
// man in the middle, who runs two sessions, cannot forward one. The role is
// length-prefixed so no role/exporter pair can be read as another.
//
// After the handshake each side sends LinkProof(secret, exporter, ownRole)
// and checks the peer's with CheckLinkProof(secret, exporter, peerRole, …)
// before any protocol frame; while a secret is being rotated a side may
// accept a proof under the current or the previous secret.
func LinkProof(secret, exporter []byte, role string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(linkDomain))
	m.Write(binary.AppendUvarint(nil, uint64(len(role))))
	m.Write([]byte(role))
	m.Write(exporter)
	return m.Sum(nil)
}

// CheckLinkProof reports whether proof is the LinkProof of secret, exporter
// and role, comparing in constant time. An empty secret or exporter never
// checks (a servant without a network must not accept anyone).
func CheckLinkProof(secret, exporter []byte, role string, proof []byte) bool {
	if len(secret) == 0 || len(exporter) == 0 || len(proof) != LinkProofSize {
		return false
	}
	return hmac.Equal(LinkProof(secret, exporter, role), proof)
}
