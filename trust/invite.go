package trust

// Invitation codes (issue 13): one line of text an admin pastes into a chat
// or an e-mail, with which a new installation joins the network without a
// definition file.
//
//	newsdesk:join?net=FINGERPRINT&id=ID&token=TOKEN&via=HOST:PORT&seeds=HOST:PORT,HOST:PORT&admin=KEY&sig=SIGNATURE&seal=SIGNATURE
//
//   - net: the network's fingerprint (NetworkFingerprint: its ID and its
//     admin keys), so the joiner can check that the definition it receives
//     is the network the admin meant;
//   - id: names the invitation (public: lists, revocation);
//   - token: TokenSize random bytes, the secret of the invitation. It never
//     leaves the joiner: the joiner proves it with InvitationProof, an HMAC
//     keyed by the token over the TLS session's exporter;
//   - via: the servant of the admin that made the invitation. It holds the
//     invitation and counts its uses for the whole network;
//   - seeds: the servants a joiner connects to (at most MaxInviteSeeds of
//     the definition's seed list), in priority order;
//   - admin, sig: the installation key of the admin's servant that made the
//     invitation, and its Ed25519 signature of (net, id, via)
//     (InviteViaSigningBytes). A seed that does not hold the invitation
//     dials via to relay the joiner's claim; it does so only when admin is
//     an admin of its network and sig verifies (CheckInviteVia), so whoever
//     holds a code cannot make seeds dial an address of their choosing.
//     The joiner checks sig against admin when it parses the code (Check),
//     so a via changed on the way is caught before anything is dialled.
//     Codes without them (the first, unsigned format) are refused.
//   - seal: the same key's signature of everything in the code the joiner
//     acts on: net, id, via and the seed list, in order
//     (InviteSealSigningBytes). The joiner checks it when it parses the
//     code, so seeds changed on the way (pointing the joiner at servants
//     of someone else's choosing) are caught before anything is dialled
//     (issue 32). The token is not covered: it is the code's secret, a
//     changed token only fails the redemption, and seeds never see it.
//     sig stays separate from seal because seeds check sig, and must not
//     need the seed list (nor older seeds a new format) to do so.
//     A code without seal (made before seed lists were signed) is
//     accepted only when it names no seeds: then via, which sig covers,
//     is all the joiner acts on. One that names seeds is refused
//     (ErrInviteUnsealed), asking for a new code.
//
// Values are written without escapes: fingerprint, ID, token, key and
// signature in unpadded base64url, addresses as "host:port" ("[v6]:port").
// Each key appears once, in any order; unknown keys are refused, so a code
// is never half understood.

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// InviteALPN is the TLS application protocol of a redemption: a joiner
// (or a seed relaying a redemption to the admin's servant) announces it
// instead of ALPN.
const InviteALPN = "newsdesk-invite/1"

// Sizes and limits of an invitation code.
const (
	InviteScheme    = "newsdesk:join?"
	TokenSize       = 16 // 128 bits from crypto/rand
	InviteIDSize    = 9  // 72 bits, 12 characters
	FingerprintSize = sha256.Size
	MaxInviteSeeds  = 8
	// InviteCodeLimit bounds a code's length before anything is parsed.
	InviteCodeLimit = 4096
)

// The roles of an invitation proof: the joiner proves the token, the
// servant holding the invitation (the admin's) confirms it.
const (
	RoleJoiner  = "joiner"
	RoleInviter = "inviter"
)

// inviteDomain starts every invitation proof's MAC input;
// fingerprintDomain every fingerprint's hash input.
const (
	inviteDomain      = "newsdesk invite v1"
	fingerprintDomain = "newsdesk network fingerprint v1\x00"
	inviteViaDomain   = "newsdesk invite via v1\x00"
	inviteSealDomain  = "newsdesk invite seal v1\x00"
)

