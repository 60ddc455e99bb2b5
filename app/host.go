package app

import (
	"github.com/google/uuid"
	"strings"

	"newsdesk/network"
	"newsdesk/trust"
)

// netHost is the application as the network's business sees it
// (network.Host).
type netHost struct{ a *App }

var _ network.Host = netHost{}

func (h netHost) Announce(category, title, body string) (string, error) {
	res, err := h.a.publishSystemItem(category, title, body)
	if err != nil {
		return "", err
	}
	return res.Outcome.String(), nil
}

func (h netHost) ApplyCatalog(sn *trust.SignedNetwork) error { return h.a.applyCatalog(sn) }

// StoreSeeds stores a definition's seeds and hands them to the running
// servant, which uses them from its next connection (App.SetSeeds).
func (h netHost) StoreSeeds(seeds []string) error {
	if err := h.a.storeSeeds(seeds); err != nil {
		return err
	}
	return h.a.applySeeds(seeds, true)
}

func (h netHost) Adopted(prev, next *trust.SignedNetwork) {
	a := h.a
	if next.Fanout != prev.Fanout || next.LeafCapacity != prev.LeafCapacity {
		// N is the base of every partition: a servant must not compare
		// partitions built on another base with its neighbours for longer
		// than it takes the definition to spread. The restart runs off
		// this goroutine, which may be the one that stores deliveries (a
		// restart waits for it).
		a.log.Info("the network's fanout or leaf capacity changed; restarting the servant",
			"fanout", next.Fanout, "was", prev.Fanout, "leafCapacity", next.LeafCapacity, "wasLeafCapacity", prev.LeafCapacity)
		go func() {
			if err := a.restart(); err != nil {
				a.log.Error("restarting the servant for the new fanout or leaf capacity failed", "err", err)
			}
		}()
	}
	if prev.IsAdmin(a.identity.Public) != next.IsAdmin(a.identity.Public) {
		// Admins join the admin groups (reports.go). The servant's own
		// goroutine takes the change; not under the Keeper's lock.
		go a.applySubscriptions()
	}
	if newer := next.NewerMembers(); len(newer) > 0 {
		a.log.Warn("this network uses features of a newer Newsdesk: update to use them", "features", strings.Join(newer, ", "))
	}
	a.events.emit(Event{Kind: StatusChanged})
}

func (h netHost) Reauthenticate() {
	if n := h.a.currentNode(); n != nil {
		n.Reauthenticate()
	}
}

func (h netHost) Retracted(category string, id uuid.UUID) {
	h.a.events.emit(Event{Kind: ItemsRetracted, Categories: []string{category}, Items: []uuid.UUID{id}})
}

// publishSystemItem publishes an item of a system group as this installation, with
// the display name of the settings as its author.
func (a *App) publishSystemItem(category, title, body string) (PublishResult, error) {
	it, err := a.newItem(category, title, body)
	if err != nil {
		return PublishResult{}, err
	}
	if err := it.Validate(); err != nil {
		return PublishResult{}, err
	}
	return a.PublishItem(it)
}

// Retract hides an item everywhere with a retraction signed by this
// installation's key (network.Keeper.Retract): admins may retract any
// item, a publisher its own.
func (a *App) Retract(id uuid.UUID, reason string) error { return a.net.Retract(id, reason) }
