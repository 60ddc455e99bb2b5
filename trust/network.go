package trust

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/news"
)

// Limits of a network definition. They bound what a servant parses from the
// overlay before any signature is checked, and keep a definition small
// enough to travel in one system-group message.
const (
	MaxDefinitionBytes      = 4 << 20 // the whole signed document
	MaxNetworkNameRunes     = 100
	MaxAdmins               = 100
	MaxSeeds                = 256
	MaxSeedBytes            = 255 // "host:port"
	MaxPublishers           = 10000
	MaxPublisherNameRunes   = 100
	MaxPublisherCategories  = 1000
	MaxRevoked              = 10000
	MinFanout               = 2
	MaxFanout               = 256
	SecretSize              = 32
	DefaultFanout           = 16
	MaxLeafCapacity         = 4096
	defaultAdminDisplayName = "admin"
)

// networkDomain prefixes the canonical network JSON in the signed message,
// so a network signature can never be mistaken for an item's, a
// retraction's, or any other use of an admin key.
const networkDomain = "newsdesk network v1\x00"

// Network is the definition of a Newsdesk network: the root of trust every
// servant holds. An admin signs it (Identity.SignNetwork); a servant
// replaces the one it holds only with a newer one signed by one of its
// admins (SignedNetwork.Accept).
//
// The definition contains the network secret, so a definition file is as
// confidential as a password: write it owner-only and hand it out to
// members only.
type Network struct {
	// ID names the network for good: it is chosen at creation and never
	// changes, so an admin who runs two networks with one key cannot have a
	// definition of one replace the other's. Accept refuses a change of ID.
	ID uuid.UUID
	// Name is the display name, at most MaxNetworkNameRunes, one line.
	Name string
	// Version orders definitions: a servant accepts only a higher one.
	Version uint64
	// Admins may sign the next definition, may correct and retract any
	// item, and may publish in every category. At least one; sorted.
	Admins []ed25519.PublicKey
	// Seeds is the seed list, "host:port" each, in priority order (the
	// order is meaning, so it is kept as given; duplicates are errors).
	Seeds []string
	// Catalog is the category catalog; required.
	Catalog *categories.Catalog
	// Publishers are the keys trusted to publish, sorted by key.
	Publishers []Publisher
	// Revoked keys are refused whatever else the definition says, also
	// under OpenPublishing. A revoked key cannot be an admin or a
	// publisher at the same time. Sorted.
	Revoked []ed25519.PublicKey
	// Fanout is the maximum number of downlinks of a servant (N of
	// JP4353827B2), MinFanout to MaxFanout.
	Fanout int
	// LeafCapacity is the most leaves (servants others cannot dial) a
	// servant that is not a seed takes besides its Fanout down-servants;
	// 0, the default, means 4 × Fanout (newsnet.DefaultLeafCapacity).
	// At most MaxLeafCapacity.
	LeafCapacity int
	// Limits are the publishing limits per publisher key and the byte
	// caps per item (limits.go); the zero value is the defaults.
	Limits PublishLimits
	// Secret is the network secret (SecretSize random bytes): knowing it is
	// membership (see LinkProof). Rotate it by signing a new version with a
	// NewSecret.
	Secret []byte
	// OpenPublishing makes every key that is not revoked a publisher in
	// every category. Items are still signed and verified, so an item still
	// names its key and cannot be altered, but anyone with the secret can
	// make a key: membership is then what protects the network. Publisher
	// category limits mean nothing in this mode. For small teams and tests.
	OpenPublishing bool
	// Audiences are the network ranges the admin named (audiences.go),
	// sorted by name; nil when none.
	Audiences []NamedRange

	// newer holds the members of a newer release, as received (newer.go).
	newer []rawMember
}

// Publisher is a key trusted to publish.
type Publisher struct {
	Name       string            // display name ("Newsroom"), required, one line
	Key        ed25519.PublicKey // the publisher's installation key
	Categories []string          // category IDs it may publish in (each covers its subcategories); empty: all. Sorted.
}

