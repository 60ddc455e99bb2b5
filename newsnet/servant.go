package newsnet

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"time"
)

// Servant is the protocol core of one overlay node: a deterministic state
// machine. The host feeds it events through Step and carries out the actions
// it returns; the servant itself does no IO, starts no goroutines, reads no
// clock and draws randomness only from Config.Rand. It is not safe for
// concurrent use: one goroutine (the runtime loop, or the simulator) owns it.
type Servant struct {
	cfg   Config
	id    ServantID
	value uint64
	now   time.Time

	started, stopped bool

	// Tree state (JP4353827B2).
	vertex   bool    // no uplink and no seed before us answers: the root
	up       *link   // nil when not attached
	downs    []*link // ordered by slot
	links    map[LinkID]*link
	vmin     uint64 // subtree range [vmin, vmax], own value included
	vmax     uint64
	part     Partition   // computed from [vmin, vmax]
	rootPath []ServantID // from the vertex down to our up-servant
	siblings []ServantID // our up-servant's downs, as it last told us
	// leaf: we hang below our up-servant without a slot, because it
	// could not dial us back (leaf.go).
	leaf      bool
	dialback  dialBackState  // dialback.go
	opinion   opinionState   // opinion.go
	netCensus netCensusState // netcensus.go

	// Catch-up pages being read by the host (pages.go), and the conduct
	// of peers that exceeded their budgets (conduct.go).
	pages   map[uint64]pageRequest
	pageSeq uint64
	conduct conductState

	// connector is the join search (connector.go): the targets still to
	// try, the attempt under way, the redirects followed.
	connector connector
	aliases   map[ServantID]bool // other spellings of our ID in the seed list

	lastRootHeard time.Time // last partition message (or accept) from above
	lastSeedRoot  time.Time // last one that came from an earlier seed (seeds only)
	nextPartition time.Time // when an unattached servant next sends its partition
	nextProbe     time.Time // when a vertex that is not the first seed probes

	// Multicast routing (JP4353827B2 Figs. 7-9).
	self CategorySet
	seen seenSet

	// Ordered delivery and retransmission (JP3679935B2).
	sources    map[string]*sourceState
	genuine    map[string]bool     // sources with an item that passed verification here
	progressed map[string]bool     // sources whose next count moved this step
	known      map[uint32][]string // short ID -> categories seen
	cache      relayCache
	edges      map[edgeKey]*LatestHeader // the latest header per source and category (edge.go)
	ownCount   uint64
	own        ownHistory
	chains     Chains       // the Lasts of our next publication (ownchain.go)
	outbox     []*Multicast // publications waiting for the tree
	// firstAttached is when we first attached in this run: items
	// published since are owed to us (owed.go).
	firstAttached time.Time
	catchUp       catchUps // catch-up (catchup.go)

	arrivals uint64 // stamps of the links' reverse-path lists (reverse.go)

	direct directLinks   // direct delivery (direct.go)
	reach  reachReports  // reach reports (reach.go)
	aud    audienceState // audiences (audience.go)

	nextDial LinkID
	out      []Action
	counters Counters
	rejected map[string]uint64 // multicast messages dropped by Config.Verify, per reason
	noted    map[string]bool   // peer + reason already noted
}

