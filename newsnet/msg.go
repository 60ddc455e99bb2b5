package newsnet

import "net/netip"

// Message is one protocol frame's payload: a pointer to one of this
// package's message types, such as *Multicast. Each message type is
// registered, with its type byte, in registry.go, and its marshal/unmarshal
// pair in wire.go is its encoding.
type Message interface {
	msgType() msgType
	marshal(*encoder)
	unmarshal(*decoder)
}

// JoinRequest is the connector's participation request (JP4353827B2 S109).
// It is the first frame on every outbound link.
type JoinRequest struct {
	From ServantID // the joiner's advertised address
	// Reach is what the last dial-back to From found (dialback.go): only
	// a joiner known to be reachable may take a slot; any other is taken
	// as a leaf and dialed back.
	Reach Reach
	// Avoid lists the servants this joiner could not dial since it
	// started looking for the tree (at most MaxAvoid): a listener never
	// redirects it there, and dials back those of its own down-servants
	// to check them (leaf.go).
	Avoid []ServantID
	// Full lists the servants that had no room for it as a leaf (at most
	// MaxAvoid): a listener does not send it there as a leaf again.
	Full []ServantID
}

// JoinAccept is the listener's "OK" response (S213). Path is the listener's
// path from the vertex, ending with the listener itself: the joiner's root
// path, which lets it refuse joiners from its own ancestors. The listener's
// partition comes along so the joiner runs tree optimization at once instead
// of one partition interval later.
type JoinAccept struct {
	Lo, Hi uint64 // the listener's partition, checked like a PartitionInfo
	Path   []ServantID
	// Leaf: the joiner holds no slot and takes no down-servants (leaf.go).
	Leaf bool
}

// JoinRedirect is the "connection instruction to another servant" response
// (S215): the slot holder the joiner should try next. A listener also sends it
// on an established downlink it drops because a widened partition put two
// downlinks in one slot; the dropped servant rejoins under To.
type JoinRedirect struct {
	To ServantID
	// Full: the listener has no room for the leaf joiner, and To is a
	// servant above it; the joiner adds the listener to its Full list.
	Full bool
}

// Reach is what a dial-back to a servant's advertised address found.
type Reach uint8

const (
	ReachUnknown     Reach = iota // not dialed back yet at this address
	ReachReachable                // a dial-back reached this servant
	ReachUnreachable              // the last dial-back did not
)

func (r Reach) String() string {
	switch r {
	case ReachReachable:
		return "reachable"
	case ReachUnreachable:
		return "unreachable"
	}
	return "unknown"
}

// DialBack is the first frame on a link dialed to check that a servant
// can be reached at its advertised address (dialback.go). The servant
// reached answers DialBackReply and sends nothing else on the link.
type DialBack struct {
	Nonce uint64
}

// DialBackReply answers a DialBack: the nonce, and the ID of the servant
// that answered, which must be the one dialed.
type DialBackReply struct {
	Nonce uint64
	From  ServantID
}

// Reachability is an up-servant's verdict after dialing its down-servant
// or leaf back at Addr: whether that worked, and whether the receiver is
// now a leaf (it holds no slot and takes no down-servants) or a member.
type Reachability struct {
	Addr      ServantID
	Reachable bool
	Leaf      bool
}

// JoinRefuse rejects a joiner the listener must not take (itself, one of its
// ancestors, or a servant that is shutting down).
type JoinRefuse struct {
	Reason string
}

// Siblings is the up-servant's current list of its down-servants, in slot
// order, sent to each of them whenever it changes (uplink-loss recovery, S301).
type Siblings struct {
	IDs []ServantID
}

// PartitionInfo is the tree optimization message: the sender's partition and
// its path from the vertex (ending with the sender). A servant that finds
// itself in Path is in a cycle.
type PartitionInfo struct {
	Lo, Hi uint64
	Path   []ServantID
}

// Reset tells a down-servant that its up-servant dropped its subtree; the
// receiver runs connector processing through the seeds (S421).
type Reset struct{}

