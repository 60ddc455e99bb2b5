package newsnet

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Direct delivery for hot pairs (JP5458944B2's second embodiment, Figs.
// 18-27). A subscriber that needs many items of one source, several hops
// away, has them sent over a link of their own, so they skip the relays
// (each of which checks every item's signature); an exception list keeps
// the tree from carrying them as well.
//
//  1. Hot pair. A subscriber counts, per source, the items it delivers
//     over a sliding window (directLinks.delivered). When Config.DirectThreshold of
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
//     sent again every refresh (directConfig) and an exception lapses after
//     its lifetime without one, so a lost withdrawal cannot suppress a
//     branch for good; a link's exceptions die with it.

//
// The sub-machine. directLinks owns this state and its rules; the servant
// steps it with plain calls (direct_route.go dispatches) and lends it what
// it needs of the tree through directHost: where a source lies, the tree
// links, a way to send, dial and close. So the rules read, and are tested,
// apart from the tree (direct_links_test.go).

// directHost is what direct delivery needs of the servant. *Servant
// implements it; the sub-machine's tests use a small fake.
type directHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	closeLink(l *link, reason string)
	// holds reports whether l is still one of the servant's links.
	holds(l *link) bool
	// dialDirect makes a link to peer for d and asks the host to dial it.
	dialDirect(peer ServantID, d *directLink) *link
	towardSource(source string, except *link) *link
	treeLinks() []*link
	detached() bool
	subscriptions() CategorySet
	// sendLiftedEdges sends l the leading edges of the source's streams
	// in cats that no exception on l covers any more.
	sendLiftedEdges(l *link, source string, cats CategorySet)
}

var _ directHost = (*Servant)(nil)

// sourceDistances is what direct delivery reads of the sequencer: how many
// links away a source's last item came from.
type sourceDistances interface {
	hops(source string) (uint64, bool)
}

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

// directConfig is the part of Config direct delivery reads, with the
// durations derived from it.
type directConfig struct {
	id                  ServantID
	source              string // our own source: where requests end
	threshold, minHops  int
	budget              int
	window, linkTimeout time.Duration
	refresh, lifetime   time.Duration
	setup               time.Duration
	flood               bool // every category goes everywhere (Config.Flood)
}

func newDirectConfig(cfg *Config, id ServantID) directConfig {
	// refresh is how often a standing cover is sent again, lifetime how
	// long an exception lasts without one; setup bounds the wait for an
	// answer to a DirectRequest, and a source's reservation for the
	// requester's hello.
	refresh := 2 * cfg.LinkTimeout
	return directConfig{
		id: id, source: cfg.Source,
		threshold: cfg.DirectThreshold, minHops: cfg.DirectMinHops, budget: cfg.DirectBudget,
		window: cfg.DirectWindow, linkTimeout: cfg.LinkTimeout,
		refresh: refresh, lifetime: 3 * refresh, setup: 4 * cfg.JoinTimeout,
		flood: cfg.Flood,
	}
}

// directLinks is the direct-delivery sub-machine: the heat of sources, our
// requests and direct links as a subscriber, the places we serve as a
// source, and the covers we sent. The exceptions other servants' covers
// set live on the tree links they came over (link.except).
type directLinks struct {
	cfg      directConfig
	counters *Counters // the servant's: refusals met
	// distances says how far each source is (the servant's sequencer).
	distances sourceDistances

	hot     map[string]*hotCount
	subs    map[string]*directSub      // per source: as subscriber
	serving map[ServantID]*directServe // per subscriber: as source
	claims  map[string]*claim          // per source: covers sent
	// sources names every source with direct state here (a sub, a claim,
	// an exception on some link), for reconcile.
	sources map[string]bool
}

func newDirectLinks(cfg directConfig, counters *Counters, distances sourceDistances) directLinks {
	return directLinks{cfg: cfg, counters: counters, distances: distances}
}

// init makes the maps on first use: most servants never take part in
// direct delivery, and a simulated network holds thousands of them.
func (d *directLinks) init() {
	if d.sources == nil {
		d.hot = map[string]*hotCount{}
		d.subs = map[string]*directSub{}
		d.serving = map[ServantID]*directServe{}
		d.claims = map[string]*claim{}
		d.sources = map[string]bool{}
	}
}