// SignedNetwork is a network definition with an admin's signature over its
// canonical encoding. Treat it as immutable once signed or parsed: the
// lookups (IsAdmin, MayPublish, VerifyItem) rely on the sorted lists, and an
// unmodified value is safe for concurrent use by any number of goroutines.
// To change the network, Clone the Network, edit, bump Version and sign.
type SignedNetwork struct {
	Network
	Signer    ed25519.PublicKey
	Signature []byte
}

// NewSecret returns a fresh network secret from crypto/rand.
func NewSecret() ([]byte, error) {
	s := make([]byte, SecretSize)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("network secret: %w", err)
	}
	return s, nil
}

// NewNetwork creates the first definition of a new network, signed by
// admin: version 1, a random ID, the default catalog, fanout 16, a fresh
// secret, and admin as the only admin and as a publisher in every category.
func NewNetwork(name string, admin *Identity, seeds []string, openPublishing bool) (*SignedNetwork, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("network definition: id: %w", err)
	}
	secret, err := NewSecret()
	if err != nil {
		return nil, err
	}
	n := &Network{
		ID:             id,
		Name:           name,
		Version:        1,
		Admins:         []ed25519.PublicKey{admin.Public},
		Seeds:          slices.Clone(seeds),
		Catalog:        categories.Default(),
		Publishers:     []Publisher{{Name: defaultAdminDisplayName, Key: admin.Public}},
		Fanout:         DefaultFanout,
		Secret:         secret,
		OpenPublishing: openPublishing,
	}
	return admin.SignNetwork(n)
}

// Clone returns a deep copy (the catalog, immutable, is shared). An admin
// edit starts from a clone of the current definition with Version+1.
func (n *Network) Clone() *Network {
	c := *n
	c.Admins = cloneKeys(n.Admins)
	c.Seeds = slices.Clone(n.Seeds)
	c.Revoked = cloneKeys(n.Revoked)
	c.Secret = slices.Clone(n.Secret)
	c.Audiences = cloneNamedRanges(n.Audiences)
	c.Limits = n.Limits.clone()
	c.newer = slices.Clone(n.newer)
	if n.Publishers != nil {
		c.Publishers = make([]Publisher, len(n.Publishers))
		for i, p := range n.Publishers {
			c.Publishers[i] = Publisher{Name: p.Name, Key: slices.Clone(p.Key), Categories: slices.Clone(p.Categories)}
		}
	}
	return &c
}

func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

func cloneKeys(keys []ed25519.PublicKey) []ed25519.PublicKey {
	if keys == nil {
		return nil
	}
	out := make([]ed25519.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = slices.Clone(k)
	}
	return out
}

func compareKeys(a, b ed25519.PublicKey) int { return bytes.Compare(a, b) }

// normalize sorts the lists whose order carries no meaning and makes empty
// lists nil, in place, so that equal definitions are also deeply equal.
func (n *Network) normalize() {
	n.Seeds = nilIfEmpty(n.Seeds)
	n.Revoked = nilIfEmpty(n.Revoked)
	n.Publishers = nilIfEmpty(n.Publishers)
	for i := range n.Publishers {
		n.Publishers[i].Categories = nilIfEmpty(n.Publishers[i].Categories)
	}
	n.Audiences = normalizeNamedRanges(n.Audiences)
	n.Limits.CategoryItemBytes = nilIfEmptyMap(n.Limits.CategoryItemBytes)
	if len(n.Limits.CategoryAttachmentBytes) == 0 {
		n.Limits.CategoryAttachmentBytes = nil
	}
	slices.SortFunc(n.Admins, compareKeys)
	slices.SortFunc(n.Revoked, compareKeys)
	slices.SortFunc(n.Publishers, func(a, b Publisher) int { return compareKeys(a.Key, b.Key) })
	for i := range n.Publishers {
		slices.Sort(n.Publishers[i].Categories)
	}
}

