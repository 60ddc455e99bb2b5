// Package sim runs many newsnet servants in virtual time over in-memory
// links, with crashes, restarts, link cuts and delays drawn from a seeded
// RNG, so that a test can check global invariants exactly and repeatably.
//
// The network is a plain event loop: no goroutines, no real clock. A run is
// fully determined by its seed; a failing test prints the seed to replay it.
package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"time"

	"newsdesk/newsnet"
)

// Epoch is the virtual time at which every network starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Network is a simulated overlay.
type Network struct {
	Seed  uint64
	rng   *rand.Rand
	start time.Time // the virtual time the network started at
	now   time.Time
	seq   uint64

	// Base is the configuration each servant starts from (ID and Rand are
	// filled in per servant).
	Base newsnet.Config
	// Latency is the one-way delay of a frame: MinLatency plus a uniform
	// jitter up to Jitter.
	MinLatency, Jitter time.Duration
	// Bandwidth is what one direction of a link carries, in bytes (as
	// newsnet.SizeOf counts them) per second; zero means unlimited. A
	// frame is written once the frames before it are, and arrives a
	// latency later, so a burst queues as it does on TCP.
	Bandwidth int

	nodes  map[newsnet.ServantID]*Node
	order  []newsnet.ServantID // creation order, for deterministic iteration
	events eventHeap
	pipes  map[pipeEnd]*pipe
	cuts   map[[2]newsnet.ServantID]bool
	delays map[[2]newsnet.ServantID]time.Duration
	// firewalled servants take no inbound connection (see Firewall).
	firewalled map[newsnet.ServantID]bool
	seenFrom   map[newsnet.ServantID]netip.Addr // ConnectFrom
	// frozen servants process nothing until the time given (Freeze),
	// and wire the version a servant speaks at most (SpeakWire).
	frozen map[newsnet.ServantID]time.Time
	wire   map[newsnet.ServantID]uint16

	// Stats counts every frame sent, by message type name.
	Stats    map[string]int
	msgNames map[reflect.Type]string // msgName's
	// attached lists the blobs each item attaches (PublishBlob).
	attached map[[16]byte][]newsnet.BlobRef
	// WireCheck passes every frame through the wire codec, so a message the
	// core builds but the codec cannot carry fails the run.
	WireCheck bool
	// Filter, when set, sees every frame before it is scheduled; returning
	// false drops it (a frame lost with a relay that died mid-write).
	Filter func(from, to newsnet.ServantID, m newsnet.Message) bool
	// Trace, when set, receives every action a servant returns.
	Trace func(at time.Time, id newsnet.ServantID, a newsnet.Action)

	// violations records the invariants broken at the step that broke
	// them (see Violations), the first maxViolations of them.
	violations []string
}

// maxViolations bounds the invariant violations a network records.
const maxViolations = 20

// Node is one simulated servant with its application state.
type Node struct {
	ID      newsnet.ServantID
	Servant *newsnet.Servant
	Alive   bool
	// Subscriptions is what the application asked for; kept across restarts.
	Subscriptions []string
	subsSet       newsnet.CategorySet // Subscriptions as a set (subscribed)
	subsOf        []string            // the Subscriptions subsSet was made of
	// Delivered counts deliveries per message ID.
	Delivered map[[16]byte]int
	// Published records the Links count of each publication.
	Published map[[16]byte]int
	// Seeds is the seed list the servant boots with; kept across restarts.
	Seeds []newsnet.ServantID
	// Order lists the delivered messages per source, in delivery order.
	Order map[string][]uint64
	// Census holds the answers to the census queries it made (Query).
	Census []newsnet.CensusAnswered

	// What a host persists, kept across restarts: the messages it stored
	// (delivered or published), the next count expected per source, and
	// the count of its own last publication.
	Store    Archive
	index    *archiveIndex // Store by source and count (store, catchUp)
	Expected map[string]uint64
	OwnCount uint64
	OwnLast  map[string]uint64
	Lost     uint64
	// Blobs is the host's store of attachments' chunks, and BlobsLost
	// the count of blobs its servant gave up on (blobs.go).
	Blobs     BlobShelf
	BlobsLost uint64
	// reach holds the host's marks of items read, must-read and
	// acknowledged (reach.go).
	reach map[[16]byte]*reachMark

	nextInbound newsnet.LinkID
	incarnation int
	thisRun     map[[16]byte]bool      // delivered since the last boot
	written     map[newsnet.LinkID]int // written at once during a step, reported after it
	publishing  [16]byte               // the message PublishReport steps
	report      newsnet.Published      // the servant's report of it

	// host, for a servant added with AddHosted, is its application, and
	// cfg the configuration it boots with; nil for a simulated host.
	host *Host
	cfg  newsnet.Config
}

