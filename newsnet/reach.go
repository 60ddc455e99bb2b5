package newsnet

import (
	"bytes"
	"maps"
	"net/netip"
	"slices"
	"time"
)

// Reach reports (issue 15): for each item, how many servants subscribe to
// its category now, how many stored it, how many readers opened it, and,
// for a must-read item, who acknowledged it and who has it without having
// done so. The counts flow to the publisher along the reverse paths
// (reverse.go, JP5458944B2) and are merged on the way, so the publisher
// receives at most one report frame per tree link and period however large
// the network is.
//
// The aggregation is state-based, not incremental. Every servant keeps, per
// tracked item, its own part (stored, read, acknowledged) and the latest
// totals each tree link reported for the far side of that link. What it
// reports toward the item's source is its own part plus the totals of every
// link but the one it reports on; a new report from a link replaces that
// link's old one. So a duplicate or repeated report changes nothing, a link
// that goes down takes its subtree's totals with it, and a subtree that
// re-joins elsewhere re-reports its totals over its new path: a re-formed
// tree never counts a servant twice, and nothing needs acknowledging.
// Counts are of the servants currently in the tree: a servant that goes
// offline drops out until it returns (its host restores its part from
// Config.Reach), which is why the publisher's host keeps the last totals.
//
// Sending rules (reachReports.tick, reach_send.go):
//   - a tree link carries at most one ReachReport per ReportPeriod, with
//     every changed item of that period whose reverse path is that link;
//   - a changed item goes on once every link beyond which its category has
//     subscribers has reported it, or after one ReportPeriod, so a relay
//     normally sends one report per item however many children it has;
//   - reports are low priority: they go last in a step, never onto a link
//     that withholds items or has more than a quarter of LinkBuffer
//     queued, and at most ReportBytes of item totals a frame.
//
// Subscriber counts are a census (reach_census.go) carried in the same
// frames, except for an item with an audience: a census per category
// cannot tell who is inside its ranges, so such an item's subscribers are
// counted per item, like its deliveries. A servant contributes 1 while it
// subscribes to the item's category and, having learned the item, is
// inside its audience by the exact check that decides delivery (forMe);
// the publisher, which does not count itself in the census, does not
// here either. Must-read identities (opaque blobs the application signs) ride
// along with the counts, bounded by ReachIdentities per list.

// ReadItem tells the core that the local reader opened item ID (or marked
// it read). Source is the item's publisher, needed when the core no longer
// tracks the item. Repeats count once.
type ReadItem struct {
	ID     [16]byte
	Source string
}

// MustReadItem tells the core that item ID, stored here, is must-read: until
// the reader acknowledges it, Identity (the application's identity blob,
// at most MaxIdentityBytes: display name and key) is listed as pending.
type MustReadItem struct {
	ID       [16]byte
	Source   string
	Identity []byte
}

// AcknowledgeItem tells the core that the local reader confirmed must-read
// item ID. Proof is the application's signed acknowledgement (at most
// MaxIdentityBytes), opaque to the core; it replaces the reader's pending
// identity and counts as read too.
type AcknowledgeItem struct {
	ID     [16]byte
	Source string
	Proof  []byte
}

// OwnReach is this servant's part in one item's reach, as the host keeps
// it (Config.Reach). For one of our own publications only ID, Source (ours),
// Category and Audience matter: the core tracks its totals again.
type OwnReach struct {
	ID               [16]byte
	Source, Category string
	// Audience is the item's (Multicast.Audience): an item with one has its
	// subscribers counted per item, and this servant counts among them
	// when inside it.
	Audience        []netip.Prefix
	Read            bool
	Identity, Proof []byte
}

// ReachTotals is the reach of one of our publications.
type ReachTotals struct {
	Subscribers, Delivered, Read, Acknowledged uint64
	// Pending and Acks: see ItemReach. Beyond ReachIdentities some
	// readers are not listed.
	Pending, Acks [][]byte
	// PendingCount is how many readers hold the must-read item and have not
	// acknowledged it, as the relays add it up: exact where Pending stops.
	PendingCount uint64
}

// ReachUpdated reports that the reach of one of our publications changed.
// The host keeps the latest totals (they are those of the servants in the
// tree now) and may show them.
type ReachUpdated struct {
	ID       [16]byte
	Category string
	ReachTotals
}

