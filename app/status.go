package app

import (
	"newsdesk/newsnet"
)

// ServantStatus is the servant's whole status with what the application
// adds to it: the control API (package cli) and the tests read it. The UI
// reads NetStatus, made from it.
type ServantStatus struct {
	newsnet.Status
	AppStatus
}

// AppStatus is what the application adds to the servant's status.
type AppStatus struct {
	Listen    string // the address servant links are accepted on
	Source    string // this installation's ID
	Connected bool   // attached to the tree or its vertex
	// Lost counts what could not be recovered, over every run
	// (persisted): needed items no holder could retransmit, and the blobs
	// of attachments no servant could deliver (LostBlobs, also counted
	// apart).
	Lost      uint64
	LostBlobs uint64

	// StoreProblem says why delivered items wait to be stored ("disk
	// full"); "" when none wait. Unstored counts them: they are kept (or
	// fetched again) and stored once the store takes them.
	StoreProblem string
	Unstored     int

	// Moved is the last change of the advertised address (the laptop
	// moved to another network), nil when none in this run.
	Moved *AddressChange

	// Release is this build's; NewerRelease the newest release newer
	// than it that a neighbour runs ("" when none was seen in this run).
	Release, NewerRelease string
	// NewerNetwork lists the features of a newer release that the network
	// definition carries (kept and passed on, unused here).
	NewerNetwork []string

	// PortMoved is set when the start found the listen port in use and
	// moved to a free one (Options.MovePortIfTaken).
	PortMoved *PortMove

	// Alone is set while this servant is the vertex of a network of its
	// own although it should be attached below a seed (firstseed.go):
	// items of others do not reach it then.
	Alone *Alone

	// Evicted is what the storage quota removed last (quota.go), nil
	// when it never removed anything.
	Evicted *Eviction
}

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

const (
	DirectPublisher  DirectRole = "publisher"  // this servant sends its items over it
	DirectSubscriber DirectRole = "subscriber" // this servant receives a source's items over it
)
