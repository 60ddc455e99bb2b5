package network

// Invitations (issue 13): an admin's servant makes invitation codes and is
// the one place that counts their uses.
//
// An invitation lives only in the store of the admin's servant that made
// it: its ID, its token, the network fingerprint it was made for, its
// uses, expiry, revocation, and the keys that redeemed it. Nothing of it
// is published: seeds know nothing of invitations. A joiner proves the
// token to whichever seed it reaches (redeem.go); a seed that does not
// hold the invitation relays the proof to the servant named in the code
// (via, signed by this servant's key: seeds dial only a via an admin
// signed) over a members-only TLS session, and that servant decides, under
// one lock and in one store write, so a code with one use is redeemed
// once in the whole network however many seeds are asked at once. The
// cost: a redemption needs the admin's servant that made the invitation
// to be running and reachable from the seed the joiner reached (the
// refusal says so).

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/trust"
)

// keyInvitations is the settings key of the invitations this servant made
// (JSON list of invitation records).
const keyInvitations = "invitations"

// Limits of an invitation.
const (
	MaxInviteUses      = 1000
	MinInviteLifetime  = time.Minute
	MaxInviteLifetime  = 90 * 24 * time.Hour
	DefaultInviteUses  = 1
	DefaultInviteValid = 7 * 24 * time.Hour
	// maxInvitations bounds the invitations kept (active and ended);
	// ended ones are forgotten endedKept after they ended.
	maxInvitations = 1000
	endedKept      = 30 * 24 * time.Hour
)

// Errors of the invitation methods.
var (
	ErrNotAdmin          = errors.New("only an admin of the network can manage invitations")
	ErrUnknownInvitation = errors.New("no such invitation")
	ErrRevokedMember     = errors.New("the key is revoked in the network definition")
)

// InviteRequest is what an admin asks for.
type InviteRequest struct {
	Uses       int           // 0: DefaultInviteUses
	Expires    time.Duration // from now; 0: DefaultInviteValid
	Publisher  bool          // the joiner's key becomes a publisher
	Categories []string      // with Publisher: where it may publish; empty: everywhere
	// Via is this servant's address as other servants dial it, named in
	// the code: redemptions are counted here. Required.
	Via string
}

// Invitation is an invitation as lists show it (never its token).
type Invitation struct {
	ID         string
	Created    time.Time
	Expires    time.Time
	Uses       int // how many redemptions it allows
	Used       int
	Publisher  bool
	Categories []string
	Revoked    bool
	Redeemed   []string // the keys that redeemed it (trust.PublicKeyString), in order
}

// UsesLeft is how many more redemptions it allows now (0 once it ended).
func (v Invitation) UsesLeft(now time.Time) int {
	if v.Revoked || !now.Before(v.Expires) {
		return 0
	}
	return max(v.Uses-v.Used, 0)
}

// State says in a word whether it can still be redeemed: "active",
// "used up", "expired" or "revoked".
func (v Invitation) State(now time.Time) string {
	switch {
	case v.Revoked:
		return "revoked"
	case !now.Before(v.Expires):
		return "expired"
	case v.Used >= v.Uses:
		return "used up"
	}
	return "active"
}

// invitation is the stored record.
type invitation struct {
	Invitation
	Token     []byte    `json:"token"`
	Network   string    `json:"network"` // trust.Fingerprint text at creation
	RevokedAt time.Time `json:"revokedAt,omitzero"`
	UsedUpAt  time.Time `json:"usedUpAt,omitzero"`
}

// Inviter makes, lists and revokes this servant's invitations and serves
// redemptions (redeem.go). Its methods are safe for concurrent use.
type Inviter struct {
	k   *Keeper
	now func() time.Time

	mu sync.Mutex // the invitations stored: every read-modify-write
	// relays bounds the redemptions served at once, unread those of one
	// address still waiting for their request (redeem.go).
	relays chan struct{}
	unread *addressLimit
	// refusedLines limits the log of refused redemptions per address.
	refusedLines *lineLimit
	// relayTimeout bounds a relay to via (relayTimeout; tests shorten it).
	relayTimeout time.Duration
	// dial connects a relay to via (SetDialer); nil dials TCP.
	dial Dialer
}

// NewInviter returns the Inviter of k's installation.
func NewInviter(k *Keeper) *Inviter {
	return &Inviter{k: k, now: time.Now, relays: make(chan struct{}, maxRedemptions), unread: newAddressLimit(maxUnreadPerAddress),
		refusedLines: newLineLimit(refusalLogEvery, refusalLogAddrs), relayTimeout: relayTimeout}
}