func (ReadItem) isEvent()        {}
func (MustReadItem) isEvent()    {}
func (AcknowledgeItem) isEvent() {}
func (ReachUpdated) isAction()   {}

// reachEvent is an event of this file, handled by reachReports.event.
type reachEvent interface {
	Event
	reachItemID() [16]byte
}

func (e ReadItem) reachItemID() [16]byte        { return e.ID }
func (e MustReadItem) reachItemID() [16]byte    { return e.ID }
func (e AcknowledgeItem) reachItemID() [16]byte { return e.ID }

// reachHost is what reach reports need of the servant: its tree links and
// their reverse paths, a way to send, and the network census that rides in
// the same frames (netcensus.go). *Servant implements it; the
// sub-machine's tests use a small fake.
type reachHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	treeLinks() []*link
	// isTree reports whether ids are the tree links, in treeLinks order.
	isTree(ids []LinkID) bool
	wants(l *link, category string) bool
	subscriptions() CategorySet
	towardSource(source string, except *link) *link
	lastArrivalLink(source string, except *link, original bool) (*link, uint64)
	// arrivalStamp is the next stamp of the reverse-path lists' clock.
	arrivalStamp() uint64
	// reportRoom reports whether l has room for a report: items first.
	reportRoom(l *link) bool
	misbehaved(l *link, reason string, points float64)
	// netCensusFor and addNetCensus: the network census l is due, put into
	// a report about to go over it.
	netCensusFor(l *link) (subtree, network *NetCensus)
	addNetCensus(l *link, m *ReachReport, subtree, network *NetCensus)
}

var _ reachHost = (*Servant)(nil)

// audienceMember is what the reach reports read of our audiences
// (audienceState meets it).
type audienceMember interface {
	// inside reports whether our address lies in one of ps.
	inside(ps []netip.Prefix) bool
}

var _ audienceMember = (*audienceState)(nil)

// reachReports is the reach sub-machine: the items it tracks with their
// totals per link, the subscriber census (reach_census.go), and what each
// tree link's reports may cost (reach_budget.go). The servant steps it
// with plain calls.
type reachReports struct {
	cfg      *Config        // the servant's
	counters *Counters      // the servant's
	aud      audienceMember // the servant's audienceState

	items map[[16]byte]*reachItem
	seq   uint64 // tracking order
	// order lists the tracked items, the one tracked longest ago first:
	// the next to forget (items are forgotten only from here).
	order [][16]byte
	dirty map[[16]byte]*reachItem // others' items changed since last reported
	// ownDirty: our publications whose totals may have changed since the
	// host was told. Kept apart from dirty because it is looked at every
	// step, and a relay's dirty set holds a period's worth of others'.
	ownDirty map[[16]byte]*reachItem
	links    map[LinkID]*reachLink // per tree link
	tree     []LinkID              // the tree links at the last tick
	self     CategorySet           // the self set the census was counted from
	own      map[string]uint64     // our census entry (reach_census.go)
	// ownItems counts our own publications tracked; advertised says
	// whether our census names us as a publisher.
	ownItems   int
	advertised bool
	acted      map[[16]byte]ReachUpdated // own items reported this step
	// turn: the reach window's turn at the last tick (reach_window.go).
	turn int
}

func newReachReports(cfg *Config, counters *Counters, aud audienceMember) reachReports {
	return reachReports{cfg: cfg, counters: counters, aud: aud}
}

// reachItem is one tracked item.
type reachItem struct {
	id               [16]byte
	source, category string
	seq              uint64
	delivered, read  bool
	identity, proof  []byte
	from             map[LinkID]ItemReach // the latest report of each link; nil until one comes (most items at a leaf)
	// audience: the item has one, so its subscribers are counted per item;
	// inside: our address lies in it.
	audience, inside bool
	dirtyAt          time.Time    // when it first changed since reported
	sentTo           LinkID       // where its totals last went
	sent             *ItemReach   // what went there
	reported         *ReachTotals // own publications: what the host was told
	// windowed: its lists held more readers than they name at the last
	// count, so a new turn of the reach window changes them.
	windowed bool
}