// RoutingInfo is the multicast information message: the union of the
// sender's self set and the received sets of its other links (Fig. 7).
type RoutingInfo struct {
	Categories CategorySet
}

// Multicast is a message addressed to a category (multicast group).
//
// Source, Count and History are JP3679935B2's transmission source ID,
// communication count and past message ID information: the receiver finds
// gaps in Count and learns from History whether it needed what it missed.
type Multicast struct {
	ID       [16]byte // unique item ID (a UUID); used to drop copies
	Category string   // the multicast ID (the patent's message ID)
	Source   string   // the publishing installation (a persistent UUID)
	Count    uint64   // the source's communication count, from 1
	// History describes the categories of the source's messages before this
	// one, newest first, as runs of short IDs (see ShortID). A received
	// message leaves it nil and keeps the runs undecoded: read them with
	// HistoryRuns (history_wire.go).
	History     []HistoryRun
	historyWire []byte
	// Lasts lets a receiver classify a gap of any length without a request
	// (chain.go): for every category the source published under before
	// this message, and every ancestor of those ("hr" and "hr/payroll" for
	// "hr/payroll/eu"), the count of its latest message there, named by
	// ShortID and sorted by it. LastsComplete says the list misses none, so
	// a subscription not in it has no earlier message of the source;
	// without it (a copy rebuilt from a store, a publisher that lost track
	// of its own past) only the entries present count. Not signed: a relay
	// that lies about it can make a receiver skip what it needs, as a
	// relay that drops it can.
	Lasts         []LastCount
	LastsComplete bool
	Payload       []byte // opaque to the overlay: the encoded news item
	// Hops counts the relays the message passed: the publisher sends 0,
	// and each servant that forwards it adds one, so a subscriber that
	// receives it over the tree is Hops+1 links from the publisher
	// (direct.go: a hot source at least Config.DirectMinHops away may be
	// asked for direct delivery). Not signed, like the other overlay
	// fields a relay can lie about; the worst a lie does is ask for, or
	// miss, a direct link.
	Hops uint64
	// Audience, when not empty, limits the message to the servants whose
	// advertised address lies in one of these network ranges (audience.go):
	// only links that can lead there carry it, and only those servants
	// deliver it. Canonical as news writes an item's audience, and equal to
	// the signed item's (the host's Verify checks), so a relay cannot
	// change it.
	Audience []netip.Prefix
}

// LastCount is the latest count of a source under one category or
// ancestor, named by its ShortID. On the wire it travels as the distance
// back from the message's own count, which is small.
type LastCount struct {
	Short uint32
	Count uint64
}

// Edge is a source's leading edge in one category (PGM's source path
// message, RFC 3208): the header of the source's latest message in
// Category, without its payload. A servant sends it on a link whose
// routing information newly asks for the category, and when it could not
// send a busy link every item it withheld; a receiver that lacks the
// message then asks for it, so the tail of a stream is repaired even when
// the source never sends again and no archive exists.
type Edge struct {
	Source        string
	Category      string
	Count         uint64
	History       []HistoryRun // as Multicast's: read with HistoryRuns
	historyWire   []byte
	Lasts         []LastCount
	LastsComplete bool
}

// CatchUpDone ends one page of a catch-up answer, travelling back along
// Trail after the page's items. More says the archive stopped at the page
// limit: the requester asks again from Next, where the page ended for each
// source it held (retransmissions that arrive meanwhile say nothing of
// where a page got to).
type CatchUpDone struct {
	Trail []ServantID
	More  bool
	Next  []SourceCount
}

// HistoryRun says that Len consecutive earlier messages of the source had
// categories with short ID Short.
type HistoryRun struct {
	Short uint32
	Len   uint32
}

