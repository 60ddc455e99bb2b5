// Package network is the network's own business, carried over the overlay
// in the system groups that every servant joins (system.go): the signed
// network definition held, how a new version is adopted and spread
// (spread.go), assembled from parts (defparts.go), held until the versions
// before it arrive (chain.go) or chosen between rivals (rival.go), the
// secret rotation it may bring, and the signed retractions that hide an
// item everywhere (retract.go). Verify checks every multicast message that
// arrives against the definition held.
//
// A Keeper does this for one installation. It knows the application only
// through Host: it reads and writes the application's store itself, and
// asks the host to publish what it announces and to apply what a new
// definition changes. It never imports package app and takes no lock of
// the application's.
package network

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Host is what the network's business needs from the application. A Keeper
// calls it from the goroutines that call the Keeper (the one that stores
// delivered items, the UI's, the control API's), from a goroutine of its
// own (rival.go) and from a timer (Reauthenticate); Verify, on the
// servant's loop, never calls it.
type Host interface {
	// Announce publishes a system item of this installation: the host
	// gives it an ID, its author and source, numbers, signs, stores and
	// sends it (or queues it until attached) and returns the outcome in
	// words. It may wait for the goroutine that stores deliveries, so a
	// Keeper never calls it from ReceiveDefinition, ReceiveRetraction or
	// RetractionsArrived.
	Announce(category, title, body string) (outcome string, err error)

	// ApplyCatalog makes sn's catalog the application's when it is at
	// least as new as the one it holds. StoreSeeds stores sn's seeds as
	// the servant's seed list, used from its next connection. Both run
	// with the Keeper's lock held (definitions change one at a time); they
	// must not call the Keeper.
	ApplyCatalog(sn *trust.SignedNetwork) error
	StoreSeeds(seeds []string) error

	// Adopted tells the application that next replaced prev as the
	// definition held (after ApplyCatalog and StoreSeeds): a new fanout
	// needs the servant started again, and what the UI shows may have
	// changed. It runs with the Keeper's lock held and must not wait for
	// the goroutine that stores deliveries.
	Adopted(prev, next *trust.SignedNetwork)

	// Reauthenticate closes the servant's links proven with a network
	// secret no longer accepted (Secrets), once the grace period after a
	// rotation is over.
	Reauthenticate()

	// Retracted tells the application that item id of category, which it
	// holds, is hidden now (out of every list, search and count).
	Retracted(category string, id uuid.UUID)
}

// Config is what a Keeper works with.
type Config struct {
	Store    *storage.Store  // the application's store
	Identity *trust.Identity // this installation's key pair: signs retractions and definitions
	Log      *slog.Logger    // never nil
	Host     Host

	// Import, when not nil, is a network definition to import (`serve
	// --network FILE`): the first one a data directory holds must verify
	// as an admin-signed document (trust.VerifySelfSigned); after that only
	// a newer version signed by an admin of the held one is accepted
	// (trust.SignedNetwork.Accept), and the same definition again is fine.
	// Nil uses the stored definition, or creates a new one-computer
	// network.
	Import *trust.SignedNetwork
	// KeepSeeds: the application was given its seeds, so an imported or
	// new definition's seeds do not replace them.
	KeepSeeds bool
	// Now is the clock of the publishing limits (limits.go); nil is
	// time.Now. For tests.
	Now func() time.Time
}

// Keeper does the network's business for one installation. Its methods are
// safe for concurrent use.
type Keeper struct {
	store    *storage.Store
	identity *trust.Identity
	log      *slog.Logger
	host     Host

	def        atomic.Pointer[trust.SignedNetwork] // the definition held, never nil after New
	prevSecret atomic.Pointer[rotation]            // the secret a rotation replaced, for SecretGrace
	mu         sync.Mutex                          // serialises changes of the definition held
	imported   *trust.SignedNetwork                // a definition imported over an older one, to announce (AnnounceImported)

	held    heldDefinitions     // definitions ahead of the chain (chain.go)
	ownEdit ownEdit             // the last definition this installation signed (rival.go)
	parts   definitionAssembler // parts of large definitions (defparts.go)
	pending pendingRetractions  // publishers' retractions of items not here yet (retract.go)
	rates   rateBook            // items per publisher key, for the limits at relays (limits.go)
	// reportRates: reach summaries per key, a budget of their own
	// (reports.go).
	reportRates rateBook
	clock       func() time.Time // Config.Now

	bg sync.WaitGroup // goroutines of the Keeper's own (rival.go)
}

// New returns a Keeper holding the network definition it loads, imports
// or creates (Config.Import), and reads back what it keeps in the store:
// the retractions that wait for their items, and the parts of definitions
// not yet complete.
func New(cfg Config) (*Keeper, error) {
	k := &Keeper{store: cfg.Store, identity: cfg.Identity, log: cfg.Log, host: cfg.Host, clock: cfg.Now}
	if err := k.initDefinition(cfg.Import, cfg.KeepSeeds); err != nil {
		return nil, err
	}
	if err := k.loadRetractions(); err != nil {
		return nil, err
	}
	if err := k.loadDefinitionParts(); err != nil {
		return nil, err
	}
	if err := k.loadRateLimited(); err != nil {
		return nil, err
	}
	return k, nil
}

// Close waits for the goroutines of the Keeper's own: an edit being
// published again onto a rival definition (rival.go). Call it before the
// host stops publishing.
func (k *Keeper) Close() { k.bg.Wait() }

// eachStored calls f with every stored item of a system group, newest
// first (what New reads back after a restart).
func (k *Keeper) eachStored(group string, f func(*news.Item)) error {
	var cur storage.Cursor
	for {
		page, next, err := k.store.Newest([]string{group}, 512, cur)
		if err != nil {
			return err
		}
		for _, e := range page {
			f(e.Item)
		}
		if next == "" {
			return nil
		}
		cur = next
	}
}