// reachLink is one tree link's reach state.
type reachLink struct {
	census      map[string]uint64 // the far side's census, as last reported
	publishers  []string          // the far side's publishers, as last reported
	claimedAt   map[string]uint64 // when each publisher was first named (toward)
	censusSent  map[string]uint64 // what we last reported
	pubsSent    []string
	sentCensus  bool        // censusSent is valid
	censusStale bool        // our side's census may have changed
	nextAt      time.Time   // the earliest next report on this link
	budget      reachBudget // what the link's reports may cost (reach_budget.go)
}

// restore tracks again what the host kept (Config.Reach).
func (r *reachReports) restore(h reachHost) {
	from := max(0, len(r.cfg.Reach)-r.cfg.ReachItems)
	for _, o := range r.cfg.Reach[from:] {
		ri := r.track(h.clock(), o.ID, o.Source, o.Category)
		if ri == nil {
			continue
		}
		r.noteAudience(h, ri, o.Audience)
		if o.Source == r.cfg.Source {
			continue
		}
		ri.delivered = true
		ri.read = o.Read || o.Proof != nil
		ri.identity = cleanBlob(o.Identity)
		ri.proof = cleanBlob(o.Proof)
	}
}

// track returns the tracked item id, tracking it if need be (the one
// tracked longest ago is forgotten beyond ReachItems). Nil for an item
// without a source.
func (r *reachReports) track(now time.Time, id [16]byte, source, category string) *reachItem {
	if ri := r.items[id]; ri != nil {
		if ri.category == "" {
			ri.category = category
		}
		return ri
	}
	if source == "" {
		return nil
	}
	if r.items == nil {
		r.items, r.dirty, r.ownDirty = map[[16]byte]*reachItem{}, map[[16]byte]*reachItem{}, map[[16]byte]*reachItem{}
	}
	if len(r.items) >= r.cfg.ReachItems {
		oldest := r.items[r.order[0]]
		r.order = r.order[1:]
		for id, it := range oldest.from {
			if rl := r.links[id]; rl != nil {
				rl.budget.blobBytes -= blobBytes(&it)
			}
		}
		delete(r.items, oldest.id)
		delete(r.dirty, oldest.id)
		delete(r.ownDirty, oldest.id)
		if oldest.source == r.cfg.Source {
			r.ownItems--
		}
	}
	if source == r.cfg.Source {
		r.ownItems++
	}
	r.seq++
	ri := &reachItem{id: id, source: source, category: category, seq: r.seq}
	r.items[id] = ri
	r.order = append(r.order, id) // a full array is copied without the forgotten front
	r.mark(now, ri)
	return ri
}

// mark notes that ri's totals may have changed.
func (r *reachReports) mark(now time.Time, ri *reachItem) {
	if ri.source == r.cfg.Source {
		r.ownDirty[ri.id] = ri
		return
	}
	if _, ok := r.dirty[ri.id]; !ok {
		r.dirty[ri.id] = ri
		ri.dirtyAt = now
	}
}

// event handles the application's reach events.
func (r *reachReports) event(h reachHost, ev reachEvent) {
	var source string
	switch e := ev.(type) {
	case ReadItem:
		source = e.Source
	case MustReadItem:
		source = e.Source
	case AcknowledgeItem:
		source = e.Source
	}
	now := h.clock()
	ri := r.track(now, ev.reachItemID(), source, "")
	if ri == nil || ri.source == r.cfg.Source {
		return // unknown item, or our own: the publisher is not its own reader
	}
	ri.delivered = true // the application holds it
	switch e := ev.(type) {
	case ReadItem:
		ri.read = true
	case MustReadItem:
		ri.identity = cleanBlob(e.Identity)
	case AcknowledgeItem:
		ri.read = true
		ri.proof = cleanBlob(e.Proof)
	}
	r.mark(now, ri)
}

// cleanBlob returns a copy of b, or nil for a blob no report can carry.
func cleanBlob(b []byte) []byte {
	if len(b) == 0 || len(b) > MaxIdentityBytes {
		return nil
	}
	return slices.Clone(b)
}