// Counters are monotonic totals since the servant started.
type Counters struct {
	Published  uint64 // Publish events
	Suppressed uint64 // publications sent on no link: nobody subscribed
	Delivered  uint64 // messages handed to the local application
	Relayed    uint64 // multicast frames forwarded to other servants
	Duplicates uint64 // copies dropped by ID
	Resets     uint64 // tree optimization resets this servant sent
	Lost       uint64 // needed messages no holder could retransmit (Config.Lost included)

	// Flow control: items withheld from a busy link (sent later from the
	// cache or store), and those of them dropped for good (the backlog was
	// full or the item was gone; the link got the source's edge instead).
	Withheld, BacklogDropped uint64

	// Gap classification (JP3679935B2): missed counts found needed, found
	// not needed (skipped without a request), and the counts asked for in
	// retransmission requests (messages, and categories only; retries
	// included).
	GapNeeded, GapSkipped       uint64
	AskedMessages, AskedClasses uint64
	// AskedOwed counts the probes (retries included) that looked for the
	// first count of a newly met source owed to us (owed.go).
	AskedOwed uint64

	// Frames sent, by kind: multicast payload; periodic upkeep (pings,
	// partition messages); control (joins, siblings, resets, routing
	// information), which is what tree changes cost; and recovery
	// (retransmission requests and answers, catch-up).
	MulticastFrames, PeriodicFrames, ControlFrames, RecoveryFrames uint64
	// EdgeFrames are leading edges sent (edge.go): after link changes and
	// for items a busy link could not be sent.
	EdgeFrames uint64

	// Direct delivery (direct.go): our items sent over direct links, items
	// that arrived over one first, refusals our requests met, and the
	// frames that set direct links up and keep the exceptions (requests,
	// answers, hellos, covers).
	DirectSent, DirectReceived, DirectRefused, DirectFrames uint64

	// ReportFrames are reach reports sent (reach.go).
	ReportFrames uint64

	// Requests within budget (requests.go, pages.go): requests that had to
	// wait for their link's answers to drain, those refused beyond the
	// waiting bounds, and catch-up pages read off the loop.
	RequestsWaited, RequestsRefused, PagesRead uint64
	// Reach reports within budget (reach_budget.go): reports and report
	// entries refused beyond their rate, and entries whose identity lists
	// were dropped beyond the link's bytes.
	ReportsRefused, ReachListsDropped uint64
	// ReachBlobsRefused: identity and acknowledgement blobs in reports
	// that did not verify (Config.VerifyReachBlob).
	ReachBlobsRefused uint64
	// EdgesRefused: edges of new sources beyond a link's allowance.
	EdgesRefused uint64
	// Forged: items rejected for a reason in Config.ForgedReasons.
	Forged uint64
	// Opinions: second opinions asked of seeds; SilentUps: up-servants
	// left because they passed on nothing of a stream a seed knew had
	// moved on (opinion.go).
	Opinions, SilentUps uint64
	// AudienceWithheld: answers not sent to a leaf that advertises an
	// address inside the item's audience while it connects from outside.
	AudienceWithheld uint64

	// TooNew counts frames not sent because the link runs at a wire
	// version older than the frame (newer).
	TooNew uint64
}

// newer is a message that exists from a wire version on: it is never sent
// on a link running at an older one.
type newer interface {
	since() uint16
}

type linkKind int

const (
	linkJoining       linkKind = iota // outbound, join request sent, awaiting answer
	linkAccepted                      // inbound, awaiting join request
	linkUp                            // established uplink
	linkDown                          // established downlink
	linkDirectDialing                 // outbound direct link, dialed (direct.go)
	linkDirect                        // established direct link: not a tree link
	linkOpinion                       // outbound, asking a seed for a second opinion (opinion.go)
	linkDialBack                      // outbound, dialing a servant back (dialback.go)
)

