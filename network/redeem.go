package network

// The redemption protocol (issue 13).
//
//	joiner ──TLS 1.3, ALPN newsdesk-invite/1──▶ seed ──TLS 1.3, ALPN newsdesk-invite/1──▶ via (admin's servant)
//	        redeem{network, id, via, admin, sig,       relay{…, exporter, key, member}
//	               name, proof}
//	        ◀── answer{ok, definition, confirm}         ◀── answer
//
// The joiner dials a seed of the code and announces trust.InviteALPN; the
// seed's node hands the connection to Inviter.Serve (newsnet/node). Both
// sides present their installation keys as on a link (self-signed
// certificates). The joiner sends one request frame:
//
//   - proof = trust.InvitationProof(token, joiner, id, fingerprint,
//     exporter, joiner's key): the token never travels, the proof is bound
//     to this TLS session and to the joiner's key.
//
// The seed checks the fingerprint against the definition it holds
// (another network's seed refuses here), then that via was named by an
// admin of the network: admin is one of its admin keys and sig is that
// key's signature of (fingerprint, id, via) (trust.CheckInviteVia). It
// checks this before anything else, so a stranger who can reach the seed
// cannot make it dial an address of their choosing (the code's bearer can
// change via, but cannot sign it as an admin). If the seed holds the invitation
// (it is the admin's servant that made it) it decides at once; otherwise it
// relays the claim to via over a TLS session of its own, proving
// membership there with a link proof of the network secret and checking
// that via's key is the admin key that signed via. The claim carries the exporter of the
// joiner's session and the joiner's key as the seed saw them, so a proof
// taken from one session (by a man in the middle) does not check on
// another. The holder decides (invite.go) and answers with the current
// signed definition, secret included, and a confirmation proof under
// the token (role inviter); the seed passes the answer on.
//
// The joiner checks the signatures of via and of the seed list (the
// code's seal) against the key the code names before it dials anything (a
// code altered on the way is refused there, issue 32),
// and accepts only a definition that verifies as signed by one of
// its own admins and whose fingerprint is the code's, and a confirmation
// that checks: a seed that does not hold the token can neither fake a
// success nor hand over a network of its own. Each frame is a 4-byte
// big-endian length and a JSON value.
//
// This file holds what both sides share: bounds, reasons, frames. The
// seed's and the holder's side is redeemserve.go (Serve, bounded per
// address by addresslimits.go), the joiner's redeemjoin.go (Redeem).

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"newsdesk/trust"
)

// Timing and bounds of a redemption.
const (
	// dialTimeout bounds connecting to one seed (or to via) and the TLS
	// handshake; redeemTimeout one whole redemption at the joiner; relayTimeout
	// the seed's relay to via; serveTimeout everything a seed does for one
	// joiner (its relay included).
	dialTimeout   = 5 * time.Second
	relayTimeout  = 15 * time.Second
	serveTimeout  = 25 * time.Second
	redeemTimeout = 30 * time.Second
	// maxRedemptions bounds the redemptions a servant serves at once; more
	// are answered "busy". A redemption takes its slot only once its
	// request has been read (issue 32: idle connections held them all).
	maxRedemptions = 8
	// requestTimeout bounds the wait for a connection's request after the
	// TLS handshake: a joiner or a relaying seed sends it at once.
	requestTimeout = 3 * time.Second
	// maxUnreadPerAddress bounds the connections from one address (an
	// IPv4 address, an IPv6 /64) whose request has not been read yet;
	// more are answered "busy" at once.
	maxUnreadPerAddress = 4
	// maxFrameBytes bounds one frame: an answer carries a definition.
	maxFrameBytes = trust.MaxDefinitionBytes + 64<<10
	// maxRequestBytes bounds a request frame (no definition in it).
	maxRequestBytes = 16 << 10
)

// Kinds of request.
const (
	kindRedeem = "redeem" // a joiner to a seed
	kindRelay  = "relay"  // a seed to the servant holding the invitation
	// kindCertify (certify.go): a member to an admin's servant.
)