// noteActions tracks what a step delivered (stored here) and published:
// the core knows of both without the application telling it.
func (r *reachReports) noteActions(h reachHost, out []Action) {
	now := h.clock()
	for _, a := range out {
		switch a := a.(type) {
		case Deliver:
			if a.Msg.Source == r.cfg.Source {
				continue
			}
			ri := r.track(now, a.Msg.ID, a.Msg.Source, a.Msg.Category)
			if ri == nil {
				continue
			}
			r.noteAudience(h, ri, a.Msg.Audience)
			if !ri.delivered {
				ri.delivered = true
				r.mark(now, ri)
			}
		case Published:
			if a.Count > 0 {
				r.track(now, a.ID, r.cfg.Source, a.Category)
			}
		}
	}
}

// noteAudience records that ri has the audience ps, if any: its
// subscribers are then counted per item, ours among them when inside.
// Learned from the item itself, never from reports.
func (r *reachReports) noteAudience(h reachHost, ri *reachItem, ps []netip.Prefix) {
	if len(ps) == 0 || ri.audience {
		return
	}
	ri.audience, ri.inside = true, r.aud.inside(ps)
	r.mark(h.clock(), ri)
}

// trackOwnAudience tracks our publication m when it has an audience, so
// that its totals count subscribers per item from the first report on.
func (r *reachReports) trackOwnAudience(h reachHost, m *Multicast) {
	if len(m.Audience) == 0 {
		return
	}
	if ri := r.track(h.clock(), m.ID, r.cfg.Source, m.Category); ri != nil {
		r.noteAudience(h, ri, m.Audience)
	}
}

// subscribed reports whether we, subscribed to self, count among ri's
// subscribers: it has an audience we are inside, we subscribe to its
// category, and it is not ours.
func (r *reachReports) subscribed(self CategorySet, ri *reachItem) bool {
	return ri.audience && ri.inside && ri.source != r.cfg.Source && self.Matches(ri.category)
}

// receive takes a report from tree link l, and reports whether it was
// within the link's rate (the servant then takes its network census).
func (r *reachReports) receive(h reachHost, l *link, m *ReachReport) bool {
	rl := r.link(l.id)
	if !r.takeReport(h, l, rl) {
		return false
	}
	if m.HasCensus {
		rl.census = censusOf(m.Census)
		r.notePublishers(h, rl, m.Publishers)
		r.censusChanged(h, l.id)
	}
	now := h.clock()
	for _, sr := range m.Sources {
		for _, it := range sr.Items {
			if r.items[it.ID] == nil && (sr.Source == r.cfg.Source || !r.mayTrack(now, rl)) {
				// Our own items are tracked from the moment we publish
				// them: one we do not track is forgotten or made up.
				continue
			}
			ri := r.track(now, it.ID, sr.Source, sr.Category)
			if ri == nil || ri.source != sr.Source {
				continue // another source's item under this ID: not ours to count
			}
			prev, ok := ri.from[l.id]
			if ok && sameReach(&prev, &it) {
				continue
			}
			if ri.from == nil {
				ri.from = map[LinkID]ItemReach{}
			}
			r.checkBlobs(h, l, &it)
			if ok {
				r.fitBlobs(rl, &prev, &it)
			} else {
				r.fitBlobs(rl, nil, &it)
			}
			ri.from[l.id] = it
			r.mark(now, ri)
		}
	}
	r.reportOwn(h)
	return true
}

func (r *reachReports) link(id LinkID) *reachLink {
	if r.links == nil {
		r.links = map[LinkID]*reachLink{}
	}
	rl := r.links[id]
	if rl == nil {
		rl = &reachLink{censusStale: true}
		r.links[id] = rl
	}
	return rl
}

// total is what ri adds up to on our side of link toward: our own part
// and every other tree link's latest report (nil toward: every link).
func (r *reachReports) total(h reachHost, ri *reachItem, toward *link) ItemReach {
	t := ItemReach{ID: ri.id}
	if r.subscribed(h.subscriptions(), ri) {
		t.Subscribers++
	}
	if ri.delivered {
		t.Delivered++
	}
	if ri.read {
		t.Read++
	}
	var pending, acks [][]byte
	switch {
	case ri.proof != nil:
		t.Acknowledged++
		acks = append(acks, ri.proof)
	case ri.identity != nil:
		pending = append(pending, ri.identity)
		t.PendingCount++
	}
	for _, l := range h.treeLinks() {
		rep, ok := ri.from[l.id]
		if l == toward || !ok {
			continue
		}
		t.Subscribers += rep.Subscribers
		t.Delivered += rep.Delivered
		t.Read += rep.Read
		t.Acknowledged += rep.Acknowledged
		t.PendingCount += pendingOf(&rep)
		pending = append(pending, rep.Pending...)
		acks = append(acks, rep.Acks...)
	}
	ri.windowed = len(pending) > r.cfg.ReachIdentities || len(acks) > r.cfg.ReachIdentities
	turn := r.turnAt(h.clock())
	t.Pending = r.identityList(ri.id, pending, turn)
	t.Acks = r.identityList(ri.id, acks, turn)
	return t
}

