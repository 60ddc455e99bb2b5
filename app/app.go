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
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Options configure Open.
type Options struct {
	// Kind is what runs the servant, KindDesktop or KindHeadless, as the
	// network census counts it; "" when the caller does not say.
	Kind string

	// DataDir holds the store (newsdesk.db), the installation's key
	// (identity.key) and source (installation-id); created 0700 if missing.
	// Required.
	DataDir string

	// ResetStore starts a damaged installation (its store missing or
	// empty) with an empty store under a new source; the damaged file is
	// renamed aside, never deleted. Refused for an intact store.
	ResetStore bool

	// Listen is the "host:port" servant links are accepted on; "" means the
	// stored setting, else DefaultListen. Advertise is the address others
	// dial; "" means the stored setting, else the listen address, or for a
	// wildcard listen host this computer's address toward the network.
	Listen, Advertise string

	// Seeds and Subscriptions, when not nil, replace the stored lists (and
	// are stored); nil uses what is stored.
	Seeds         []string
	Subscriptions []string

	// Fanout is N, the maximum down-servants and the partition base. It is
	// network-wide: servants compare partitions, which mean nothing
	// between different bases, so it always comes from the network
	// definition. Not 0, it is checked against the definition's: Open
	// refuses another value (a usage error, `serve --fanout`).
	Fanout int

	// MovePortIfTaken: when another program holds the stored listen
	// port, Start moves to the next free one instead of failing, and the
	// status says so (the desktop app: two profiles on one computer).
	MovePortIfTaken bool

	// PortHeld, if set, answers whether another program holds the port
	// of a listen address ("host:port") in place of binding it to find
	// out: for ProposeListen, the checks of a new listen address (Setup,
	// JoinByInvitation, SaveSettings) and MovePortIfTaken. The UI's tests
	// say which ports are taken; on a shared computer none can arrange it
	// by binding them.
	PortHeld func(addr string) bool

	// DefaultRetention, when not 0, is how long items are kept unless the
	// reader chose otherwise (Settings.Retention): the desktop app's
	// DesktopRetention. An archive's retention is not replaced by it.
	DefaultRetention time.Duration

	// BlobCacheBytes bounds the blobs this servant keeps that no stored
	// item refers to (the relay cache of attachments); 0 means
	// storage.DefaultBlobCacheBytes (512 MiB).
	BlobCacheBytes int64

	// Archive makes this an archive servant: it subscribes to every
	// category (newsnet.AllCategories) and keeps items for
	// ArchiveRetention (unless the store has a retention set already).
	Archive bool

	// DirectThreshold sets when this servant asks for direct delivery
	// (issue 14): after that many items of one source within a minute,
	// from two hops away or more, it asks the source for a direct link. 0
	// keeps the protocol's default (newsnet.SuggestedDirectThreshold); a
	// negative value turns asking off. Sources answer requests either way,
	// within their budget.
	DirectThreshold int

	// Logger receives the application's and the servant's log; nil
	// discards it.
	Logger *slog.Logger

	// Start starts the servant at once. The desktop app's first run leaves
	// it false and starts it in Setup.
	Start bool

	// Network, when not nil, is a network definition to import (`serve
	// --network FILE`): the first one a data directory holds must verify as
	// an admin-signed document (trust.VerifySelfSigned); after that only a
	// newer version signed by an admin of the held one is accepted
	// (trust.SignedNetwork.Accept), and the same definition again is fine.
	// Its seeds replace the stored ones when Seeds is nil. Nil uses the
	// stored definition, or creates a new one-computer network.
	Network *trust.SignedNetwork

	// Tune, if set, adjusts the protocol configuration (tests: shorter
	// timeouts).
	Tune func(*newsnet.Config)

	// StartServant, if set, starts the servant in place of node.Start on
	// TCP: a servant of a simulated network (newsnet/sim/simnode), for
	// tests and the demo mode (app/demo).
	StartServant func(node.Config) (Servant, error)

	// Probe, if set, replaces the TCP probe of App.Probe (after the
	// address is checked), which also tells whether a seed answers before
	// an invitation is made: the demo mode answers for the servants of
	// its simulated network, which no socket reaches.
	Probe func(ctx context.Context, addr string) Probe

	// DialInvite, if set, replaces the TCP connect of the invitation
	// protocol (network.Dialer): redeeming a code (JoinByInvitation),
	// asking for a membership certificate (Certify) and a seed's relay of
	// a redemption to the admin's servant. The demo mode connects to the
	// servants of its simulated network, which no socket reaches.
	DialInvite network.Dialer

	// Now, if set, is the application's clock in place of time.Now: the
	// times it gives its publications, confirmations and invitations, the
	// clock its schedule and limits go by, and the store's
	// (storage.WithClock). The UI's tests set a fixed one, so that what
	// they publish and schedule is dated by the clock the window shows.
	Now func() time.Time

	// OnEvent, if set, hears every event as the application emits it,
	// before Events delivers it (where events of a kind waiting together
	// are merged, and one about more than a thousand items names none).
	// It runs on the goroutine that emits, perhaps with the App's locks
	// held: it must return at once and must not call the App. The UI's
	// tests take their events from it, so that the event of a call is
	// there when the call returns.
	OnEvent func(Event)

	// unstoredLimit, if set, replaces maxUnstoredBytes (tests: items let
	// go after a few).
	unstoredLimit int

	// localAddress, if set, replaces localAddress (tests: a laptop that
	// moves to another network).
	localAddress func(seeds []string) string
	// addressCheckEvery, if set, replaces addressCheckEvery.
	addressCheckEvery time.Duration
	// reportInterval, if set, replaces the least time between two reports
	// of one post to the admins (reports.go).
	reportInterval time.Duration
}

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

