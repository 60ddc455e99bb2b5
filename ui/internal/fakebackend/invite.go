package fakebackend

// Invitations (issue 13), as the application makes them (app/invite.go),
// held in memory. The codes are real codes of the backend's network; there
// is no servant to redeem them at, so JoinByInvitation finds no seed, as
// the application does when none answers.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/trust"
)

type demoInvite struct {
	app.Invite
	revoked bool
}

func (m *Backend) inviteView(v demoInvite, now time.Time) app.Invite {
	out := v.Invite
	out.Code = ""
	out.Categories = slices.Clone(v.Categories)
	out.Redeemed = slices.Clone(v.Redeemed)
	switch {
	case v.revoked:
		out.State, out.UsesLeft = "revoked", 0
	case !now.Before(v.Expires):
		out.State, out.UsesLeft = "expired", 0
	case v.Used >= v.Uses:
		out.State, out.UsesLeft = "used up", 0
	default:
		out.State, out.UsesLeft = "active", v.Uses-v.Used
	}
	return out
}

// CreateInvitation makes an invitation of the backend's network, under
// the application's rules: admins only, with the servant running (set
// up), uses 1 to 1000, valid a minute to 90 days, categories only for a
// publisher and only from the catalog, and a seed must answer (Probe)
// unless o.Anyway.
func (m *Backend) CreateInvitation(o app.InviteOptions) (app.Invite, error) {
	if !m.IsAdmin() {
		return app.Invite{}, app.ErrNotAdmin
	}
	if seeds := m.Network().Seeds; len(seeds) > 0 && !o.Anyway {
		var probes []app.Probe
		for _, s := range seeds {
			probes = append(probes, m.Probe(context.Background(), s))
		}
		if !slices.ContainsFunc(probes, func(p app.Probe) bool { return p.OK }) {
			return app.Invite{}, &app.SeedsUnreachableError{Probes: probes}
		}
	}
	self := m.Settings()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.setup {
		return app.Invite{}, app.ErrNotRunning
	}
	req := network.InviteRequest{Uses: o.Uses, Expires: o.Expires, Publisher: o.Publisher, Categories: o.Categories}
	cats, err := network.CheckInviteRequest(m.network, &req)
	if err != nil {
		return app.Invite{}, err
	}
	o.Uses, o.Expires = req.Uses, req.Expires
	id, err := trust.NewInviteID()
	if err != nil {
		return app.Invite{}, err
	}
	tok, err := trust.NewInviteToken()
	if err != nil {
		return app.Invite{}, err
	}
	code := &trust.InviteCode{Network: trust.NetworkFingerprint(&m.network.Network), ID: id, Token: tok,
		Via: cmp.Or(string(m.status.ID), self.Advertise, self.Listen)}
	for _, s := range m.seeds {
		if len(code.Seeds) < trust.MaxInviteSeeds && s != code.Via && trust.CheckInviteAddress(s) == nil {
			code.Seeds = append(code.Seeds, s)
		}
	}
	code.SignVia(m.identity)
	if err := code.Check(); err != nil {
		return app.Invite{}, err
	}
	now := m.now()
	if len(cats) == 0 {
		cats = nil
	}
	v := demoInvite{Invite: app.Invite{ID: id, Code: code.String(), Created: now, Expires: now.Add(o.Expires),
		Uses: o.Uses, Publisher: o.Publisher, Categories: cats}}
	m.invites = append(m.invites, v)
	out := m.inviteView(v, now)
	out.Code = v.Code
	return out, nil
}

// Invitations lists the invitations made, oldest first, without codes.
func (m *Backend) Invitations() ([]app.Invite, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	out := make([]app.Invite, len(m.invites))
	for i, v := range m.invites {
		out[i] = m.inviteView(v, now)
	}
	return out, nil
}

// RevokeInvitation ends an invitation.
func (m *Backend) RevokeInvitation(id string) error {
	if !m.IsAdmin() {
		return app.ErrNotAdmin
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.invites, func(v demoInvite) bool { return v.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %q", app.ErrUnknownInvitation, id)
	}
	m.invites[i].revoked = true
	return nil
}

// JoinByInvitation checks what the application checks before redeeming
// (a display name, setup not done, a code that parses); there is no
// network to redeem at, so it then fails as the application does when no
// servant named in the code answers.
func (m *Backend) JoinByInvitation(ctx context.Context, code string, s app.Setup) error {
	if err := app.CheckDisplayName(s.DisplayName, true); err != nil {
		return err
	}
	if err := m.checkListen(s.Listen); err != nil {
		return err
	}
	if !m.NeedsSetup() {
		return errors.New("this installation is set up already; joining another network needs a fresh data directory")
	}
	c, err := trust.ParseInviteCode(code)
	if err != nil {
		return err
	}
	addrs := append(slices.Clone(c.Seeds), c.Via)
	return &network.RedeemError{Reason: network.ReasonNoSeed,
		Msg: "no servant named in the invitation could be reached: " + strings.Join(addrs, ", ") + ": the demo has no network"}
}

// Redeemed counts a use of invitation id, as the admin's servant does
// when a joiner redeems it, and announces it with InvitationsChanged.
func (m *Backend) Redeemed(id, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.invites {
		if m.invites[i].ID == id {
			m.invites[i].Used++
			m.invites[i].Redeemed = append(m.invites[i].Redeemed, key)
		}
	}
	m.emitLocked(app.Event{Kind: app.InvitationsChanged})
}