type link struct {
	id    LinkID
	kind  linkKind
	peer  ServantID // known for outbound links and after a join request
	value uint64    // IDValue(peer)
	slot  int       // for downlinks: leafSlot for a leaf
	leaf  bool      // a downlink to a leaf (leaf.go)
	// probeAt: when we next dial the peer of this downlink back;
	// reportedAt: when we last did so because a joiner could not dial it;
	// avoid: the joiner's Avoid list, not a place for it until avoidUntil
	// (leaf.go).
	probeAt, reportedAt time.Time
	avoid               []ServantID
	avoidUntil          time.Time
	reach               Reach // what our last dial-back to the peer found
	// version is the link's wire version, release the peer's release.
	version uint16
	release string
	// remote: the peer's address as its inbound connection showed it
	// (LinkUp.Remote), invalid when the host did not say.
	remote   netip.Addr
	received CategorySet
	sent     CategorySet
	// infoSent and infoKnown: routing information went out on this link at
	// least once / came in at least once. Until the peer's has arrived we do
	// not know what lies beyond, so publications and the outbox are sent
	// there rather than wrongly suppressed.
	infoSent, infoKnown bool
	opened              time.Time
	idleAt              time.Time // last Ping received: nothing else was queued toward us
	lastRecv            time.Time
	lastSend            time.Time

	// Flow control (flow.go): bytes sent and not yet reported written,
	// when the host last reported progress (or the queue became
	// non-empty), what is withheld while the link is busy (keys counts
	// the items among it), and the streams whose edge it is owed.
	inflight     int
	progressAt   time.Time
	backlog      []withheld
	keys         int
	backlogBytes int // the frames and keyed answers among backlog (withheld.size)
	edgesOwed    map[edgeKey]bool

	// Requests from the peer that wait for the link's answers to drain,
	// and whether a catch-up page for it is being read (requests.go).
	parked      []parkedRequest
	parkedBytes int
	paging      bool
	requests    requestBucket
	// The sources the peer's edges may still introduce (requests.go).
	newSources allowance

	// sources is the link's reverse-path list (reverse.go): the sources
	// whose traffic arrived over it, with when it last did.
	sources map[string]arrivalStamps
	// except holds a tree link's exceptions per source, and direct a
	// direct link's state (direct.go).
	except exceptions
	direct *directLink
}

// New returns a servant for cfg. It does nothing until the host sends Tick
// and Start.
func New(cfg Config) (*Servant, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("newsnet config: %w", err)
	}
	cfg.Seeds = slices.Clone(cfg.Seeds)
	if cfg.Source == "" {
		cfg.Source = string(cfg.ID)
	}
	v := IDValue(cfg.ID)
	s := &Servant{
		cfg:        cfg,
		id:         cfg.ID,
		value:      v,
		links:      make(map[LinkID]*link),
		vmin:       v,
		vmax:       v,
		seen:       newSeenSet(cfg.SeenWindow),
		sources:    map[string]*sourceState{},
		progressed: map[string]bool{},
		known:      map[uint32][]string{},
		cache:      relayCache{limit: cfg.RelayCache, limitBytes: cfg.RelayCacheBytes},
		ownCount:   cfg.OwnCount,
		own:        ownHistory{limit: cfg.HistoryWindow},
	}
	s.part = PartitionFor(v, v, cfg.Fanout)
	s.direct = newDirectLinks(newDirectConfig(&s.cfg, s.id), &s.counters)
	s.reach = newReachReports(&s.cfg, &s.counters)
	s.catchUp = newCatchUps(&s.cfg)
	s.aud.addr = advertisedAddr(cfg.ID)
	for _, c := range cfg.KnownCategories {
		s.learnCategory(c)
	}
	for _, c := range cfg.Subscriptions {
		if ValidCategory(c) == nil {
			s.self = s.self.With(c)
			s.learnCategory(c)
		}
	}
	s.restoreOwnHistory()
	s.restoreOwnChains()
	s.counters.Lost = cfg.Lost
	for _, m := range cfg.Outbox {
		q := *m
		q.Source = cfg.Source
		s.outbox = append(s.outbox, &q)
		s.ownCount = max(s.ownCount, q.Count)
		s.cache.add(&q)
		s.noteEdge(&q)
	}
	s.reach.restore(s)
	return s, nil
}

// ID returns the servant's ID.
func (s *Servant) ID() ServantID { return s.id }