// Host is the application of a servant added with AddHosted: it is told
// what the servant reports, as a runtime tells its host (node.Config's
// callbacks of the same names). A nil field ignores those reports. They
// run during the step that made them, so they must not step the network.
type Host struct {
	OnDeliver   func(*newsnet.Multicast)
	OnProgress  func(source string, next uint64)
	OnPublished func(newsnet.Published)
	OnLost      func(newsnet.Lost)
	// OnReach receives the reach of the servant's publications
	// (newsnet.ReachUpdated).
	OnReach func(newsnet.ReachUpdated)
	// OnNote receives the servant's notes (newsnet.Note).
	OnNote func(text string)
	// OnCensus receives the answers to the census queries the
	// application made (newsnet.CensusAnswered).
	OnCensus func(newsnet.CensusAnswered)
	// OnBlob receives the servant's blob actions (StoreBlobHead,
	// StoreBlobChunk, BlobDone, BlobLost): the application keeps the
	// chunks in its store, which its configuration's Blob.Store reads.
	OnBlob func(newsnet.Action)
}

// pipeEnd names one side of a connection: the servant and its link ID.
type pipeEnd struct {
	node newsnet.ServantID
	link newsnet.LinkID
}

// pipe is an in-memory TCP connection. Frames keep their order per direction.
type pipe struct {
	a, b pipeEnd
	// The times below are kept per node, indexed by side: 0 for a's
	// node, 1 for b's (one entry for both when a servant dialed itself).
	lastAt    [2]time.Time // last scheduled arrival toward a node
	blackHole bool         // cut without FIN: frames vanish
	closed    bool
	// Per sending node: when its direction is free to write the next
	// frame, and until when its peer has stopped reading.
	free, stalled [2]time.Time
}

// side is the index of node n's entries in p's per-node times.
func (p *pipe) side(n newsnet.ServantID) int {
	if p.a.node == n {
		return 0
	}
	return 1
}

func (p *pipe) other(n newsnet.ServantID) pipeEnd {
	if p.a.node == n {
		return p.b
	}
	return p.a
}

// New returns an empty network with a fast, valid base configuration,
// starting at Epoch.
func New(seed uint64) *Network { return NewAt(seed, Epoch) }

// NewAt is New starting at the virtual time start: a host whose own clock
// runs alongside (see simnode) starts the network at that clock's time.
func NewAt(seed uint64, start time.Time) *Network {
	base := newsnet.DefaultConfig("")
	return &Network{
		Seed:       seed,
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		start:      start,
		now:        start,
		Base:       base,
		MinLatency: time.Millisecond,
		Jitter:     4 * time.Millisecond,
		nodes:      make(map[newsnet.ServantID]*Node),
		pipes:      make(map[pipeEnd]*pipe),
		cuts:       make(map[[2]newsnet.ServantID]bool),
		delays:     make(map[[2]newsnet.ServantID]time.Duration),
		Stats:      make(map[string]int),
	}
}

// Now is the current virtual time.
func (n *Network) Now() time.Time { return n.now }

// Next is the virtual time at which something is next due: a frame, a link
// event or the next tick. A host that runs the network alongside its own
// clock sleeps until then.
func (n *Network) Next() time.Time {
	tick := n.now.Truncate(n.Base.TickInterval).Add(n.Base.TickInterval)
	if len(n.events) > 0 && n.events[0].at.Before(tick) {
		return n.events[0].at
	}
	return tick
}

// Rand is the network's seeded RNG, for tests that randomize scenarios.
func (n *Network) Rand() *rand.Rand { return n.rng }

// Node returns the servant with this ID, or nil.
func (n *Network) Node(id newsnet.ServantID) *Node { return n.nodes[id] }

// Nodes returns every node in creation order.
func (n *Network) Nodes() []*Node {
	out := make([]*Node, 0, len(n.order))
	for _, id := range n.order {
		out = append(out, n.nodes[id])
	}
	return out
}

// Alive returns the live nodes in creation order.
func (n *Network) Alive() []*Node {
	var out []*Node
	for _, id := range n.order {
		if nd := n.nodes[id]; nd.Alive {
			out = append(out, nd)
		}
	}
	return out
}

// Add creates a servant with the given seed list and subscriptions and
// starts it at the current virtual time.
func (n *Network) Add(id newsnet.ServantID, seeds []newsnet.ServantID, subs ...string) *Node {
	if _, dup := n.nodes[id]; dup {
		panic(fmt.Sprintf("sim: servant %s exists", id))
	}
	nd := &Node{ID: id, Subscriptions: subs, Seeds: seeds, Store: Archive{}, Expected: map[string]uint64{}}
	n.nodes[id] = nd
	n.order = append(n.order, id)
	n.boot(nd)
	return nd
}

