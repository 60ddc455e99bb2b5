// Package app is the application around the overlay: App owns the store
// and the servant and connects them. It starts and stops the servant,
// stores what it delivers, publishes (persisted counts, the outbox kept
// across restarts) and answers the desktop UI's queries as ui.Backend, in
// its view types (views.go lists them) rather than storage's and newsnet's; the
// store answers the servant's retransmission and catch-up requests. The
// network's own business (the definition held and how it spreads,
// retractions, the system groups) is package network's: App holds one
// network.Keeper and is its Host (host.go). `newsdesk serve` and its
// control API (package cli) drive it headless.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

const (
	// DefaultListen is where a desktop installation accepts servant links
	// when nothing else is configured.
	DefaultListen = "0.0.0.0:7400"

	// ArchiveRetention is how long an archive keeps items by default.
	ArchiveRetention = 30 * 24 * time.Hour

	// statusPoll is how often the servant's status is compared for
	// StatusChanged events; lastAttachedEvery how often the time of
	// attachment is persisted while attached; purgeEvery how often expired
	// items are purged.
	statusPoll        = 500 * time.Millisecond
	lastAttachedEvery = 15 * time.Second
	purgeEvery        = time.Hour
	// limitedSaveEvery is how often the counts of rate-limited sources
	// are stored while they change (network/limits.go).
	limitedSaveEvery = 10 * time.Second
	// expirySweepEvery is how often the store is asked whether an item's
	// expiry (plus storage.ExpirySkew) has passed: an expired item is
	// hidden at most this long after that.
	expirySweepEvery = 10 * time.Second

	// aloneCheckEvery is how often a vertex whose place in the tree did
	// not change looks again whether it is alone (firstseed.go).
	aloneCheckEvery = 5 * time.Second

	// lastAttachedSlack is subtracted from the persisted time of attachment
	// on start: it is written only every lastAttachedEvery, and clocks of
	// publishers differ a little. Catch-up drops what it already has.
	lastAttachedSlack = time.Minute

	// defaultIngestInterval is the store's commit interval for delivered items
	// (storage.WithCommitInterval): a stream of them is written a batch
	// per interval, one fsync each, which leaves the disk and the
	// processor to the rest of the machine (other servants, the
	// publisher). Items show up to this much later; own publications are
	// written at once.
	defaultIngestInterval = 50 * time.Millisecond
)

// ingestInterval is defaultIngestInterval; a benchmark changes it to
// measure against the way servants stored items before.
var ingestInterval = defaultIngestInterval

// ErrInUse: another newsdesk (desktop app or `newsdesk serve`) has the data
// directory open. Errors from Open wrap it together with storage.ErrInUse.
var ErrInUse = errors.New("data directory in use by another newsdesk")

// ErrClosed is returned by methods of an App after Close.
var ErrClosed = errors.New("app: closed")

// dirInUse is Open's error for a data directory another process holds.
type dirInUse struct {
	dir   string
	cause error
}

func (e *dirInUse) Error() string   { return fmt.Sprintf("%v: %s", ErrInUse, e.dir) }
func (e *dirInUse) Unwrap() []error { return []error{ErrInUse, e.cause} }