// Step applies one event and returns the actions the host must carry out, in
// order. The returned slice is owned by the caller.
func (s *Servant) Step(ev Event) []Action {
	if s.stopped {
		return nil
	}
	switch e := ev.(type) {
	case Tick:
		if e.Now.After(s.now) {
			s.now = e.Now
		}
		if s.started {
			s.tick()
		}
	case Start:
		if !s.started {
			s.started = true
			s.start()
		}
	case Stop:
		s.stop()
	case LinkUp:
		s.linkUp(e)
	case LinkDown:
		if l := s.links[e.Link]; l != nil {
			s.linkLost(l, e.Reason)
		}
	case Received:
		if l := s.links[e.Link]; l != nil {
			l.lastRecv = s.now
			s.receive(l, e.Msg)
		}
	case Subscribe:
		if s.checkCategory(e.Category) {
			s.setSelf(s.self.With(e.Category))
		}
	case Unsubscribe:
		s.setSelf(s.self.Without(e.Category))
	case SetSubscriptions:
		s.setSelf(NewCategorySet(slices.DeleteFunc(slices.Clone(e.Categories), func(c string) bool {
			return !s.checkCategory(c)
		})...))
	case SetSeeds:
		s.setSeeds(e.Seeds)
	case Written:
		if l := s.links[e.Link]; l != nil {
			s.written(l, e.Bytes)
		}
	case reachEvent:
		s.reach.event(s, e)
	case PageRead:
		s.pageRead(e)
	case Publish:
		if s.checkCategory(e.Msg.Category) {
			s.publish(e.Msg)
		} else {
			s.out = append(s.out, Published{ID: e.Msg.ID})
		}
	default:
		panic(fmt.Sprintf("newsnet: unknown event %T", ev))
	}
	if reconcilesDirect(ev) {
		s.direct.reconcile(s)
	}
	s.flushProgress()
	s.reach.noteActions(s, s.out)
	s.out = s.reach.flush(s.out)
	out := s.out
	s.out = nil
	return out
}

func (s *Servant) start() {
	s.lastRootHeard = s.now
	s.nextPartition = s.now
	if len(s.seedTargets()) == 0 {
		s.becomeVertex()
		return
	}
	s.startConnector(nil)
}

func (s *Servant) stop() {
	for _, l := range s.sortedLinks() {
		s.closeLink(l, "servant stopping")
	}
	s.up, s.downs = nil, nil
	s.stopped = true
}

// becomeVertex makes this servant the root of the tree: no seed before it
// answered (or it is the first seed). Every role field is set here.
func (s *Servant) becomeVertex() {
	if s.up != nil {
		panic("newsnet: becomeVertex while attached")
	}
	if !s.vertex {
		s.note("vertex: no seed before %s answered", s.id)
	}
	s.vertex = true
	if s.firstAttached.IsZero() {
		s.firstAttached = s.now
	}
	s.catchUp.becameVertex(s)
	s.rootPath = nil
	s.siblings = nil
	s.connector.stop()
	s.nextPartition = s.now
	s.nextProbe = s.now.Add(s.cfg.SeedProbeInterval)
	s.flushOutbox() // the vertex is the tree
}

// becomeAttached makes l our uplink after a join accept.
func (s *Servant) becomeAttached(l *link, acc *JoinAccept) {
	if s.up != nil {
		panic("newsnet: becomeAttached while attached")
	}
	s.connector.stop()
	s.vertex = false
	l.kind = linkUp
	s.up = l
	if acc.Leaf {
		s.becomeLeaf() // a subtree kept from before goes up
	} else {
		s.leaf = false
	}
	if s.firstAttached.IsZero() {
		s.firstAttached = s.now
	}
	s.siblings = nil
	s.lastRootHeard = s.now
	s.lastSeedRoot = s.now
	if s.leaf {
		s.note("attached under %s as a leaf", l.peer)
	} else {
		s.note("attached under %s", l.peer)
	}
	s.routeInfo(l) // new link
	s.optimize(Partition{Lo: acc.Lo, Hi: acc.Hi}, acc.Path)
	if s.up == l { // optimize may have found a cycle and left again
		s.flushOutbox()
		s.catchUp.attached(s)
	}
}

