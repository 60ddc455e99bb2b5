package newsnet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Config holds the protocol's tunables. DefaultConfig documents the defaults;
// Validate rejects combinations that cannot work.
type Config struct {
	// ID is this servant's advertised address (required).
	ID ServantID

	// Seeds is the seed list in priority order. A servant listed here joins
	// only the seeds before it; the first reachable seed is the vertex. An
	// empty list, or ID first in it, makes this servant the vertex.
	Seeds []ServantID

	// Fanout is N, the maximum number of downlinks and the partition base.
	// Default 16 (JP4353827B2's news example).
	Fanout int

	// TickInterval is the coarsest Tick period the host may use; every
	// timeout below must be several ticks long. Default 100ms.
	TickInterval time.Duration

	// HeartbeatInterval: a link idle this long in the send direction gets a
	// Ping. Default 1s.
	HeartbeatInterval time.Duration

	// LinkTimeout: a link with nothing received for this long is closed, so a
	// peer that vanished without closing its socket is detected. Default 4s,
	// which keeps detection under 5s with one tick of slack.
	LinkTimeout time.Duration

	// JoinTimeout: a join attempt without a response is abandoned and the
	// next target tried. Default 3s.
	JoinTimeout time.Duration

	// PartitionInterval is the period of the vertex's tree optimization
	// message (and of every unattached servant's, for its fragment).
	// Default 2s.
	PartitionInterval time.Duration

	// RootSilence: an attached servant that received no partition message for
	// this long is cut off from any vertex (orphaned, or in a cycle made by a
	// race) and reconnects through the seeds. Default 5 partition intervals.
	RootSilence time.Duration

	// SeedProbeInterval: a vertex that is not the first seed tries the seeds
	// before it this often, so a split network merges when they return.
	// Default 5s.
	SeedProbeInterval time.Duration

	// BackoffMin and BackoffMax bound the wait after every target failed; it
	// doubles per failed round and is jittered by ±50%. Defaults 250ms, 8s.
	BackoffMin, BackoffMax time.Duration

	// MaxRedirects bounds the redirects followed in one join attempt, so a
	// redirect loop between stale listeners ends. Default 32.
	MaxRedirects int

	// LeafCapacity bounds the leaves (servants others cannot dial, leaf.go)
	// a servant takes besides its Fanout down-servants; seeds and the
	// vertex take every leaf. 0 means DefaultLeafCapacity(Fanout), 4 ×
	// Fanout. Networks set it in their definition.
	LeafCapacity int

	// ReachProbeInterval: an up-servant dials each down-servant and leaf
	// back this often (jittered ±50 %), so a firewall opened or closed
	// while running is noticed (dialback.go). Default 10 minutes: one
	// short dial per servant per 10 minutes costs nothing, and a laptop
	// whose firewall rule was just added waits at most 15 minutes to take
	// a slot (it receives everything as a leaf meanwhile).
	ReachProbeInterval time.Duration

	// OpinionInterval: a servant with an up-servant asks a seed other than
	// it this often (jittered ±50 %) how far the streams it follows have
	// got, so that an up-servant that silently passes on nothing is left
	// (opinion.go). 0 turns it off. Default 5 minutes: for 5,000 servants,
	// about 17 short connections a second spread over the seeds.
	OpinionInterval time.Duration

	// Release is this build's release ("0.2.0") and Kind its host's kind
	// (KindDesktop, KindHeadless), both counted in the network census
	// (netcensus.go); "" when the host does not say.
	Release, Kind string

	// SeenWindow is how many recent multicast IDs are remembered to drop
	// copies a re-forming tree may deliver twice. Default 8192.
	SeenWindow int

	// Subscriptions is the self set the servant starts with, so that its
	// first routing information and catch-up already carry it.
	Subscriptions []string

	// Source is this installation's persistent ID (a UUID), which orders
	// and names its publications independently of its address. Empty means
	// the servant ID.
	Source string

	// OwnCount is the communication count of this source's last
	// publication, as persisted by the host: counts continue after it, so a
	// restart never reuses one.
	OwnCount uint64

	// OwnLast holds, per category this source published in, the count of
	// its latest publication there, as persisted by the host (from the
	// Published actions, which name the category). The core derives the
	// Lasts of its next messages from it. Nil with OwnCount above zero
	// means the host does not keep it: the core rebuilds it from the
	// Archive when it can, and otherwise marks its Lasts incomplete.
	OwnLast map[string]uint64

	// Expected holds, per source, the next count this servant expects, as
	// persisted by the host from Progress actions.
	Expected map[string]uint64

	// Archive, if set, lets the core find messages the host stores: to
	// answer retransmission requests as a holder, and to recognise a missed
	// count it already has. Nil means only the in-memory relay cache.
	Archive Archive

	// Outbox holds the host's persisted publications that were queued while
	// this servant was not attached (Published with Queued set) and not sent
	// since. They keep their counts and go out when the servant attaches.
	Outbox []*Multicast

	// LastAttached is when this servant was last attached to the tree, as
	// persisted by the host; catch-up asks for other sources' items since
	// then. Zero, or older than CatchUpWindow, means CatchUpWindow ago.
	LastAttached time.Time

	// CatchUpWindow bounds how far back catch-up reaches for sources this
	// servant does not follow yet, and for a newly subscribed category.
	// Default 7 days.
	CatchUpWindow time.Duration

	// Durable lists categories whose every item still matters however old
	// it is (system groups: network definitions, retractions). Catch-up
	// asks for them without the CatchUpWindow bound, so a servant that was
	// away for months still learns of them; the host keeps them forever.
	Durable []string

	// ClockSkew is how far a publisher's clock may lag this servant's.
	// Items published since this servant first attached are owed to it
	// (owed.go); an item dated, by its publisher's clock, up to ClockSkew
	// before that is taken as owed too, so a publisher whose clock is
	// slow does not lose its items for us. Default 2 minutes: Windows
	// domain members keep within seconds of their domain controller, and
	// a laptop that syncs only with an internet time server weekly drifts
	// by tens of seconds; the cost is at most that much of a source's
	// items from just before we attached.
	ClockSkew time.Duration

	// CatchUpRepeat is how long after joining the catch-up is asked for a
	// second time. Default 5s.
	CatchUpRepeat time.Duration

	// CatchUpLimit bounds the items of one catch-up page. The requester
	// asks for the next page when a page has arrived, so a catch-up of any
	// size keeps at most one page in flight per requester. Default 256.
	CatchUpLimit int

	// HistoryWindow is how many earlier messages each multicast message
	// describes in its history. A gap older than this is classified by
	// asking for the categories first. Default 64: with runs of a few
	// categories that is a few dozen bytes, and at worst (every message in
	// another category than the one before) about 400.
	HistoryWindow int

	// RecoverTimeout is the first wait for an answer to a retransmission
	// request; each retry doubles it. After RecoverAttempts tries the counts
	// are recorded as lost and later messages are released, unless answers
	// for the same source still settle other counts: then they get as many
	// tries again at the longest wait (recover.go, stillAnswering).
	// Defaults 1s, 6 (about a minute in all; three more while answers come).
	RecoverTimeout  time.Duration
	RecoverAttempts int

	// RecoverWindow bounds the missed counts of one source asked for and
	// not yet answered. A servant that missed thousands asks for them a
	// window at a time, so the answers in flight toward it stay bounded.
	// Default 512 (half a MiB of 1 KiB items).
	RecoverWindow int

	// RelayCache bounds the messages kept in memory to answer
	// retransmission requests from servants below and to send a link the
	// items it fell behind on. Default 16,384.
	RelayCache int

	// RelayCacheBytes bounds the same cache by payload bytes, whichever
	// bound is reached first. Default 16 MiB: a burst of 10,000 items of
	// 1 KiB stays in memory until every link has taken it; what falls out
	// is still repaired, from the publisher's store, at the cost of
	// requests.
	RelayCacheBytes int

	// LinkBuffer bounds, in bytes (as SizeOf counts them), what the core
	// keeps queued on one link and not yet written by the host. Beyond it
	// the link is busy: items for it are withheld, remembered by source
	// and count only, and sent from the relay cache or the store once the
	// host reports the queue half drained. A burst larger than any queue
	// slows a link down; it never empties the queue into the void.
	// Default 1 MiB.
	LinkBuffer int

	// LinkBacklog bounds the items withheld from one busy link (about 48
	// bytes each). Beyond it the oldest are dropped and the link is sent
	// their sources' leading edges instead, so the servant behind it asks
	// for what it misses. Default 32,768.
	LinkBacklog int

	// Direct delivery (direct.go, JP5458944B2's second embodiment): a
	// subscriber that needed DirectThreshold items of one source within
	// DirectWindow, from at least DirectMinHops links away over the tree,
	// asks the source to send them over a link of their own. Defaults
	// SuggestedDirectThreshold (100) and 60s: a sustained 1.7 needed
	// items/s, below which a direct link's heartbeats cost about what it
	// saves; 0 never asks. DirectMinHops 2 (one relay at least: a link to
	// a tree neighbour saves nothing). The switch costs a lossless stream
	// nothing: the items the first direct ones overtake are waited for
	// (overtake.go), not asked for.
	DirectThreshold int
	DirectWindow    time.Duration
	DirectMinHops   int

	// DirectBudget is how many direct links this servant serves as a
	// source at once; a request beyond it is refused with the reason.
	// Default 4: each costs the publisher a connection and a copy of
	// every item in the link's categories, and a publisher already sends
	// up to Fanout+1 tree copies. 0 refuses every request.
	DirectBudget int

	// Reach reports (reach.go). ReportPeriod: a tree link carries at most
	// one ReachReport per period, and a changed item waits at most one
	// period for the reports of its subtree before its totals go on.
	// Default 5s: reach is watched by people, and at one frame per link
	// per period report traffic stays a few hundred bytes per second per
	// link however busy the network is.
	ReportPeriod time.Duration

	// ReachItems bounds the items whose reach this servant tracks; beyond
	// it the one tracked longest ago is forgotten (its totals are no
	// longer passed on; the publisher keeps the last it had). Default
	// 2048, some 200 bytes each plus about 100 per link that reported it.
	ReachItems int

	// ReachIdentities bounds the Pending and Acks lists of one must-read
	// item, at most MaxReachIdentities: beyond it the counts stay exact
	// and the lists name the first in byte order. Default 256.
	ReachIdentities int

	// ReportBytes bounds the item totals in one ReachReport (SizeOf
	// units); what does not fit waits for the next period. Default 16 KiB,
	// about 400 items.
	ReportBytes int

	// Reach holds this servant's own part in the reach of recent items, as
	// the host keeps it (items it stored, read, acknowledged, and its own
	// publications), so that its counts survive a restart. Oldest first;
	// beyond ReachItems the oldest are left out.
	Reach []OwnReach

	// Lost is the total of needed messages given up on before this start,
	// as persisted by the host from Lost actions.
	Lost uint64

	// KnownCategories seeds the table that maps short IDs in histories back
	// to categories (the catalog); categories seen in messages are added as
	// they arrive. A short ID not in the table is classified by asking.
	KnownCategories []string

	// Verify, if set, checks every multicast message that arrives (over the
	// tree or retransmitted) before it is forwarded, delivered or cached,
	// and returns "" to accept it or a short reason ("badSignature") to drop
	// it. Drops are counted per reason in Status.Rejected and noted once per
	// peer and reason. Called from Step: it must be quick and pure (a
	// signature check against the network definition).
	Verify func(*Multicast) (reason string)
	// ForgedReasons are the reasons of Verify that no honest servant
	// passes on (a signature that does not match what it signs): an item
	// rejected for one counts against the peer it came from (conduct.go),
	// and one that keeps sending such items is left. Reasons that can come
	// of servants holding different network definitions (an unknown key)
	// do not belong here.
	ForgedReasons []string

	// VerifyReachBlob, if set, checks each identity blob (ack false: a
	// reader still to confirm) and acknowledgement blob (ack true) of
	// must-read item id in a reach report as it arrives from a tree link.
	// Every servant checks what its links report, so a blob that fails
	// was made by the peer that sent it: it is dropped and counts against
	// the peer (conduct.go), and junk never reaches the lists that are
	// passed on. Called from Step: it must be quick (hosts cache verdicts).
	VerifyReachBlob func(id [16]byte, blob []byte, ack bool) bool

	// Flood turns the servant into the benchmark baseline: no multicast
	// routing information is exchanged and every multicast message is
	// forwarded on every tree link (delivered locally only when subscribed).
	// Never set it in production.
	Flood bool

	// Rand supplies jitter. The core has no randomness of its own; pass a
	// seeded source for repeatable runs. Required.
	Rand *rand.Rand

	// Blob tunes the transfers of attachments' bytes (blobs.go).
	Blob BlobConfig
}