// App is the application shared by `newsdesk serve` and the desktop
// app: the store, the servant, and what connects them. Its methods are safe
// for concurrent use. It implements ui.Backend.
//
// Lock order. App's locks are taken in this order, never the other way:
//
//	network.Keeper's lock (a definition changing: Host.ApplyCatalog and
//	    Host.Adopted run under it, host.go)
//	pubMu (starts, stops, the publishing pipeline's stores)
//	mu (the node, the catalog)
//	the event hub's, the inbox's and the publisher's
//	    queues (each taken alone, for a moment)
//
// pubMu and the Keeper's lock are never held together. A holder of pubMu
// waits for the inbox (stopNode), and the inbox may take the
// Keeper's lock; so nothing run under the Keeper's lock waits for pubMu:
// a restart it asks for runs on a goroutine of its own (host.go), and the
// Keeper never announces from the inbox's goroutine (network.Host).
type App struct {
	opts      Options
	log       *slog.Logger
	store     *storage.Store
	source    uuid.UUID // the installation ID
	sourceStr string    // its newsnet spelling (Config.Source)
	events    *eventHub
	inbox     *inbox
	archive   *storeArchive
	identity  *trust.Identity // the installation's key pair
	acks      ackHooks        // who hears of acknowledgements (ack.go)
	// cert is the installation's membership certificate, nil when it
	// holds none (reachtrust.go); blobs checks reach blobs once each.
	cert  atomic.Pointer[trust.MemberCert]
	blobs *blobVerifier

	// net does the network's own business: the definition held and how it
	// changes, retractions (package network; App is its Host, host.go).
	net *network.Keeper
	// invites makes and counts this installation's invitations and
	// serves redemptions on the servant's port (invite.go).
	invites *network.Inviter

	// pubMu serialises the stores of the publishing pipeline (publisher.go)
	// with node starts and stops: a start loads the outbox and advances the
	// node generation, so each stored publication reaches exactly one
	// servant, in count order.
	pubMu sync.Mutex
	pub   *publisher
	// limiter is the entry check of the network's publishing limits
	// (entrylimit.go).
	limiter entryLimiter
	// eager holds the attachments fetched with their items to the
	// network's attachment limits (blobnet.go).
	eager eagerBudget

	// sched sends scheduled publications at their time (schedule.go).
	sched *scheduler
	// reports sends the reach of own must-read posts to the admins
	// (reports.go).
	reports *reportSender

	mu      sync.Mutex // guards the fields below
	node    Servant    // nil until started, and while restarting
	gen     uint64     // node generation: advanced by every start (under pubMu)
	listen  string     // the listen address the node was started with
	closed  bool
	catalog *categories.Catalog

	// lost is the persisted total of needed items no servant could
	// retransmit, over every run (Config.Lost, OnLost).
	lost atomic.Uint64

	// storeTrouble is what keeps delivered items from being stored (the
	// inbox's unstored items), never nil.
	storeTrouble atomic.Pointer[storeTrouble]
	// addrChange is the last change of the advertised address, and
	// addrRestart is set while the restart it asked for runs (address.go).
	addrChange  atomic.Pointer[AddressChange]
	addrRestart atomic.Bool
	// portMoved is the move to a free port at the start (listen.go).
	portMoved atomic.Pointer[PortMove]
	// newerRelease is the newest release newer than ours that a
	// neighbour's hello named, "" when none did.
	newerRelease atomic.Pointer[string]
	// evicted is what the storage quota removed last (quota.go).
	evicted atomic.Pointer[Eviction]

	// sysCounts counts the servant's own system publications, which the
	// UI's counters leave out (syscount.go).
	sysCounts systemCounts

	// seedWatch remembers when each seed was last in the network
	// (seedwatch.go).
	seedWatch seedWatch

	// purgeNow asks the monitor to purge at once (a shorter retention
	// was chosen).
	purgeNow chan struct{}

	stop chan struct{} // closed by Close: background goroutines end
	bg   sync.WaitGroup
}