// AddHosted creates a servant whose host is an application, as a runtime
// does for it: it boots with cfg as given (cfg.ID names it; a nil
// cfg.Rand is drawn from the network's RNG) and reports to h what it
// delivers, publishes, makes progress on and loses; the application
// persists that itself and passes it back in the cfg of its next start.
// The ID of a servant that stopped or crashed may be used again: the new
// servant replaces it. It returns an error for a configuration newsnet.New
// refuses or an ID that a live servant has.
func (n *Network) AddHosted(cfg newsnet.Config, h Host) (*Node, error) {
	old := n.nodes[cfg.ID]
	if old != nil && old.Alive {
		return nil, fmt.Errorf("sim: servant %s exists", cfg.ID)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(n.rng.Uint64(), n.rng.Uint64()))
	}
	s, err := newsnet.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	nd := &Node{ID: cfg.ID, Subscriptions: cfg.Subscriptions, Seeds: cfg.Seeds, Expected: map[string]uint64{},
		host: &h, cfg: cfg}
	if old != nil {
		// Events still on their way to the old one stay addressed to it,
		// and its link IDs are not handed out again.
		nd.incarnation, nd.nextInbound = old.incarnation, old.nextInbound
	} else {
		n.order = append(n.order, cfg.ID)
	}
	n.nodes[cfg.ID] = nd
	n.launch(nd, s)
	return nd, nil
}

// boot starts a servant afresh: a simulated host's from what it kept, a
// hosted one from its configuration.
func (n *Network) boot(nd *Node) {
	cfg := nd.cfg
	if nd.host == nil {
		cfg = n.Base
		cfg.ID = nd.ID
		cfg.Seeds = nd.Seeds
		cfg.Rand = rand.New(rand.NewPCG(n.rng.Uint64(), n.rng.Uint64()))
		cfg.Archive = nd.Store
		cfg.Expected = maps.Clone(nd.Expected)
		cfg.OwnCount = nd.OwnCount
		cfg.OwnLast = maps.Clone(nd.OwnLast)
		cfg.Lost = nd.Lost
		cfg.Reach = nd.keptReach()
		cfg.Blob.Store = &nd.Blobs
		cfg.Blob.Refs = n.blobRefs
		cfg.Blob.Lost = nd.BlobsLost
	}
	s, err := newsnet.New(cfg)
	if err != nil {
		panic(fmt.Sprintf("sim: %v", err))
	}
	n.launch(nd, s)
}

// launch makes s the servant of nd and starts it at the current time.
func (n *Network) launch(nd *Node, s *newsnet.Servant) {
	nd.Servant = s
	nd.Alive = true
	nd.incarnation++
	nd.thisRun = make(map[[16]byte]bool)
	if nd.Delivered == nil {
		nd.Delivered = make(map[[16]byte]int)
		nd.Published = make(map[[16]byte]int)
		nd.Order = make(map[string][]uint64)
	}
	n.step(nd, newsnet.Tick{Now: n.now})
	if nd.host == nil {
		// A hosted servant has its subscriptions in its configuration.
		n.step(nd, newsnet.SetSubscriptions{Categories: nd.Subscriptions})
	}
	n.step(nd, newsnet.Start{})
}

// Hosted reports whether the servant was added with AddHosted.
func (nd *Node) Hosted() bool { return nd.host != nil }

// Crash kills a servant as a process crash does: the kernel closes its
// sockets, so its neighbours see the links drop after one latency.
func (n *Network) Crash(id newsnet.ServantID) { n.kill(id, false) }

// Vanish kills a servant as a power cut does: no FIN reaches anyone, and
// its neighbours must notice through heartbeats.
func (n *Network) Vanish(id newsnet.ServantID) { n.kill(id, true) }

func (n *Network) kill(id newsnet.ServantID, silent bool) {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return
	}
	nd.Alive = false
	for _, p := range n.pipesOf(id) {
		n.dropPipe(p, id, silent)
	}
}

// Restart boots a crashed servant afresh (its protocol state is lost; its
// subscriptions and seed list are kept). A hosted servant boots with the
// configuration it was added with; its application starts it with AddHosted
// instead, from what it persisted.
func (n *Network) Restart(id newsnet.ServantID) {
	nd := n.nodes[id]
	if nd == nil || nd.Alive {
		return
	}
	n.boot(nd)
}

// Stop shuts a servant down cleanly: it closes its links itself.
func (n *Network) Stop(id newsnet.ServantID) {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return
	}
	n.step(nd, newsnet.Stop{})
	nd.Alive = false
}