// Errors of invitation codes.
var (
	// ErrBadInviteCode is wrapped by every error of ParseInviteCode.
	ErrBadInviteCode = errors.New("not a newsdesk invitation code")
	// ErrInviteViaSignature: the code's via is not signed by the key it
	// names (Check, VerifyInviteVia).
	ErrInviteViaSignature = errors.New("the address of the admin's servant (via) is not signed by the admin key the code names")
	// ErrInviteViaNotAdmin: the key that signed via is not an admin's
	// (CheckInviteVia).
	ErrInviteViaNotAdmin = errors.New("the invitation was not signed by an admin of this network")
	// ErrInviteSeal: the code's seal (its seed list) is not signed by the
	// key it names (Check, VerifySignatures).
	ErrInviteSeal = errors.New("the seed list is not signed by the admin key the code names")
	// ErrInviteUnsealed: a code that names seeds carries no seal: cut off,
	// or made by a release that did not sign seed lists.
	ErrInviteUnsealed = errors.New("its seed list is not signed (no seal): the code was cut off, or made by an older release " +
		"before seed lists were signed; ask the admin for a new invitation")
)

// Fingerprint names a network and its admins: see NetworkFingerprint.
type Fingerprint [FingerprintSize]byte

// NetworkFingerprint returns
//
//	SHA-256("newsdesk network fingerprint v1\x00" || ID || admin keys, sorted)
//
// It changes when the admins change: a definition whose fingerprint matches
// an invitation's was signed (VerifySelfSigned) by one of the admins the
// inviting admin's servant held when the invitation was made, so a seed
// cannot hand the joiner a network of its own making.
func NetworkFingerprint(n *Network) Fingerprint {
	h := sha256.New()
	h.Write([]byte(fingerprintDomain))
	h.Write(n.ID[:])
	admins := slices.Clone(n.Admins)
	slices.SortFunc(admins, compareKeys)
	for _, k := range admins {
		h.Write(k)
	}
	var f Fingerprint
	h.Sum(f[:0])
	return f
}

// String is the fingerprint in unpadded base64url (43 characters).
func (f Fingerprint) String() string { return base64.RawURLEncoding.EncodeToString(f[:]) }

// ParseFingerprint parses a fingerprint's text (Fingerprint.String).
func ParseFingerprint(s string) (Fingerprint, error) {
	var f Fingerprint
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != FingerprintSize {
		return f, fmt.Errorf("want %d characters of base64url", base64.RawURLEncoding.EncodedLen(FingerprintSize))
	}
	copy(f[:], b)
	return f, nil
}

// InviteCode is a parsed invitation code.
type InviteCode struct {
	Network Fingerprint
	ID      string   // InviteIDSize bytes in unpadded base64url
	Token   []byte   // TokenSize bytes
	Via     string   // the admin's servant, "host:port"
	Seeds   []string // "host:port" each, at most MaxInviteSeeds
	// Signer is the installation key of the admin's servant that made
	// the invitation, Signature its signature of InviteViaSigningBytes
	// and Seal its signature of InviteSealSigningBytes (Sign). Seal is nil
	// in a code of the older format, which then names no seeds.
	Signer    ed25519.PublicKey
	Signature []byte
	Seal      []byte
}

// NewInviteID returns a fresh invitation ID.
func NewInviteID() (string, error) {
	b := make([]byte, InviteIDSize)
	for {
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("invitation id: %w", err)
		}
		// An ID is typed as a command's argument (invite revoke ID): one
		// that starts with "-" (1 in 64) would read as a flag there.
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id, nil
		}
	}
}

// NewInviteToken returns a fresh token: TokenSize bytes from crypto/rand.
func NewInviteToken() ([]byte, error) {
	b := make([]byte, TokenSize)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("invitation token: %w", err)
	}
	return b, nil
}

// String writes the code (the keys in a fixed order).
func (c *InviteCode) String() string {
	var b strings.Builder
	b.WriteString(InviteScheme)
	b.WriteString("net=" + c.Network.String())
	b.WriteString("&id=" + c.ID)
	b.WriteString("&token=" + base64.RawURLEncoding.EncodeToString(c.Token))
	b.WriteString("&via=" + c.Via)
	if len(c.Seeds) > 0 {
		b.WriteString("&seeds=" + strings.Join(c.Seeds, ","))
	}
	// The signature last: a code cut off at its end fails to parse
	// rather than losing something optional unnoticed.
	b.WriteString("&admin=" + base64.RawURLEncoding.EncodeToString(c.Signer))
	b.WriteString("&sig=" + base64.RawURLEncoding.EncodeToString(c.Signature))
	if c.Seal != nil {
		b.WriteString("&seal=" + base64.RawURLEncoding.EncodeToString(c.Seal))
	}
	return b.String()
}