// Open opens the data directory and, with opts.Start, starts the servant.
// ctx bounds the opening only; the App runs until Close. A directory that
// another newsdesk holds fails within about a second with an error wrapping
// ErrInUse.
func Open(ctx context.Context, opts Options) (*App, error) {
	if opts.DataDir == "" {
		return nil, errors.New("data directory: required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := prepareDataDir(opts.DataDir); err != nil {
		return nil, err
	}
	// The store first: on a first run it exists before the source file
	// does, so a crash in between never looks like a damaged installation.
	st, fresh, err := openStore(opts.DataDir, opts.ResetStore, log, storage.WithBlobCacheBytes(opts.BlobCacheBytes), storeClock(opts.Now))
	if err != nil {
		return nil, err
	}
	identity, err := trust.LoadOrCreateIdentity(opts.DataDir)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("installation key: %w", err)
	}
	source, made, err := installationSource(opts.DataDir, identity.Public, fresh, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	if made {
		// The chains of a new source start empty: the per-category counts
		// of the last publications were the old source's.
		if err := st.RebuildOwnLast(source); err != nil {
			st.Close()
			return nil, damagedStore(opts.DataDir, err)
		}
	}
	st.SetOwnSource(source)
	a := &App{
		opts:      opts,
		log:       log,
		store:     st,
		source:    source,
		identity:  identity,
		sourceStr: source.String(),
		events:    newEventHub(opts.OnEvent),
		purgeNow:  make(chan struct{}, 1),
		stop:      make(chan struct{}),
	}
	a.storeTrouble.Store(new(storeTrouble))
	a.loadEviction()
	a.archive = &storeArchive{store: st, log: log}
	a.inbox = newInbox(a)
	a.pub = newPublisher(a)
	a.sched = newScheduler(a)
	a.OnAcknowledge(a.reportAck)
	a.blobs = newBlobVerifier()
	if err := a.init(ctx); err != nil {
		a.pub.close()
		a.inbox.close()
		a.events.close()
		st.Close()
		return nil, damagedStore(opts.DataDir, err)
	}
	a.loadMemberCert()
	a.bg.Add(1)
	go a.monitor()
	a.bg.Add(1)
	go a.certifyLoop()
	a.reports = newReportSender(a, opts.reportInterval)
	a.bg.Add(1)
	go a.reports.run()
	if opts.Start {
		if err := a.Start(); err != nil {
			a.Close()
			return nil, err
		}
	}
	// After the start: what came due while the app was not running goes
	// out now, to the servant if it runs, else to the outbox.
	a.bg.Add(1)
	go a.sched.run()
	// An operator who imported a newer definition: the rest of the
	// network learns it from this servant (now, or from the outbox).
	if err := a.net.AnnounceImported(); err != nil {
		a.log.Warn("announcing the imported network definition failed", "err", err)
	}
	return a, nil
}

// init loads the catalog and applies the options that change the store.
func (a *App) init(ctx context.Context) error {
	cat, err := a.loadCatalog()
	if err != nil {
		return err
	}
	a.catalog = cat
	if err := a.checkFanout(); err != nil {
		return err
	}
	if a.opts.Seeds != nil {
		if err := a.storeSeeds(a.opts.Seeds); err != nil {
			return err
		}
	}
	k, err := network.New(network.Config{Store: a.store, Identity: a.identity, Log: a.log, Host: netHost{a},
		Import: a.opts.Network, KeepSeeds: a.opts.Seeds != nil})
	if err != nil {
		return err
	}
	a.net = k
	a.invites = network.NewInviter(k)
	a.invites.SetDialer(a.opts.DialInvite)
	if a.opts.Subscriptions != nil {
		if err := checkSubscriptions(a.opts.Subscriptions); err != nil {
			return err
		}
		if err := a.store.SetSubscriptions(normalizeSubs(a.opts.Subscriptions)); err != nil {
			return err
		}
	}
	lost, err := a.store.LostTotal()
	if err != nil {
		return err
	}
	a.lost.Store(lost)
	if a.opts.Archive {
		d, err := a.store.Retention()
		if err != nil {
			return err
		}
		if d == 0 {
			if err := a.store.SetRetention(ArchiveRetention); err != nil {
				return err
			}
		}
	}
	if err := a.applyDefaultRetention(); err != nil {
		return err
	}
	return ctx.Err()
}

// now is the application's clock (Options.Now).
func (a *App) now() time.Time {
	if a.opts.Now != nil {
		return a.opts.Now()
	}
	return time.Now()
}

// storeClock is the store's option of the clock now (Options.Now),
// time.Now for nil.
func storeClock(now func() time.Time) storage.Option {
	if now == nil {
		now = time.Now
	}
	return storage.WithClock(now)
}

// Source returns this installation's ID, the Source of its publications.
func (a *App) Source() uuid.UUID { return a.source }

// Addr returns the servant ID (the address other servants dial), or "" when
// the servant is not running.
func (a *App) Addr() string {
	if n := a.currentNode(); n != nil {
		return string(n.Addr())
	}
	return ""
}

func (a *App) currentNode() Servant {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.node
}

// Start starts the servant with the stored seeds and subscriptions, unless
// it is running already. An admin's servant of a network that lists no
// seed becomes its first seed (seedSeedless).
func (a *App) Start() error {
	a.movePortIfTaken()
	started, err := a.startOnce()
	if err != nil || !started {
		return err
	}
	a.afterStart()
	return nil
}

// startOnce starts the servant unless it runs already, and reports whether
// this call started it.
func (a *App) startOnce() (bool, error) {
	a.pubMu.Lock()
	defer a.pubMu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false, ErrClosed
	}
	if a.node != nil {
		return false, nil
	}
	if err := a.startLocked(); err != nil {
		return false, damagedStore(a.opts.DataDir, err)
	}
	return true, nil
}

