package app

import (
	"errors"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// The view types: what the desktop UI (package ui, through ui.Backend) is
// given instead of storage's and newsnet's types, and the conversions at
// that boundary. They live here, not in ui, because ui imports app (for
// Draft, Event, Settings and the rest) and App is what fills them; the demo
// backend and the conformance suite use the same types. They carry what
// the views show, and nothing a later change of the store or the protocol
// would have to keep: an item itself is a news.Item, the domain type both
// sides share.

// Entry is one item as the UI lists it: the item, whether it was read
// here, and its retraction.
type Entry struct {
	Item *news.Item
	Read bool
	// Retracted is set for an item hidden by a retraction; nil for a
	// visible item.
	Retracted *Retraction
	// Acknowledged is when the reader confirmed this must-read item
	// (news.Item.MustRead, App.Acknowledge); zero if not yet.
	Acknowledged time.Time
	// Kept: the reader keeps this item (App.Keep), so retention never
	// deletes it.
	Kept bool
}

// Retraction says why and when an item was retracted here.
type Retraction struct {
	ItemID uuid.UUID
	Reason string    // one line, may be empty; shown instead of the item
	At     time.Time // when this installation applied it
	// Expired: hidden by the item's own expiry (news.Item.Expires), not
	// by a signed retraction; Reason is then "expired".
	Expired bool
}

// MaxRetractionReason is the longest reason, in characters, a retraction
// carries.
const MaxRetractionReason = trust.MaxRetractionReasonRunes

// MatchesQuery reports whether texts match a search query by the store's
// rule (Search): every word of the query inside some word of the texts.
func MatchesQuery(query string, texts ...string) bool { return storage.MatchesQuery(query, texts...) }

// Cursor is an opaque position in a list the UI pages through (Newest,
// Search, MyPosts): "" is the start, and a later page is asked for with
// the cursor the previous one returned; "" returned means no more.
type Cursor string

var (
	// ErrNotFound: no such item (Item), or not one the UI is shown.
	ErrNotFound = storage.ErrNotFound
	// ErrBadCursor: a cursor the list was not given by its backend.
	ErrBadCursor = storage.ErrBadCursor
)

func entryView(e storage.Entry) Entry {
	v := Entry{Item: e.Item, Read: e.Read, Acknowledged: e.Acknowledged, Kept: e.Kept}
	if r := e.Retracted; r != nil {
		v.Retracted = &Retraction{ItemID: r.ItemID, Reason: r.Reason, At: r.At, Expired: r.Expired}
	}
	return v
}

// convert maps s through f; nil stays nil.
func convert[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, e := range s {
		out[i] = f(e)
	}
	return out
}

func stringsOf[S ~[]E, E ~string](s S) []string {
	return convert(s, func(e E) string { return string(e) })
}

// NamedAudience is a set of network ranges the admin named in the network
// definition ("Berlin office" = 10.1.4.0/22): Compose offers the names,
// the reader shows them (namedranges.go).
type NamedAudience struct {
	Name   string
	Ranges []netip.Prefix // canonical (news.CanonicalAudience)
}

// Role is the servant's place in the tree, in the words the control API
// uses too: idle (not started), connecting (looking for the tree),
// attached (it has an up-servant), vertex (the root of the tree), stopped.
type Role string

const (
	RoleIdle       = Role(newsnet.RoleIdle)
	RoleConnecting = Role(newsnet.RoleConnecting)
	RoleAttached   = Role(newsnet.RoleAttached)
	RoleVertex     = Role(newsnet.RoleVertex)
	RoleStopped    = Role(newsnet.RoleStopped)
)

// NetStatus is the servant as the network view and the status line show
// it. Servant IDs are "host:port" addresses; category sets are sorted
// category IDs.
type NetStatus struct {
	ID      string // this servant's address; "" before it started
	IDValue uint64 // the ID value partitions are computed on
	Role    Role
	Up      string   // the up-servant; "" when not attached
	Downs   []string // the down-servants holding slots
	// Leaves are the servants below this one that others cannot dial;
	// Leaf: this servant is one of them, so it takes no down-servants.
	Leaves []string
	Leaf   bool
	// Reach is what the last dial-back to this servant's advertised
	// address ReachAddr found: "reachable", "unreachable" or "unknown".
	Reach         string
	ReachAddr     string
	Range         [2]uint64 // the subtree's range of ID values [vmin, vmax]
	Partition     Partition
	RootPath      []string // from the vertex to the up-servant
	Siblings      []string
	Subscriptions []string // this servant's own (self)
	Links         []Link   // tree links: up first, then downs in slot order
	Direct        []DirectLink
	Counters      Counters
	AppStatus
}

// Partition is the range of ID values a servant's subtree falls in, split
// into N slots of SlotWidth values each (JP4353827B2); N is 0 before the
// servant has one.
type Partition struct {
	Lo, Hi    uint64 // inclusive bounds
	SlotWidth uint64
	N         int
}

// Contains reports whether ID value v lies in p.
func (p Partition) Contains(v uint64) bool { return newsnet.Partition(p).Contains(v) }

// Slot is the slot of ID value v, which must lie in p.
func (p Partition) Slot(v uint64) int { return newsnet.Partition(p).Slot(v) }

// PartitionOf is the partition of the subtree range [lo, hi] with n slots
// (n ≥ 2), for a status built outside App (the demo backend).
func PartitionOf(lo, hi uint64, n int) Partition {
	return Partition(newsnet.ComputePartition(lo, hi, n))
}

// IDValue is the ID value of the servant address addr.
func IDValue(addr string) uint64 { return newsnet.IDValue(newsnet.ServantID(addr)) }

// Link is one tree link and its routing sets.
type Link struct {
	Peer     string
	Up       bool
	Slot     int      // the slot of a downlink
	Leaf     bool     // a downlink to a leaf, which holds no slot
	Version  uint16   // the link's wire version
	Release  string   // the peer's release, "" when unknown
	Received []string // what the servants beyond it want
	Sent     []string // what this servant last told them it wants
}

// Carries reports whether items of category go over l: the servants
// beyond it want category or one of its ancestors.
func (l Link) Carries(category string) bool { return newsnet.CategorySet(l.Received).Matches(category) }

// DirectRole says which way a direct link carries items.
type DirectRole string

const (
	DirectPublisher  DirectRole = "publisher"  // this servant sends its items over it
	DirectSubscriber DirectRole = "subscriber" // this servant receives a source's items over it
)

// DirectLink is a direct link: a hot source's items outside the tree.
type DirectLink struct {
	Peer       string
	Source     string // the source whose items it carries
	Categories []string
	Role       DirectRole
	// Delivered counts the items sent over it (publisher) or received over
	// it first (subscriber).
	Delivered uint64
}

// Counters are the servant's counters the network view shows.
type Counters struct {
	Published  uint64 // items published here
	Suppressed uint64 // publications sent on no link: nobody subscribed
	Delivered  uint64 // items handed to this application
	Relayed    uint64 // items forwarded to other servants
	Duplicates uint64 // copies dropped
	Resets     uint64 // tree optimization resets this servant sent
	Lost       uint64 // needed items no holder could retransmit

	// Frames sent, by kind.
	MulticastFrames, PeriodicFrames, ControlFrames uint64
	// Items sent to and received from direct links.
	DirectSent, DirectReceived uint64
}

// netStatusView is st as the UI is shown it.
func netStatusView(st ServantStatus) NetStatus {
	s := st.Status
	v := NetStatus{
		ID: string(s.ID), IDValue: s.IDValue, Role: Role(s.Role), Up: string(s.Up), Downs: stringsOf(s.Downs),
		Leaves: stringsOf(s.Leaves), Leaf: s.Leaf, Reach: s.Reach.String(), ReachAddr: string(s.ReachAddr),
		Range: s.Range, Partition: Partition(s.Partition), RootPath: stringsOf(s.RootPath), Siblings: stringsOf(s.Siblings),
		Subscriptions: stringsOf(s.Subscriptions),
		Counters: Counters{
			Published: s.Counters.Published, Suppressed: s.Counters.Suppressed, Delivered: s.Counters.Delivered,
			Relayed: s.Counters.Relayed, Duplicates: s.Counters.Duplicates, Resets: s.Counters.Resets, Lost: s.Counters.Lost,
			MulticastFrames: s.Counters.MulticastFrames, PeriodicFrames: s.Counters.PeriodicFrames,
			ControlFrames: s.Counters.ControlFrames, DirectSent: s.Counters.DirectSent, DirectReceived: s.Counters.DirectReceived,
		},
		AppStatus: st.AppStatus,
	}
	v.Links = convert(s.Links, func(l newsnet.LinkStatus) Link {
		return Link{Peer: string(l.Peer), Up: l.Up, Slot: l.Slot, Leaf: l.Leaf, Version: l.Version, Release: l.Release, Received: stringsOf(l.Received), Sent: stringsOf(l.Sent)}
	})
	v.Direct = convert(s.Direct, func(d newsnet.DirectStatus) DirectLink {
		return DirectLink{Peer: string(d.Peer), Source: d.Source, Categories: stringsOf(d.Categories), Role: DirectRole(d.Role), Delivered: d.Delivered}
	})
	return v
}

// CheckAddress checks a servant address ("host:port") as servants dial
// it. An address it refuses gives an *AddrError.
func CheckAddress(addr string) error {
	_, err := newsnet.ParseServantID(addr)
	if ae, ok := errors.AsType[*newsnet.AddrError](err); ok {
		return &AddrError{Addr: ae.Addr, Reason: ae.Reason, err: err}
	}
	return err
}

// AddrError is an address CheckAddress refuses. Its message names the
// address and the reason; Reason is the reason alone ("missing port in
// address"), for a caller that shows the address itself.
type AddrError struct {
	Addr   string
	Reason string
	err    error
}

func (e *AddrError) Error() string { return e.err.Error() }

// Unwrap returns the error the address was refused with.
func (e *AddrError) Unwrap() error { return e.err }

// InviteCode is what an invitation code says, as the first-run wizard
// shows it before redeeming it (JoinByInvitation).
type InviteCode struct {
	ID      string   // the invitation's ID
	Network string   // the fingerprint of the network it joins
	Via     string   // the admin's servant it is redeemed at, "host:port"
	Seeds   []string // the network's seeds it names, "host:port" each
}

// ParseInviteCode reads an invitation code as an admin handed it out; the
// error says in words what is wrong with it.
func ParseInviteCode(text string) (InviteCode, error) {
	c, err := trust.ParseInviteCode(text)
	if err != nil {
		return InviteCode{}, err
	}
	return InviteCode{ID: c.ID, Network: c.Network.String(), Via: c.Via, Seeds: slices.Clone(c.Seeds)}, nil
}