// Close shuts a servant down as its runtime's Close does: Stop, then the
// process closes what is still open (connections of dials in flight), so
// the other ends see those drop.
func (n *Network) Close(id newsnet.ServantID) {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return
	}
	n.Stop(id)
	for _, p := range n.pipesOf(id) {
		n.dropPipe(p, id, false)
	}
}

// Cut breaks connectivity between a and b without a FIN: frames on their
// links vanish and new dials between them fail, until Heal.
func (n *Network) Cut(a, b newsnet.ServantID) {
	n.cuts[cutKey(a, b)] = true
	for _, p := range n.pipesOf(a) {
		if p.other(a).node == b {
			p.blackHole = true
		}
	}
}

// Heal restores connectivity between a and b (existing cut links stay dead).
func (n *Network) Heal(a, b newsnet.ServantID) { delete(n.cuts, cutKey(a, b)) }

// HealAll removes every cut and extra delay.
func (n *Network) HealAll() {
	clear(n.cuts)
	clear(n.delays)
}

// Firewall makes id undialable while on, as a laptop whose firewall drops
// inbound connections, or one behind a home router's NAT: a dial to it is
// never answered and fails when the dialer's timeout (the join timeout, as
// node's) runs out. It still dials out, and the links it has stay up.
func (n *Network) Firewall(id newsnet.ServantID, on bool) {
	if n.firewalled == nil {
		n.firewalled = map[newsnet.ServantID]bool{}
	}
	if on {
		n.firewalled[id] = true
	} else {
		delete(n.firewalled, id)
	}
}

// Delay adds extra one-way latency between a and b (a congested or distant
// path); zero removes it.
func (n *Network) Delay(a, b newsnet.ServantID, extra time.Duration) {
	if extra <= 0 {
		delete(n.delays, cutKey(a, b))
		return
	}
	n.delays[cutKey(a, b)] = extra
}

// CutLink closes one tree link between a and b as a broken connection does:
// both ends see it drop.
func (n *Network) CutLink(a, b newsnet.ServantID) {
	for _, p := range n.pipesOf(a) {
		if p.other(a).node == b {
			n.dropPipe(p, "", false)
		}
	}
}

// ConnectFrom makes the connections id opens come from addr rather than
// from the address it advertises: a servant behind a NAT, or one that
// advertises an address it does not use. The zero Addr undoes it.
func (n *Network) ConnectFrom(id newsnet.ServantID, addr netip.Addr) {
	if n.seenFrom == nil {
		n.seenFrom = map[newsnet.ServantID]netip.Addr{}
	}
	if !addr.IsValid() {
		delete(n.seenFrom, id)
		return
	}
	n.seenFrom[id] = addr
}

// seenAddr is the address id's connections come from.
func (n *Network) seenAddr(id newsnet.ServantID) netip.Addr {
	if a, ok := n.seenFrom[id]; ok {
		return a
	}
	ap, err := netip.ParseAddrPort(string(id))
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr()
}

// Inject sends m from servant from to its link peer to, as a modified
// servant would: a frame its core never sent. It reports whether from had
// a link to to.
func (n *Network) Inject(from, to newsnet.ServantID, m newsnet.Message) bool {
	for _, p := range n.pipesOf(from) {
		if end := p.other(from); end.node == to {
			if !p.blackHole {
				n.schedule(n.arrival(p, to), event{kind: evFrame, to: end, msg: m})
			}
			return true
		}
	}
	return false
}

func cutKey(a, b newsnet.ServantID) [2]newsnet.ServantID {
	if a > b {
		a, b = b, a
	}
	return [2]newsnet.ServantID{a, b}
}

