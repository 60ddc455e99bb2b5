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
// Sending rules (tickReach):
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

// reachEvent is an event of this file, handled by stepReach.
type reachEvent interface {
	Event
	reachItemID() [16]byte
}

func (e ReadItem) reachItemID() [16]byte        { return e.ID }
func (e MustReadItem) reachItemID() [16]byte    { return e.ID }
func (e AcknowledgeItem) reachItemID() [16]byte { return e.ID }

// reachState is the servant's reach bookkeeping.
type reachState struct {
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
	claimedAt   map[string]uint64 // when each publisher was first named (reachToward)
	censusSent  map[string]uint64 // what we last reported
	pubsSent    []string
	sentCensus  bool        // censusSent is valid
	censusStale bool        // our side's census may have changed
	nextAt      time.Time   // the earliest next report on this link
	budget      reachBudget // what the link's reports may cost (reach_budget.go)
	net         *NetCensus  // a downlink's subtree census, as last reported (netcensus.go)
}

// restoreReach tracks again what the host kept (Config.Reach).
func (s *Servant) restoreReach() {
	from := max(0, len(s.cfg.Reach)-s.cfg.ReachItems)
	for _, o := range s.cfg.Reach[from:] {
		ri := s.trackReach(o.ID, o.Source, o.Category)
		if ri == nil {
			continue
		}
		s.noteAudience(ri, o.Audience)
		if o.Source == s.cfg.Source {
			continue
		}
		ri.delivered = true
		ri.read = o.Read || o.Proof != nil
		ri.identity = cleanBlob(o.Identity)
		ri.proof = cleanBlob(o.Proof)
	}
}

// trackReach returns the tracked item id, tracking it if need be (the one
// tracked longest ago is forgotten beyond ReachItems). Nil for an item
// without a source.
func (s *Servant) trackReach(id [16]byte, source, category string) *reachItem {
	r := &s.reach
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
	if len(r.items) >= s.cfg.ReachItems {
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
		if oldest.source == s.cfg.Source {
			r.ownItems--
		}
	}
	if source == s.cfg.Source {
		r.ownItems++
	}
	r.seq++
	ri := &reachItem{id: id, source: source, category: category, seq: r.seq}
	r.items[id] = ri
	r.order = append(r.order, id) // a full array is copied without the forgotten front
	s.markReach(ri)
	return ri
}

// markReach notes that ri's totals may have changed.
func (s *Servant) markReach(ri *reachItem) {
	if ri.source == s.cfg.Source {
		s.reach.ownDirty[ri.id] = ri
		return
	}
	if _, ok := s.reach.dirty[ri.id]; !ok {
		s.reach.dirty[ri.id] = ri
		ri.dirtyAt = s.now
	}
}

