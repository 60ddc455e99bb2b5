// Package network is the network's own business, carried over the overlay
// in the system groups (NetworkCategory, RetractionCategory) that every
// servant joins: the signed retractions that hide an item everywhere
// (retract.go), which items of those groups a servant lets through
// (VerifyCarrier), and which categories are reserved for them (system.go).
//
// A Keeper does this for one installation. It knows the application only
// through Host: it reads and writes the application's store, and asks the
// host to publish what it announces. It never imports package app and
// takes no lock of the application's.
package network

import (
	"log/slog"

	"github.com/google/uuid"

	"newsdesk/storage"
	"newsdesk/trust"
)

// Host is what the network's business needs from the application. A Keeper
// calls it from the goroutines that call the Keeper (the one that stores
// delivered items, the UI's, the control API's).
type Host interface {
	// Definition returns the network definition held; never nil.
	Definition() *trust.SignedNetwork
	// Announce publishes a system item of this installation: the host
	// gives it an ID, its author and source, numbers, signs, stores and
	// sends it (or queues it until attached) and returns the outcome in
	// words. It may wait for the store; a Keeper never calls it from
	// ReceiveRetraction or RetractionsArrived (the goroutine that stores
	// deliveries).
	Announce(category, title, body string) (outcome string, err error)
	// Retracted tells the application that item id of category, which it
	// holds, is hidden now (out of every list, search and count).
	Retracted(category string, id uuid.UUID)
}

// Config is what a Keeper works with.
type Config struct {
	Store    *storage.Store  // the application's store
	Identity *trust.Identity // this installation's key pair: signs retractions
	Log      *slog.Logger    // never nil
	Host     Host
}

// Keeper does the network's business for one installation. Its methods are
// safe for concurrent use.
type Keeper struct {
	store    *storage.Store
	identity *trust.Identity
	log      *slog.Logger
	host     Host

	pending pendingRetractions // publishers' retractions of items not here yet (retract.go)
}

// New returns a Keeper and reads back what it keeps in the store: the
// retractions that wait for their items (LoadRetractions).
func New(cfg Config) (*Keeper, error) {
	k := &Keeper{store: cfg.Store, identity: cfg.Identity, log: cfg.Log, host: cfg.Host}
	if err := k.loadRetractions(); err != nil {
		return nil, err
	}
	return k, nil
}