// Archive is the host's store of messages, as the core sees it. Its methods
// are called from Step, on the goroutine that owns the servant, and must not
// wait on the network (a read of the local store is fine).
type Archive interface {
	// Lookup returns the stored message of source with this count, or nil.
	Lookup(source string, count uint64) *Multicast

	// CatchUp returns stored messages whose category cats matches (as
	// CategorySet.Matches): of each source in known, those from its count
	// on; of every other source, those stored since the time. At most limit,
	// ordered by source, then count.
	CatchUp(cats CategorySet, known map[string]uint64, since time.Time, limit int) []*Multicast
}

// SuggestedDirectThreshold is the default DirectThreshold (`newsdesk serve
// --direct N` sets another, 0 turns asking off): 100 items within the
// default DirectWindow of a minute, a sustained 1.7 items/s, below which a
// direct link's heartbeats cost about what it saves.
const SuggestedDirectThreshold = 100

// DefaultConfig returns the defaults for the servant id. Rand is left nil:
// the host supplies it.
func DefaultConfig(id ServantID) Config {
	return Config{
		ID:                 id,
		Fanout:             16,
		TickInterval:       100 * time.Millisecond,
		HeartbeatInterval:  time.Second,
		LinkTimeout:        4 * time.Second,
		JoinTimeout:        3 * time.Second,
		PartitionInterval:  2 * time.Second,
		RootSilence:        10 * time.Second,
		SeedProbeInterval:  5 * time.Second,
		BackoffMin:         250 * time.Millisecond,
		BackoffMax:         8 * time.Second,
		MaxRedirects:       32,
		ReachProbeInterval: 10 * time.Minute,
		OpinionInterval:    5 * time.Minute,
		SeenWindow:         8192,
		HistoryWindow:      64,
		RecoverTimeout:     time.Second,
		RecoverAttempts:    6,
		RecoverWindow:      512,
		RelayCache:         16384,
		RelayCacheBytes:    16 << 20,
		LinkBuffer:         1 << 20,
		LinkBacklog:        32768,
		CatchUpWindow:      7 * 24 * time.Hour,
		CatchUpLimit:       256,
		CatchUpRepeat:      5 * time.Second,
		ClockSkew:          2 * time.Minute,
		DirectThreshold:    SuggestedDirectThreshold,
		DirectWindow:       time.Minute,
		DirectMinHops:      2,
		DirectBudget:       4,
		ReportPeriod:       5 * time.Second,
		ReachItems:         2048,
		ReachIdentities:    256,
		ReportBytes:        16 << 10,
		Blob:               DefaultBlobConfig(),
	}
}