// becomeDetached drops the uplink (already closed or lost) and its routing
// state. The caller then starts connector processing.
func (s *Servant) becomeDetached() {
	up := s.up
	s.up = nil
	s.leaf = false
	// What was in flight toward us when the link failed may be lost: catch
	// up from when the uplink was last idle (a Ping comes only over a link
	// with nothing else to send), or from when it came up, less the time an
	// item may spend on its way to our up-servant.
	horizon := up.opened
	if up.idleAt.After(horizon) {
		horizon = up.idleAt
	}
	s.catchUp.detached(horizon.Add(-s.cfg.LinkTimeout))
	s.rootPath = nil
	s.nextPartition = s.now
	delete(s.links, up.id)
	s.routeInfoAllExcept(nil) // lost link: its received set no longer counts
}

// checkCategory reports whether c can be a multicast ID, noting why not.
// Hosts validate categories first; this keeps a bad one from making every
// routing frame of the servant unencodable.
func (s *Servant) checkCategory(c string) bool {
	if err := ValidCategory(c); err != nil {
		s.note("ignored: %v", err)
		return false
	}
	return true
}

// clock is the time of the current step (for the sub-machines).
func (s *Servant) clock() time.Time { return s.now }

// holds reports whether l is still one of our links.
func (s *Servant) holds(l *link) bool { return s.links[l.id] == l }

// subscriptions are our own subscriptions (the self set).
func (s *Servant) subscriptions() CategorySet { return s.self }

// note records a protocol decision for the host's log.
func (s *Servant) note(format string, args ...any) {
	s.out = append(s.out, Note{Text: fmt.Sprintf(format, args...)})
}

func (s *Servant) send(l *link, m Message) {
	if n, ok := m.(newer); ok && n.since() > l.version && l.version != 0 {
		// The peer speaks an older version that has no such frame.
		s.counters.TooNew++
		return
	}
	switch m.(type) {
	case *Multicast:
		s.counters.MulticastFrames++
	case *Ping, *PartitionInfo:
		s.counters.PeriodicFrames++
	case *Recover, *Recovered, *CatchUp, *CatchUpDone:
		s.counters.RecoveryFrames++
	case *LatestHeader:
		s.counters.EdgeFrames++
	case *DirectRequest, *DirectAnswer, *DirectHello, *DirectCover:
		s.counters.DirectFrames++
	case *ReachReport:
		s.counters.ReportFrames++
	default:
		s.counters.ControlFrames++
	}
	l.lastSend = s.now
	if l.inflight == 0 {
		l.progressAt = s.now
	}
	l.inflight += SizeOf(m)
	s.out = append(s.out, Send{Link: l.id, Msg: m})
}

// closeLink forgets l and asks the host to close it. It does not run the
// loss processing of its kind: callers decide what a deliberate close means.
func (s *Servant) closeLink(l *link, reason string) {
	delete(s.links, l.id)
	s.out = append(s.out, Close{Link: l.id, Reason: reason})
}

// treeLinks returns the established links: the uplink first, then the
// downlinks in slot order. Iterating in a fixed order keeps the servant
// deterministic.
func (s *Servant) treeLinks() []*link {
	ls := make([]*link, 0, len(s.downs)+1)
	if s.up != nil {
		ls = append(ls, s.up)
	}
	return append(ls, s.downs...)
}

// isTree reports whether ids are the tree links, in treeLinks order,
// without allocating.
func (s *Servant) isTree(ids []LinkID) bool {
	i := 0
	if s.up != nil {
		if len(ids) == 0 || ids[0] != s.up.id {
			return false
		}
		i = 1
	}
	if len(ids) != i+len(s.downs) {
		return false
	}
	for j, l := range s.downs {
		if ids[i+j] != l.id {
			return false
		}
	}
	return true
}

