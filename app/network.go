package app

// The installation's identity and the network definition it holds (issue
// 6), as the UI and the control API see them. The definition itself, how
// it changes and spreads, is network.Keeper's (App.net).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// Identity returns this installation's key pair.
func (a *App) Identity() *trust.Identity { return a.identity }

// Network returns the network definition this servant holds. It is never
// nil on an open App; treat it as immutable.
func (a *App) Network() *trust.SignedNetwork { return a.net.Definition() }

// MayPublish reports whether this installation may publish in category
// under the current definition: nil, or a *trust.RejectionError whose
// reason (trust.ReasonOf) says why not.
func (a *App) MayPublish(category string) error {
	return a.Network().MayPublish(a.identity.Public, category)
}

// RateLimited lists the sources of which this servant refused items as
// beyond their publisher's limits, most recent first (network/limits.go).
func (a *App) RateLimited() []network.LimitedSource { return a.net.RateLimited() }

// IsAdmin reports whether this installation is an admin of its network.
func (a *App) IsAdmin() bool { return a.Network().IsAdmin(a.identity.Public) }

// ErrFolder is a folder chosen where a file is wanted (a definition to
// import, a file to attach), inside an *fs.PathError naming it.
var ErrFolder = errors.New("is a folder, not a file")

// ReadNetworkFile reads and parses a network definition file (what
// `newsdesk network init` writes). It checks the format only: the caller
// decides whether to trust it (Options.Network is checked by Open).
func ReadNetworkFile(path string) (*trust.SignedNetwork, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("network definition: %w", &fs.PathError{Op: "read", Path: path, Err: ErrFolder})
	}
	if st.Size() > trust.MaxDefinitionBytes {
		return nil, fmt.Errorf("network definition %s: %w", path, trust.ErrDefinitionTooLarge)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", err)
	}
	sn, err := trust.ParseSignedNetwork(data)
	if err != nil {
		return nil, fmt.Errorf("network definition %s: %w", path, err)
	}
	return sn, nil
}

// PublishNetwork adopts next, a new version of the network definition
// signed by an admin of the one held, and announces it to the network
// (network.Keeper.Publish).
func (a *App) PublishNetwork(next *trust.SignedNetwork) error { return a.net.Publish(next) }

// ImportNetwork makes this installation use the definition sn (a file the
// IT department deployed, read with ReadNetworkFile): the first-run
// wizard's "import a definition". A definition of the network held must
// be a newer version signed by one of its admins (PublishNetwork); the same
// one again is a no-op. A definition of another network replaces the
// installation's own only before setup is done (NeedsSetup), when it must
// verify as signed by one of its own admins; its seeds replace the stored
// ones, and a running servant restarts to use its secret.
func (a *App) ImportNetwork(sn *trust.SignedNetwork) error {
	if err := trust.VerifySelfSigned(sn); err != nil {
		return err
	}
	cur := a.Network()
	switch {
	case network.SameDefinition(cur, sn):
		return nil
	case sn.ID == cur.ID:
		return a.PublishNetwork(sn)
	case !a.NeedsSetup():
		return fmt.Errorf("%w: this installation belongs to %q; joining %q needs a fresh data directory",
			trust.ErrOtherNetwork, cur.Name, sn.Name)
	}
	if err := a.net.Replace(sn); err != nil {
		return err
	}
	a.log.Info("network definition imported", "name", sn.Name, "id", sn.ID.String(), "version", sn.Version)
	a.events.emit(Event{Kind: StatusChanged})
	return a.restart() // nothing when not running
}

// applyCatalog makes the definition's catalog the current one when it is at
// least as new as the stored catalog.
func (a *App) applyCatalog(sn *trust.SignedNetwork) error {
	if sn.Catalog == nil {
		return nil
	}
	a.mu.Lock()
	cur := a.catalog
	a.mu.Unlock()
	if cur != nil && sn.Catalog.Version() < cur.Version() {
		return nil
	}
	if err := a.storeCatalog(sn.Catalog); err != nil {
		return err
	}
	a.mu.Lock()
	changed := a.catalog != sn.Catalog
	a.catalog = sn.Catalog
	a.mu.Unlock()
	if changed {
		a.events.emit(Event{Kind: CatalogChanged})
	}
	return nil
}

// Role is the servant's place in the tree, in the words the control API
// uses too: idle (not started), connecting (looking for the tree),
// attached (it has an up-servant), vertex (the root of the tree), stopped.
type Role string

const (
	RoleIdle       = Role(newsnet.RoleIdle)
	RoleConnecting = Role(newsnet.RoleConnecting)
	RoleAttached   = Role(newsnet.RoleAttached)
	RoleVertex     = Role(newsnet.RoleVertex)
	RoleStopped    = Role(newsnet.RoleStopped)
)