// Validate reports the first setting that cannot work.
func (c *Config) Validate() error {
	if c.ID == "" {
		return errors.New("id is required")
	}
	if _, err := ParseServantID(string(c.ID)); err != nil {
		return err
	}
	for _, s := range c.Seeds {
		if _, err := ParseServantID(string(s)); err != nil {
			return fmt.Errorf("seed list: %w", err)
		}
	}
	switch {
	case c.Fanout < 2 || c.Fanout > 1024:
		return fmt.Errorf("fanout must be 2..1024, got %d", c.Fanout)
	case c.TickInterval <= 0:
		return errors.New("tick interval must be positive")
	case c.HeartbeatInterval < c.TickInterval:
		return errors.New("heartbeat interval must be at least one tick")
	case c.LinkTimeout < 2*c.HeartbeatInterval:
		return errors.New("link timeout must be at least two heartbeat intervals")
	case c.JoinTimeout < 2*c.TickInterval:
		return errors.New("join timeout must be at least two ticks")
	case c.PartitionInterval < c.TickInterval:
		return errors.New("partition interval must be at least one tick")
	case c.RootSilence < 3*c.PartitionInterval:
		return errors.New("root silence must be at least three partition intervals")
	case c.SeedProbeInterval < c.TickInterval:
		return errors.New("seed probe interval must be at least one tick")
	case c.BackoffMin <= 0 || c.BackoffMax < c.BackoffMin:
		return errors.New("backoff bounds must satisfy 0 < min <= max")
	case c.MaxRedirects < 1:
		return errors.New("max redirects must be at least 1")
	case c.LeafCapacity < 0:
		return errors.New("leaf capacity must not be negative")
	case c.ReachProbeInterval < c.JoinTimeout:
		return errors.New("reach probe interval must be at least the join timeout")
	case c.OpinionInterval != 0 && c.OpinionInterval < 2*c.JoinTimeout:
		return errors.New("second-opinion interval must be 0 or at least two join timeouts")
	case c.SeenWindow < 1:
		return errors.New("seen window must be at least 1")
	case c.HistoryWindow < 0 || c.HistoryWindow > MaxHistoryRuns:
		return fmt.Errorf("history window must be 0..%d", MaxHistoryRuns)
	case c.RecoverTimeout < c.TickInterval:
		return errors.New("recover timeout must be at least one tick")
	case c.RecoverAttempts < 1:
		return errors.New("recover attempts must be at least 1")
	case c.RecoverWindow < 1:
		return errors.New("recover window must be at least 1")
	case c.CatchUpWindow < 0 || c.CatchUpRepeat < 0:
		return errors.New("catch-up window and repeat must not be negative")
	case c.ClockSkew < 0:
		return errors.New("clock skew must not be negative")
	case c.CatchUpLimit < 1:
		return errors.New("catch-up limit (the page size) must be at least 1")
	case c.RelayCache < 0 || c.RelayCacheBytes < 0:
		return errors.New("relay cache must not be negative")
	case c.LinkBuffer < 4<<10:
		return errors.New("link buffer must be at least 4 KiB")
	case c.LinkBacklog < 1:
		return errors.New("link backlog must be at least 1")
	case c.DirectThreshold < 0 || c.DirectMinHops < 0 || c.DirectBudget < 0:
		return errors.New("direct threshold, minimum hops and budget must not be negative")
	case c.DirectThreshold > 0 && c.DirectWindow < c.TickInterval:
		return errors.New("direct window must be at least one tick when the threshold is set")
	case c.DirectThreshold > 1<<16:
		return errors.New("direct threshold must be at most 65536 items")
	case c.ReportPeriod < c.TickInterval:
		return errors.New("report period must be at least one tick")
	case c.ReachItems < 1:
		return errors.New("reach items must be at least 1")
	case c.ReachIdentities < 0 || c.ReachIdentities > MaxReachIdentities:
		return fmt.Errorf("reach identities must be 0..%d", MaxReachIdentities)
	case c.ReportBytes < 1<<10:
		return errors.New("report bytes must be at least 1 KiB")
	case len(c.Source) > MaxIDBytes:
		return fmt.Errorf("source longer than %d bytes", MaxIDBytes)
	case c.Rand == nil:
		return errors.New("rand is required (the core has no randomness of its own)")
	}
	return nil
}
