package trust

// Invitation codes (issue 13): one line of text an admin pastes into a chat
// or an e-mail, with which a new installation joins the network without a
// definition file.
//
//	newsdesk:join?net=FINGERPRINT&id=ID&token=TOKEN&via=HOST:PORT&seeds=HOST:PORT,HOST:PORT
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
//     the definition's seed list), in priority order.
//
// Values are written without escapes: fingerprint, ID and token in
// unpadded base64url, addresses as "host:port" ("[v6]:port"). Each key
// appears once, in any order; unknown keys are refused, so a code is never
// half understood.

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
)

// ErrBadInviteCode is wrapped by every error of ParseInviteCode.
var ErrBadInviteCode = errors.New("not a newsdesk invitation code")

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
}

// NewInviteID returns a fresh invitation ID.
func NewInviteID() (string, error) {
	b := make([]byte, InviteIDSize)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("invitation id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
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
	return b.String()
}

// Check reports what is wrong with c, or nil.
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
		default:
			return nil, fmt.Errorf("%w: unknown key %.20q", ErrBadInviteCode, key)
		}
	}
	for _, k := range []string{"net", "id", "token", "via"} {
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