// SetDialer makes the relays of redemptions to the admin's servant
// connect with d instead of over TCP. Call it before the servant serves
// redemptions.
func (iv *Inviter) SetDialer(d Dialer) { iv.dial = d }

func (iv *Inviter) load() ([]invitation, error) {
	v, ok, err := iv.k.store.Setting(keyInvitations)
	if err != nil || !ok || v == "" {
		return nil, err
	}
	var out []invitation
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("stored invitations: %w", err)
	}
	return out, nil
}

// save stores invs, forgetting those that ended more than endedKept ago.
func (iv *Inviter) save(invs []invitation) error {
	now := iv.now()
	invs = slices.DeleteFunc(invs, func(r invitation) bool {
		var end time.Time
		switch {
		case r.Revoked:
			end = r.RevokedAt
		case !now.Before(r.Expires):
			end = r.Expires
		case r.Used >= r.Uses:
			end = r.UsedUpAt
		}
		return !end.IsZero() && now.Sub(end) > endedKept
	})
	doc, err := json.Marshal(invs)
	if err != nil {
		return err
	}
	return iv.k.store.SetSetting(keyInvitations, string(doc))
}

// Create makes an invitation and returns its code, the one line the admin
// hands out, and the invitation as lists show it. Only an admin's servant
// makes invitations (ErrNotAdmin).
func (iv *Inviter) Create(req InviteRequest) (string, Invitation, error) {
	sn := iv.k.Definition()
	if !sn.IsAdmin(iv.k.identity.Public) {
		return "", Invitation{}, ErrNotAdmin
	}
	cats, err := CheckInviteRequest(sn, &req)
	if err != nil {
		return "", Invitation{}, err
	}
	if strings.TrimSpace(req.Via) == "" {
		return "", Invitation{}, errors.New("this servant is not running, so no address to redeem through is known: start it first")
	}
	id, err := trust.NewInviteID()
	if err != nil {
		return "", Invitation{}, err
	}
	tok, err := trust.NewInviteToken()
	if err != nil {
		return "", Invitation{}, err
	}
	fp := trust.NetworkFingerprint(&sn.Network)
	code := &trust.InviteCode{Network: fp, ID: id, Token: tok, Via: req.Via}
	for _, s := range sn.Seeds {
		if len(code.Seeds) == trust.MaxInviteSeeds {
			break
		}
		code.Seeds = append(code.Seeds, s)
	}
	code.Sign(iv.k.identity)
	if err := code.Check(); err != nil {
		return "", Invitation{}, fmt.Errorf("this servant's address %q cannot be named in an invitation: %w", req.Via, err)
	}
	now := iv.now()
	rec := invitation{
		Invitation: Invitation{ID: id, Created: now.UTC(), Expires: now.Add(req.Expires).UTC(), Uses: req.Uses,
			Publisher: req.Publisher, Categories: cats},
		Token:   tok,
		Network: fp.String(),
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	invs, err := iv.load()
	if err != nil {
		return "", Invitation{}, err
	}
	if len(invs) >= maxInvitations {
		return "", Invitation{}, fmt.Errorf("%d invitations are kept already: revoke some first", len(invs))
	}
	invs = append(invs, rec)
	if err := iv.save(invs); err != nil {
		return "", Invitation{}, err
	}
	iv.k.log.Info("invitation created", "id", id, "uses", req.Uses, "expires", rec.Expires, "publisher", req.Publisher)
	return code.String(), rec.Invitation, nil
}

// checkInviteCategories checks a publisher invitation's categories against
// the catalog and returns them sorted.
// CheckInviteRequest applies the defaults to req (DefaultInviteUses,
// DefaultInviteValid) and checks it as Create does before it makes
// anything: the uses, the lifetime, categories only for a publisher and
// each in sn's catalog. It returns the categories sorted, each once (nil
// for none). Via is not looked at. The UI tests' fake checks with it too.
func CheckInviteRequest(sn *trust.SignedNetwork, req *InviteRequest) ([]string, error) {
	if req.Uses == 0 {
		req.Uses = DefaultInviteUses
	}
	if req.Expires == 0 {
		req.Expires = DefaultInviteValid
	}
	switch {
	case req.Uses < 1 || req.Uses > MaxInviteUses:
		return nil, fmt.Errorf("uses: %d, want 1 to %d", req.Uses, MaxInviteUses)
	case req.Expires < MinInviteLifetime || req.Expires > MaxInviteLifetime:
		return nil, fmt.Errorf("expires: %v, want %v to %v (%d days)", req.Expires, MinInviteLifetime, MaxInviteLifetime, int(MaxInviteLifetime.Hours()/24))
	case len(req.Categories) > 0 && !req.Publisher:
		return nil, errors.New("categories: only for a publisher invitation")
	}
	return checkInviteCategories(sn, req.Categories)
}

func checkInviteCategories(sn *trust.SignedNetwork, cats []string) ([]string, error) {
	if len(cats) == 0 {
		return nil, nil
	}
	out := slices.Clone(cats)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > trust.MaxPublisherCategories {
		return nil, fmt.Errorf("categories: more than %d", trust.MaxPublisherCategories)
	}
	for _, c := range out {
		if err := categories.ValidateID(c); err != nil {
			return nil, fmt.Errorf("categories: %w", err)
		}
		if sn.Catalog != nil && !slices.Contains(sn.Catalog.IDs(), c) {
			return nil, fmt.Errorf("categories: %q is not in the network's catalog", c)
		}
		if IsSystemCategory(c) {
			return nil, fmt.Errorf("categories: %q is a system group", c)
		}
	}
	return out, nil
}

// List returns this servant's invitations, oldest first, without tokens.
func (iv *Inviter) List() ([]Invitation, error) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	invs, err := iv.load()
	if err != nil {
		return nil, err
	}
	out := make([]Invitation, len(invs))
	for i, r := range invs {
		out[i] = r.Invitation
		out[i].Categories = slices.Clone(r.Categories)
		out[i].Redeemed = slices.Clone(r.Redeemed)
	}
	return out, nil
}