// SignNetwork signs a copy of n: the lists whose order carries no meaning
// are sorted, the copy is validated and signed over its canonical encoding.
// The signer need not be one of n's admins (an admin can hand the network
// over to others); what a receiver requires is that the signer is an admin
// of the definition it already holds.
func (id *Identity) SignNetwork(n *Network) (*SignedNetwork, error) {
	if len(n.newer) > 0 {
		return nil, fmt.Errorf("network definition: it uses features of a newer Newsdesk (%s): update Newsdesk before editing it",
			strings.Join(n.NewerMembers(), ", "))
	}
	c := n.Clone()
	c.normalize()
	msg, err := c.signingBytes()
	if err != nil {
		return nil, err
	}
	return &SignedNetwork{Network: *c, Signer: slices.Clone(id.Public), Signature: id.Sign(msg)}, nil
}

// Validate reports the first rule the definition breaks. Lists must be in
// canonical order (SignNetwork sorts them; a parsed definition must come
// sorted).
func (n *Network) Validate() error {
	if err := n.validate(); err != nil {
		return fmt.Errorf("network definition: %w", err)
	}
	return nil
}

func (n *Network) validate() error {
	if n.ID == uuid.Nil {
		return errors.New("id: required")
	}
	if strings.TrimSpace(n.Name) == "" {
		return errors.New("name: required")
	}
	if err := news.CheckLine("name", n.Name, MaxNetworkNameRunes); err != nil {
		return err
	}
	if n.Version == 0 {
		return errors.New("version: must be at least 1")
	}
	if len(n.Admins) == 0 {
		return errors.New("admins: at least one required")
	}
	if err := checkKeyList("admins", n.Admins, MaxAdmins); err != nil {
		return err
	}
	if len(n.Seeds) > MaxSeeds {
		return fmt.Errorf("seeds: more than %d", MaxSeeds)
	}
	for i, s := range n.Seeds {
		if err := checkSeed(s); err != nil {
			return err
		}
		if slices.Contains(n.Seeds[:i], s) {
			return fmt.Errorf("seeds: %q listed twice", s)
		}
	}
	if n.Catalog == nil {
		return errors.New("catalog: required")
	}
	if len(n.Publishers) > MaxPublishers {
		return fmt.Errorf("publishers: more than %d", MaxPublishers)
	}
	for i, p := range n.Publishers {
		if err := p.validate(); err != nil {
			return err
		}
		if i > 0 {
			switch compareKeys(n.Publishers[i-1].Key, p.Key) {
			case 0:
				return fmt.Errorf("publishers: key %s listed twice", PublicKeyString(p.Key))
			case 1:
				return errors.New("publishers: not sorted by key")
			}
		}
	}
	if err := checkKeyList("revoked", n.Revoked, MaxRevoked); err != nil {
		return err
	}
	for _, k := range n.Revoked {
		if n.IsAdmin(k) {
			return fmt.Errorf("revoked: key %s is also an admin", PublicKeyString(k))
		}
		if _, ok := n.Publisher(k); ok {
			return fmt.Errorf("revoked: key %s is also a publisher", PublicKeyString(k))
		}
	}
	if n.Fanout < MinFanout || n.Fanout > MaxFanout {
		return fmt.Errorf("fanout: %d outside %d to %d", n.Fanout, MinFanout, MaxFanout)
	}
	if n.LeafCapacity < 0 || n.LeafCapacity > MaxLeafCapacity {
		return fmt.Errorf("leaf capacity: %d outside 0 (the default) to %d", n.LeafCapacity, MaxLeafCapacity)
	}
	if err := n.Limits.validate(); err != nil {
		return err
	}
	if len(n.Secret) != SecretSize {
		return fmt.Errorf("secret: %d bytes, want %d", len(n.Secret), SecretSize)
	}
	return checkNamedRanges(n.Audiences)
}

