package newsnet

import (
	"fmt"
	"slices"
	"time"
)

// Servant is the protocol core of one overlay node: a deterministic state
// machine. The host feeds it events through Step and carries out the actions
// it returns; the servant itself does no IO, starts no goroutines, reads no
// clock and draws randomness only from Config.Rand. It is not safe for
// concurrent use: one goroutine (the runtime loop, or the simulator) owns it.
type Servant struct {
	core

	started, stopped bool

	// Tree state (JP4353827B2); the links and the root path are core's.
	siblings []ServantID // our up-servant's downs, as it last told us
	// adm places joiners and down-servants: the subtree range, partition
	// and slots, the leaves, and whether we are one (admissions.go).
	adm       admissions
	dialback  dialBacks // dialback.go
	opinion   opinions  // opinion.go
	netCensus netCensus // netcensus.go

	// Catch-up pages being read by the host for requesters below
	// (pages.go).
	pages pageReads

	// connector is the join search (connector.go): the targets still to
	// try, the attempt under way, the redirects followed, and the seed
	// rules.
	connector connector

	lastRootHeard time.Time // last partition message (or accept) from above
	lastSeedRoot  time.Time // last one that came from an earlier seed (seeds only)
	nextPartition time.Time // when an unattached servant next sends its partition

	// Multicast routing (JP4353827B2 Figs. 7-9); the self set is core's.
	seen seenSet

	// Ordered delivery and retransmission (JP3679935B2).
	seq     sequencer       // order.go
	genuine map[string]bool // sources with an item that passed verification here
	repairs requestRelay    // retransmission requests and answers passed on (relay.go)
	own     ownHistory
	chains  Chains       // the Lasts of our next publication (ownchain.go)
	outbox  []*Multicast // publications waiting for the tree
	catchUp catchUps     // catch-up (catchup.go)

	direct directLinks    // direct delivery (direct.go)
	reach  reachReports   // reach reports (reach.go)
	blobs  *blobTransfers // attachments' bytes (blobs.go)
	aud    audienceState  // audiences (audience.go)
}

// newer is a message that exists from a wire version on: it is never sent
// on a link running at an older one.
type newer interface {
	since() uint16
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
		core: core{cfg: cfg, id: cfg.ID, links: make(map[LinkID]*link),
			cache:    relayCache{limit: cfg.RelayCache, limitBytes: cfg.RelayCacheBytes},
			ownCount: cfg.OwnCount},
		seen: newSeenSet(cfg.SeenWindow),
	}
	s.adm = newAdmissions(&s.cfg, v, &s.downs)
	s.direct = newDirectLinks(newDirectConfig(&s.cfg, s.id), &s.counters, &s.seq)
	s.reach = newReachReports(&s.cfg, &s.counters, &s.aud)
	s.catchUp = newCatchUps(&s.cfg, &s.seq)
	s.blobs = newBlobTransfers(&s.cfg.Blob)
	s.seq = newSequencer(&s.cfg, &s.counters, &s.aud)
	s.netCensus.cfg, s.netCensus.places = &s.cfg, &s.adm
	s.connector = newConnector(&s.cfg, s.id)
	s.dialback = newDialBacks(&s.cfg, s.id)
	s.opinion = newOpinions(&s.cfg, s.id, &s.seq)
	s.aud = newAudienceState(&s.cfg, &s.counters)
	s.repairs = newRequestRelay(&s.cfg, &s.aud, &s.seq)
	s.pages = newPageReads(&s.cfg, &s.aud)
	for _, c := range cfg.KnownCategories {
		s.seq.learnCategory(c)
	}
	for _, c := range cfg.Subscriptions {
		if ValidCategory(c) == nil {
			s.self = s.self.With(c)
			s.seq.learnCategory(c)
		}
	}
	s.own = restoredHistory(&s.cfg, s.ownCount)
	s.chains = restoredChains(&s.cfg, s.ownCount)
	s.counters.Lost = cfg.Lost
	for _, m := range cfg.Outbox {
		q := *m
		q.Source = cfg.Source
		s.outbox = append(s.outbox, &q)
		s.ownCount = max(s.ownCount, q.Count)
		s.cache.add(&q)
		s.edges.note(&q)
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
			l.flow.written(s, l, e.Bytes)
			s.blobs.pump(s, l) // chunks last: they yield to everything else
		}
	case QueryCensus:
		s.netCensus.query(s, e)
	case FetchBlob:
		s.blobs.fetch(s, e.Ref, e.Source)
	case reachEvent:
		s.reach.event(s, e)
	case PageRead:
		s.pages.read(s, e)
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
	s.out = s.seq.flushProgress(s.out)
	s.reach.noteActions(s, s.out)
	s.out = s.reach.flush(s.out)
	out := s.out
	s.out = nil
	return out
}

func (s *Servant) start() {
	s.lastRootHeard = s.now
	s.nextPartition = s.now
	if len(s.connector.seedTargets()) == 0 {
		s.becomeVertex()
		return
	}
	s.connector.start(s, nil)
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
	s.connector.becameVertex(s.now)
	s.nextPartition = s.now
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
		s.adm.becomeLeaf(s) // a subtree kept from before goes up
	} else {
		s.adm.leaf = false
	}
	if s.firstAttached.IsZero() {
		s.firstAttached = s.now
	}
	s.siblings = nil
	s.lastRootHeard = s.now
	s.lastSeedRoot = s.now
	if s.adm.leaf {
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
	s.adm.leaf = false
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