// Revoke ends an invitation at once: later redemptions are refused as
// revoked. Revoking one that ended already is fine; an unknown ID is
// ErrUnknownInvitation.
func (iv *Inviter) Revoke(id string) error {
	if !iv.k.Definition().IsAdmin(iv.k.identity.Public) {
		return ErrNotAdmin
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	invs, err := iv.load()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(invs, func(r invitation) bool { return r.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrUnknownInvitation, id)
	}
	if invs[i].Revoked {
		return nil
	}
	invs[i].Revoked, invs[i].RevokedAt = true, iv.now().UTC()
	if err := iv.save(invs); err != nil {
		return err
	}
	iv.k.log.Info("invitation revoked", "id", id)
	return nil
}

// claim is one redemption to decide: the proof a joiner made on its TLS
// session with a seed, for its key.
type claim struct {
	network  trust.Fingerprint
	id       string
	exporter []byte // of the joiner's session
	key      ed25519.PublicKey
	name     string // the joiner's display name, for a publisher entry
	proof    []byte
}

// redeem decides a claim as the servant holding the invitation: it
// checks the token proof, then whether the invitation is still good, and
// counts the use, all under iv.mu and in one store write, so concurrent
// claims are decided one after the other against the count the last one
// left. A publisher invitation first publishes the next definition with
// the joiner's key among the publishers. It returns the definition to
// hand over and the confirmation proof; a refusal changes nothing.
//
// A key that redeemed the invitation before (its first answer may have
// been lost on the way) gets the definition held now, and nothing else:
// no use is counted, and no right is added or restored. A publisher the
// admin removed since stays removed, a publisher whose categories changed
// keeps the current ones (issue 32). It is still refused when the
// invitation was revoked or expired, or its key revoked, since.
func (iv *Inviter) redeem(c claim) (*trust.SignedNetwork, []byte, *RedeemError) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	invs, err := iv.load()
	if err != nil {
		return nil, nil, refusal(ReasonInternal, "the admin's servant could not read its invitations: %v", err)
	}
	i := slices.IndexFunc(invs, func(r invitation) bool { return r.ID == c.id })
	if i < 0 {
		return nil, nil, refusal(ReasonUnknown, "the admin's servant does not know this invitation: it was not made there, or was forgotten long after it ended; ask for a new one")
	}
	r := invs[i]
	if !trust.CheckInvitationProof(c.proof, r.Token, trust.RoleJoiner, c.id, c.network, c.exporter, c.key) {
		return nil, nil, refusal(ReasonWrongToken, "the invitation code is wrong (its token does not match): copy the whole code again, or ask for a new one")
	}
	sn := iv.k.Definition()
	if !sn.IsAdmin(iv.k.identity.Public) {
		return nil, nil, refusal(ReasonNotAdmin, "the servant that made this invitation is no longer an admin of the network; ask an admin for a new invitation")
	}
	if fp := trust.NetworkFingerprint(&sn.Network); fp.String() != r.Network || !trust.SameFingerprint(fp, c.network) {
		return nil, nil, refusal(ReasonFingerprint, "the network's admins changed since this invitation was made, so it no longer names the network; ask for a new one")
	}
	keyText := trust.PublicKeyString(c.key)
	again := slices.Contains(r.Redeemed, keyText)
	now := iv.now()
	switch {
	case r.Revoked:
		return nil, nil, refusal(ReasonRevoked, "this invitation was revoked by the admin")
	case !now.Before(r.Expires):
		return nil, nil, refusal(ReasonExpired, "this invitation expired on %s", r.Expires.Local().Format("2 Jan 2006 15:04"))
	case again:
	case r.Used >= r.Uses:
		return nil, nil, refusal(ReasonUsedUp, "this invitation was used up (it allowed %d use%s)", r.Uses, plural(r.Uses))
	}
	if sn.IsRevoked(c.key) {
		return nil, nil, refusal(ReasonRevokedKey, "this installation's key %s is revoked in the network", keyText)
	}
	confirm := trust.InvitationProof(r.Token, trust.RoleInviter, c.id, c.network, c.exporter, c.key)
	if again {
		iv.k.log.Info("invitation redeemed again by the same key: the current definition, no rights added", "id", c.id, "key", keyText,
			"version", sn.Version)
		return sn, confirm, nil
	}
	if r.Publisher {
		next, err := iv.addPublisher(c.key, c.name, r)
		if err != nil {
			return nil, nil, refusal(ReasonInternal, "the admin's servant could not add this installation to the publishers: %v", err)
		}
		sn = next
	}
	invs[i].Used++
	invs[i].Redeemed = append(invs[i].Redeemed, keyText)
	if invs[i].Used >= invs[i].Uses {
		invs[i].UsedUpAt = now.UTC()
	}
	if err := iv.save(invs); err != nil {
		return nil, nil, refusal(ReasonInternal, "the admin's servant could not count the use: %v", err)
	}
	if err := iv.noteAdmitted(keyText); err != nil {
		iv.k.log.Warn("recording an admitted key failed: it is still on record in its invitation", "key", keyText, "err", err)
	}
	iv.k.log.Info("invitation redeemed", "id", c.id, "key", keyText, "used", invs[i].Used, "uses", r.Uses)
	return sn, confirm, nil
}

