package ui

import (
	"errors"
	"fyne.io/fyne/v2/lang"
	"slices"

	"fyne.io/fyne/v2/container"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/trust"
)

// TrustBackend is what a backend offers when it holds a signed network
// definition (issue 6): the installation's key, the definition, the roles
// it gives this installation, and the two ways a definition changes
// (an admin's new version, a deployed file). The UI checks for it with a
// type assertion: a Backend without it is treated as an unrestricted
// installation (it may publish everywhere and edit seeds and catalog
// locally, as before). *app.App implements it. It is the one part of the
// UI's contract in trust's types (see the package doc): the definition and
// its merge are trust's, and the editors work on them directly.
type TrustBackend interface {
	// Identity is this installation's key pair (admins sign with it).
	Identity() *trust.Identity
	// Network is the definition held; treat it as immutable.
	Network() *trust.SignedNetwork
	// IsAdmin reports whether this installation is an admin of it.
	IsAdmin() bool
	// MayPublish is nil when this installation may publish in category.
	MayPublish(category string) error
	// PublishNetwork adopts and announces a new version signed by an admin.
	PublishNetwork(next *trust.SignedNetwork) error
	// ImportNetwork makes the installation use a deployed definition.
	ImportNetwork(sn *trust.SignedNetwork) error
	// Retract hides an item everywhere with a signed retraction (admins:
	// any item; publishers: their own).
	Retract(id uuid.UUID, reason string) error
}

var _ TrustBackend = (*app.App)(nil)

// trustBackend returns the backend's TrustBackend, if it has one.
func (u *UI) trustBackend() (TrustBackend, bool) {
	tb, ok := u.b.(TrustBackend)
	return tb, ok
}

// roles is what the network definition lets this installation do, as the
// views show it.
type roles struct {
	trusted    bool     // the backend is a TrustBackend; the fields below apply
	loaded     bool     // read from the backend at least once
	admin      bool     // may edit the network definition
	mayPublish []string // catalog IDs this installation may publish in
	network    *trust.SignedNetwork
	named      []app.NamedAudience // the named ranges (AudienceBackend)
	key        string              // this installation's public key (trust.PublicKeyString)
}

// publisher reports whether the newsroom screens are offered.
func (r roles) publisher() bool { return !r.trusted || len(r.mayPublish) > 0 }

// isAdmin reports whether the admin editors are offered.
func (r roles) isAdmin() bool { return !r.trusted || r.admin }

// may reports whether the compose screen offers category id.
func (r roles) may(id string) bool { return !r.trusted || slices.Contains(r.mayPublish, id) }

// loadRoles reads the roles (background).
func (u *UI) loadRoles() func() {
	tb, ok := u.trustBackend()
	if !ok {
		return nil
	}
	r := roles{trusted: true, loaded: true, network: tb.Network(), admin: tb.IsAdmin()}
	if id := tb.Identity(); id != nil {
		r.key = trust.PublicKeyString(id.Public)
	}
	if ab, ok := u.audienceBackend(); ok {
		r.named = ab.NamedAudiences()
	}
	cat := u.b.Catalog()
	if r.network != nil && r.network.Catalog != nil && (cat == nil || r.network.Catalog.Version() > cat.Version()) {
		cat = r.network.Catalog
	}
	if cat != nil {
		for _, id := range cat.IDs() {
			if tb.MayPublish(id) == nil {
				r.mayPublish = append(r.mayPublish, id)
			}
		}
	}
	return func() {
		u.roles = r
		u.rolesChanged()
	}
}