func (s *Servant) sortedLinks() []*link {
	ls := make([]*link, 0, len(s.links))
	for _, l := range s.links {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b *link) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	return ls
}

// linkUp handles a new connection: an accepted one waits for a join request;
// a dialed one is the connector's attempt and sends its request.
func (s *Servant) linkUp(e LinkUp) {
	if e.Inbound {
		if _, dup := s.links[e.Link]; dup || e.Link&dialedLinkBit != 0 {
			s.out = append(s.out, Close{Link: e.Link, Reason: "bad link id"})
			return
		}
		s.links[e.Link] = &link{id: e.Link, kind: linkAccepted, opened: s.now, lastRecv: s.now, lastSend: s.now,
			version: cmp.Or(e.Version, ProtocolVersion), release: e.Release, remote: e.Remote.Unmap().WithZone("")}
		return
	}
	l := s.links[e.Link]
	if l != nil {
		l.version, l.release = cmp.Or(e.Version, ProtocolVersion), e.Release
	}
	if l != nil && l.kind == linkDirectDialing {
		s.direct.dialed(s, l)
		return
	}
	if l != nil && l.kind == linkDialBack {
		s.dialBackUp(l)
		return
	}
	if l != nil && l.kind == linkOpinion {
		s.opinionLinkUp(l)
		return
	}
	if l == nil || l.kind != linkJoining {
		// An attempt we gave up on meanwhile.
		s.out = append(s.out, Close{Link: e.Link, Reason: "join attempt abandoned"})
		return
	}
	l.lastRecv, l.lastSend = s.now, s.now
	s.send(l, &JoinRequest{From: s.id, Reach: s.dialback.self, Avoid: slices.Clone(s.connector.avoid), Full: slices.Clone(s.connector.full)})
}

// linkLost handles a connection that closed under us.
func (s *Servant) linkLost(l *link, reason string) {
	delete(s.links, l.id)
	switch l.kind {
	case linkJoining:
		s.connector.attemptFailed(s, l, reason)
	case linkAccepted:
		// A joiner gave up before asking: nothing to undo.
	case linkUp:
		s.note("uplink to %s lost: %s", l.peer, reason)
		s.becomeDetached()
		s.recoverUplink()
	case linkDown:
		s.note("downlink to %s lost: %s", l.peer, reason)
		s.removeDown(l)
	case linkDirectDialing, linkDirect:
		s.direct.lost(s, l, reason)
	case linkDialBack:
		s.dialBackFailed(l, reason)
	case linkOpinion:
		s.opinion.asking = 0
	}
}

