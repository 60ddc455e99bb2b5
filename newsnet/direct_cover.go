package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Covers and exceptions (direct.go, step 4 and 5): what a subscriber's
// direct link takes off the tree, and how the claim travels toward the
// source only as far as nobody else on the way still needs the items.

// exception is what a tree link's cover says.
type exception struct {
	cats    CategorySet
	from    uint64
	expires time.Time
}

// exceptions are a tree link's exceptions, per source (link.except).
type exceptions map[string]*exception

// covers reports whether an exception covers the item of source, category
// and count at now: the tree does not send it over the link.
func (e exceptions) covers(source, category string, count uint64, now time.Time) bool {
	x := e[source]
	return x != nil && count > 0 && count >= x.from && now.Before(x.expires) && x.cats.Matches(category)
}

// coversItem is covers for item m.
func (e exceptions) coversItem(m *Multicast, now time.Time) bool {
	return e.covers(m.Source, m.Category, m.Count, now)
}

// cover records (or replaces, or withdraws) the exception a tree link's
// cover states; the edges of the streams it no longer covers go out at
// once.
func (d *directLinks) cover(h directHost, l *link, c *DirectCover) {
	if c.Source == "" {
		return
	}
	d.init()
	d.sources[c.Source] = true
	old := l.except[c.Source]
	if len(c.Categories) == 0 {
		if old != nil {
			delete(l.except, c.Source)
			h.sendLiftedEdges(l, c.Source, old.cats)
		}
		return
	}
	if l.except == nil {
		l.except = exceptions{}
	}
	l.except[c.Source] = &exception{cats: c.Categories, from: max(c.From, 1), expires: h.clock().Add(d.cfg.lifetime)}
	if old != nil {
		var gone []string
		for _, g := range old.cats {
			if !c.Categories.Matches(g) {
				gone = append(gone, g)
			}
		}
		if len(gone) > 0 {
			h.sendLiftedEdges(l, c.Source, gone)
		}
	}
}

// reconcilesDirect reports whether the step of ev is followed by
// reconcile: every step but the two that make up nearly all of a busy
// servant's work, an item arriving and bytes written. What those change
// for a cover (a subscriber's first direct item) waits for the next tick
// or control frame: the tree still carries the items meanwhile, and a
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

// reconcile runs after the steps that may have changed what a cover
// depends on (reconcilesDirect): exceptions lapse, interests end, and the
// cover sent toward each source follows what now holds.
func (d *directLinks) reconcile(h directHost) {
	if len(d.sources) == 0 {
		return
	}
	for _, src := range slices.Sorted(maps.Keys(d.sources)) {
		d.reconcileSource(h, src)
	}
}

func (d *directLinks) reconcileSource(h directHost, src string) {
	now := h.clock()
	tree := h.treeLinks()
	held := false
	for _, l := range tree {
		if e := l.except[src]; e != nil {
			if !now.Before(e.expires) {
				delete(l.except, src)
				h.sendLiftedEdges(l, src, e.cats)
				continue
			}
			held = true
		}
	}
	if sub := d.subs[src]; sub != nil && !slices.ContainsFunc(sub.cats, h.subscriptions().Matches) {
		// Our interest ended: nothing left to receive directly.
		delete(d.subs, src)
		delete(d.hot, src)
		if l := sub.link; l != nil && h.holds(l) {
			h.closeLink(l, "subscriptions changed")
			h.note("direct link from %s closed: subscriptions no longer match %v", l.peer, sub.cats)
		}
	}
	if sub := d.subs[src]; sub != nil && sub.link != nil && h.holds(sub.link) && treeNeighbour(tree, sub.link.peer) {
		// The tree re-formed with the publisher next to us: the tree link
		// carries its items in one hop, and the direct link would only
		// cost a connection and its heartbeats (DirectMinHops is checked
		// when asking, and the tree moves on).
		d.forget(src, now.Add(d.cfg.window))
		h.closeLink(sub.link, "publisher is now a tree neighbour")
		h.note("direct link from %s closed: it is now a tree neighbour", sub.link.peer)
	}
	cats, from, to := d.desiredCover(h, src, tree)
	c := d.claims[src]
	if c != nil && (!h.holds(c.link) || len(cats) == 0 || c.link != to) {
		if h.holds(c.link) {
			h.send(c.link, &DirectCover{Source: src})
		}
		delete(d.claims, src)
		c = nil
	}
	if len(cats) > 0 && (c == nil || !c.cats.Equal(cats) || c.from != from || now.Sub(c.sentAt) >= d.cfg.refresh) {
		h.send(to, &DirectCover{Source: src, Categories: cats, From: from})
		c = &claim{link: to, cats: cats, from: from, sentAt: now}
		d.claims[src] = c
	}
	if !held && c == nil && d.subs[src] == nil {
		delete(d.sources, src)
	}
}

// treeNeighbour reports whether id is the peer of one of the tree links.
func treeNeighbour(tree []*link, id ServantID) bool {
	return slices.ContainsFunc(tree, func(l *link) bool { return l.peer == id })
}

// desiredCover is the cover this servant can state toward a source: the
// categories for which everyone on our side of the link toward it (us,
// and beyond each of our other tree links) gets its items directly, from
// the count on which all of them do.
func (d *directLinks) desiredCover(h directHost, src string, tree []*link) (cats CategorySet, from uint64, to *link) {
	if src == d.cfg.source {
		return nil, 0, nil // the source is where covers end
	}
	to = h.towardSource(src, nil)
	if to == nil || to.except[src] != nil {
		return nil, 0, nil
	}
	self := h.subscriptions()
	sub := d.subs[src]
	own := sub != nil && sub.link != nil && sub.link.kind == linkDirect && h.holds(sub.link) && sub.first > 0
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
		ok := ownCovers || !self.Overlaps(g)
		for _, l := range tree {
			if !ok || l == to {
				continue
			}
			if e := l.except[src]; e != nil && e.cats.Matches(g) {
				f = max(f, e.from)
				continue
			}
			if !ownCovers && (d.cfg.flood || !l.infoKnown || l.received.Overlaps(g)) {
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