// checkFanout refuses an Options.Fanout other than the fanout of the
// definition this start holds: the one imported, else the one stored, else
// a new one-computer network's (trust.DefaultFanout). It runs before init
// stores anything, so a refused start changes nothing.
func (a *App) checkFanout() error {
	if a.opts.Fanout == 0 {
		return nil
	}
	sn := a.opts.Network
	if sn == nil {
		cur, err := network.StoredDefinition(a.store)
		if err != nil && !errors.Is(err, network.ErrNoDefinition) {
			return nil // network.New reports it
		}
		sn = cur
	}
	fanout, what := trust.DefaultFanout, "a new one-computer network"
	if sn != nil {
		fanout, what = sn.Fanout, fmt.Sprintf("network %q", sn.Name)
	}
	if a.opts.Fanout != fanout {
		return &FanoutError{Fanout: a.opts.Fanout, Network: what, NetworkFanout: fanout}
	}
	return nil
}

// FanoutError is Open's error for an Options.Fanout other than the fanout
// of the network definition. `newsdesk serve` reports it as a usage error
// of --fanout.
type FanoutError struct {
	Fanout        int    // Options.Fanout
	Network       string // the definition, in words
	NetworkFanout int    // its fanout
}

func (e *FanoutError) Error() string {
	return fmt.Sprintf("--fanout %d conflicts with the fanout of %s, %d: N is network-wide (servants compare "+
		"partitions built on it), so it comes from the network definition; drop --fanout, or have an "+
		"admin change the definition's fanout", e.Fanout, e.Network, e.NetworkFanout)
}