func (s *Servant) receive(l *link, m Message) {
	switch m := m.(type) {
	case *Ping:
		l.idleAt = s.now
	case *JoinRequest:
		if l.kind == linkAccepted {
			s.handleJoin(l, m)
		}
	case *JoinAccept:
		if l.kind == linkJoining {
			s.connector.accepted(s, l, m)
		}
	case *JoinRedirect:
		switch l.kind {
		case linkJoining:
			s.connector.redirected(s, l, m)
		case linkUp:
			// Our slot was merged into another's; rejoin under its holder.
			s.note("moved by %s to %s", l.peer, m.To)
			s.closeLink(l, "redirected by up-servant")
			s.becomeDetached()
			s.startConnector([]ServantID{m.To})
		}
	case *JoinRefuse:
		switch l.kind {
		case linkJoining:
			s.connector.refused(s, l, m.Reason)
		case linkDirect:
			s.closeLink(l, "refused: "+m.Reason)
			s.direct.lost(s, l, "refused: "+m.Reason)
		}
	case *DialBack:
		if l.kind == linkAccepted {
			s.answerDialBack(l, m)
		}
	case *DialBackReply:
		if l.kind == linkDialBack {
			s.dialBackAnswered(l, m)
		}
	case *Reachability:
		if l.kind == linkUp {
			s.receiveReachability(m)
		}
	case *StreamQuery:
		if l.kind == linkAccepted {
			s.answerOpinion(l, m)
		}
	case *StreamHeads:
		if l.kind == linkOpinion {
			s.takeOpinion(l, m)
		}
	case *Siblings:
		if l.kind == linkUp {
			s.siblings = slices.Clone(m.IDs)
		}
	case *PartitionInfo:
		if l.kind == linkUp {
			s.lastRootHeard = s.now
			s.optimize(Partition{Lo: m.Lo, Hi: m.Hi}, m.Path)
		}
	case *Reset:
		if l.kind == linkUp {
			// S421: reconnect through the seeds. The up-servant closes the link;
			// closing it here first keeps uplink-loss processing from running.
			// The root of the tree we were in comes first: a seed below the
			// vertex (a joiner told of a servant mid-tree) would admit us
			// again outside its slot and reset us again, for ever, where the
			// root places us by our value (TestResetJoinerRejoinsThroughTheRoot).
			s.note("reset by %s", l.peer)
			var first []ServantID
			if len(s.rootPath) > 0 && s.rootPath[0] != l.peer {
				first = []ServantID{s.rootPath[0]}
			}
			s.closeLink(l, "reset by up-servant")
			s.becomeDetached()
			s.startConnector(first)
		}
	case *RoutingInfo:
		if l.kind == linkUp || l.kind == linkDown {
			s.receiveRouteInfo(l, m)
		}
	case *Multicast:
		switch {
		case l.kind == linkUp || l.kind == linkDown:
			s.route(l, m)
		case l.kind == linkDirect && !l.direct.publisher:
			s.routeDirect(l, m)
		}
	case *Recover:
		if l.kind == linkUp || l.kind == linkDown {
			s.takeRequest(l, m)
		}
	case *Recovered:
		if l.kind == linkUp || l.kind == linkDown {
			s.handleRecovered(l, m)
		}
	case *CatchUp:
		switch {
		case l.kind == linkDown:
			s.catchUp.answer(s, l, m)
		case l.kind == linkUp && len(m.Trail) == 0:
			s.catchUp.hinted(s)
		}
	case *CatchUpDone:
		if l.kind == linkUp || l.kind == linkDown {
			s.catchUp.done(s, m)
		}
	case *LatestHeader:
		if l.kind == linkUp || l.kind == linkDown || l.kind == linkDirect && !l.direct.publisher && m.Source == l.direct.source {
			s.receiveEdge(l, m)
		}
	case *DirectRequest:
		if l.tree() {
			s.direct.request(s, l, m)
		}
	case *DirectAnswer:
		if l.tree() {
			s.direct.answered(s, m)
		}
	case *DirectHello:
		if l.kind == linkAccepted {
			s.direct.hello(s, l, m)
		}
	case *DirectCover:
		if l.tree() {
			s.direct.cover(s, l, m)
		}
	case *ReachReport:
		if l.tree() {
			if s.reach.receive(s, l, m) {
				s.receiveNetCensus(l, m)
			}
		}
	default:
		s.closeLink(l, fmt.Sprintf("unexpected message %T", m))
		if l.kind == linkUp || l.kind == linkDown || l.kind == linkDirect {
			s.linkLostAfterClose(l)
		}
	}
}

// linkLostAfterClose runs the loss processing for a tree link the core itself
// closed (a protocol violation or a timeout).
func (s *Servant) linkLostAfterClose(l *link) {
	switch l.kind {
	case linkUp:
		s.becomeDetached()
		s.recoverUplink()
	case linkDown:
		s.removeDown(l)
	case linkJoining:
		s.connector.attemptFailed(s, l, "closed")
	case linkDirectDialing, linkDirect:
		s.direct.lost(s, l, "closed")
	}
}