// addPublisher publishes the next definition with key among the
// publishers (in r's categories), signed by this admin's key, unless it is
// one already or publishing is open; it returns the definition held then.
func (iv *Inviter) addPublisher(key ed25519.PublicKey, name string, r invitation) (*trust.SignedNetwork, error) {
	for attempt := 1; ; attempt++ {
		cur := iv.k.Definition()
		if _, ok := cur.Publisher(key); ok || cur.OpenPublishing {
			return cur, nil
		}
		n := cur.Network.Clone()
		n.Version = cur.Version + 1
		n.Publishers = append(n.Publishers, trust.Publisher{Name: publisherName(name, r.ID), Key: key, Categories: slices.Clone(r.Categories)})
		next, err := iv.k.identity.SignNetwork(n)
		if err != nil {
			return nil, err
		}
		err = iv.k.adoptAndAnnounce(cur, next)
		if err == nil {
			iv.k.log.Info("publisher added by invitation", "id", r.ID, "key", trust.PublicKeyString(key), "version", next.Version)
			return next, nil
		}
		if !errors.Is(err, trust.ErrNotNewer) || attempt == 3 {
			return nil, err
		}
	}
}

// adoptAndAnnounce is Publish for an edit made while serving a
// redemption: next is adopted at once (the joiner gets it), and announced
// to the network on a goroutine of the Keeper's own. The redemption runs
// on the servant's accepting goroutine, which the application's shutdown
// waits for while it holds its publishing lock, so it must not wait to
// publish; Close waits for the announcement, which then goes to the outbox
// if the servant is gone.
func (k *Keeper) adoptAndAnnounce(cur, next *trust.SignedNetwork) error {
	if err := cur.Accept(next); err != nil {
		return err
	}
	if err := k.adoptNetwork(next); err != nil {
		return err
	}
	k.ownEdit.set(cur, next)
	k.bg.Add(1)
	go func() {
		defer k.bg.Done()
		if err := k.announceNetwork(next); err != nil {
			k.log.Warn("announcing the definition that added an invited publisher failed", "version", next.Version, "err", err)
		}
	}()
	return nil
}

// publisherName is the name a publisher invitation's joiner is listed
// under: its display name when it is a valid one, else one naming the
// invitation.
func publisherName(name, id string) string {
	name = strings.TrimSpace(name)
	if name == "" || news.CheckLine("name", name, trust.MaxPublisherNameRunes) != nil {
		return "Invited (" + id + ")"
	}
	return name
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