// nodeConfig builds the runtime and protocol configuration from the store.
// It runs with mu held.
func (a *App) nodeConfig() (node.Config, error) {
	seedList, err := a.store.Seeds()
	if err != nil {
		return node.Config{}, err
	}
	seeds := make([]newsnet.ServantID, 0, len(seedList))
	for _, s := range seedList {
		seeds = append(seeds, newsnet.ServantID(s))
	}
	listen, advertise := a.addresses(seedList)

	proto := newsnet.DefaultConfig("")
	proto.Seeds = seeds
	proto.Source = a.sourceStr
	proto.Release, proto.Kind = Release, a.opts.Kind
	proto.Fanout = a.Network().Fanout // network-wide: never a per-servant setting (Options.Fanout)
	proto.LeafCapacity = a.Network().LeafCapacity
	proto.Verify = a.net.Verify
	// Identity and confirmation blobs of must-read items are checked at
	// the first servant they reach (reachtrust.go).
	proto.VerifyReachBlob = a.verifyReachBlob
	// A signature that does not match what it signs is a tampered item:
	// every servant verifies before it passes an item on, so the one that
	// sent it made it. The other reasons can come of definitions not yet
	// the same everywhere.
	proto.ForgedReasons = []string{string(trust.BadSignature)}
	if t := a.opts.DirectThreshold; t != 0 {
		proto.DirectThreshold = max(t, 0)
	}
	if proto.OwnCount, err = a.store.SourceCount(a.source); err != nil {
		return node.Config{}, err
	}
	// The reports of what waits in the outbox remove its entries.
	a.pub.stored.Store(max(a.pub.stored.Load(), proto.OwnCount))
	if proto.OwnLast, err = a.ownLast(); err != nil {
		return node.Config{}, err
	}
	proto.Lost = a.lost.Load()
	counts, err := a.store.SourceCounts()
	if err != nil {
		return node.Config{}, err
	}
	proto.Expected = make(map[string]uint64, len(counts))
	for src, n := range counts {
		if src != a.source && n > 0 {
			proto.Expected[src.String()] = n + 1 // the store keeps the last delivered count
		}
	}
	queued, err := a.store.Outbox()
	if err != nil {
		return node.Config{}, err
	}
	for _, e := range queued {
		m, err := multicastOf(e.Item)
		if err != nil {
			return node.Config{}, fmt.Errorf("outbox entry %d: %w", e.Seq, err)
		}
		proto.Outbox = append(proto.Outbox, m)
	}
	if t, ok := a.lastAttached(); ok {
		proto.LastAttached = t.Add(-lastAttachedSlack)
	}
	proto.KnownCategories = append(slices.Clone(a.catalog.IDs()), network.SystemCategories...) // mu is held
	proto.Durable = network.SystemCategories
	proto.Archive = a.archive
	archive := a.opts.Archive
	proto.Blob.Refs = func(m *newsnet.Multicast) []newsnet.BlobRef { return a.blobRefs(m, archive) }
	proto.Blob.Lost, _ = a.store.BlobsLost()
	if proto.Reach, err = a.ownReach(); err != nil {
		return node.Config{}, err
	}
	if a.opts.Tune != nil {
		a.opts.Tune(&proto)
	}
	return node.Config{
		Security: &node.Security{
			Identity: a.identity,
			Secrets:  a.net.Secrets,
			// A revoked member still knows the secret until it is rotated;
			// its key is refused at the link.
			Admit: func(peer ed25519.PublicKey) error {
				if a.Network().IsRevoked(peer) {
					return fmt.Errorf("key %s is revoked by the network definition", trust.PublicKeyString(peer))
				}
				return nil
			},
			// Seeds redeem invitation codes on the servant's port.
			Invitations: a.serveInvitation,
		},
		Listen:      listen,
		Advertise:   newsnet.ServantID(advertise),
		Release:     Release,
		Protocol:    proto,
		Logger:      a.log,
		OnDeliver:   a.onDeliver,
		OnProgress:  a.onProgress,
		OnPublished: a.onPublished,
		OnLost:      a.onLost,
		OnReach:     a.onReach,
		Blobs:       blobKeeper{a.store},
		OnBlob:      a.onBlob,
	}, nil
}

// addresses returns the listen address and the advertised one ("": the
// listener's) of a servant started with the seed list seeds. Without an
// advertised address, one listening on a wildcard address advertises the
// local address of the route toward the first seed (localAddress).
func (a *App) addresses(seeds []string) (listen, advertise string) {
	set := a.settings()
	listen = cmp.Or(a.opts.Listen, set.Listen, DefaultListen)
	advertise = cmp.Or(a.opts.Advertise, set.Advertise)
	if advertise == "" {
		if host, port, err := net.SplitHostPort(listen); err == nil {
			if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
				local := localAddress
				if a.opts.localAddress != nil {
					local = a.opts.localAddress
				}
				advertise = net.JoinHostPort(local(seeds), port)
			}
		}
	}
	return listen, advertise
}

// liveSubscriptions is what the servant subscribes to: the stored
// subscriptions, every category for an archive, the system groups, and
// for an admin the admin groups.
func (a *App) liveSubscriptions() []string {
	subs := a.Subscriptions()
	if a.opts.Archive {
		subs = append(subs, newsnet.AllCategories)
	}
	return append(append(subs, network.SystemCategories...), a.liveAdminGroups()...)
}

// The node's callbacks. They run on the node's loop goroutine: they only
// hand work to the inbox and never block.

func (a *App) onDeliver(m *newsnet.Multicast) {
	a.inbox.deliver(m, a.now())
}

// WaitStored returns once what the servant delivered before the call is
// stored (or held to store again, when the store refused it) and
// announced: its events emitted, so Options.OnEvent has heard them. For a
// servant of the caller's own (Options.StartServant) whose deliveries the
// caller reads next: the UI's tests.
func (a *App) WaitStored() { a.inbox.flush() }

func (a *App) onProgress(source string, next uint64) {
	a.inbox.progress(source, next)
}

// onPublished hears every report of the servant on a publication: those
// that PublishBatch returns too, and those of publications that waited in
// its outbox and went out later.
func (a *App) onPublished(p newsnet.Published) {
	a.sysCounts.report(p)
	if !p.Queued {
		a.pub.wentOut(p.Count) // out of the outbox
	}
}

func (a *App) onLost(l newsnet.Lost) {
	a.log.Warn("items could not be recovered", "source", l.Source, "items", l.N, "total", l.Total)
	a.inbox.lost(l.Total)
}

