package app

// Invitations (issue 13): an admin makes invitation codes here, and a new
// installation joins a network by redeeming one (JoinByInvitation; `newsdesk
// join` for headless servants). How invitations are kept, counted and
// redeemed is package network's (network/invite.go, network/redeem.go);
// this file gives the UI and the control API their view of it.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// InviteOptions is what an admin asks for in an invitation.
type InviteOptions struct {
	Uses       int           // redemptions allowed; 0 means 1
	Expires    time.Duration // validity from now; 0 means 7 days
	Publisher  bool          // the joiner becomes a publisher
	Categories []string      // with Publisher: the categories it may publish in; empty: all
	// Anyway makes the invitation although no seed answers (a seed
	// being set up, say): whoever joins waits alone until one does.
	Anyway bool
}

// Invite is an invitation as the admin's views show it. Code is set only
// in CreateInvitation's answer: lists never show it again.
type Invite struct {
	ID         string
	Code       string
	Created    time.Time
	Expires    time.Time
	Uses       int // redemptions allowed
	Used       int
	UsesLeft   int    // 0 once it is used up, expired or revoked
	State      string // "active", "used up", "expired" or "revoked"
	Publisher  bool
	Categories []string
	Redeemed   []string // the keys that redeemed it, in order
}

func inviteView(v network.Invitation, now time.Time) Invite {
	return Invite{
		ID: v.ID, Created: v.Created, Expires: v.Expires, Uses: v.Uses, Used: v.Used,
		UsesLeft: v.UsesLeft(now), State: v.State(now), Publisher: v.Publisher,
		Categories: slices.Clone(v.Categories), Redeemed: slices.Clone(v.Redeemed),
	}
}

// Errors of the invitation methods, for the control API's status codes.
var (
	ErrNotAdmin          = network.ErrNotAdmin
	ErrUnknownInvitation = network.ErrUnknownInvitation
	ErrRevokedMember     = network.ErrRevokedMember
	ErrNotRunning        = errors.New("the servant is not running, so no address to redeem invitations through is known: start it first")
)

// CreateInvitation makes an invitation (admins only: ErrNotAdmin) and
// returns it with its code. The code names this servant, which counts the
// invitation's uses, so the servant must be running (ErrNotRunning), and
// the network's seeds, where the joiner connects, so the network must list
// one (a *NoSeedError, matching ErrNoSeed), and one of them must answer
// unless o.Anyway (a *SeedsUnreachableError, matching ErrSeedsUnreachable):
// a code whose seeds do not answer leads the joiner into a network of one.
// It probes the seeds, so it may take probeTimeout.
func (a *App) CreateInvitation(o InviteOptions) (Invite, error) {
	via := a.Addr()
	if !a.IsAdmin() {
		return Invite{}, ErrNotAdmin
	}
	if via == "" {
		return Invite{}, ErrNotRunning
	}
	sn := a.Network()
	if len(sn.Seeds) == 0 {
		return Invite{}, &NoSeedError{Network: sn.Name}
	}
	if !o.Anyway {
		if err := a.someSeedAnswers(sn.Seeds); err != nil {
			return Invite{}, err
		}
	}
	code, v, err := a.invites.Create(network.InviteRequest{Uses: o.Uses, Expires: o.Expires, Publisher: o.Publisher,
		Categories: o.Categories, Via: via})
	if err != nil {
		return Invite{}, err
	}
	out := inviteView(v, a.now())
	out.Code = code
	return out, nil
}

// serveInvitation serves a redemption on the servant's port
// (network.Inviter.Serve) and, when this servant decided a claim on one
// of its invitations, tells the UI that their uses may have changed, so an
// admin's list shows the redemption at once. Connections that decide
// nothing (idle, malformed, relayed elsewhere) do not reload the list.
func (a *App) serveInvitation(conn *tls.Conn) {
	if a.invites.Serve(conn) {
		a.events.emit(Event{Kind: InvitationsChanged})
	}
}

// Invitations lists the invitations this installation made, oldest first.
func (a *App) Invitations() ([]Invite, error) {
	l, err := a.invites.List()
	if err != nil {
		return nil, err
	}
	now := a.now()
	out := make([]Invite, len(l))
	for i, v := range l {
		out[i] = inviteView(v, now)
	}
	return out, nil
}

// RevokeInvitation ends an invitation at once (admins only).
func (a *App) RevokeInvitation(id string) error { return a.invites.Revoke(id) }

