package app

// The installation's identity and the network definition (issue 6).
//
// Every data directory holds an Ed25519 key (trust.IdentityFile, owner-only)
// and the signed definition of the network it belongs to, stored in the
// settings bucket in its canonical encoding. The definition is the root of
// trust: it names the admins, the publishers, the catalog, the seeds, the
// fanout and the network secret. A data directory gets its first definition
// from an import (`serve --network FILE`, Options.Network), or creates a new
// one-computer network whose admin is this installation; later versions
// replace it only through trust.SignedNetwork.Accept.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// keyNetwork is the settings key of the current signed network definition
// (trust.SignedNetwork.Marshal, canonical JSON).
const keyNetwork = "network"

// errNoNetwork: the store holds no network definition yet.
var errNoNetwork = errors.New("no network definition stored")

// Identity returns this installation's key pair.
func (a *App) Identity() *trust.Identity { return a.identity }

// Network returns the network definition this servant holds. It is never
// nil on an open App; treat it as immutable.
func (a *App) Network() *trust.SignedNetwork { return a.network.Load() }

// MayPublish reports whether this installation may publish in category
// under the current definition: nil, or a *trust.RejectionError whose
// reason (trust.ReasonOf) says why not.
func (a *App) MayPublish(category string) error {
	return a.Network().MayPublish(a.identity.Public, category)
}

