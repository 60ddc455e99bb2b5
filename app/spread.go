package app

// Spreading new network definitions over the overlay (issue 6): every
// servant subscribes to NetworkCategory, a system group kept out of the
// lists users see. A new definition travels as an item of that category
// whose body is the signed definition (canonical JSON). Its authority is
// the definition's own admin signature, checked by Verify against the
// definition held (trust.SignedNetwork.Accept), so any member may relay or
// announce one; the item signature still proves it was not altered on the
// way. Receivers store the item (so they answer retransmission and catch-up
// requests for it: a servant that joins later receives it through
// catch-up), and apply the definition: catalog at once, seeds at the next
// connection, a rotated secret by re-authenticating links.

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/trust"
)

// verifyDefinition is Verify for an item of NetworkCategory.
func (a *App) verifyDefinition(sn *trust.SignedNetwork, it *news.Item) string {
	if r := network.VerifyCarrier(sn, it); r != "" {
		return r
	}
	if _, isPart, err := parseDefinitionPart(it.Body); isPart {
		if err != nil {
			return string(trust.Invalid)
		}
		return "" // checked when complete (defparts.go)
	}
	next, err := trust.ParseSignedNetwork([]byte(it.Body))
	if err != nil {
		return string(trust.Invalid)
	}
	if next.ID != sn.ID {
		return string(trust.Mismatch)
	}
	err = sn.Accept(next)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, trust.ErrNotNewer):
		// The held version or an older one (a catch-up replays history):
		// harmless when intact, and a later joiner may still need it.
		if trust.VerifySelfSigned(next) == nil {
			return ""
		}
		return string(trust.BadSignature)
	case errors.Is(err, trust.ErrNotAdmin):
		if trust.VerifySelfSigned(next) == nil {
			a.held.hold(next, it)
			return string(trust.AheadOfChain)
		}
		return string(trust.NotAuthorized)
	case errors.Is(err, trust.ErrBadSignature):
		return string(trust.BadSignature)
	}
	return string(trust.Invalid)
}

// PublishNetwork adopts next, a new version of the network definition
// signed by an admin of the one held, and announces it to the network.
func (a *App) PublishNetwork(next *trust.SignedNetwork) error {
	cur := a.Network()
	if err := cur.Accept(next); err != nil {
		return err
	}
	if err := a.adoptNetwork(next); err != nil {
		return err
	}
	if next.Signer.Equal(a.identity.Public) {
		a.ownEdit.set(cur, next) // to apply again should a rival win (rival.go)
	}
	return a.announceNetwork(next)
}

// announceNetwork publishes sn as an item of NetworkCategory, or as
// several when it is larger than one item's body (defparts.go).
func (a *App) announceNetwork(sn *trust.SignedNetwork) error {
	doc, err := sn.Marshal()
	if err != nil {
		return err
	}
	bodies, err := splitDefinition(doc)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("Network definition %q version %d", oneLine(sn.Name, 60), sn.Version)
	for i, body := range bodies {
		t := title
		if len(bodies) > 1 {
			t = fmt.Sprintf("%s, part %d of %d", title, i+1, len(bodies))
		}
		res, err := a.publishSystemItem(network.NetworkCategory, t, body)
		if err != nil {
			return fmt.Errorf("announcing the network definition: %w", err)
		}
		a.log.Info("network definition announced", "version", sn.Version, "part", i+1, "parts", len(bodies), "outcome", res.Outcome.String())
	}
	return nil
}

// adoptNetwork makes next (already accepted) the definition held, then
// adopts the held definitions it opens the way to (chain.go).
func (a *App) adoptNetwork(next *trust.SignedNetwork) error {
	adopted, err := a.adoptOne(next)
	if err != nil {
		return err
	}
	if !adopted {
		return fmt.Errorf("%w: version %d was adopted meanwhile", trust.ErrNotNewer, a.Network().Version)
	}
	a.adoptHeld()
	return nil
}