// Recover asks for messages of Source (or only their categories) that the
// requester missed. It travels toward the source along the reverse path (the
// link each hop's copies of the source's messages arrived on) until a
// servant holding them answers. Trail lists the servants it passed,
// requester first, so the answers can retrace it.
type Recover struct {
	Source         string
	Counts         []uint64 // ascending
	CategoriesOnly bool     // classify a gap older than the history window
	// Search makes every hop pass the request on over all its other tree
	// links instead of the reverse path alone: a retry, for the reverse
	// path goes stale when the tree re-forms after the source's last item.
	Search bool
	Trail  []ServantID
}

// Recovered answers a Recover, travelling back along Trail (each hop removes
// itself from the end). It carries one message, or the categories of counts
// (for CategoriesOnly), or the counts nobody on the path holds.
type Recovered struct {
	Trail      []ServantID
	Source     string
	Msg        *Multicast      // a retransmitted message, or nil
	Categories []CountCategory // answers to a CategoriesOnly request
	Missing    []uint64        // counts the end of the path does not hold
}

// CatchUp asks for what a servant missed while it was away (or, for a
// category it just subscribed to, what was published before). It travels up
// the tree to the nearest servant able to answer: one that subscribes to
// every category asked for and keeps an archive (an archive servant
// subscribes to everything). The items come back as Recovered frames along
// Trail, in source order.
type CatchUp struct {
	Categories CategorySet
	Known      []SourceCount // sources followed: send their items from Next on
	Since      int64         // other sources: items stored since (Unix ns)
	Trail      []ServantID
}

// SourceCount is the next count a servant expects from a source.
type SourceCount struct {
	Source string
	Next   uint64
}

// CountCategory is the category of the source's message with this count.
type CountCategory struct {
	Count    uint64
	Category string
}

// DirectRequest asks a source for direct delivery (direct.go,
// JP5458944B2's P2P subscription request): its items in Categories, sent
// to the requester over a link of their own, outside the tree. It travels
// toward the source along the reverse path (reverse.go); Trail lists the
// servants it passed, the requester first, so the answer can retrace it.
type DirectRequest struct {
	Source     string
	Categories CategorySet
	Trail      []ServantID
}

// DirectAnswer is the source's answer to a DirectRequest, travelling back
// along Trail (each hop removes itself from the end). Refused is empty
// when the source accepts: the requester then dials Publisher, the
// source's servant, and opens the link with a DirectHello. Otherwise it
// says why ("budget full: 4 direct links").
type DirectAnswer struct {
	Trail      []ServantID
	Source     string
	Publisher  ServantID
	Categories CategorySet
	Refused    string
}

// DirectHello is the first frame on a direct link, from the subscriber
// that dialed: the source's servant takes the link as direct if it
// accepted From's request for Source (and refuses it otherwise).
type DirectHello struct {
	From       ServantID
	Source     string
	Categories CategorySet
}

// DirectCover installs an exception (JP5458944B2's exception node list)
// on the tree link it arrives over: everyone beyond that link who needs
// Source's items in Categories receives those from count From on
// directly, so the receiver stops forwarding them there. It travels toward
// the source, hop by hop, as far as the claim holds (direct.go). It
// replaces the previous cover of the same source on that link; an empty
// Categories withdraws it.
type DirectCover struct {
	Source     string
	Categories CategorySet
	From       uint64
}

// Ping keeps an otherwise idle link alive so a vanished peer is noticed.
type Ping struct{}

// Limits of a well-formed message, checked by the decoder before allocating.
const (
	MaxFrameBytes    = 256 << 10 // one frame, type byte included
	MaxIDBytes       = 255       // a servant ID or source
	MaxCategoryBytes = 255       // one category
	MaxCategories    = 4096      // one routing set
	MaxPathLen       = 256       // root paths and sibling lists
	MaxAvoid         = 16        // a joiner's Avoid list
	MaxReasonBytes   = 1024
	MaxHistoryRuns   = 4096 // runs in one message's history
	MaxCounts        = 4096 // counts in one Recover or Recovered
	MaxSources       = 4096 // sources in one CatchUp
	MaxLasts         = 4096 // entries of one message's Lasts
)

// AllCategories, as a subscription, matches every category: archive
// servants subscribe to it so that everything published reaches them.
const AllCategories = "*"