// JoinByInvitation is the first-run wizard's "join a network": it redeems
// the invitation code with this installation's key, imports the network
// definition it brings and sets up with its seeds (Setup, s.Seeds
// ignored). A refusal (used up, expired, revoked, a wrong code) changes
// nothing here; the error says why (a *network.RedeemError). What could
// fail here afterwards is checked first (the display name, the port: a
// port in use is ErrPortInUse), so a code is not used up by a joiner that
// then cannot start. Only before setup is done.
func (a *App) JoinByInvitation(ctx context.Context, code string, s Setup) error {
	if err := a.checkSetup(s); err != nil {
		return err
	}
	if !a.NeedsSetup() {
		return errors.New("this installation is set up already; joining another network needs a fresh data directory")
	}
	c, err := trust.ParseInviteCode(code)
	if err != nil {
		return err
	}
	sn, err := a.opts.DialInvite.Redeem(ctx, c, a.identity, strings.TrimSpace(s.DisplayName))
	if err != nil {
		return err
	}
	if err := a.ImportNetwork(sn); err != nil {
		return fmt.Errorf("the network's definition arrived but could not be imported: %w", err)
	}
	// The certificate that lets this reader's confirmations of must-read
	// items count as verified (reachtrust.go). Without it the app asks
	// again on start.
	if err := a.Certify(ctx, []string{c.Via}); err != nil {
		a.log.Info("no membership certificate yet; asked again later", "via", c.Via, "err", err)
	}
	seeds := network.JoinSeeds(sn, c)
	a.log.Info("joined a network by invitation", "name", sn.Name, "id", sn.ID.String(), "version", sn.Version, "invitation", c.ID)
	return a.Setup(Setup{DisplayName: s.DisplayName, Seeds: seeds, Listen: s.Listen})
}

// ParseInviteExpiry parses an invitation's validity: a Go duration
// ("168h", "90m") or a number of days ("7d").
func ParseInviteExpiry(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("expires %q: want a duration such as 168h or 7d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("expires %q: want a duration such as 168h or 7d", s)
	}
	return d, nil
}

// NoSeedError is CreateInvitation's refusal for a network that lists no
// seed. It matches ErrNoSeed.
type NoSeedError struct{ Network string }

func (e *NoSeedError) Error() string {
	return fmt.Sprintf("no invitation made: network %q lists no seed, so whoever joins would have nowhere to connect. "+
		"An admin's servant started with a fixed port (newsdesk serve --listen HOST:PORT, not port 0) makes itself "+
		"the first seed of a network that has none; in the desktop app, add one under Admin › Seeds", e.Network)
}

func (e *NoSeedError) Is(target error) bool { return target == ErrNoSeed }

// ErrSeedsUnreachable: no seed of the network answered when an invitation
// was made.
var ErrSeedsUnreachable = errors.New("no seed of the network answers")

// SeedsUnreachableError says which seeds were tried and what each did.
type SeedsUnreachableError struct{ Probes []Probe }

func (e *SeedsUnreachableError) Error() string {
	tried := make([]string, len(e.Probes))
	for i, p := range e.Probes {
		tried[i] = p.Addr + " (" + p.Problem + ")"
	}
	return "no invitation made: no seed of the network answers, so whoever joins would wait alone: tried " +
		strings.Join(tried, ", ") + ". Start a seed, or fix the seed list; make the invitation anyway only when a seed will be up before the code is used"
}

func (e *SeedsUnreachableError) Is(target error) bool { return target == ErrSeedsUnreachable }

// someSeedAnswers probes seeds at once and returns nil when one answers.
func (a *App) someSeedAnswers(seeds []string) error {
	probes := make([]Probe, len(seeds))
	var wg sync.WaitGroup
	for i, s := range seeds {
		wg.Go(func() { probes[i] = a.Probe(context.Background(), s) })
	}
	wg.Wait()
	for _, p := range probes {
		if p.OK {
			return nil
		}
	}
	return &SeedsUnreachableError{Probes: probes}
}

// AdmitMember records an installation's key (trust.PublicKeyString form)
// as admitted by this admin's servant, so that the member gets a
// membership certificate when it next asks (it asks every hour until it
// has one): for members whose invitation this servant no longer has on
// record. Admins only (ErrNotAdmin); never a revoked key
// (ErrRevokedMember); a key that does not parse is an error.
func (a *App) AdmitMember(key string) error {
	k, err := trust.ParsePublicKey(key)
	if err != nil {
		return err
	}
	if err := a.invites.Admit(k); err != nil {
		return err
	}
	a.log.Info("member key admitted: it gets a membership certificate when it asks", "key", trust.PublicKeyString(k))
	return nil
}

// InviteCode is what an invitation code says, as the first-run wizard
// shows it before redeeming it (JoinByInvitation).
type InviteCode struct {
	ID      string   // the invitation's ID
	Network string   // the fingerprint of the network it joins
	Via     string   // the admin's servant it is redeemed at, "host:port"
	Seeds   []string // the network's seeds it names, "host:port" each
}

// ParseInviteCode reads an invitation code as an admin handed it out; the
// error says in words what is wrong with it.
func ParseInviteCode(text string) (InviteCode, error) {
	c, err := trust.ParseInviteCode(text)
	if err != nil {
		return InviteCode{}, err
	}
	return InviteCode{ID: c.ID, Network: c.Network.String(), Via: c.Via, Seeds: slices.Clone(c.Seeds)}, nil
}
