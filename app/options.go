package app

import (
	"context"
	"log/slog"
	"time"

	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
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