// stepReach handles the application's reach events.
func (s *Servant) stepReach(ev reachEvent) {
	var source string
	switch e := ev.(type) {
	case ReadItem:
		source = e.Source
	case MustReadItem:
		source = e.Source
	case AcknowledgeItem:
		source = e.Source
	}
	ri := s.trackReach(ev.reachItemID(), source, "")
	if ri == nil || ri.source == s.cfg.Source {
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
	s.markReach(ri)
}

// cleanBlob returns a copy of b, or nil for a blob no report can carry.
func cleanBlob(b []byte) []byte {
	if len(b) == 0 || len(b) > MaxIdentityBytes {
		return nil
	}
	return slices.Clone(b)
}

// noteReachActions tracks what this step delivered (stored here) and
// published: the core knows of both without the application telling it.
func (s *Servant) noteReachActions() {
	for _, a := range s.out {
		switch a := a.(type) {
		case Deliver:
			if a.Msg.Source == s.cfg.Source {
				continue
			}
			ri := s.trackReach(a.Msg.ID, a.Msg.Source, a.Msg.Category)
			if ri == nil {
				continue
			}
			s.noteAudience(ri, a.Msg.Audience)
			if !ri.delivered {
				ri.delivered = true
				s.markReach(ri)
			}
		case Published:
			if a.Count > 0 {
				s.trackReach(a.ID, s.cfg.Source, a.Category)
			}
		}
	}
}

// noteAudience records that ri has the audience ps, if any: its
// subscribers are then counted per item, ours among them when inside.
// Learned from the item itself, never from reports.
func (s *Servant) noteAudience(ri *reachItem, ps []netip.Prefix) {
	if len(ps) == 0 || ri.audience {
		return
	}
	ri.audience, ri.inside = true, s.insideAudience(ps)
	s.markReach(ri)
}

// trackOwnAudience tracks our publication m when it has an audience, so
// that its totals count subscribers per item from the first report on.
func (s *Servant) trackOwnAudience(m *Multicast) {
	if len(m.Audience) == 0 {
		return
	}
	if ri := s.trackReach(m.ID, s.cfg.Source, m.Category); ri != nil {
		s.noteAudience(ri, m.Audience)
	}
}

// subscribed reports whether we count among ri's subscribers: it has an
// audience we are inside, we subscribe to its category now, and it is not
// ours.
func (s *Servant) subscribed(ri *reachItem) bool {
	return ri.audience && ri.inside && ri.source != s.cfg.Source && s.self.Matches(ri.category)
}

// receiveReach takes a report from tree link l.
func (s *Servant) receiveReach(l *link, m *ReachReport) {
	rl := s.reachLink(l.id)
	if !s.takeReport(l, rl) {
		return
	}
	s.receiveNetCensus(l, rl, m)
	if m.HasCensus {
		rl.census = censusOf(m.Census)
		s.notePublishers(rl, m.Publishers)
		s.censusChanged(l.id)
	}
	for _, sr := range m.Sources {
		for _, it := range sr.Items {
			if s.reach.items[it.ID] == nil && (sr.Source == s.cfg.Source || !s.mayTrack(l, rl)) {
				// Our own items are tracked from the moment we publish
				// them: one we do not track is forgotten or made up.
				continue
			}
			ri := s.trackReach(it.ID, sr.Source, sr.Category)
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
			s.checkBlobs(l, &it)
			if ok {
				s.fitBlobs(rl, &prev, &it)
			} else {
				s.fitBlobs(rl, nil, &it)
			}
			ri.from[l.id] = it
			s.markReach(ri)
		}
	}
	s.reportOwnReach()
}

func (s *Servant) reachLink(id LinkID) *reachLink {
	if s.reach.links == nil {
		s.reach.links = map[LinkID]*reachLink{}
	}
	rl := s.reach.links[id]
	if rl == nil {
		rl = &reachLink{censusStale: true}
		s.reach.links[id] = rl
	}
	return rl
}

// tickReach sends what changed, as the sending rules in the doc comment
// say. It runs last in a tick, so that the items a tick sends precede its
// reports on every link.
func (s *Servant) tickReach() {
	s.reachTreeChanged()
	if !s.self.Equal(s.reach.self) {
		s.reach.self = s.self
		s.reach.own = ownCensus(s.self)
		s.censusChanged(0)
		for _, ri := range s.reach.items {
			if ri.audience && ri.inside {
				s.markReach(ri) // our part of its subscribers may have changed
			}
		}
	}
	if advertise := s.reach.ownItems > 0; advertise != s.reach.advertised {
		s.reach.advertised = advertise
		s.censusChanged(0)
	}
	if turn := s.reachTurn(); turn != s.reach.turn {
		s.reach.turn = turn
		for _, ri := range s.reach.items {
			if ri.windowed {
				s.markReach(ri) // the window moved on: other names
			}
		}
	}
	s.reportOwnReach()
	s.forgetCensusLinks()
	s.builtCensus()
	if !s.reportDue() {
		return
	}
	batches := s.readyReach()
	for _, l := range s.treeLinks() {
		rl := s.reachLink(l.id)
		batch := batches[l.id]
		if s.now.Before(rl.nextAt) {
			continue
		}
		subtree, network := s.netCensusFor(l)
		if !rl.censusStale && len(batch) == 0 && subtree == nil && network == nil {
			continue
		}
		if s.backedUp(l) || l.inflight > s.cfg.LinkBuffer/4 {
			continue // items first: try again next tick
		}
		m := &ReachReport{}
		if rl.censusStale {
			rl.censusStale = false
			u, pubs := s.censusFor(l), s.publishersFor(l)
			if !rl.sentCensus || !maps.Equal(u, rl.censusSent) || !slices.Equal(pubs, rl.pubsSent) {
				m.HasCensus, m.Census, m.Publishers = true, s.fitCensus(censusList(u)), pubs
				rl.censusSent, rl.pubsSent, rl.sentCensus = u, pubs, true
			}
		}
		size := 0
		for _, p := range batch {
			if size > 0 && size+itemReachSize(&p.total) > s.cfg.ReportBytes {
				break // the rest stays dirty for the next period
			}
			size += itemReachSize(&p.total)
			appendItemReach(m, p.item, p.total)
			p.item.sentTo, p.item.sent = l.id, &p.total
			delete(s.reach.dirty, p.item.id)
		}
		s.addNetCensus(l, m, subtree, network)
		if !m.HasCensus && len(m.Sources) == 0 && m.Subtree == nil && m.Network == nil {
			continue
		}
		rl.nextAt = s.now.Add(s.cfg.ReportPeriod)
		s.send(l, m)
	}
}

// reportDue reports whether some tree link may carry a report now and has
// something that may need one: most ticks of most servants end here.
func (s *Servant) reportDue() bool {
	due := func(l *link) bool {
		rl := s.reachLink(l.id)
		if s.now.Before(rl.nextAt) {
			return false
		}
		if rl.censusStale || len(s.reach.dirty) > 0 {
			return true
		}
		subtree, network := s.netCensusFor(l)
		return subtree != nil || network != nil
	}
	if s.up != nil && due(s.up) {
		return true
	}
	return slices.ContainsFunc(s.downs, due)
}

// reachTreeChanged forgets the reach state of links that are no longer
// tree links and, when the tree links changed, marks every item: its
// totals or its reverse path may have changed.
func (s *Servant) reachTreeChanged() {
	if s.sameTree(s.reach.tree) {
		return
	}
	var ids []LinkID
	for _, l := range s.treeLinks() {
		ids = append(ids, l.id)
	}
	s.reach.tree = ids
	for id := range s.reach.links {
		if !slices.Contains(ids, id) {
			delete(s.reach.links, id)
		}
	}
	for _, ri := range s.reach.items {
		for id := range ri.from {
			if !slices.Contains(ids, id) {
				delete(ri.from, id)
			}
		}
		s.markReach(ri)
	}
	s.censusChanged(0)
}

// sameTree reports whether ids are the tree links, in treeLinks order,
// without allocating.
func (s *Servant) sameTree(ids []LinkID) bool {
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

// pendingReach is one item's totals ready to go.
type pendingReach struct {
	item  *reachItem
	total ItemReach
}

// readyReach returns, per link, the changed items ready to go on it, in
// frame order. Items that need nothing sent are no longer dirty.
func (s *Servant) readyReach() map[LinkID][]pendingReach {
	if len(s.reach.dirty) == 0 {
		return nil
	}
	items := slices.SortedFunc(maps.Values(s.reach.dirty), compareReachItems)
	out := map[LinkID][]pendingReach{}
	for _, ri := range items {
		toward := s.reachToward(ri.source)
		if toward == nil {
			continue // no path yet: stays dirty
		}
		total := s.reachTotal(ri, toward)
		if ri.sent != nil && ri.sentTo == toward.id && sameReach(ri.sent, &total) {
			delete(s.reach.dirty, ri.id)
			continue
		}
		if s.now.Sub(ri.dirtyAt) < s.cfg.ReportPeriod && !s.subtreeReported(ri, toward) {
			continue
		}
		out[toward.id] = append(out[toward.id], pendingReach{ri, total})
	}
	return out
}

// subtreeReported reports whether every link beyond which ri's category
// has subscribers (but toward) has reported ri: our totals are complete.
func (s *Servant) subtreeReported(ri *reachItem, toward *link) bool {
	for _, l := range s.treeLinks() {
		if l == toward || !s.wants(l, ri.category) {
			continue
		}
		if _, ok := ri.from[l.id]; !ok {
			return false
		}
	}
	return true
}

// reachTotal is what ri adds up to on our side of link toward: our own part
// and every other tree link's latest report (nil toward: every link).
func (s *Servant) reachTotal(ri *reachItem, toward *link) ItemReach {
	t := ItemReach{ID: ri.id}
	if s.subscribed(ri) {
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
	for _, l := range s.treeLinks() {
		r, ok := ri.from[l.id]
		if l == toward || !ok {
			continue
		}
		t.Subscribers += r.Subscribers
		t.Delivered += r.Delivered
		t.Read += r.Read
		t.Acknowledged += r.Acknowledged
		t.PendingCount += pendingOf(&r)
		pending = append(pending, r.Pending...)
		acks = append(acks, r.Acks...)
	}
	ri.windowed = len(pending) > s.cfg.ReachIdentities || len(acks) > s.cfg.ReachIdentities
	t.Pending = s.identityList(ri.id, pending)
	t.Acks = s.identityList(ri.id, acks)
	return t
}

// identityList drops repeats from bs and keeps at most ReachIdentities
// of them, sorted. Beyond that many, it keeps the current window
// (reachWindow): the lists of a must-read item with thousands of readers
// name each of them in turn, so its publisher learns every name within a
// cycle, however long the lists it gets are.
func (s *Servant) identityList(item [16]byte, bs [][]byte) [][]byte {
	if len(bs) == 0 {
		return nil
	}
	slices.SortFunc(bs, bytes.Compare)
	bs = slices.CompactFunc(bs, bytes.Equal)
	if len(bs) > s.cfg.ReachIdentities {
		bs = reachWindow(item, bs, s.reachTurn(), s.cfg.ReachIdentities)
		slices.SortFunc(bs, bytes.Compare)
	}
	return bs[:len(bs):len(bs)]
}

// reportOwnReach tells the host of every own publication whose totals
// changed.
func (s *Servant) reportOwnReach() {
	for id, ri := range s.reach.ownDirty {
		delete(s.reach.ownDirty, id)
		t := s.ownTotals(ri)
		if ri.reported != nil && sameTotals(ri.reported, &t) {
			continue
		}
		ri.reported = &t
		if s.reach.acted == nil {
			s.reach.acted = map[[16]byte]ReachUpdated{}
		}
		s.reach.acted[id] = ReachUpdated{ID: id, Category: ri.category, ReachTotals: t}
	}
}

// flushReachUpdates appends this step's ReachUpdated actions, one per item,
// in ID order.
func (s *Servant) flushReachUpdates() {
	if len(s.reach.acted) == 0 {
		return
	}
	for _, id := range slices.SortedFunc(maps.Keys(s.reach.acted), func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) }) {
		s.out = append(s.out, s.reach.acted[id])
	}
	s.reach.acted = nil
}

// ownTotals adds up the reach of one of our publications.
func (s *Servant) ownTotals(ri *reachItem) ReachTotals {
	t := s.reachTotal(ri, nil) // our own part is empty: we never deliver to ourselves
	subscribers := t.Subscribers
	if !ri.audience {
		subscribers = s.subscribers(ri.category)
	}
	return ReachTotals{
		Subscribers: subscribers,
		Delivered:   t.Delivered, Read: t.Read, Acknowledged: t.Acknowledged,
		Pending: t.Pending, Acks: t.Acks, PendingCount: t.PendingCount,
	}
}

// Reach returns the current reach of our publication id; false if we do
// not track it (not ours, or forgotten beyond Config.ReachItems).
func (s *Servant) Reach(id [16]byte) (ReachTotals, bool) {
	ri := s.reach.items[id]
	if ri == nil || ri.source != s.cfg.Source {
		return ReachTotals{}, false
	}
	return s.ownTotals(ri), true
}

func appendItemReach(m *ReachReport, ri *reachItem, t ItemReach) {
	if n := len(m.Sources); n == 0 || m.Sources[n-1].Source != ri.source || m.Sources[n-1].Category != ri.category {
		m.Sources = append(m.Sources, SourceReach{Source: ri.source, Category: ri.category})
	}
	last := &m.Sources[len(m.Sources)-1]
	last.Items = append(last.Items, t)
}

// compareReachItems orders items as a report carries them.
func compareReachItems(a, b *reachItem) int {
	switch {
	case a.source != b.source:
		return compareStrings(a.source, b.source)
	case a.category != b.category:
		return compareStrings(a.category, b.category)
	}
	return bytes.Compare(a.id[:], b.id[:])
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