// delivered counts an item handed to the application toward its source's
// heat, and asks for direct delivery when the source is hot.
func (d *directLinks) delivered(h directHost, m *Multicast) {
	th := d.cfg.threshold
	if th == 0 || m.Count == 0 || m.Source == d.cfg.source {
		return
	}
	cats := h.subscriptions().Lineage(m.Category)
	if len(cats) == 0 {
		return
	}
	d.init()
	hc := d.hot[m.Source]
	if hc == nil {
		hc = &hotCount{}
		d.hot[m.Source] = hc
	}
	now := h.clock().UnixNano()
	if len(hc.times) < th {
		hc.times = append(hc.times, now)
	} else {
		hc.times[hc.next] = now
		hc.next = (hc.next + 1) % th
	}
	hc.cats = hc.cats.Union(cats)
	if len(hc.times) == th && now-hc.times[hc.next%th] <= int64(d.cfg.window) {
		d.ask(h, m.Source, hc)
	}
}

// ask sends a DirectRequest for a hot source, unless one is under way, the
// source is too close, or a refusal or loss said to wait.
func (d *directLinks) ask(h directHost, source string, hc *hotCount) {
	now := h.clock()
	if d.subs[source] != nil || now.Before(hc.retryAt) || h.detached() {
		return
	}
	hops, ok := d.distances.hops(source)
	if !ok || hops < uint64(d.cfg.minHops) {
		return
	}
	to := h.towardSource(source, nil)
	if to == nil {
		return
	}
	d.subs[source] = &directSub{cats: hc.cats, askedAt: now}
	d.sources[source] = true
	h.note("asking %s for direct delivery of %v: %d items in %v, %d hops away", source, hc.cats, len(hc.times), d.cfg.window, hops)
	h.send(to, &DirectRequest{Source: source, Categories: hc.cats, Trail: []ServantID{d.cfg.id}})
}

// request answers a request for our own items, or passes it on toward its
// source along the reverse path.
func (d *directLinks) request(h directHost, from *link, r *DirectRequest) {
	if len(r.Trail) == 0 || len(r.Trail) >= MaxPathLen || slices.Contains(r.Trail, d.cfg.id) || len(r.Categories) == 0 {
		return // malformed, or looping in a re-forming tree: the requester times out
	}
	if r.Source == d.cfg.source {
		d.answer(h, from, r)
		return
	}
	if next := h.towardSource(r.Source, from); next != nil {
		h.send(next, &DirectRequest{Source: r.Source, Categories: r.Categories, Trail: slices.Concat(r.Trail, []ServantID{d.cfg.id})})
	}
}

// answer accepts a request for our items within the budget and reserves
// the requester a place, or refuses it with the reason.
func (d *directLinks) answer(h directHost, from *link, r *DirectRequest) {
	d.init()
	sub := r.Trail[0]
	hops := len(r.Trail) // links between the requester and us
	refused := d.reserve(sub, r.Categories, hops, h.clock())
	if refused != "" {
		h.note("refusing direct delivery of %v to %s: %s", r.Categories, sub, refused)
	} else {
		h.note("accepting direct delivery of %v to %s (%d hops away)", r.Categories, sub, hops)
	}
	h.send(from, &DirectAnswer{Trail: r.Trail, Source: r.Source, Publisher: d.cfg.id, Categories: r.Categories, Refused: refused})
}

// reserve keeps a subscriber hops links away a place for its hello, or
// says why not.
func (d *directLinks) reserve(sub ServantID, cats CategorySet, hops int, now time.Time) (refused string) {
	sv := d.serving[sub]
	switch {
	case d.cfg.budget == 0:
		return "direct delivery is off at this source"
	case hops < d.cfg.minHops:
		return fmt.Sprintf("too close: %d hops, direct delivery starts at %d", hops, d.cfg.minHops)
	case sv == nil && len(d.serving) >= d.cfg.budget:
		return fmt.Sprintf("budget full: %d direct links", d.cfg.budget)
	}
	if sv == nil {
		sv = &directServe{}
		d.serving[sub] = sv
	}
	sv.cats, sv.until = cats, now.Add(d.cfg.setup)
	return ""
}

// answered passes an answer back along its trail, or takes it: an accept
// is dialed, a refusal waits a window before asking again.
func (d *directLinks) answered(h directHost, a *DirectAnswer) {
	n := len(a.Trail)
	if n == 0 || a.Trail[n-1] != d.cfg.id {
		return
	}
	if n > 1 {
		if l := backAlong(h.treeLinks(), a.Trail); l != nil {
			fwd := *a
			fwd.Trail = a.Trail[:n-1]
			h.send(l, &fwd)
		}
		return // without a link back the path broke: the requester times out
	}
	sub := d.subs[a.Source]
	if sub == nil || sub.link != nil {
		return // not asking any more
	}
	if a.Refused != "" || a.Publisher == "" || a.Publisher == d.cfg.id {
		d.counters.DirectRefused++
		h.note("direct delivery from %s refused: %s", a.Source, a.Refused)
		d.forget(a.Source, h.clock().Add(d.cfg.window))
		return
	}
	sub.link = h.dialDirect(a.Publisher, &directLink{source: a.Source, cats: sub.cats})
}