// InviteViaSigningBytes is the message an admin's servant signs to name
// via as the servant holding invitation id of network net:
//
//	"newsdesk invite via v1\x00" || net || lp(id) || lp(via)
//
// lp is a uvarint length prefix.
func InviteViaSigningBytes(net Fingerprint, id, via string) []byte {
	b := append([]byte(inviteViaDomain), net[:]...)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(via)))
	return append(b, via...)
}

// InviteSealSigningBytes is the message an admin's servant signs to seal
// what a joiner acts on in invitation id of network net:
//
//	"newsdesk invite seal v1\x00" || net || lp(id) || lp(via) || uvarint(len(seeds)) || lp(seed) ...
//
// lp is a uvarint length prefix; the seeds in the code's order (their
// priority).
func InviteSealSigningBytes(net Fingerprint, id, via string, seeds []string) []byte {
	b := append([]byte(inviteSealDomain), net[:]...)
	for _, s := range []string{id, via} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(seeds)))
	for _, s := range seeds {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// Sign signs c with signer (the installation key of the admin's servant
// that holds the invitation): Signature over its network, ID and via (for
// seeds), Seal over those and its seed list (for the joiner), and sets
// Signer. Sign again after changing any of them.
func (c *InviteCode) Sign(signer *Identity) {
	c.Signer = slices.Clone(signer.Public)
	c.Signature = signer.Sign(InviteViaSigningBytes(c.Network, c.ID, c.Via))
	c.Seal = signer.Sign(InviteSealSigningBytes(c.Network, c.ID, c.Via, c.Seeds))
}

// SignVia is Sign, under the name it had before the seal was added.
//
// Deprecated: use Sign.
func (c *InviteCode) SignVia(signer *Identity) { c.Sign(signer) }

// VerifySignatures reports whether c's signatures verify under the key it
// names: its via (ErrInviteViaSignature) and its seal
// (ErrInviteSeal), or, in a code without a seal, that it names no seeds
// (ErrInviteUnsealed). Not whether the key is an admin's.
func (c *InviteCode) VerifySignatures() error {
	if err := VerifyInviteVia(c.Network, c.ID, c.Via, c.Signer, c.Signature); err != nil {
		return err
	}
	if c.Seal == nil {
		if len(c.Seeds) > 0 {
			return ErrInviteUnsealed
		}
		return nil
	}
	if len(c.Signer) != ed25519.PublicKeySize || len(c.Seal) != ed25519.SignatureSize ||
		!ed25519.Verify(c.Signer, InviteSealSigningBytes(c.Network, c.ID, c.Via, c.Seeds), c.Seal) {
		return ErrInviteSeal
	}
	return nil
}

// VerifyInviteVia reports whether sig is signer's signature of
// (net, id, via), or ErrInviteViaSignature. It does not say whether
// signer is an admin: CheckInviteVia does.
func VerifyInviteVia(net Fingerprint, id, via string, signer ed25519.PublicKey, sig []byte) error {
	if len(signer) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize ||
		!ed25519.Verify(signer, InviteViaSigningBytes(net, id, via), sig) {
		return ErrInviteViaSignature
	}
	return nil
}

// CheckInviteVia reports whether an admin of n named via as the servant
// holding invitation id of network net: signer is one of n's admins
// (ErrInviteViaNotAdmin) and sig is its signature (ErrInviteViaSignature).
// A seed checks this before it dials via.
func (n *Network) CheckInviteVia(net Fingerprint, id, via string, signer ed25519.PublicKey, sig []byte) error {
	if !n.IsAdmin(signer) {
		return ErrInviteViaNotAdmin
	}
	return VerifyInviteVia(net, id, via, signer, sig)
}

// Check reports what is wrong with c, or nil. It verifies the signatures
// (of via, and the seal of the seed list) against the key the code names
// (not whether that key is an admin's: the joiner learns the admins only
// with the definition).
func (c *InviteCode) Check() error {
	if err := checkInviteID(c.ID); err != nil {
		return err
	}
	if len(c.Token) != TokenSize {
		return fmt.Errorf("%w: token: %d bytes, want %d", ErrBadInviteCode, len(c.Token), TokenSize)
	}
	if err := checkInviteAddr("via", c.Via); err != nil {
		return err
	}
	if len(c.Seeds) > MaxInviteSeeds {
		return fmt.Errorf("%w: seeds: more than %d", ErrBadInviteCode, MaxInviteSeeds)
	}
	for i, s := range c.Seeds {
		if err := checkInviteAddr("seeds", s); err != nil {
			return err
		}
		if slices.Contains(c.Seeds[:i], s) {
			return fmt.Errorf("%w: seeds: %s listed twice", ErrBadInviteCode, s)
		}
	}
	if len(c.Signer) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: admin: %d bytes, want %d", ErrBadInviteCode, len(c.Signer), ed25519.PublicKeySize)
	}
	if len(c.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: sig: %d bytes, want %d", ErrBadInviteCode, len(c.Signature), ed25519.SignatureSize)
	}
	if c.Seal != nil && len(c.Seal) != ed25519.SignatureSize {
		return fmt.Errorf("%w: seal: %d bytes, want %d", ErrBadInviteCode, len(c.Seal), ed25519.SignatureSize)
	}
	switch err := c.VerifySignatures(); {
	case errors.Is(err, ErrInviteViaSignature):
		return fmt.Errorf("%w: %w (%s): the code was altered; ask the admin for a new invitation", ErrBadInviteCode, err, c.Via)
	case errors.Is(err, ErrInviteSeal):
		return fmt.Errorf("%w: %w (%s): the code was altered; ask the admin for a new invitation", ErrBadInviteCode, err, strings.Join(c.Seeds, ","))
	case err != nil:
		return fmt.Errorf("%w: %w", ErrBadInviteCode, err)
	}
	return nil
}

