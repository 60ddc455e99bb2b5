package newsnet

// The tree's messages (JP4353827B2): joining, siblings, partitions,
// resets and heartbeats, and the dial-backs that measure reachability
// (dialback.go, leaf.go), each with its codec.

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

// Ping keeps an otherwise idle link alive so a vanished peer is noticed.
type Ping struct{}

func (m *JoinRequest) marshal(e *encoder) {
	e.id("from", m.From)
	e.reach(m.Reach)
	e.idsUpTo("avoid", m.Avoid, MaxAvoid)
	e.idsUpTo("full", m.Full, MaxAvoid)
}

func (m *JoinRequest) unmarshal(d *decoder) {
	m.From = d.id("from")
	m.Reach = d.reach("reach")
	m.Avoid = d.idsUpTo("avoid", MaxAvoid)
	m.Full = d.idsUpTo("full", MaxAvoid)
}

func (m *JoinAccept) marshal(e *encoder) {
	e.uvarint(m.Lo)
	e.uvarint(m.Hi)
	e.ids("path", m.Path)
	e.flag(m.Leaf)
}

func (m *JoinAccept) unmarshal(d *decoder) {
	m.Lo = d.uvarint("lo")
	m.Hi = d.uvarint("hi")
	m.Path = d.ids("path")
	m.Leaf = d.flag("leaf")
}

func (m *JoinRedirect) marshal(e *encoder) {
	e.id("to", m.To)
	e.flag(m.Full)
}

func (m *JoinRedirect) unmarshal(d *decoder) {
	m.To = d.id("to")
	m.Full = d.flag("full")
}

func (m *DialBack) marshal(e *encoder) { e.uvarint(m.Nonce) }

func (m *DialBack) unmarshal(d *decoder) { m.Nonce = d.uvarint("nonce") }

func (m *DialBackReply) marshal(e *encoder) {
	e.uvarint(m.Nonce)
	e.id("from", m.From)
}

func (m *DialBackReply) unmarshal(d *decoder) {
	m.Nonce = d.uvarint("nonce")
	m.From = d.id("from")
}

func (m *Reachability) marshal(e *encoder) {
	e.id("addr", m.Addr)
	e.flag(m.Reachable)
	e.flag(m.Leaf)
}

func (m *Reachability) unmarshal(d *decoder) {
	m.Addr = d.id("addr")
	m.Reachable = d.flag("reachable")
	m.Leaf = d.flag("leaf")
}

func (m *JoinRefuse) marshal(e *encoder) { e.string("reason", m.Reason, MaxReasonBytes) }

func (m *JoinRefuse) unmarshal(d *decoder) { m.Reason = d.string("reason", MaxReasonBytes) }

func (m *Siblings) marshal(e *encoder) { e.ids("ids", m.IDs) }

func (m *Siblings) unmarshal(d *decoder) { m.IDs = d.ids("ids") }

func (m *PartitionInfo) marshal(e *encoder) {
	e.uvarint(m.Lo)
	e.uvarint(m.Hi)
	e.ids("path", m.Path)
}

func (m *PartitionInfo) unmarshal(d *decoder) {
	m.Lo = d.uvarint("lo")
	m.Hi = d.uvarint("hi")
	m.Path = d.ids("path")
}

func (*Reset) marshal(*encoder) {}

func (*Reset) unmarshal(*decoder) {}

func (*Ping) marshal(e *encoder) { marshalPingNext(e) }

func (*Ping) unmarshal(d *decoder) { unmarshalPingNext(d) }