// rolesChanged shows and hides the screens the roles allow and tells the
// views that depend on them (UI thread).
func (u *UI) rolesChanged() {
	if !u.running {
		return
	}
	r := u.roles
	// The Newsroom tab, third when shown.
	items := slices.Clone(u.tabs.Items)
	has := slices.Contains(items, u.newsTab)
	switch {
	case r.publisher() && !has:
		items = slices.Insert(items, min(2, len(items)), u.newsTab)
		u.tabs.SetItems(items)
	case !r.publisher() && has:
		sel := u.tabs.Selected()
		u.tabs.Remove(u.newsTab)
		if sel == u.newsTab {
			u.tabs.Select(u.readTab)
		}
	}
	// The limits: an admin's to edit under Admin, read-only in the
	// Newsroom for the other publishers, whose items are held to them. A
	// tab lives in one place at a time: it leaves the Newsroom before it
	// joins Admin, and Admin before it joins the Newsroom.
	news := []*container.TabItem{u.composeTab, u.postsTab}
	if r.trusted && !r.admin && r.publisher() {
		news = append(news, u.limitsTab)
	}
	if !slices.Contains(news, u.limitsTab) {
		setTabItems(u.newsTabs, news)
	}
	// The admin editors; everyone sees the network view.
	var admin []*container.TabItem
	if r.isAdmin() {
		admin = append(admin, u.seedsTab, u.catalogTab)
		if r.trusted {
			admin = append(admin, u.publishersTab)
		}
	}
	admin = append(admin, u.networkTab)
	if _, ok := u.inviteBackend(); ok && r.trusted && r.admin {
		admin = append(admin, u.invitesTab) // after Network: the earlier tabs keep their places
	}
	if _, ok := u.audienceBackend(); ok && r.trusted && r.admin {
		admin = append(admin, u.audiencesTab) // for the same reason
	}
	if _, ok := u.reportsBackend(); ok && r.trusted && r.admin {
		admin = append(admin, u.reportsTab) // for the same reason
	}
	if r.trusted && r.admin {
		admin = append(admin, u.limitsTab) // last, for the same reason
	}
	if !slices.Equal(admin, u.adminTabs.Items) {
		sel := u.adminTabs.Selected()
		u.adminTabs.SetItems(admin)
		if slices.Contains(admin, sel) {
			u.adminTabs.Select(sel)
		} else {
			u.adminTabs.Select(u.networkTab)
		}
	}
	if slices.Contains(news, u.limitsTab) {
		setTabItems(u.newsTabs, news)
	}
	// An Admin tab holding only the network view is no admin's: the
	// status line's Details… shows that view to everyone else.
	items = slices.Clone(u.tabs.Items)
	hasAdmin := slices.Contains(items, u.adminTab)
	switch wantAdmin := len(admin) > 1; {
	case wantAdmin && !hasAdmin:
		u.tabs.SetItems(slices.Insert(items, len(items)-1, u.adminTab)) // before Settings
	case !wantAdmin && hasAdmin:
		sel := u.tabs.Selected()
		u.tabs.Remove(u.adminTab)
		if sel == u.adminTab {
			u.tabs.Select(u.readTab)
		}
	}
	u.compose.setCatalog()
	u.compose.picker.setNamed(r.named)
	u.audiencesEd.setNamed(r.named, r.network)
	u.publishers.setRoles(r)
	u.limitsEd.setRoles(r)
	u.seeds.setNetwork(r.network)
	u.prefs.setKey(r.key)
}

// setTabItems gives tabs items when they differ, keeping the tab shown
// when it stays, else showing the first.
func setTabItems(tabs *container.AppTabs, items []*container.TabItem) {
	if slices.Equal(items, tabs.Items) {
		return
	}
	sel := tabs.Selected()
	tabs.SetItems(items)
	if slices.Contains(items, sel) {
		tabs.Select(sel)
	} else {
		tabs.SelectIndex(0)
	}
}

// errNoNetwork: a TrustBackend without a network definition.
var errNoNetwork = errors.New("this installation holds no network definition")

// publishAttempts bounds how often publishEdit merges again when another
// version was adopted between reading the definition and publishing.
const publishAttempts = 3

// publishEdit publishes an admin's edit as the next version of the
// definition held, signed with this installation's key (background).
//
// The editor made its edit against the version it was loaded from, which
// may be older than the one held by now: merge gets the definition held
// (cur) and next, a copy of it numbered cur.Version+1, and applies the
// edit to next as a change, leaving everything else as cur has it. merge
// returns an *editConflict or errUpToDate to stop without publishing. When
// another version is adopted while this one is being signed, the backend
// refuses this one as not newer, and the edit is merged again onto the
// version adopted, which is thus never overwritten either.
func publishEdit(tb TrustBackend, merge func(cur *trust.SignedNetwork, next *trust.Network) error) (*trust.SignedNetwork, error) {
	id := tb.Identity()
	if id == nil {
		return nil, shownError(lang.L("this installation has no key"))
	}
	for attempt := 1; ; attempt++ {
		cur := tb.Network()
		if cur == nil {
			return nil, errNoNetwork
		}
		n := cur.Network.Clone()
		n.Version = cur.Version + 1
		if err := merge(cur, n); err != nil {
			return nil, err
		}
		next, err := id.SignNetwork(n)
		if err != nil {
			return nil, err
		}
		err = tb.PublishNetwork(next)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, trust.ErrNotNewer) || attempt == publishAttempts {
			return nil, err
		}
	}
}