// identityList drops repeats from bs and keeps at most ReachIdentities
// of them, sorted. Beyond that many, it keeps the window of the turn
// (reachWindow): the lists of a must-read item with thousands of readers
// name each of them in turn, so its publisher learns every name within a
// cycle, however long the lists it gets are.
func (r *reachReports) identityList(item [16]byte, bs [][]byte, turn int) [][]byte {
	if len(bs) == 0 {
		return nil
	}
	slices.SortFunc(bs, bytes.Compare)
	bs = slices.CompactFunc(bs, bytes.Equal)
	if len(bs) > r.cfg.ReachIdentities {
		bs = reachWindow(item, bs, turn, r.cfg.ReachIdentities)
		slices.SortFunc(bs, bytes.Compare)
	}
	return bs[:len(bs):len(bs)]
}

// reportOwn tells the host of every own publication whose totals
// changed (flush).
func (r *reachReports) reportOwn(h reachHost) {
	for id, ri := range r.ownDirty {
		delete(r.ownDirty, id)
		t := r.ownTotals(h, ri)
		if ri.reported != nil && sameTotals(ri.reported, &t) {
			continue
		}
		ri.reported = &t
		if r.acted == nil {
			r.acted = map[[16]byte]ReachUpdated{}
		}
		r.acted[id] = ReachUpdated{ID: id, Category: ri.category, ReachTotals: t}
	}
}

// flush appends a step's ReachUpdated actions to out, one per item, in ID
// order.
func (r *reachReports) flush(out []Action) []Action {
	if len(r.acted) == 0 {
		return out
	}
	for _, id := range slices.SortedFunc(maps.Keys(r.acted), func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) }) {
		out = append(out, r.acted[id])
	}
	r.acted = nil
	return out
}

// ownTotals adds up the reach of one of our publications.
func (r *reachReports) ownTotals(h reachHost, ri *reachItem) ReachTotals {
	t := r.total(h, ri, nil) // our own part is empty: we never deliver to ourselves
	subscribers := t.Subscribers
	if !ri.audience {
		subscribers = r.subscribers(h, ri.category)
	}
	return ReachTotals{
		Subscribers: subscribers,
		Delivered:   t.Delivered, Read: t.Read, Acknowledged: t.Acknowledged,
		Pending: t.Pending, Acks: t.Acks, PendingCount: t.PendingCount,
	}
}

// Reach returns the current reach of our publication id; false if we do
// not track it (not ours, or forgotten beyond Config.ReachItems).
func (s *Servant) Reach(id [16]byte) (ReachTotals, bool) { return s.reach.ownReach(s, id) }

func (r *reachReports) ownReach(h reachHost, id [16]byte) (ReachTotals, bool) {
	ri := r.items[id]
	if ri == nil || ri.source != r.cfg.Source {
		return ReachTotals{}, false
	}
	return r.ownTotals(h, ri), true
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sameReach(a, b *ItemReach) bool {
	return a.ID == b.ID && a.Subscribers == b.Subscribers && a.Delivered == b.Delivered && a.Read == b.Read && a.Acknowledged == b.Acknowledged &&
		a.PendingCount == b.PendingCount &&
		slices.EqualFunc(a.Pending, b.Pending, bytes.Equal) && slices.EqualFunc(a.Acks, b.Acks, bytes.Equal)
}

func sameTotals(a, b *ReachTotals) bool {
	return a.Subscribers == b.Subscribers && a.Delivered == b.Delivered && a.Read == b.Read &&
		a.Acknowledged == b.Acknowledged && a.PendingCount == b.PendingCount &&
		slices.EqualFunc(a.Pending, b.Pending, bytes.Equal) && slices.EqualFunc(a.Acks, b.Acks, bytes.Equal)
}
