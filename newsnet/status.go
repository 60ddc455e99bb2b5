package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Role is what a servant currently is in the tree.
type Role string

const (
	RoleIdle       Role = "idle"       // not started
	RoleConnecting Role = "connecting" // no uplink, looking for the tree
	RoleAttached   Role = "attached"   // has an up-servant
	RoleVertex     Role = "vertex"     // the root of the tree
	RoleStopped    Role = "stopped"
)

// Status is a snapshot of a servant's state, safe to keep and share.
type Status struct {
	ID      ServantID
	IDValue uint64
	Role    Role
	Up      ServantID   // "" when not attached
	Downs   []ServantID // the down-servants holding slots, in slot order
	// Leaves are the servants below us that others cannot dial (leaf.go);
	// Leaf: we are one of them, below Up.
	Leaves []ServantID
	Leaf   bool
	// Reach is what the last dial-back to this servant found, ReachAddr
	// the address dialed and ReachAt when (dialback.go).
	Reach     Reach
	ReachAddr ServantID
	ReachAt   time.Time
	// Misconduct: peers that exceeded their budgets (conduct.go).
	Misconduct    Misconduct
	Range         [2]uint64 // subtree range [vmin, vmax]
	Partition     Partition
	RootPath      []ServantID // from the vertex to the up-servant
	Siblings      []ServantID
	Subscriptions CategorySet
	Links         []LinkStatus // up first, then downs in slot order
	Counters      Counters
	Rejected      map[string]uint64 // messages dropped by Config.Verify, per reason
	// CatchingUp: a catch-up is asked for or under way (its pages still
	// coming); items of sources not followed yet wait for it.
	CatchingUp bool
	// Direct lists the direct links (direct.go), which are not tree links
	// and so not in Links.
	Direct []DirectStatus
	// Subtree is the census of our subtree, Network the whole network's
	// as last heard from the vertex (netcensus.go).
	Subtree NetCensus
	Network NetworkCensus
	// Subscribers counts the servants of the whole network per category,
	// as the subscriber census counts them (reach_census.go): each servant
	// once per category it subscribes to, less those an ancestor of which
	// it also subscribes to ("hr" covers "hr/payroll", "*" everything).
	Subscribers map[string]uint64
	// Blobs counts the attachments' chunks this servant received and sent
	// (blobs.go), and BlobTransfers the blobs it is getting or passing on.
	Blobs         BlobCounters
	BlobTransfers int
}

// LinkStatus describes one tree link.
type LinkStatus struct {
	Peer     ServantID
	Up       bool
	Slot     int  // slot index for a downlink; -1 for a leaf
	Leaf     bool // a downlink to a leaf
	Received CategorySet
	Sent     CategorySet
	// Flow control: bytes queued in the host and not yet written, and the
	// items withheld until the link drains.
	Queued   int
	Withheld int
	// Answers: bytes of answers withheld until the link drains (keyed or
	// whole); Parked: the peer's requests waiting for them (requests.go).
	Answers int
	Parked  int
	// Version is the wire version the link runs at, Release the peer's
	// release ("" when its hello had none).
	Version uint16
	Release string
}

// Role reports the servant's current role.
func (s *Servant) Role() Role {
	switch {
	case s.stopped:
		return RoleStopped
	case !s.started:
		return RoleIdle
	case s.up != nil:
		return RoleAttached
	case s.vertex:
		return RoleVertex
	}
	return RoleConnecting
}

// Status returns a snapshot of the servant.
func (s *Servant) Status() Status {
	st := Status{
		ID:            s.id,
		IDValue:       s.adm.value,
		Role:          s.Role(),
		Range:         [2]uint64{s.adm.vmin, s.adm.vmax},
		Partition:     s.adm.part,
		RootPath:      slices.Clone(s.rootPath),
		Siblings:      slices.Clone(s.siblings),
		Subscriptions: s.self,
		Counters:      s.counters,
		Rejected:      maps.Clone(s.verifier.rejected),
		CatchingUp:    s.catchUp.running(),
		Direct:        directStatuses(s.sortedLinks()),
		Leaf:          s.adm.leaf,
		Reach:         s.dialback.self,
		ReachAddr:     s.dialback.addr,
		ReachAt:       s.dialback.at,
		Misconduct:    s.conduct.status(s.now),
		Subtree:       cloneCensus(&s.netCensus.subtree),
		Subscribers:   s.reach.censusFor(s, nil),
		Network:       s.netCensus.network,
		Blobs:         s.blobs.counters,
		BlobTransfers: len(s.blobs.xfers),
	}
	st.Network.NetCensus = cloneCensus(&s.netCensus.network.NetCensus)
	if s.up != nil {
		st.Up = s.up.peer
	}
	for _, l := range s.treeLinks() {
		st.Links = append(st.Links, LinkStatus{Peer: l.peer, Up: l == s.up, Slot: l.slot, Leaf: l.leaf, Received: l.received, Sent: l.sent,
			Queued: l.flow.inflight, Withheld: l.flow.keys, Answers: l.flow.backlogBytes, Parked: len(l.requests.parked), Version: l.version, Release: l.release})
		switch {
		case l == s.up:
		case l.leaf:
			st.Leaves = append(st.Leaves, l.peer)
		default:
			st.Downs = append(st.Downs, l.peer)
		}
	}
	return st
}