// IsAdmin reports whether this installation is an admin of its network.
func (a *App) IsAdmin() bool { return a.Network().IsAdmin(a.identity.Public) }

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
	if st.Size() > trust.MaxDefinitionBytes {
		return nil, fmt.Errorf("network definition %s: larger than %d bytes", path, trust.MaxDefinitionBytes)
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

// storedNetwork returns the definition kept in the store, checked as a
// self-consistent admin-signed document (errNoNetwork when none is kept).
func (a *App) storedNetwork() (*trust.SignedNetwork, error) {
	v, ok, err := a.store.Setting(keyNetwork)
	if err != nil {
		return nil, err
	}
	if !ok || v == "" {
		return nil, errNoNetwork
	}
	sn, err := trust.ParseSignedNetwork([]byte(v))
	if err != nil {
		return nil, fmt.Errorf("stored network definition: %w", err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		return nil, fmt.Errorf("stored network definition: %w", err)
	}
	return sn, nil
}

func (a *App) saveNetwork(sn *trust.SignedNetwork) error {
	doc, err := sn.Marshal()
	if err != nil {
		return err
	}
	return a.store.SetSetting(keyNetwork, string(doc))
}

// sameDefinition reports whether a and b are the same signed document.
func sameDefinition(x, y *trust.SignedNetwork) bool {
	bx, err1 := x.Marshal()
	by, err2 := y.Marshal()
	return err1 == nil && err2 == nil && bytes.Equal(bx, by)
}

// initNetwork loads, imports or creates the network definition. It runs in
// Open, after the seeds of the options are stored.
func (a *App) initNetwork() error {
	cur, err := a.storedNetwork()
	if err != nil && !errors.Is(err, errNoNetwork) {
		return err
	}
	imp := a.opts.Network
	imported := false
	switch {
	case imp != nil && cur == nil:
		if err := trust.VerifySelfSigned(imp); err != nil {
			return fmt.Errorf("refusing to import the network definition: %w", err)
		}
		cur, imported = imp, true
	case imp != nil && imp.ID != cur.ID:
		return fmt.Errorf("refusing the network definition %q (%s): %w: this data directory belongs to %q (%s); "+
			"join the other network with a fresh data directory", imp.Name, imp.ID, trust.ErrOtherNetwork, cur.Name, cur.ID)
	case imp != nil && !sameDefinition(cur, imp):
		if err := cur.Accept(imp); err != nil {
			return fmt.Errorf("refusing the network definition %q version %d: %w (this data directory holds %q version %d; "+
				"a new version must be signed by one of its admins)", imp.Name, imp.Version, err, cur.Name, cur.Version)
		}
		cur, imported = imp, true
		a.announce = imp
	case cur == nil:
		if cur, err = a.newOwnNetwork(); err != nil {
			return err
		}
		a.log.Info("created a new one-computer network", "name", cur.Name, "id", cur.ID.String(),
			"admin", trust.PublicKeyString(a.identity.Public))
		if seeds, _ := a.store.Seeds(); len(seeds) > 0 {
			a.log.Warn("this data directory had no network definition, so it started a network of its own: "+
				"servants of another network refuse its links; to join one, start with --network FILE "+
				"(from `newsdesk network init`) on a fresh data directory", "seeds", fmt.Sprint(seeds))
		}
		imported = true
	}
	if imported {
		if err := a.saveNetwork(cur); err != nil {
			return err
		}
		if a.opts.Seeds == nil && len(cur.Seeds) > 0 {
			// The definition's seeds are used when none are given.
			if err := a.storeSeeds(cur.Seeds); err != nil {
				return err
			}
		}
	}
	a.network.Store(cur)
	return a.applyCatalog(cur)
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
	doc, err := sn.Catalog.Marshal()
	if err != nil {
		return err
	}
	if err := a.store.SetSetting(keyCatalog, string(doc)); err != nil {
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

// newOwnNetwork creates the definition of a new one-computer network: this
// installation is its only admin (and so a publisher in every category);
// its seeds are the stored seeds when they are valid for a definition.
func (a *App) newOwnNetwork() (*trust.SignedNetwork, error) {
	name := "Newsdesk"
	if h, err := os.Hostname(); err == nil && h != "" {
		name = "Newsdesk on " + h
	}
	name = oneLine(name, trust.MaxNetworkNameRunes)
	seeds, err := a.store.Seeds()
	if err != nil {
		return nil, err
	}
	sn, err := trust.NewNetwork(name, a.identity, seeds, false)
	if err == nil {
		err = sn.Validate()
	}
	if err != nil && len(seeds) > 0 {
		// Seeds a definition cannot hold (say, port 0): start without.
		sn, err = trust.NewNetwork(name, a.identity, nil, false)
	}
	if err != nil {
		return nil, fmt.Errorf("creating a network: %w", err)
	}
	return sn, nil
}

func oneLine(s string, maxRunes int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes])
	}
	return s
}

// verify is the servant's newsnet.Config.Verify: it checks every multicast
// message that arrives before it is relayed, delivered or cached, and
// returns "" or the trust.Rejection that drops it. It runs on the node's
// loop goroutine: a decode, a comparison and a signature check (and, for a
// correction, one read of the local store).
func (a *App) verify(m *newsnet.Multicast) string {
	sn := a.Network()
	it := new(news.Item)
	if err := it.UnmarshalBinary(m.Payload); err != nil {
		return string(trust.Invalid)
	}
	if it.ID != uuid.UUID(m.ID) || it.Category != m.Category || it.Source.String() != m.Source || it.SourceCount != m.Count {
		return string(trust.Mismatch)
	}
	switch it.Category {
	case network.NetworkCategory:
		return a.verifyDefinition(sn, it)
	case network.RetractionCategory:
		return a.net.VerifyRetraction(sn, it)
	}
	var err error
	if it.Supersedes != uuid.Nil {
		if orig, gerr := a.store.Get(it.Supersedes); gerr == nil && orig.Item != nil {
			err = sn.VerifyCorrection(orig.Item, it)
		} else {
			_, err = sn.VerifyItem(it) // the original is not here: a plain item
		}
	} else {
		_, err = sn.VerifyItem(it)
	}
	if err == nil {
		return ""
	}
	if r := trust.ReasonOf(err); r != "" {
		return string(r)
	}
	return string(trust.Invalid)
}

// secrets is node.Security.Secrets: the current network secret first, then,
// for SecretGrace after a rotation, the one it replaced (so links to
// servants that have not heard of the rotation yet stay up).
func (a *App) secrets() [][]byte {
	cur := a.Network().Secret
	out := [][]byte{cur}
	if r := a.prevSecret.Load(); r != nil && time.Now().Before(r.until) && !bytes.Equal(r.secret, cur) {
		out = append(out, r.secret)
	}
	return out
}

// SecretGrace is how long the previous network secret stays accepted after
// a new definition rotated it: long enough for the new definition to reach
// every servant, after which links still proven with the old one close.
const SecretGrace = 10 * time.Minute

// rotation is the secret a new definition replaced, accepted until until.
type rotation struct {
	secret []byte
	until  time.Time
}