// startLocked starts a node from the store's current state. It runs with
// pubMu and mu held.
func (a *App) startLocked() error {
	cfg, err := a.nodeConfig()
	if err != nil {
		return err
	}
	// The subscriptions go in with the configuration: set after the start,
	// an early attachment would catch up without them.
	cfg.Protocol.Subscriptions = a.liveSubscriptions()
	start := a.opts.StartServant
	if start == nil {
		start = startTCPNode
	}
	a.sysCounts.reset(cfg.Protocol.Outbox)
	n, err := start(cfg)
	if err != nil {
		return err
	}
	a.node = n
	a.gen++ // what the outbox held is the new servant's now
	a.listen = cfg.Listen
	a.log.Info("servant started", "id", string(n.Addr()), "listen", cfg.Listen, "seeds", fmt.Sprint(cfg.Protocol.Seeds),
		"installation", a.sourceStr, "archive", a.opts.Archive, "outbox", len(cfg.Protocol.Outbox))
	a.events.emit(Event{Kind: StatusChanged})
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		a.fetchIncomplete(n)
	}()
	return nil
}

// stopNode takes the node out of service, stops it and waits until
// everything it delivered is stored. The caller holds pubMu (not mu: other
// methods see no node meanwhile instead of waiting for the links to close).
func (a *App) stopNode() {
	a.mu.Lock()
	n := a.node
	a.node = nil
	a.mu.Unlock()
	if n == nil {
		return
	}
	if n.Status().Role == newsnet.RoleAttached {
		a.saveLastAttached(time.Now())
	}
	n.Close() // no callbacks after this
	a.inbox.flush()
	a.pub.flushSent() // the next start must not send again what went out
	a.events.emit(Event{Kind: StatusChanged})
}

// restart stops the servant and starts it again from the store (new seeds,
// a new address).
func (a *App) restart() error {
	started, err := a.restartOnce()
	if err == nil && started {
		a.afterStart()
	}
	return err
}

// restartOnce is restart without what follows a start; it reports whether
// it started a servant.
func (a *App) restartOnce() (bool, error) {
	a.pubMu.Lock()
	defer a.pubMu.Unlock()
	a.mu.Lock()
	running := !a.closed && a.node != nil
	a.mu.Unlock()
	if !running {
		return false, nil
	}
	a.log.Info("restarting the servant")
	a.stopNode()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false, nil
	}
	if err := a.startLocked(); err != nil {
		return false, err
	}
	return true, nil
}

// Close stops the servant (closing its links so neighbours recover at
// once), stores what it delivered, and closes the store. Later calls return
// nil.
func (a *App) Close() error {
	a.pubMu.Lock()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		a.pubMu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.stopNode()
	a.pubMu.Unlock()

	close(a.stop)
	a.bg.Wait()
	a.net.Close() // an edit being published again (network/rival.go) ends before publishing does
	a.pub.close()
	a.inbox.close()
	a.events.close()
	return a.store.Close()
}
