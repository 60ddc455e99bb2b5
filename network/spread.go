package network

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

	"newsdesk/news"
	"newsdesk/trust"
)

// verifyDefinition is Verify for an item of NetworkCategory whose
// carrier passed VerifyCarrier.
func (k *Keeper) verifyDefinition(sn *trust.SignedNetwork, it *news.Item) string {
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
			k.held.hold(next, it)
			return string(trust.AheadOfChain)
		}
		return string(trust.NotAuthorized)
	case errors.Is(err, trust.ErrBadSignature):
		return string(trust.BadSignature)
	}
	return string(trust.Invalid)
}

// Publish adopts next, a new version of the network definition signed by
// an admin of the one held, and announces it to the network.
func (k *Keeper) Publish(next *trust.SignedNetwork) error {
	cur := k.Definition()
	if err := cur.Accept(next); err != nil {
		return err
	}
	if err := k.adoptNetwork(next); err != nil {
		return err
	}
	if next.Signer.Equal(k.identity.Public) {
		k.ownEdit.set(cur, next) // to apply again should a rival win (rival.go)
	}
	return k.announceNetwork(next)
}

// announceNetwork publishes sn as an item of NetworkCategory, or as
// several when it is larger than one item's body (defparts.go).
func (k *Keeper) announceNetwork(sn *trust.SignedNetwork) error {
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
		outcome, err := k.host.Announce(NetworkCategory, t, body)
		if err != nil {
			return fmt.Errorf("announcing the network definition: %w", err)
		}
		k.log.Info("network definition announced", "version", sn.Version, "part", i+1, "parts", len(bodies), "outcome", outcome)
	}
	return nil
}

// adoptNetwork makes next (already accepted) the definition held, then
// adopts the held definitions it opens the way to (chain.go).
func (k *Keeper) adoptNetwork(next *trust.SignedNetwork) error {
	adopted, err := k.adoptOne(next)
	if err != nil {
		return err
	}
	if !adopted {
		return fmt.Errorf("%w: version %d was adopted meanwhile", trust.ErrNotNewer, k.Definition().Version)
	}
	k.adoptHeld()
	return nil
}

// adoptOne makes next (already accepted, or a winning rival) the
// definition held: it is stored, the catalog applies at once, the seeds at
// the next connection, and links proven with a secret no longer accepted
// re-authenticate. It reports false, changing nothing, when the definition
// held changed meanwhile so that next no longer replaces it.
func (k *Keeper) adoptOne(next *trust.SignedNetwork) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	cur := k.Definition()
	if next.Version < cur.Version || next.Version == cur.Version && cur.AcceptRival(next) != nil {
		return false, nil
	}
	if err := k.save(next); err != nil {
		return false, err
	}
	k.def.Store(next)
	k.log.Info("network definition adopted", "name", next.Name, "version", next.Version,
		"signer", trust.PublicKeyString(next.Signer))
	if err := k.host.ApplyCatalog(next); err != nil {
		k.log.Warn("applying the new catalog failed", "err", err)
	}
	if len(next.Seeds) > 0 && !slices.Equal(next.Seeds, cur.Seeds) {
		if err := k.host.StoreSeeds(next.Seeds); err != nil {
			k.log.Warn("storing the new seeds failed", "err", err)
		}
	}
	if !slices.Equal(next.Secret, cur.Secret) {
		// The old secret stays accepted for SecretGrace, so servants that
		// have not received the new definition yet stay linked; then links
		// still proven with it close and reconnect under the new one.
		k.prevSecret.Store(&rotation{secret: cur.Secret, until: time.Now().Add(SecretGrace)})
		time.AfterFunc(SecretGrace+time.Second, k.host.Reauthenticate)
	}
	k.host.Adopted(cur, next)
	return true, nil
}