func (p Publisher) validate() error {
	if len(p.Key) != ed25519.PublicKeySize {
		return fmt.Errorf("publishers: key of %d bytes, want %d", len(p.Key), ed25519.PublicKeySize)
	}
	where := "publisher " + PublicKeyString(p.Key)
	if strings.TrimSpace(p.Name) == "" {
		return fmt.Errorf("%s: name: required", where)
	}
	if err := news.CheckLine(where+": name", p.Name, MaxPublisherNameRunes); err != nil {
		return err
	}
	if len(p.Categories) > MaxPublisherCategories {
		return fmt.Errorf("%s: categories: more than %d", where, MaxPublisherCategories)
	}
	for i, c := range p.Categories {
		if err := categories.ValidateID(c); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if i > 0 && p.Categories[i-1] >= c {
			return fmt.Errorf("%s: categories: not sorted or listed twice", where)
		}
	}
	return nil
}

// checkKeyList checks sizes, strict ascending order (so no duplicates) and
// a length limit.
func checkKeyList(field string, keys []ed25519.PublicKey, max int) error {
	if len(keys) > max {
		return fmt.Errorf("%s: more than %d keys", field, max)
	}
	for i, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("%s: key of %d bytes, want %d", field, len(k), ed25519.PublicKeySize)
		}
		if i > 0 {
			switch compareKeys(keys[i-1], k) {
			case 0:
				return fmt.Errorf("%s: key %s listed twice", field, PublicKeyString(k))
			case 1:
				return fmt.Errorf("%s: not sorted", field)
			}
		}
	}
	return nil
}

