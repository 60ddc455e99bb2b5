package newsnet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Direct delivery for hot pairs (JP5458944B2's second embodiment, Figs.
// 18-27). A subscriber that needs many items of one source, several hops
// away, has them sent over a link of their own, so they skip the relays
// (each of which checks every item's signature); an exception list keeps
// the tree from carrying them as well.
//
//  1. Hot pair. A subscriber counts, per source, the items it delivers
//     over a sliding window (noteNeeded). When Config.DirectThreshold of
//     them fall within Config.DirectWindow and the source's items come
//     from at least Config.DirectMinHops links away (Multicast.Hops), it
//     sends a DirectRequest toward the source along the reverse path
//     (reverse.go), naming its subscriptions that matched those items.
//  2. Budget. The source accepts while it serves fewer than
//     Config.DirectBudget direct links (and the requester is far enough
//     away by its own measure too), reserving a place; otherwise it
//     refuses with the reason. The DirectAnswer retraces the request's
//     trail.
//  3. The direct link. On an accept the subscriber dials the source's
//     servant (a Dial with Direct set: the host secures it exactly as a
//     tree link, TLS 1.3 and the membership proof) and opens it with a
//     DirectHello. The link carries only that source's items in the
//     accepted categories, and heartbeats; it is never a tree link: it
//     takes no part in joins, partitions, routing information, recovery
//     or catch-up, and Status lists it apart (Status.Direct).
//  4. Exceptions. Once the first item arrived directly (count F), the
//     subscriber sends a DirectCover toward the source over the tree:
//     "beyond this link, the source's items in these categories from F on
//     arrive directly". The servant that receives it records an
//     exception on that link and stops forwarding those items there. It
//     passes a cover on toward the source only for the categories that
//     nobody on its side still needs through it: it does not subscribe to
//     them itself (or has a direct link of its own), and each of its other
//     tree links either wants none of them or holds an exception for them
//     (counted per link, as the patent's exception node list is kept per
//     subscription). So a branch that also leads to another subscriber
//     keeps getting the items, and the cover stops there (Fig. 27: E
//     still through the tree). A subscriber relays what it receives
//     directly to its own tree links (except toward the source), so its
//     subtree is covered by it.
//  5. Fallback. When the direct link dies, or the subscriber's
//     subscriptions no longer match, the subscriber withdraws its cover (an
//     empty DirectCover), and every servant whose claim no longer holds
//     withdraws its own, back to the source. A servant that lifts an
//     exception sends the link the leading edges of the streams it covered
//     (edge.go), so the subscriber learns at once what it missed meanwhile
//     and asks for it along the reverse path as for any gap; the
//     source's count sequence makes both switches exact (a copy that
//     arrives both ways is dropped by ID). Covers are soft state: each is
//     sent again every directRefresh and an exception lapses after
//     directLifetime without one, so a lost withdrawal cannot suppress a
//     branch for good; a link's exceptions die with it.

// directRefresh is how often a standing cover is sent again, and
// directLifetime how long an exception lasts without one.
func (s *Servant) directRefresh() time.Duration  { return 2 * s.cfg.LinkTimeout }
func (s *Servant) directLifetime() time.Duration { return 3 * s.directRefresh() }

// directSetup bounds the wait for an answer to a DirectRequest, and a
// source's reservation for the requester's hello.
func (s *Servant) directSetup() time.Duration { return 4 * s.cfg.JoinTimeout }

// Roles in DirectStatus.
const (
	DirectPublisher  = "publisher"
	DirectSubscriber = "subscriber"
)

// DirectStatus describes one established direct link.
type DirectStatus struct {
	Peer       ServantID
	Source     string
	Categories CategorySet
	Role       string // DirectPublisher (we send our items) or DirectSubscriber
	// Delivered counts the items sent over the link (publisher) or
	// received over it first (subscriber; copies the tree brought first are
	// not counted).
	Delivered uint64
}

// directLink is a direct link's own state (link.direct).
type directLink struct {
	source    string
	cats      CategorySet
	publisher bool
	delivered uint64
}

// directSub is a subscriber's direct delivery from one source: asked for
// (link nil), being dialed, or established.
type directSub struct {
	cats    CategorySet
	link    *link
	askedAt time.Time
	first   uint64 // the count of the first item that arrived directly
}

// directServe is a source's place for one subscriber: reserved by an
// accept until the hello comes, then the link.
type directServe struct {
	cats  CategorySet
	link  *link
	until time.Time
}

// exception is what a tree link's cover says (link.except).
type exception struct {
	cats    CategorySet
	from    uint64
	expires time.Time
}

// claim is the cover this servant last sent toward a source.
type claim struct {
	link   *link
	cats   CategorySet
	from   uint64
	sentAt time.Time
}

// hotCount counts a source's needed items over the sliding window.
type hotCount struct {
	times   []int64 // delivery times (Unix ns), a ring of at most DirectThreshold
	next    int
	cats    CategorySet // our subscriptions that matched them
	retryAt time.Time   // no request before (after a refusal or a loss)
}

// directState is the servant's direct-delivery state.
type directState struct {
	hot     map[string]*hotCount
	subs    map[string]*directSub      // per source: as subscriber
	serving map[ServantID]*directServe // per subscriber: as source
	claims  map[string]*claim          // per source: covers sent
	// sources names every source with direct state here (a sub, a claim,
	// an exception on some link), for reconcileDirect.
	sources map[string]bool
}

func (d *directState) init() {
	if d.sources == nil {
		d.hot = map[string]*hotCount{}
		d.subs = map[string]*directSub{}
		d.serving = map[ServantID]*directServe{}
		d.claims = map[string]*claim{}
		d.sources = map[string]bool{}
	}
}

// subscribedAs returns our subscriptions that match an item of category
// c: c itself and its ancestors that we subscribe to. AllCategories does
// not count: an archive would take every busy source's budget for what the
// tree brings it anyway.
func (s *Servant) subscribedAs(c string) CategorySet {
	var out []string
	for x := c; ; {
		if s.self.Has(x) {
			out = append(out, x)
		}
		i := strings.LastIndexByte(x, '/')
		if i < 0 {
			break
		}
		x = x[:i]
	}
	return NewCategorySet(out...)
}

// overlaps reports whether cs wants any item under category g: g or an
// ancestor of it is in cs, or a category below g is.
func overlaps(cs CategorySet, g string) bool {
	if cs.Matches(g) {
		return true
	}
	for _, c := range cs {
		if strings.HasPrefix(c, g+"/") {
			return true
		}
	}
	return false
}

// noteNeeded counts a delivered item toward its source's heat, and asks
// for direct delivery when the source is hot.
func (s *Servant) noteNeeded(m *Multicast) {
	th := s.cfg.DirectThreshold
	if th == 0 || m.Count == 0 || m.Source == s.cfg.Source {
		return
	}
	cats := s.subscribedAs(m.Category)
	if len(cats) == 0 {
		return
	}
	s.direct.init()
	h := s.direct.hot[m.Source]
	if h == nil {
		h = &hotCount{}
		s.direct.hot[m.Source] = h
	}
	now := s.now.UnixNano()
	if len(h.times) < th {
		h.times = append(h.times, now)
	} else {
		h.times[h.next] = now
		h.next = (h.next + 1) % th
	}
	h.cats = h.cats.Union(cats)
	if len(h.times) == th && now-h.times[h.next%th] <= int64(s.cfg.DirectWindow) {
		s.askDirect(m.Source, h)
	}
}

// askDirect sends a DirectRequest for a hot source, unless one is under
// way, the source is too close, or a refusal or loss said to wait.
func (s *Servant) askDirect(source string, h *hotCount) {
	if s.direct.subs[source] != nil || s.now.Before(h.retryAt) || s.detached() {
		return
	}
	st := s.sources[source]
	if st == nil || st.hops < uint64(s.cfg.DirectMinHops) {
		return
	}
	to := s.towardSource(source, nil)
	if to == nil {
		return
	}
	s.direct.subs[source] = &directSub{cats: h.cats, askedAt: s.now}
	s.direct.sources[source] = true
	s.note("asking %s for direct delivery of %v: %d items in %v, %d hops away", source, h.cats, len(h.times), s.cfg.DirectWindow, st.hops)
	s.send(to, &DirectRequest{Source: source, Categories: h.cats, Trail: []ServantID{s.id}})
}

// handleDirectRequest answers a request for our own items, or passes it
// on toward its source along the reverse path.
func (s *Servant) handleDirectRequest(from *link, r *DirectRequest) {
	if len(r.Trail) == 0 || len(r.Trail) >= MaxPathLen || slices.Contains(r.Trail, s.id) || len(r.Categories) == 0 {
		return // malformed, or looping in a re-forming tree: the requester times out
	}
	if r.Source == s.cfg.Source {
		s.answerDirect(from, r)
		return
	}
	if next := s.towardSource(r.Source, from); next != nil {
		s.send(next, &DirectRequest{Source: r.Source, Categories: r.Categories, Trail: slices.Concat(r.Trail, []ServantID{s.id})})
	}
}

// answerDirect accepts a request for our items within the budget and
// reserves the requester a place, or refuses it with the reason.
func (s *Servant) answerDirect(from *link, r *DirectRequest) {
	s.direct.init()
	sub := r.Trail[0]
	hops := len(r.Trail) // links between the requester and us
	sv := s.direct.serving[sub]
	refused := ""
	switch {
	case s.cfg.DirectBudget == 0:
		refused = "direct delivery is off at this source"
	case hops < s.cfg.DirectMinHops:
		refused = fmt.Sprintf("too close: %d hops, direct delivery starts at %d", hops, s.cfg.DirectMinHops)
	case sv == nil && len(s.direct.serving) >= s.cfg.DirectBudget:
		refused = fmt.Sprintf("budget full: %d direct links", s.cfg.DirectBudget)
	}
	if refused != "" {
		s.note("refusing direct delivery of %v to %s: %s", r.Categories, sub, refused)
	} else {
		if sv == nil {
			sv = &directServe{}
			s.direct.serving[sub] = sv
		}
		sv.cats, sv.until = r.Categories, s.now.Add(s.directSetup())
		s.note("accepting direct delivery of %v to %s (%d hops away)", r.Categories, sub, hops)
	}
	s.send(from, &DirectAnswer{Trail: r.Trail, Source: r.Source, Publisher: s.id, Categories: r.Categories, Refused: refused})
}

// handleDirectAnswer passes an answer back along its trail, or takes it:
// an accept is dialed, a refusal waits a window before asking again.
func (s *Servant) handleDirectAnswer(a *DirectAnswer) {
	n := len(a.Trail)
	if n == 0 || a.Trail[n-1] != s.id {
		return
	}
	if n > 1 {
		for _, l := range s.treeLinks() {
			if l.peer == a.Trail[n-2] {
				fwd := *a
				fwd.Trail = a.Trail[:n-1]
				s.send(l, &fwd)
				return
			}
		}
		return // the path broke: the requester times out
	}
	sub := s.direct.subs[a.Source]
	if sub == nil || sub.link != nil {
		return // not asking any more
	}
	if a.Refused != "" || a.Publisher == "" || a.Publisher == s.id {
		s.counters.DirectRefused++
		s.note("direct delivery from %s refused: %s", a.Source, a.Refused)
		delete(s.direct.subs, a.Source)
		if h := s.direct.hot[a.Source]; h != nil {
			h.retryAt = s.now.Add(s.cfg.DirectWindow)
		}
		return
	}
	s.nextDial++
	l := &link{id: s.nextDial | dialedLinkBit, kind: linkDirectDialing, peer: a.Publisher, value: IDValue(a.Publisher),
		opened: s.now, direct: &directLink{source: a.Source, cats: sub.cats}}
	s.links[l.id] = l
	sub.link = l
	s.out = append(s.out, Dial{Link: l.id, Addr: a.Publisher, Direct: true})
}

// directLinkUp opens a dialed direct link with its hello.
func (s *Servant) directLinkUp(l *link) {
	l.kind = linkDirect
	l.lastRecv, l.lastSend = s.now, s.now
	s.note("direct link to %s up: %s's items in %v", l.peer, l.direct.source, l.direct.cats)
	s.send(l, &DirectHello{From: s.id, Source: l.direct.source, Categories: l.direct.cats})
}

// acceptDirect takes an accepted connection whose first frame is a
// DirectHello as the direct link of a subscriber we reserved a place for.
func (s *Servant) acceptDirect(l *link, h *DirectHello) {
	sv := s.direct.serving[h.From]
	if h.Source != s.cfg.Source || sv == nil || s.cfg.DirectBudget == 0 {
		s.send(l, &JoinRefuse{Reason: "no direct delivery was accepted for " + string(h.From)})
		s.closeLink(l, "unexpected direct link")
		return
	}
	if old := sv.link; old != nil && s.links[old.id] == old {
		s.closeLink(old, "replaced by a new direct link")
	}
	l.kind = linkDirect
	l.peer, l.value = h.From, IDValue(h.From)
	l.direct = &directLink{source: s.cfg.Source, cats: sv.cats, publisher: true}
	sv.link = l
	s.note("direct link from %s up: our items in %v", h.From, sv.cats)
}

// sendDirect sends one of our publications on every direct link whose
// categories match it, and reports how many.
func (s *Servant) sendDirect(m *Multicast) int {
	n := 0
	for _, sub := range slices.Sorted(maps.Keys(s.direct.serving)) {
		l := s.direct.serving[sub].link
		if l == nil || l.kind != linkDirect || s.links[l.id] != l || !l.direct.cats.Matches(m.Category) {
			continue
		}
		s.forward(l, m)
		l.direct.delivered++
		s.counters.DirectSent++
		n++
	}
	return n
}

// routeDirect takes an item that arrived over a direct link: it is the
// tree's item as well, so it is sequenced and relayed to our tree links
// that want it (but toward the source, where it came from by the tree),
// and the first one starts our cover.
func (s *Servant) routeDirect(l *link, m *Multicast) {
	d := l.direct
	if m.Source != d.source || !d.cats.Matches(m.Category) || m.Count == 0 {
		s.closeLink(l, fmt.Sprintf("direct link carried %s's item in %q", m.Source, m.Category))
		s.directLost(l, "foreign item")
		return
	}
	if !s.verifiedOn(l, m) {
		return
	}
	if sub := s.direct.subs[m.Source]; sub != nil && sub.link == l && sub.first == 0 {
		sub.first = m.Count
		s.direct.sources[m.Source] = true
	}
	if !s.seen.add(m.ID) || s.replayed(m) {
		s.counters.Duplicates++
		return
	}
	d.delivered++
	s.counters.DirectReceived++
	s.relay(m, s.treeCopiesFrom(m.Source))
	s.cache.add(m)
	s.noteEdge(m)
	if s.catchingUp(m.Source) {
		s.deferLive(m, l.id)
		return
	}
	s.notePath(s.source(m.Source), m.Hops+1)
	s.sequence(m, l.id)
}

// treeCopiesFrom is the tree link the tree's copies of a source's items
// come over: the one its live items last did. Not the reverse path, which
// an answer to a request from below may have turned toward a servant that
// merely held the items: a direct item not relayed there would be lost for
// that whole branch, whose tree copies we drop as duplicates.
func (s *Servant) treeCopiesFrom(source string) *link {
	if st := s.sources[source]; st != nil {
		if l := s.links[st.live]; l != nil && l.tree() {
			return l
		}
	}
	return s.towardSource(source, nil)
}

// directLost forgets a direct link that closed (either end): a subscriber
// withdraws its cover (reconcileDirect) and may ask again once the source
// is still hot; a source frees the place.
func (s *Servant) directLost(l *link, reason string) {
	d := l.direct
	if d == nil {
		return
	}
	if d.publisher {
		if sv := s.direct.serving[l.peer]; sv != nil && sv.link == l {
			delete(s.direct.serving, l.peer)
		}
		s.note("direct link to %s closed: %s", l.peer, reason)
		return
	}
	if sub := s.direct.subs[d.source]; sub != nil && sub.link == l {
		delete(s.direct.subs, d.source)
		if h := s.direct.hot[d.source]; h != nil {
			h.retryAt = s.now.Add(s.cfg.LinkTimeout)
		}
	}
	s.note("direct link from %s closed: %s; %s's items come over the tree again", l.peer, reason, d.source)
}

// excepted reports whether an exception on tree link l covers item m.
func (s *Servant) excepted(l *link, m *Multicast) bool {
	return s.exceptedAt(l, m.Source, m.Category, m.Count)
}

func (s *Servant) exceptedAt(l *link, source, category string, count uint64) bool {
	e := l.except[source]
	return e != nil && count > 0 && count >= e.from && s.now.Before(e.expires) && e.cats.Matches(category)
}

// receiveCover records (or replaces, or withdraws) the exception a tree
// link's cover states.
func (s *Servant) receiveCover(l *link, c *DirectCover) {
	if c.Source == "" {
		return
	}
	s.direct.init()
	old := l.except[c.Source]
	if len(c.Categories) == 0 {
		if old != nil {
			delete(l.except, c.Source)
			s.exceptionLifted(l, c.Source, old.cats)
		}
		s.direct.sources[c.Source] = true
		return
	}
	if l.except == nil {
		l.except = map[string]*exception{}
	}
	l.except[c.Source] = &exception{cats: c.Categories, from: max(c.From, 1), expires: s.now.Add(s.directLifetime())}
	s.direct.sources[c.Source] = true
	if old != nil {
		var gone []string
		for _, g := range old.cats {
			if !c.Categories.Matches(g) {
				gone = append(gone, g)
			}
		}
		if len(gone) > 0 {
			s.exceptionLifted(l, c.Source, gone)
		}
	}
}

// exceptionLifted sends l the leading edges of the source's streams an
// exception no longer covers: what the servants beyond missed while it
// stood is asked for at once, also when the source never sends again.
func (s *Servant) exceptionLifted(l *link, source string, cats CategorySet) {
	for _, k := range s.sortedEdgeKeys() {
		if k.source == source && cats.Matches(k.category) && s.wants(l, k.category) && !s.exceptedAt(l, source, k.category, s.edges[k].Count) {
			s.sendBulk(l, s.edges[k])
		}
	}
}

// reconcilesDirect reports whether the step of ev is followed by
// reconcileDirect: every step but the two that make up nearly all of a
// busy servant's work, an item arriving and bytes written. What those
// change for a cover (a subscriber's first direct item) waits for the next
// tick or control frame: the tree still carries the items meanwhile, and a
// copy that comes both ways is dropped by ID.
func reconcilesDirect(ev Event) bool {
	switch ev := ev.(type) {
	case Written:
		return false
	case Received:
		_, item := ev.Msg.(*Multicast)
		return !item
	}
	return true
}

// reconcileDirect runs after the steps that may have changed what a cover
// depends on (reconcilesDirect): exceptions lapse, interests end, and the
// cover sent toward each source follows what now holds.
func (s *Servant) reconcileDirect() {
	if len(s.direct.sources) == 0 {
		return
	}
	for _, src := range slices.Sorted(maps.Keys(s.direct.sources)) {
		s.reconcileSource(src)
	}
}

func (s *Servant) reconcileSource(src string) {
	tree := s.treeLinks()
	held := false
	for _, l := range tree {
		if e := l.except[src]; e != nil {
			if !s.now.Before(e.expires) {
				delete(l.except, src)
				s.exceptionLifted(l, src, e.cats)
				continue
			}
			held = true
		}
	}
	if sub := s.direct.subs[src]; sub != nil && !slices.ContainsFunc(sub.cats, s.self.Matches) {
		// Our interest ended: nothing left to receive directly.
		delete(s.direct.subs, src)
		delete(s.direct.hot, src)
		if l := sub.link; l != nil && s.links[l.id] == l {
			s.closeLink(l, "subscriptions changed")
			s.note("direct link from %s closed: subscriptions no longer match %v", l.peer, sub.cats)
		}
	}
	if sub := s.direct.subs[src]; sub != nil && sub.link != nil && s.links[sub.link.id] == sub.link && s.treeNeighbour(sub.link.peer) {
		// The tree re-formed with the publisher next to us: the tree link
		// carries its items in one hop, and the direct link would only
		// cost a connection and its heartbeats (DirectMinHops is checked
		// when asking, and the tree moves on).
		delete(s.direct.subs, src)
		if h := s.direct.hot[src]; h != nil {
			h.retryAt = s.now.Add(s.cfg.DirectWindow)
		}
		s.closeLink(sub.link, "publisher is now a tree neighbour")
		s.note("direct link from %s closed: it is now a tree neighbour", sub.link.peer)
	}
	cats, from, to := s.desiredCover(src, tree)
	c := s.direct.claims[src]
	if c != nil && (s.links[c.link.id] != c.link || len(cats) == 0 || c.link != to) {
		if s.links[c.link.id] == c.link {
			s.send(c.link, &DirectCover{Source: src})
		}
		delete(s.direct.claims, src)
		c = nil
	}
	if len(cats) > 0 && (c == nil || !c.cats.Equal(cats) || c.from != from || s.now.Sub(c.sentAt) >= s.directRefresh()) {
		s.send(to, &DirectCover{Source: src, Categories: cats, From: from})
		s.direct.claims[src] = &claim{link: to, cats: cats, from: from, sentAt: s.now}
		c = s.direct.claims[src]
	}
	if !held && c == nil && s.direct.subs[src] == nil {
		delete(s.direct.sources, src)
	}
}

// treeNeighbour reports whether id is the peer of one of our tree links.
func (s *Servant) treeNeighbour(id ServantID) bool {
	return slices.ContainsFunc(s.treeLinks(), func(l *link) bool { return l.peer == id })
}

// desiredCover is the cover this servant can state toward a source: the
// categories for which everyone on our side of the link toward it (us,
// and beyond each of our other tree links) gets its items directly, from
// the count on which all of them do.
func (s *Servant) desiredCover(src string, tree []*link) (cats CategorySet, from uint64, to *link) {
	if src == s.cfg.Source {
		return nil, 0, nil // the source is where covers end
	}
	to = s.towardSource(src, nil)
	if to == nil || to.except[src] != nil {
		return nil, 0, nil
	}
	sub := s.direct.subs[src]
	own := sub != nil && sub.link != nil && sub.link.kind == linkDirect && s.links[sub.link.id] == sub.link && sub.first > 0
	var cand CategorySet
	if own {
		cand = sub.cats
	}
	for _, l := range tree {
		if e := l.except[src]; l != to && e != nil {
			cand = cand.Union(e.cats)
		}
	}
	var out []string
	for _, g := range cand {
		ownCovers := own && sub.cats.Matches(g)
		var f uint64
		if ownCovers {
			f = sub.first
		}
		ok := ownCovers || !overlaps(s.self, g)
		for _, l := range tree {
			if !ok || l == to {
				continue
			}
			if e := l.except[src]; e != nil && e.cats.Matches(g) {
				f = max(f, e.from)
				continue
			}
			if !ownCovers && (s.cfg.Flood || !l.infoKnown || overlaps(l.received, g)) {
				ok = false
			}
		}
		if ok {
			out = append(out, g)
			from = max(from, f)
		}
	}
	if len(out) == 0 {
		return nil, 0, nil
	}
	return NewCategorySet(out...), from, to
}

// tickDirect gives up on requests and reservations that went unanswered.
func (s *Servant) tickDirect() {
	if s.direct.sources == nil {
		return
	}
	for _, src := range slices.Sorted(maps.Keys(s.direct.subs)) {
		sub := s.direct.subs[src]
		if sub.link == nil && s.now.Sub(sub.askedAt) >= s.directSetup() {
			s.note("direct delivery from %s: no answer", src)
			delete(s.direct.subs, src)
			if h := s.direct.hot[src]; h != nil {
				h.retryAt = s.now.Add(s.cfg.DirectWindow)
			}
		}
	}
	for _, sub := range slices.Sorted(maps.Keys(s.direct.serving)) {
		if sv := s.direct.serving[sub]; sv.link == nil && !s.now.Before(sv.until) {
			delete(s.direct.serving, sub)
		}
	}
}

// directStatus lists the established direct links, in link order.
func (s *Servant) directStatus() []DirectStatus {
	var out []DirectStatus
	for _, l := range s.sortedLinks() {
		if l.kind != linkDirect {
			continue
		}
		role := DirectSubscriber
		if l.direct.publisher {
			role = DirectPublisher
		}
		out = append(out, DirectStatus{Peer: l.peer, Source: l.direct.source, Categories: l.direct.cats, Role: role, Delivered: l.direct.delivered})
	}
	return out
}