// adoptOne makes next (already accepted, or a winning rival) the
// definition held: it is stored, the catalog applies at once, the seeds at
// the next connection, and links proven with a secret no longer accepted
// re-authenticate. It reports false, changing nothing, when the definition
// held changed meanwhile so that next no longer replaces it.
func (a *App) adoptOne(next *trust.SignedNetwork) (bool, error) {
	a.netMu.Lock()
	defer a.netMu.Unlock()
	cur := a.Network()
	if next.Version < cur.Version || next.Version == cur.Version && cur.AcceptRival(next) != nil {
		return false, nil
	}
	if err := a.saveNetwork(next); err != nil {
		return false, err
	}
	a.network.Store(next)
	a.log.Info("network definition adopted", "name", next.Name, "version", next.Version,
		"signer", trust.PublicKeyString(next.Signer))
	if err := a.applyCatalog(next); err != nil {
		a.log.Warn("applying the new catalog failed", "err", err)
	}
	if len(next.Seeds) > 0 && !slices.Equal(next.Seeds, cur.Seeds) {
		if err := a.storeSeeds(next.Seeds); err != nil {
			a.log.Warn("storing the new seeds failed", "err", err)
		}
	}
	if !slices.Equal(next.Secret, cur.Secret) {
		// The old secret stays accepted for SecretGrace, so servants that
		// have not received the new definition yet stay linked; then links
		// still proven with it close and reconnect under the new one.
		a.prevSecret.Store(&rotation{secret: cur.Secret, until: time.Now().Add(SecretGrace)})
		time.AfterFunc(SecretGrace+time.Second, func() {
			if n := a.currentNode(); n != nil {
				n.Reauthenticate()
			}
		})
	}
	if next.Fanout != cur.Fanout {
		// N is the base of every partition: a servant must not compare
		// partitions built on another base with its neighbours for longer
		// than it takes the definition to spread. The restart runs off
		// this goroutine, which may be the one that stores deliveries (a
		// restart waits for it).
		a.log.Info("the network's fanout changed; restarting the servant", "from", cur.Fanout, "to", next.Fanout)
		go func() {
			if err := a.restart(); err != nil {
				a.log.Error("restarting the servant for the new fanout failed", "err", err)
			}
		}()
	}
	a.events.emit(Event{Kind: StatusChanged})
	return true, nil
}

// receiveDefinition handles a stored item of NetworkCategory (on the
// persister's goroutine): it is marked read, and a newer definition is
// adopted.
func (a *App) receiveDefinition(it *news.Item) {
	if _, err := a.store.MarkRead(it.ID); err != nil {
		a.log.Warn("marking a network definition read failed", "err", err)
	}
	doc := []byte(it.Body)
	if p, isPart, err := parseDefinitionPart(it.Body); isPart {
		var signer ed25519.PublicKey
		if err == nil {
			signer, err = trust.ItemSigner(it)
		}
		if err == nil {
			doc, err = a.parts.add(signer, p)
		}
		if err != nil || doc == nil {
			if err != nil {
				a.log.Warn("network definition part refused", "err", err)
			}
			return
		}
	}
	a.receiveDefinitionDoc(doc)
}

// receiveDefinitionDoc adopts a definition that arrived (whole, or
// assembled from its parts) when it is newer, a winning rival, or holds it
// until the versions before it arrive.
func (a *App) receiveDefinitionDoc(doc []byte) {
	next, err := trust.ParseSignedNetwork(doc)
	if err != nil {
		a.log.Warn("network definition refused", "err", err)
		return
	}
	if next.ID != a.Network().ID {
		a.log.Warn("network definition of another network refused", "name", next.Name, "id", next.ID.String())
		return
	}
	if err := a.Network().Accept(next); err != nil {
		switch {
		case errors.Is(err, trust.ErrNotNewer):
			a.considerRival(next)
		case errors.Is(err, trust.ErrNotAdmin) && trust.VerifySelfSigned(next) == nil:
			a.held.hold(next, nil) // it came in parts, stored already (Verify holds a whole one)
		default:
			a.log.Warn("network definition refused", "version", next.Version, "err", err)
		}
		return
	}
	if err := a.adoptNetwork(next); err != nil && !errors.Is(err, trust.ErrNotNewer) {
		a.log.Error("adopting a network definition failed", "version", next.Version, "err", err)
	}
}

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
	case sameDefinition(cur, sn):
		return nil
	case sn.ID == cur.ID:
		return a.PublishNetwork(sn)
	case !a.NeedsSetup():
		return fmt.Errorf("%w: this installation belongs to %q; joining %q needs a fresh data directory",
			trust.ErrOtherNetwork, cur.Name, sn.Name)
	}
	a.netMu.Lock()
	err := a.saveNetwork(sn)
	if err == nil {
		a.network.Store(sn)
		err = a.applyCatalog(sn)
	}
	if err == nil && len(sn.Seeds) > 0 {
		err = a.storeSeeds(sn.Seeds)
	}
	a.netMu.Unlock()
	if err != nil {
		return err
	}
	a.log.Info("network definition imported", "name", sn.Name, "id", sn.ID.String(), "version", sn.Version)
	a.events.emit(Event{Kind: StatusChanged})
	return a.restart() // nothing when not running
}

// seedOwnNetwork records addr as the seed of the network when this
// installation is its admin and the definition has other seeds (the
// wizard's "new network": this computer is its seed). Failures are logged:
// the stored seed list works without it.
func (a *App) seedOwnNetwork(addr string) {
	cur := a.Network()
	if !a.IsAdmin() || slices.Equal(cur.Seeds, []string{addr}) {
		return
	}
	n := cur.Network.Clone()
	n.Version++
	n.Seeds = []string{addr}
	next, err := a.identity.SignNetwork(n)
	if err == nil {
		err = a.PublishNetwork(next)
	}
	if err != nil {
		a.log.Warn("recording this computer as the network's seed failed", "err", err)
	}
}