// checkSeed accepts "host:port" with a non-empty host and a decimal port 1
// to 65535 written without leading zeros (one spelling per address).
func checkSeed(s string) error {
	if len(s) > MaxSeedBytes {
		return fmt.Errorf("seeds: %.20q…: longer than %d bytes", s, MaxSeedBytes)
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("seeds: %q: spaces, control characters or invalid UTF-8", s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("seeds: %q: %v", s, err)
	}
	if host == "" {
		return fmt.Errorf("seeds: %q: host: required", s)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 || strconv.FormatUint(p, 10) != port {
		return fmt.Errorf("seeds: %q: port must be a number from 1 to 65535", s)
	}
	return nil
}

func searchKey(keys []ed25519.PublicKey, k ed25519.PublicKey) bool {
	_, ok := slices.BinarySearchFunc(keys, k, compareKeys)
	return ok
}

// IsAdmin reports whether k is an admin key.
func (n *Network) IsAdmin(k ed25519.PublicKey) bool { return searchKey(n.Admins, k) }

// IsRevoked reports whether k is revoked.
func (n *Network) IsRevoked(k ed25519.PublicKey) bool { return searchKey(n.Revoked, k) }

// Publisher returns the publisher entry of k.
func (n *Network) Publisher(k ed25519.PublicKey) (Publisher, bool) {
	i, ok := slices.BinarySearchFunc(n.Publishers, k, func(p Publisher, k ed25519.PublicKey) int { return compareKeys(p.Key, k) })
	if !ok {
		return Publisher{}, false
	}
	return n.Publishers[i], true
}

// MayPublish reports whether key k may publish in category, as a
// *RejectionError (RevokedKey, UntrustedKey or CategoryNotAllowed) or nil.
// Admins may publish everywhere; a publisher within its categories (a
// category covers its subcategories); under OpenPublishing every key that
// is not revoked. The control API answers 403 with this reason, and the UI
// offers compose and categories by it.
func (n *Network) MayPublish(k ed25519.PublicKey, category string) error {
	switch {
	case n.IsRevoked(k):
		return reject(RevokedKey, "key "+PublicKeyString(k)+" is revoked")
	case n.IsAdmin(k), n.OpenPublishing:
		return nil
	}
	p, ok := n.Publisher(k)
	if !ok {
		return reject(UntrustedKey, "key "+PublicKeyString(k)+" is not a publisher of this network")
	}
	if len(p.Categories) > 0 && !categories.CoveredByAny(p.Categories, category) {
		return reject(CategoryNotAllowed, fmt.Sprintf("publisher %q may not publish in %q", p.Name, category))
	}
	return nil
}

// The acceptance rules, as errors.Is targets. The returned errors say which
// definition broke which rule.
var (
	ErrNotNewer          = errors.New("network definition: not newer")
	ErrOtherNetwork      = errors.New("network definition: another network")
	ErrNotAdmin          = errors.New("network definition: signer is not an admin")
	ErrBadSignature      = errors.New("network definition: bad signature")
	ErrInvalidDefinition = errors.New("network definition: invalid")
	// ErrSignedByOutsider: a definition read on its own (an imported
	// file) is signed by a key that is none of its own admins. It is also
	// ErrNotAdmin; apart, so that a person importing it is told that the
	// file is wrong, not that they are no admin.
	ErrSignedByOutsider = fmt.Errorf("%w of its own", ErrNotAdmin)
)

type ruleError struct {
	rule error
	msg  string
}

func (e *ruleError) Error() string { return e.msg }
func (e *ruleError) Unwrap() error { return e.rule }

func ruleErr(rule error, format string, args ...any) error {
	return &ruleError{rule: rule, msg: "network definition: " + fmt.Sprintf(format, args...)}
}

// verifySignature checks the signature against the signer it names.
func (sn *SignedNetwork) verifySignature() error {
	if err := sn.Validate(); err != nil {
		return &ruleError{rule: ErrInvalidDefinition, msg: err.Error()}
	}
	msg, err := sn.signingBytes()
	if err != nil {
		return &ruleError{rule: ErrInvalidDefinition, msg: err.Error()}
	}
	if len(sn.Signer) != ed25519.PublicKeySize || !ed25519.Verify(sn.Signer, msg, sn.Signature) {
		return ruleErr(ErrBadSignature, "signature does not verify for signer %s", PublicKeyString(sn.Signer))
	}
	return nil
}

// Accept reports whether next may replace cur, the definition this servant
// holds, and nil when it may. The rules, checked cheapest first:
//
//   - its version is higher than cur's (the same definition arriving again
//     is ErrNotNewer, which a runtime ignores quietly);
//   - it is a definition of the same network (same ID);
//   - its signer is an admin of cur (not of next: next cannot authorise
//     itself, so a stolen secret does not make an admin);
//   - the signature verifies and next is valid.
func (cur *SignedNetwork) Accept(next *SignedNetwork) error {
	if next == nil {
		return ruleErr(ErrInvalidDefinition, "missing")
	}
	if next.Version <= cur.Version {
		return ruleErr(ErrNotNewer, "version %d is not newer than %d", next.Version, cur.Version)
	}
	if next.ID != cur.ID {
		return ruleErr(ErrOtherNetwork, "for network %s (%q), not %s (%q)", next.ID, next.Name, cur.ID, cur.Name)
	}
	if !cur.IsAdmin(next.Signer) {
		return ruleErr(ErrNotAdmin, "signed by a key that is not an admin of the current definition (%s)", PublicKeyString(next.Signer))
	}
	return next.verifySignature()
}

// VerifySelfSigned checks a definition that has nothing to be checked
// against: the first one a servant imports (from a file the operator
// deployed) or the one it persisted itself. The signature must verify and
// the signer must be one of n's own admins. It proves the document is
// intact and admin-made, not that the admin is the one the operator meant:
// that trust comes from where the file came from.
func VerifySelfSigned(n *SignedNetwork) error {
	if n == nil {
		return ruleErr(ErrInvalidDefinition, "missing")
	}
	if err := n.Validate(); err != nil {
		return &ruleError{rule: ErrInvalidDefinition, msg: err.Error()}
	}
	if !n.IsAdmin(n.Signer) {
		return ruleErr(ErrSignedByOutsider, "signed by a key that is not one of its own admins (%s)", PublicKeyString(n.Signer))
	}
	return n.verifySignature()
}