func checkInviteID(id string) error {
	b, err := base64.RawURLEncoding.Strict().DecodeString(id)
	if err != nil || len(b) != InviteIDSize {
		return fmt.Errorf("%w: id: want %d characters of base64url", ErrBadInviteCode, base64.RawURLEncoding.EncodedLen(InviteIDSize))
	}
	return nil
}

// CheckInviteID reports whether id is well-formed as an invitation ID.
func CheckInviteID(id string) error { return checkInviteID(id) }

// CheckInviteAddress reports whether s can be named in a code as an
// address (via or a seed).
func CheckInviteAddress(s string) error { return checkInviteAddr("address", s) }

// checkInviteAddr accepts what a definition's seed list accepts, and no
// character a code's syntax uses ('&', '=', ',', '?', '%').
func checkInviteAddr(key, s string) error {
	if strings.ContainsAny(s, "&=,?%") {
		return fmt.Errorf("%w: %s: %q: unexpected character", ErrBadInviteCode, key, s)
	}
	if err := checkSeed(s); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadInviteCode, key, strings.TrimPrefix(err.Error(), "seeds: "))
	}
	return nil
}

// ParseInviteCode parses an invitation code. Blanks around it are
// ignored (a code pasted from a chat often has them); anything else that
// is not exactly the syntax above is an error wrapping ErrBadInviteCode
// that says what is wrong.
func ParseInviteCode(s string) (*InviteCode, error) {
	if len(s) > InviteCodeLimit {
		return nil, fmt.Errorf("%w: longer than %d characters", ErrBadInviteCode, InviteCodeLimit)
	}
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, InviteScheme)
	if !ok {
		return nil, fmt.Errorf("%w: it must start with %q", ErrBadInviteCode, InviteScheme)
	}
	c := new(InviteCode)
	seen := map[string]bool{}
	for field := range strings.SplitSeq(rest, "&") {
		key, val, ok := strings.Cut(field, "=")
		if !ok {
			return nil, fmt.Errorf("%w: %.20q: want key=value", ErrBadInviteCode, field)
		}
		if seen[key] {
			return nil, fmt.Errorf("%w: %s given twice", ErrBadInviteCode, key)
		}
		seen[key] = true
		switch key {
		case "net":
			fp, err := ParseFingerprint(val)
			if err != nil {
				return nil, fmt.Errorf("%w: net: %v", ErrBadInviteCode, err)
			}
			c.Network = fp
		case "id":
			c.ID = val
		case "token":
			b, err := base64.RawURLEncoding.Strict().DecodeString(val)
			if err != nil || len(b) != TokenSize {
				return nil, fmt.Errorf("%w: token: want %d characters of base64url", ErrBadInviteCode, base64.RawURLEncoding.EncodedLen(TokenSize))
			}
			c.Token = b
		case "via":
			c.Via = val
		case "seeds":
			if val == "" {
				return nil, fmt.Errorf("%w: seeds: empty", ErrBadInviteCode)
			}
			c.Seeds = strings.Split(val, ",")
		case "admin":
			b, err := base64.RawURLEncoding.Strict().DecodeString(val)
			if err != nil || len(b) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("%w: admin: want %d characters of base64url (was the code cut off?)", ErrBadInviteCode, base64.RawURLEncoding.EncodedLen(ed25519.PublicKeySize))
			}
			c.Signer = b
		case "sig":
			b, err := base64.RawURLEncoding.Strict().DecodeString(val)
			if err != nil || len(b) != ed25519.SignatureSize {
				return nil, fmt.Errorf("%w: sig: want %d characters of base64url (was the code cut off?)", ErrBadInviteCode, base64.RawURLEncoding.EncodedLen(ed25519.SignatureSize))
			}
			c.Signature = b
		case "seal":
			b, err := base64.RawURLEncoding.Strict().DecodeString(val)
			if err != nil || len(b) != ed25519.SignatureSize {
				return nil, fmt.Errorf("%w: seal: want %d characters of base64url (was the code cut off?)", ErrBadInviteCode, base64.RawURLEncoding.EncodedLen(ed25519.SignatureSize))
			}
			c.Seal = b
		default:
			return nil, fmt.Errorf("%w: unknown key %.20q", ErrBadInviteCode, key)
		}
	}
	for _, k := range []string{"net", "id", "token", "via"} {
		if !seen[k] {
			return nil, fmt.Errorf("%w: %s is missing (was the code cut off?)", ErrBadInviteCode, k)
		}
	}
	if !seen["admin"] && !seen["sig"] {
		return nil, fmt.Errorf("%w: it carries no admin signature: it was cut off, or made before invitation codes were signed; ask the admin for a new invitation", ErrBadInviteCode)
	}
	for _, k := range []string{"admin", "sig"} {
		if !seen[k] {
			return nil, fmt.Errorf("%w: %s is missing (was the code cut off?)", ErrBadInviteCode, k)
		}
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// InviteProofSize is the length of an invitation proof (HMAC-SHA256).
const InviteProofSize = sha256.Size

// InvitationProof proves knowledge of an invitation's token on one TLS
// session, for one key:
//
//	HMAC-SHA256(token, "newsdesk invite v1" || lp(role) || lp(id) || fingerprint || lp(exporter) || lp(key))
//
// lp is a uvarint length prefix. exporter is the ExporterValue of the TLS
// session between the joiner and the seed it reached, key the joiner's
// installation key (its TLS certificate's). The token never travels: the
// proof is one-way, so a seed (or anyone posing as one) learns nothing it
// could redeem with, and since the exporter is unique to the session, a
// proof forwarded onto another session (a man in the middle, who runs two)
// does not check. The key is covered so that nobody who relays the proof
// can redeem it for another key (a publisher invitation makes the key a
// publisher). The joiner proves with RoleJoiner; the servant holding the
// invitation answers an accepted redemption with the RoleInviter proof,
// which tells the joiner that the holder of the token, not just any
// servant, accepted it on this very session.
func InvitationProof(token []byte, role, id string, net Fingerprint, exporter []byte, key ed25519.PublicKey) []byte {
	m := hmac.New(sha256.New, token)
	m.Write([]byte(inviteDomain))
	for _, part := range [][]byte{[]byte(role), []byte(id), net[:], exporter, key} {
		m.Write(binary.AppendUvarint(nil, uint64(len(part))))
		m.Write(part)
	}
	return m.Sum(nil)
}

// CheckInvitationProof reports whether proof is InvitationProof of the
// arguments, comparing in constant time. An empty token or exporter never
// checks.
func CheckInvitationProof(proof, token []byte, role, id string, net Fingerprint, exporter []byte, key ed25519.PublicKey) bool {
	if len(token) == 0 || len(exporter) == 0 || len(proof) != InviteProofSize || len(key) != ed25519.PublicKeySize {
		return false
	}
	return hmac.Equal(InvitationProof(token, role, id, net, exporter, key), proof)
}

// SameFingerprint compares two fingerprints in constant time.
func SameFingerprint(a, b Fingerprint) bool { return hmac.Equal(a[:], b[:]) }