// Reasons of a RedeemError.
const (
	ReasonUnknown     = "unknown"     // the holder does not know the invitation
	ReasonWrongToken  = "wrongToken"  // the proof does not check under its token
	ReasonRevoked     = "revoked"     // the admin revoked it
	ReasonExpired     = "expired"     // past its expiry
	ReasonUsedUp      = "usedUp"      // no use left
	ReasonFingerprint = "fingerprint" // the seed (or the holder) is of another network now
	ReasonRevokedKey  = "revokedKey"  // the joiner's key is revoked
	ReasonNotAdmin    = "notAdmin"    // via is not (or no longer) an admin's servant
	ReasonViaUnsigned = "viaUnsigned" // via is not signed by an admin of the network: never dialled
	ReasonUnsigned    = "unsigned"    // the code's seed list is not signed by the key it names (altered, or an older code): nothing dialled
	ReasonUnreachable = "unreachable" // the seed cannot reach via
	ReasonBusy        = "busy"        // too many redemptions at once
	ReasonNotMember   = "notMember"   // a relay from a servant that proved no membership
	ReasonBadRequest  = "badRequest"  // a malformed request
	ReasonInternal    = "internal"    // the servant failed (store, signing)
	ReasonBadAnswer   = "badAnswer"   // the joiner could not accept the answer it got
	ReasonNoSeed      = "noSeed"      // the joiner reached no servant of the code
)

// RedeemError is a refused or failed redemption.
type RedeemError struct {
	Reason string // one of the Reason constants
	Msg    string // what happened, in words
	Seed   string // the servant the joiner asked ("" when none answered)
}

func (e *RedeemError) Error() string {
	msg := e.Msg
	if next := e.next(); next != "" && !strings.Contains(msg, "ask ") {
		msg += ": " + next // the holder (perhaps of an older release) did not say
	}
	if e.Seed == "" {
		return msg
	}
	return msg + " (asked " + e.Seed + ")"
}

// next is what the joiner does about a refusal that ends the invitation
// for them: only an admin can help.
func (e *RedeemError) next() string {
	switch e.Reason {
	case ReasonUsedUp, ReasonExpired, ReasonRevoked, ReasonUnknown:
		return "ask the admin who sent it for a new invitation"
	case ReasonNotAdmin, ReasonViaUnsigned, ReasonUnsigned, ReasonFingerprint:
		return "ask an admin of the network for a new invitation"
	case ReasonRevokedKey:
		return "ask an admin of the network why"
	}
	return ""
}

// Definitive reports whether asking another seed cannot help: the holder
// of the invitation decided.
func (e *RedeemError) Definitive() bool {
	switch e.Reason {
	case ReasonUnknown, ReasonWrongToken, ReasonRevoked, ReasonExpired, ReasonUsedUp, ReasonRevokedKey, ReasonNotAdmin, ReasonViaUnsigned, ReasonUnsigned:
		return true
	}
	return false
}

func refusal(reason, format string, args ...any) *RedeemError {
	return &RedeemError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// request is a request frame.
type request struct {
	Kind    string `json:"kind"`
	Network string `json:"network"` // trust.Fingerprint text
	ID      string `json:"id"`
	Via     string `json:"via"`
	Admin   []byte `json:"admin"`          // the key that signed via (trust.InviteCode.Signer)
	Sig     []byte `json:"sig"`            // its signature (trust.InviteCode.Signature)
	Name    string `json:"name,omitempty"` // the joiner's display name
	Proof   []byte `json:"proof"`

	// A relay's: the joiner's session and key as the seed saw them, and
	// the seed's link proof on the relay session.
	Exporter []byte `json:"exporter,omitempty"`
	Key      string `json:"key,omitempty"`
	Member   []byte `json:"member,omitempty"`
}

// answer is an answer frame.
type answer struct {
	OK         bool            `json:"ok"`
	Reason     string          `json:"reason,omitempty"`
	Error      string          `json:"error,omitempty"`
	Definition json.RawMessage `json:"definition,omitempty"` // the signed definition, secret included
	Confirm    []byte          `json:"confirm,omitempty"`
	// Certificate answers a certify request (certify.go):
	// trust.MemberCert text. Never in an answer to an older kind, whose
	// askers may be of a release that refuses unknown fields.
	Certificate string `json:"certificate,omitempty"`
}

func refusedAnswer(e *RedeemError) answer { return answer{Reason: e.Reason, Error: e.Msg} }

func writeFrame(w io.Writer, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(doc)), uint32(len(doc)))
	_, err = w.Write(append(buf, doc...))
	return err
}

func readFrame(r io.Reader, v any, limit int) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > uint32(limit) {
		return fmt.Errorf("frame of %d bytes, more than %d", n, limit)
	}
	doc := make([]byte, n)
	if _, err := io.ReadFull(r, doc); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
