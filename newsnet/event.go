package newsnet

import (
	"net/netip"
	"time"
)

// LinkID names one connection for the lifetime of that connection. The core
// allocates IDs for links it dials (high bit set); the host allocates IDs for
// accepted links (high bit clear), so the two never collide.
type LinkID uint64

const dialedLinkBit LinkID = 1 << 63

// Event is an input to Servant.Step.
type Event interface{ isEvent() }

// Start begins connector processing (or makes the servant the vertex). The
// host sends it once, after the first Tick.
type Start struct{}

// Stop closes every link so neighbours recover at once; the servant then
// ignores everything but LinkDown.
type Stop struct{}

// Tick advances the servant's clock. Hosts tick at least every
// Config.TickInterval; all timeouts are measured in Tick time.
type Tick struct{ Now time.Time }

// LinkUp reports a connection: Inbound for one the host accepted, otherwise
// the answer to a Dial action with the same Link.
type LinkUp struct {
	Link    LinkID
	Inbound bool
	// Version is the wire version the link runs at (NegotiateVersion), 0
	// for this build's ProtocolVersion; Release is the peer's release
	// from its hello, "" when unknown.
	Version uint16
	Release string
	// Remote is the peer's IP address as the connection shows it, for an
	// inbound link; the zero Addr when the host cannot tell. What a joiner
	// advertises is its own claim; where its connection comes from is not
	// (audience.go).
	Remote netip.Addr
}

// LinkDown reports that a connection closed or that a Dial failed.
type LinkDown struct {
	Link   LinkID
	Reason string
}

// Received is a decoded frame that arrived on Link.
type Received struct {
	Link LinkID
	Msg  Message
}

// Subscribe adds a category to the self set (a multicast group join).
type Subscribe struct{ Category string }

// Unsubscribe removes a category from the self set.
type Unsubscribe struct{ Category string }

// SetSubscriptions replaces the self set.
type SetSubscriptions struct{ Categories []string }

// Publish sends a multicast message from this servant.
type Publish struct{ Msg *Multicast }

// SetSeeds replaces the seed list (Config.Seeds) of a running servant,
// without a restart. The connector uses the new list from its next round;
// a servant that becomes or stops being a seed, or moves in the list,
// re-evaluates its place by the seed rules (connector.go, Servant.setSeeds).
// A list with an invalid ID is ignored with a Note.
type SetSeeds struct{ Seeds []ServantID }

// Written reports that the host has written frames the core sent on Link
// (or dropped them with the link): Bytes in all, as SizeOf counts them. The
// core keeps, per link, the bytes it sent and the host has not yet reported
// written; that is how it knows a link has fallen behind (flow control,
// see flow.go). Hosts report every frame exactly once, in any grouping.
type Written struct {
	Link  LinkID
	Bytes int
}

func (Start) isEvent()            {}
func (Stop) isEvent()             {}
func (Tick) isEvent()             {}
func (LinkUp) isEvent()           {}
func (LinkDown) isEvent()         {}
func (Received) isEvent()         {}
func (Subscribe) isEvent()        {}
func (Unsubscribe) isEvent()      {}
func (SetSubscriptions) isEvent() {}
func (Publish) isEvent()          {}
func (SetSeeds) isEvent()         {}
func (Written) isEvent()          {}

// Action is an output of Servant.Step for the host to carry out, in order.
type Action interface{ isAction() }

// Dial asks the host to connect to Addr; it answers with LinkUp or LinkDown
// carrying the same Link.
type Dial struct {
	Link LinkID
	Addr ServantID
	// Direct marks a direct link (direct.go): outside the tree, it is
	// secured and kept alive exactly as a tree link, so hosts need not
	// tell the two apart.
	Direct bool
	// Within bounds the connect and the handshake; zero means
	// Config.JoinTimeout. A join attempt gets longer after attempts to
	// busy servants went unanswered (connector.attemptTimeout).
	Within time.Duration
}

// Send asks the host to queue Msg on Link. Sends on a closed link are
// dropped silently.
type Send struct {
	Link LinkID
	Msg  Message
}

// Close asks the host to close Link once the frames queued before it are
// written. The host reports no LinkDown for a link the core closed.
type Close struct {
	Link   LinkID
	Reason string
}

// Deliver hands a multicast message to the local application (S532).
type Deliver struct {
	Msg  *Multicast
	From LinkID
}

// Published reports the outcome of a Publish: the number of tree links the
// message went out on. Zero means nobody beyond this servant subscribed and
// nothing was sent (suppressed, JP5458944B2).
//
// A publication made while the servant is not attached to the tree is
// queued: Queued is set and Links is zero. The host keeps it in its outbox
// (and passes it back in Config.Outbox after a restart); when it goes out,
// a second Published without Queued reports the links.
type Published struct {
	ID       [16]byte
	Category string
	Count    uint64 // the communication count it was given; persist it (and Config.OwnLast[Category])
	Links    int
	Queued   bool
}

// Progress reports that the next count expected from Source moved to Next
// (messages delivered, or counts resolved as not needed or lost). The host
// persists it and passes it back in Config.Expected after a restart.
type Progress struct {
	Source string
	Next   uint64
}

// Lost reports needed messages of Source that no servant could retransmit:
// N of them were given up on now; Total is the servant's running total,
// Config.Lost included. The host persists Total and passes it back in
// Config.Lost after a restart, so the count the user sees survives it.
type Lost struct {
	Source string
	N      uint64
	Total  uint64
}

// Note is a human-readable line about a protocol decision worth logging
// (role changes, refused joins, dropped links).
type Note struct{ Text string }

func (Dial) isAction()      {}
func (Send) isAction()      {}
func (Close) isAction()     {}
func (Deliver) isAction()   {}
func (Published) isAction() {}
func (Note) isAction()      {}
func (Progress) isAction()  {}
func (Lost) isAction()      {}