// ReceiveDefinition handles a stored item of NetworkCategory that the
// overlay delivered (on the goroutine that stores deliveries): it is
// marked read, and a newer definition is adopted.
func (k *Keeper) ReceiveDefinition(it *news.Item) {
	if _, err := k.store.MarkRead(it.ID); err != nil {
		k.log.Warn("marking a network definition read failed", "err", err)
	}
	doc := []byte(it.Body)
	if p, isPart, err := parseDefinitionPart(it.Body); isPart {
		var signer ed25519.PublicKey
		if err == nil {
			signer, err = trust.ItemSigner(it)
		}
		if err == nil {
			doc, err = k.parts.add(signer, p)
		}
		if err != nil || doc == nil {
			if err != nil {
				k.log.Warn("network definition part refused", "err", err)
			}
			return
		}
	}
	k.receiveDefinitionDoc(doc)
}

// receiveDefinitionDoc adopts a definition that arrived (whole, or
// assembled from its parts) when it is newer, a winning rival, or holds it
// until the versions before it arrive.
func (k *Keeper) receiveDefinitionDoc(doc []byte) {
	next, err := trust.ParseSignedNetwork(doc)
	if err != nil {
		k.log.Warn("network definition refused", "err", err)
		return
	}
	if next.ID != k.Definition().ID {
		k.log.Warn("network definition of another network refused", "name", next.Name, "id", next.ID.String())
		return
	}
	if err := k.Definition().Accept(next); err != nil {
		switch {
		case errors.Is(err, trust.ErrNotNewer):
			k.considerRival(next)
		case errors.Is(err, trust.ErrNotAdmin) && trust.VerifySelfSigned(next) == nil:
			k.held.hold(next, nil) // it came in parts, stored already (Verify holds a whole one)
		default:
			k.log.Warn("network definition refused", "version", next.Version, "err", err)
		}
		return
	}
	if err := k.adoptNetwork(next); err != nil && !errors.Is(err, trust.ErrNotNewer) {
		k.log.Error("adopting a network definition failed", "version", next.Version, "err", err)
	}
}

// SeedOwnNetwork records addr as the seed of the network when this
// installation is its admin and the definition has other seeds (the
// wizard's "new network": this computer is its seed). Failures are logged:
// the stored seed list works without it.
func (k *Keeper) SeedOwnNetwork(addr string) {
	cur := k.Definition()
	if !cur.IsAdmin(k.identity.Public) || slices.Equal(cur.Seeds, []string{addr}) {
		return
	}
	n := cur.Network.Clone()
	n.Version++
	n.Seeds = []string{addr}
	next, err := k.identity.SignNetwork(n)
	if err == nil {
		err = k.Publish(next)
	}
	if err != nil {
		k.log.Warn("recording this computer as the network's seed failed", "err", err)
	}
}

// ReplaceOwnSeed replaces prev with addr among the network's seeds when
// this installation is an admin: its servant's address changed (another
// port), and members and invitations must find it at the new one.
// Failures are logged.
func (k *Keeper) ReplaceOwnSeed(prev, addr string) {
	cur := k.Definition()
	i := slices.Index(cur.Seeds, prev)
	if !cur.IsAdmin(k.identity.Public) || i < 0 || slices.Contains(cur.Seeds, addr) {
		return
	}
	n := cur.Network.Clone()
	n.Version++
	n.Seeds[i] = addr
	next, err := k.identity.SignNetwork(n)
	if err == nil {
		err = k.Publish(next)
	}
	if err != nil {
		k.log.Warn("moving this computer's seed entry to its new address failed", "from", prev, "to", addr, "err", err)
		return
	}
	k.log.Info("the network's seed entry of this computer follows its new address", "from", prev, "to", addr, "version", next.Version)
}

// AnnounceImported announces the definition New imported over an older
// one (Config.Import), if any: the rest of the network learns it from this
// servant. The application calls it once, after starting its servant (the
// items wait in the outbox when not attached).
func (k *Keeper) AnnounceImported() error {
	if k.imported == nil {
		return nil
	}
	return k.announceNetwork(k.imported)
}