func (n *Network) pipesOf(id newsnet.ServantID) []*pipe {
	var out []*pipe
	for end, p := range n.pipes {
		if end.node == id && !p.closed {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(x, y *pipe) int {
		ex, ey := x.a, y.a
		if ex.node != id {
			ex = x.b
		}
		if ey.node != id {
			ey = y.b
		}
		switch {
		case ex.link < ey.link:
			return -1
		case ex.link > ey.link:
			return 1
		}
		return 0
	})
	return out
}

// dropPipe closes p. The ends other than dead see LinkDown after a latency
// unless silent.
func (n *Network) dropPipe(p *pipe, dead newsnet.ServantID, silent bool) {
	p.closed = true
	delete(n.pipes, p.a)
	delete(n.pipes, p.b)
	if silent {
		return
	}
	for _, end := range []pipeEnd{p.a, p.b} {
		if end.node == dead {
			continue
		}
		n.schedule(n.arrival(p, end.node), event{kind: evLinkDown, to: end, reason: "connection reset"})
	}
}

// Publish publishes a message from id and returns its ID.
func (n *Network) Publish(id newsnet.ServantID, category string) [16]byte {
	return n.PublishAt(id, category)
}

// PublishMsg publishes m (its ID, category and payload as given) from id.
func (n *Network) PublishMsg(id newsnet.ServantID, m *newsnet.Multicast) {
	n.PublishReport(id, m)
}

// PublishReport is PublishMsg that returns the servant's report of the
// publication (the zero report for a servant that is not alive).
func (n *Network) PublishReport(id newsnet.ServantID, m *newsnet.Multicast) newsnet.Published {
	nd := n.nodes[id]
	nd.publishing, nd.report = m.ID, newsnet.Published{}
	n.step(nd, newsnet.Publish{Msg: m})
	nd.publishing = [16]byte{}
	report := nd.report
	if nd.Alive && nd.host == nil { // a hosted servant's application stores its own
		stored := *m
		stored.Source, stored.Count = string(id), nd.OwnCount
		nd.store(&stored, n.now)
	}
	return report
}

// PublishAt is Publish; the name reads better where the caller records
// the virtual time of publication.
func (n *Network) PublishAt(id newsnet.ServantID, category string) [16]byte {
	mid := n.ItemID()
	n.PublishMsg(id, &newsnet.Multicast{ID: mid, Category: category})
	return mid
}

// ItemID returns a new item ID as the application makes them: a UUIDv7
// whose time is the virtual now (newsnet.PublishedAt reads it back), with
// random bits from the network's seeded source.
func (n *Network) ItemID() [16]byte {
	var id [16]byte
	ms := uint64(n.now.UnixMilli())
	for i := range 6 {
		id[i] = byte(ms >> (40 - 8*i))
	}
	for i := 6; i < len(id); i++ {
		id[i] = byte(n.rng.Uint32())
	}
	id[6] = id[6]&0x0f | 0x70 // version 7
	id[8] = id[8]&0x3f | 0x80 // the RFC 9562 variant
	return id
}

// Subscribe changes a node's subscriptions live.
func (n *Network) Subscribe(id newsnet.ServantID, cats ...string) {
	nd := n.nodes[id]
	nd.Subscriptions = cats
	if nd.Alive {
		n.step(nd, newsnet.SetSubscriptions{Categories: cats})
	}
}

// SetSeeds changes a node's seed list live (newsnet.SetSeeds); a restart
// boots with it too.
func (n *Network) SetSeeds(id newsnet.ServantID, seeds ...newsnet.ServantID) {
	nd := n.nodes[id]
	nd.Seeds = slices.Clone(seeds)
	nd.cfg.Seeds = nd.Seeds
	if nd.Alive {
		n.step(nd, newsnet.SetSeeds{Seeds: slices.Clone(seeds)})
	}
}

// RunFor processes events for d of virtual time, ticking every servant every
// Base.TickInterval.
func (n *Network) RunFor(d time.Duration) {
	n.runUntil(n.now.Add(d), nil)
}

// RunUntil runs until cond holds (checked after every tick) or max elapses;
// it reports whether cond held.
func (n *Network) RunUntil(max time.Duration, cond func() bool) bool {
	return n.runUntil(n.now.Add(max), cond)
}

func (n *Network) runUntil(end time.Time, cond func() bool) bool {
	tick := n.Base.TickInterval
	nextTick := n.now.Truncate(tick).Add(tick)
	for {
		if cond != nil && cond() {
			return true
		}
		if nextTick.After(end) {
			n.drainUntil(end)
			n.now = end
			return cond != nil && cond()
		}
		n.drainUntil(nextTick)
		n.now = nextTick
		for _, id := range n.order {
			if nd := n.nodes[id]; nd.Alive && !n.isFrozen(id) {
				n.step(nd, newsnet.Tick{Now: n.now})
			}
		}
		nextTick = nextTick.Add(tick)
	}
}

// drainUntil processes queued events due at or before t.
func (n *Network) drainUntil(t time.Time) {
	for len(n.events) > 0 && !n.events[0].at.After(t) {
		ev := n.events.pop()
		n.now = ev.at
		n.dispatch(ev)
	}
}

func (n *Network) latency() time.Duration {
	d := n.MinLatency
	if n.Jitter > 0 {
		d += time.Duration(n.rng.Int64N(int64(n.Jitter)))
	}
	return d
}

// transmit returns when a frame of size bytes that from sends on p now is
// written: after the frames before it, after a stall of the reader, and
// after its own time on the wire when Bandwidth is set.
func (n *Network) transmit(p *pipe, from newsnet.ServantID, size int) time.Time {
	start := n.now
	i := p.side(from)
	if f := p.free[i]; f.After(start) {
		start = f
	}
	if st := p.stalled[i]; st.After(start) {
		start = st
	}
	if n.Bandwidth > 0 {
		start = start.Add(time.Duration(size) * time.Second / time.Duration(n.Bandwidth))
	}
	if start.After(n.now) {
		p.free[i] = start
	}
	return start
}

// Stall makes to stop reading what from sends it for d, as a peer whose
// application hangs does: frames from from to to wait, and from's host
// reports none of them written meanwhile.
func (n *Network) Stall(from, to newsnet.ServantID, d time.Duration) {
	for _, p := range n.pipesOf(from) {
		if p.other(from).node == to {
			p.stalled[p.side(from)] = n.now.Add(d)
		}
	}
}

// arrival is when a frame sent now on p reaches node to, never earlier than
// the frame sent before it: TCP keeps order.
func (n *Network) arrival(p *pipe, to newsnet.ServantID) time.Time {
	return n.arrivalAfter(p, to, n.now)
}

// arrivalAfter is arrival for a frame written at the time written.
func (n *Network) arrivalAfter(p *pipe, to newsnet.ServantID, written time.Time) time.Time {
	at := written.Add(n.latency() + n.delays[cutKey(p.a.node, p.b.node)])
	i := p.side(to)
	if last := p.lastAt[i]; !at.After(last) {
		at = last.Add(time.Nanosecond)
	}
	p.lastAt[i] = at
	return at
}

func (n *Network) schedule(at time.Time, ev event) {
	if nd := n.nodes[ev.to.node]; nd != nil {
		ev.incarnation = nd.incarnation
	}
	n.seq++
	ev.at, ev.ns, ev.seq = at, at.UnixNano(), n.seq
	n.events.push(ev)
}

// step feeds one event to a live servant and carries out its actions.
func (n *Network) step(nd *Node, ev newsnet.Event) {
	if !nd.Alive {
		return
	}
	for _, a := range nd.Servant.Step(ev) {
		if n.Trace != nil {
			n.Trace(n.now, nd.ID, a)
		}
		n.act(nd, a)
	}
	// Frames that went out at once are reported written after the step,
	// as a host's writer reports them after a flush.
	for len(nd.written) > 0 && nd.Alive {
		links := slices.Sorted(maps.Keys(nd.written))
		w := nd.written
		nd.written = nil
		for _, l := range links {
			n.step(nd, newsnet.Written{Link: l, Bytes: w[l]})
		}
	}
}

func (n *Network) act(nd *Node, a newsnet.Action) {
	switch a := a.(type) {
	case newsnet.Dial:
		n.dial(nd, a)
	case newsnet.Send:
		n.Stats[n.msgName(a.Msg)]++
		p := n.pipes[pipeEnd{nd.ID, a.Link}]
		if p == nil {
			return
		}
		size := newsnet.SizeOf(a.Msg)
		done := n.transmit(p, nd.ID, size)
		if done.Equal(n.now) {
			if nd.written == nil {
				nd.written = map[newsnet.LinkID]int{}
			}
			nd.written[a.Link] += size
		} else {
			n.schedule(done, event{kind: evWritten, to: pipeEnd{nd.ID, a.Link}, bytes: size})
		}
		if p.blackHole {
			return
		}
		msg := a.Msg
		if n.WireCheck {
			msg = roundTrip(msg)
		}
		to := p.other(nd.ID)
		if n.Filter != nil && !n.Filter(nd.ID, to.node, a.Msg) {
			return
		}
		n.schedule(n.arrivalAfter(p, to.node, done), event{kind: evFrame, to: to, msg: msg})
	case newsnet.Close:
		p := n.pipes[pipeEnd{nd.ID, a.Link}]
		if p == nil {
			return
		}
		// The peer sees the FIN after the frames queued before it.
		p.closed = true
		delete(n.pipes, p.a)
		delete(n.pipes, p.b)
		if !p.blackHole {
			to := p.other(nd.ID)
			n.schedule(n.arrival(p, to.node), event{kind: evLinkDown, to: to, reason: "closed by peer: " + a.Reason})
		}
	case newsnet.Deliver:
		n.checkDeliver(nd, a.Msg)
		nd.Delivered[a.Msg.ID]++
		nd.Order[a.Msg.Source] = append(nd.Order[a.Msg.Source], a.Msg.Count)
		if nd.host == nil {
			nd.store(a.Msg, n.now)
		}
	case newsnet.Published:
		nd.Published[a.ID] = a.Links
		if a.ID == nd.publishing {
			nd.report = a
		}
		nd.OwnCount = max(nd.OwnCount, a.Count)
		if a.Count > 0 {
			if nd.OwnLast == nil {
				nd.OwnLast = map[string]uint64{}
			}
			nd.OwnLast[a.Category] = max(nd.OwnLast[a.Category], a.Count)
		}
	case newsnet.Progress:
		nd.Expected[a.Source] = a.Next
	case newsnet.ReadPage:
		// Read at once, answered as the next event: a host reads off its
		// loop, and the servant steps on meanwhile.
		var msgs []*newsnet.Multicast
		if nd.host == nil {
			msgs = nd.catchUp(a.Categories, a.Known, a.Since, a.Limit)
		} else if arch := nd.archive(); arch != nil {
			msgs = arch.CatchUp(a.Categories, a.Known, a.Since, a.Limit)
		}
		n.schedule(n.now, event{kind: evPageRead, to: pipeEnd{nd.ID, 0}, req: a.Req, msgs: msgs})
	case newsnet.Lost:
		nd.Lost = a.Total
	case newsnet.CensusAnswered:
		nd.Census = append(nd.Census, a)
	case newsnet.StoreBlobHead, newsnet.StoreBlobChunk, newsnet.BlobLost:
		if nd.host == nil {
			nd.storeBlob(a)
		}
	case newsnet.Note:
	}
	if nd.host != nil {
		nd.host.report(a)
	}
}

// report tells the application what its servant reported.
func (h *Host) report(a newsnet.Action) {
	switch a := a.(type) {
	case newsnet.Deliver:
		if h.OnDeliver != nil {
			h.OnDeliver(a.Msg)
		}
	case newsnet.Published:
		if h.OnPublished != nil {
			h.OnPublished(a)
		}
	case newsnet.Progress:
		if h.OnProgress != nil {
			h.OnProgress(a.Source, a.Next)
		}
	case newsnet.Lost:
		if h.OnLost != nil {
			h.OnLost(a)
		}
	case newsnet.ReachUpdated:
		if h.OnReach != nil {
			h.OnReach(a)
		}
	case newsnet.Note:
		if h.OnNote != nil {
			h.OnNote(a.Text)
		}
	case newsnet.CensusAnswered:
		if h.OnCensus != nil {
			h.OnCensus(a)
		}
	case newsnet.StoreBlobHead, newsnet.StoreBlobChunk, newsnet.BlobDone, newsnet.BlobLost, newsnet.BlobProgress:
		if h.OnBlob != nil {
			h.OnBlob(a)
		}
	}
}

// archive is the store nd's servant answers from.
func (nd *Node) archive() newsnet.Archive {
	if nd.host != nil {
		return nd.cfg.Archive
	}
	return nd.Store
}

func (n *Network) dial(nd *Node, d newsnet.Dial) {
	from := pipeEnd{nd.ID, d.Link}
	target := n.nodes[d.Addr]
	if n.firewalled[d.Addr] || n.isFrozen(d.Addr) {
		// (A frozen process's kernel takes the connection, but nobody
		// answers the hello: the dial fails the same way.)
		// The SYN is dropped: the dial fails when the host's dial timeout
		// (the one the core gave, else the join timeout, as in node) runs
		// out.
		n.schedule(n.now.Add(cmp.Or(d.Within, n.Base.JoinTimeout)), event{kind: evLinkDown, to: from, reason: "connection timed out"})
		return
	}
	if target == nil || !target.Alive || n.cuts[cutKey(nd.ID, d.Addr)] {
		n.schedule(n.now.Add(n.latency()), event{kind: evLinkDown, to: from, reason: "connection refused"})
		return
	}
	target.nextInbound++
	to := pipeEnd{target.ID, target.nextInbound}
	p := &pipe{a: from, b: to}
	n.pipes[from] = p
	n.pipes[to] = p
	// The listener accepts after one latency, the dialer learns of it after
	// the handshake's round trip.
	n.schedule(n.arrival(p, to.node), event{kind: evLinkUp, to: to, inbound: true})
	at := n.now.Add(n.latency() + n.latency())
	p.lastAt[p.side(from.node)] = at
	n.schedule(at, event{kind: evLinkUp, to: from})
}

func (n *Network) dispatch(ev event) {
	nd := n.nodes[ev.to.node]
	if nd == nil || !nd.Alive || ev.incarnation != nd.incarnation {
		return // addressed to a servant that died (and maybe restarted) since
	}
	if until, ok := n.frozen[nd.ID]; ok && n.now.Before(until) {
		// Held for the frozen servant, in order, until it thaws.
		n.schedule(until, ev)
		return
	}
	switch ev.kind {
	case evLinkUp:
		if n.pipes[ev.to] == nil {
			// Closed during the handshake; the dialer hears the refusal.
			if !ev.inbound {
				n.step(nd, newsnet.LinkDown{Link: ev.to.link, Reason: "connection lost during handshake"})
			}
			return
		}
		up := newsnet.LinkUp{Link: ev.to.link, Inbound: ev.inbound}
		if p := n.pipes[ev.to]; p != nil {
			peer := p.other(nd.ID).node
			if ev.inbound {
				up.Remote = n.seenAddr(peer)
			}
			if o := n.nodes[peer]; o != nil {
				up.Release = o.cfg.Release // what the peer's hello would say
			}
			up.Version = n.linkVersion(nd.ID, peer)
		}
		n.step(nd, up)
	case evLinkDown:
		n.step(nd, newsnet.LinkDown{Link: ev.to.link, Reason: ev.reason})
	case evFrame:
		n.step(nd, newsnet.Received{Link: ev.to.link, Msg: ev.msg})
	case evWritten:
		n.step(nd, newsnet.Written{Link: ev.to.link, Bytes: ev.bytes})
	case evPageRead:
		n.step(nd, newsnet.PageRead{Req: ev.req, Msgs: ev.msgs})
	}
}

func roundTrip(m newsnet.Message) newsnet.Message {
	b, err := newsnet.EncodeMessage(m)
	if err != nil {
		panic(fmt.Sprintf("sim: core sent a message the wire cannot carry: %T %+v: %v", m, m, err))
	}
	out, err := newsnet.DecodeMessage(b)
	if err != nil {
		panic(fmt.Sprintf("sim: wire cannot decode its own %T: %v", m, err))
	}
	return out
}

// msgName is the name Stats counts m's frames under: its type's, without
// the package. The names are kept per type, not formatted per frame.
func (n *Network) msgName(m newsnet.Message) string {
	t := reflect.TypeOf(m)
	name, ok := n.msgNames[t]
	if !ok {
		name = fmt.Sprintf("%T", m)[len("*newsnet."):]
		if n.msgNames == nil {
			n.msgNames = map[reflect.Type]string{}
		}
		n.msgNames[t] = name
	}
	return name
}

type eventKind int

const (
	evLinkUp eventKind = iota
	evLinkDown
	evFrame
	evWritten
	evPageRead
)

type event struct {
	at          time.Time
	ns          int64 // at, as the heap compares it
	seq         uint64
	kind        eventKind
	to          pipeEnd
	inbound     bool
	incarnation int
	msg         newsnet.Message
	reason      string
	bytes       int
	req         uint64               // evPageRead
	msgs        []*newsnet.Multicast // evPageRead
}

// eventHeap is a binary min-heap of events by time, then sequence: the
// order is total (sequence numbers are unique), so the events come out in
// one order whatever the heap's shape. It holds events by value and sifts
// by moving them into a hole, so neither push nor pop allocates (as
// container/heap, boxing each event in an interface, did).
type eventHeap []event

func (ev *event) before(o *event) bool {
	if ev.ns != o.ns {
		return ev.ns < o.ns
	}
	return ev.seq < o.seq
}

func (h *eventHeap) push(ev event) {
	*h = append(*h, event{})
	q := *h
	i := len(q) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !ev.before(&q[parent]) {
			break
		}
		q[i] = q[parent]
		i = parent
	}
	q[i] = ev
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	last := len(q) - 1
	ev := q[last]
	q[last] = event{} // let the collector have its frame
	q = q[:last]
	*h = q
	if last == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= last {
			break
		}
		if r := c + 1; r < last && q[r].before(&q[c]) {
			c = r
		}
		if !q[c].before(&ev) {
			break
		}
		q[i] = q[c]
		i = c
	}
	q[i] = ev
	return top
}

// Peer returns the servant at the other end of link on id, or "" when the
// link is not open. Traces use it to name the hops of a message.
func (n *Network) Peer(id newsnet.ServantID, link newsnet.LinkID) newsnet.ServantID {
	if p := n.pipes[pipeEnd{id, link}]; p != nil {
		return p.other(id).node
	}
	return ""
}

// QueryCensus has servant id ask for the census of target's subtree; the
// answer lands in the node's Census.
// FetchBlob asks servant id to get a blob whole (newsnet.FetchBlob);
// false when it is not alive.
func (n *Network) FetchBlob(id newsnet.ServantID, ref newsnet.BlobRef, source string) bool {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return false
	}
	n.step(nd, newsnet.FetchBlob{Ref: ref, Source: source})
	return true
}

func (n *Network) QueryCensus(id, target newsnet.ServantID, queryID uint64) bool {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return false
	}
	n.step(nd, newsnet.QueryCensus{ID: queryID, Target: target})
	return true
}