// forget ends our delivery from a source as a subscriber; we ask again no
// sooner than retry.
func (d *directLinks) forget(source string, retry time.Time) {
	delete(d.subs, source)
	if hc := d.hot[source]; hc != nil {
		hc.retryAt = retry
	}
}

// dialed opens a dialed direct link with its hello.
func (d *directLinks) dialed(h directHost, l *link) {
	now := h.clock()
	l.kind = linkDirect
	l.lastRecv, l.lastSend = now, now
	h.note("direct link to %s up: %s's items in %v", l.peer, l.direct.source, l.direct.cats)
	h.send(l, &DirectHello{From: d.cfg.id, Source: l.direct.source, Categories: l.direct.cats})
}

// hello takes an accepted connection whose first frame is a DirectHello as
// the direct link of a subscriber we reserved a place for.
func (d *directLinks) hello(h directHost, l *link, hi *DirectHello) {
	sv := d.serving[hi.From]
	if hi.Source != d.cfg.source || sv == nil || d.cfg.budget == 0 {
		h.send(l, &JoinRefuse{Reason: "no direct delivery was accepted for " + string(hi.From)})
		h.closeLink(l, "unexpected direct link")
		return
	}
	if old := sv.link; old != nil && h.holds(old) {
		h.closeLink(old, "replaced by a new direct link")
	}
	l.kind = linkDirect
	l.peer, l.value = hi.From, IDValue(hi.From)
	l.direct = &directLink{source: d.cfg.source, cats: sv.cats, publisher: true}
	sv.link = l
	h.note("direct link from %s up: our items in %v", hi.From, sv.cats)
}

// servingLinks are the established direct links our publication in
// category c goes out on, in subscriber order.
func (d *directLinks) servingLinks(h directHost, c string) []*link {
	var out []*link
	for _, sub := range slices.Sorted(maps.Keys(d.serving)) {
		l := d.serving[sub].link
		if l != nil && l.kind == linkDirect && h.holds(l) && l.direct.cats.Matches(c) {
			out = append(out, l)
		}
	}
	return out
}

// arrived notes an item that came over direct link l (checked to be its
// source's and verified): the first one starts our cover.
func (d *directLinks) arrived(l *link, m *Multicast) {
	if sub := d.subs[m.Source]; sub != nil && sub.link == l && sub.first == 0 {
		sub.first = m.Count
		d.sources[m.Source] = true
	}
}

// lost forgets a direct link that closed (either end): a subscriber
// withdraws its cover (reconcile) and may ask again once the source is
// still hot; a source frees the place.
func (d *directLinks) lost(h directHost, l *link, reason string) {
	dl := l.direct
	if dl == nil {
		return
	}
	if dl.publisher {
		if sv := d.serving[l.peer]; sv != nil && sv.link == l {
			delete(d.serving, l.peer)
		}
		h.note("direct link to %s closed: %s", l.peer, reason)
		return
	}
	if sub := d.subs[dl.source]; sub != nil && sub.link == l {
		d.forget(dl.source, h.clock().Add(d.cfg.linkTimeout))
	}
	h.note("direct link from %s closed: %s; %s's items come over the tree again", l.peer, reason, dl.source)
}

// tick gives up on requests and reservations that went unanswered.
func (d *directLinks) tick(h directHost) {
	if d.sources == nil {
		return
	}
	now := h.clock()
	for _, src := range slices.Sorted(maps.Keys(d.subs)) {
		if sub := d.subs[src]; sub.link == nil && now.Sub(sub.askedAt) >= d.cfg.setup {
			h.note("direct delivery from %s: no answer", src)
			d.forget(src, now.Add(d.cfg.window))
		}
	}
	for _, sub := range slices.Sorted(maps.Keys(d.serving)) {
		if sv := d.serving[sub]; sv.link == nil && !now.Before(sv.until) {
			delete(d.serving, sub)
		}
	}
}

// directStatuses lists the established direct links among links, in their
// order.
func directStatuses(links []*link) []DirectStatus {
	var out []DirectStatus
	for _, l := range links {
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