// monitor reports status changes, persists the time of attachment and
// purges expired items, until Close.
func (a *App) monitor() {
	defer a.bg.Done()
	poll := time.NewTicker(statusPoll)
	defer poll.Stop()
	purge := time.NewTicker(purgeEvery)
	defer purge.Stop()
	expiry := time.NewTicker(expirySweepEvery)
	defer expiry.Stop()
	quota := time.NewTicker(quotaCheckEvery)
	defer quota.Stop()
	var (
		last      statusKey
		lastSaved time.Time
		addrAt    = time.Now() // when the address was last worked out
		wasAlone  bool
		aloneAt   time.Time // when alone was last worked out
		// limitedSaved: when the counts of rate-limited sources were
		// last offered to the store (saved only when they changed).
		limitedSaved time.Time
	)
	a.purge()
	for {
		select {
		case <-a.stop:
			return
		case <-purge.C:
			a.purge()
		case <-a.purgeNow:
			a.purge()
		case <-quota.C:
			a.enforceQuota()
		case <-expiry.C:
			a.hideExpired()
		case now := <-poll.C:
			n := a.currentNode()
			if n == nil {
				continue
			}
			st := n.Status()
			lostUplink := last.role == newsnet.RoleAttached && st.Role == newsnet.RoleConnecting
			changed := false
			if k := keyOf(st); k != last {
				last, changed = k, true
				a.events.emit(Event{Kind: StatusChanged})
			}
			// Alone reads the seed lists: looked at when the tree
			// changed, else every aloneCheckEvery (a seed list can
			// change without it).
			if (st.Role == newsnet.RoleVertex || wasAlone) && (changed || now.Sub(aloneAt) >= aloneCheckEvery) {
				aloneAt = now
				wasAlone = a.tellAlone(a.alone(st), wasAlone)
			}
			if r := newestPeerRelease(st.Links); r != "" {
				if seen := a.newerRelease.Load(); seen == nil || *seen != r {
					a.newerRelease.Store(&r)
					a.log.Info("a newer Newsdesk (" + r + ") is in use on this network")
					a.events.emit(Event{Kind: StatusChanged})
				}
			}
			if lostUplink || now.Sub(addrAt) >= cmp.Or(a.opts.addressCheckEvery, addressCheckEvery) {
				addrAt = now
				a.checkAddress()
			}
			if now.Sub(limitedSaved) >= limitedSaveEvery {
				limitedSaved = now
				if err := a.net.SaveRateLimited(); err != nil {
					a.log.Warn("storing the counts of rate-limited sources failed", "err", err)
				}
			}
			if st.Role == newsnet.RoleAttached && now.Sub(lastSaved) >= lastAttachedEvery {
				lastSaved = now
				a.saveLastAttached(now)
			}
		}
	}
}

// statusKey is what a StatusChanged event is about.
type statusKey struct {
	role  newsnet.Role
	up    newsnet.ServantID
	downs int
	lost  uint64
	subs  string
}

func keyOf(st newsnet.Status) statusKey {
	// Join, not fmt: this runs twice a second for as long as the app does.
	return statusKey{role: st.Role, up: st.Up, downs: len(st.Downs), lost: st.Counters.Lost, subs: strings.Join(st.Subscriptions, ",")}
}

func (a *App) purge() {
	n, err := a.store.PurgeExpired()
	switch {
	case err != nil:
		a.log.Warn("purging expired items failed", "err", err)
	case n > 0:
		a.log.Info("purged expired items", "items", n)
		a.events.emit(Event{Kind: ItemsChanged})
	}
	a.enforceQuota()
}

// hideExpired hides the items whose expiry has passed (storage.HideExpired),
// when the store says one is due: a read, not a write, on most calls.
func (a *App) hideExpired() {
	at, ok, err := a.store.NextExpiry()
	if err == nil && (!ok || a.now().Before(at)) {
		return
	}
	n, err := a.store.HideExpired()
	switch {
	case err != nil:
		a.log.Warn("hiding expired items failed", "err", err)
	case n > 0:
		a.log.Info("expired items hidden", "items", n)
		a.events.emit(Event{Kind: ItemsRetracted})
	}
}

// localAddress guesses this computer's address toward the network: the
// source address of a route to the first seed that is not a loopback
// address (no packet is sent), else the first non-loopback IPv4 address of
// an interface that is up, else 127.0.0.1.
func localAddress(seeds []string) string {
	for _, s := range seeds {
		host, _, err := net.SplitHostPort(s)
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			continue
		}
		c, err := net.Dial("udp", s)
		if err != nil {
			continue
		}
		addr := c.LocalAddr().(*net.UDPAddr).IP
		c.Close()
		if !addr.IsLoopback() && !addr.IsUnspecified() {
			return addr.String()
		}
	}
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String()
			}
		}
	}
	return "127.0.0.1"
}
