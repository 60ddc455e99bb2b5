package newsnet

import (
	"bytes"
	"maps"
	"slices"
)

// Sending reach reports: the rules are in reach.go's doc comment.

// tick sends what changed. The servant runs it last in a tick, so that the
// items a tick sends precede its reports on every link.
func (r *reachReports) tick(h reachHost) {
	now := h.clock()
	r.treeChanged(h)
	if self := h.subscriptions(); !self.Equal(r.self) {
		r.self = self
		r.own = ownCensus(self)
		r.censusChanged(h, 0)
		for _, ri := range r.items {
			if ri.audience && ri.inside {
				r.mark(now, ri) // our part of its subscribers may have changed
			}
		}
	}
	if advertise := r.ownItems > 0; advertise != r.advertised {
		r.advertised = advertise
		r.censusChanged(h, 0)
	}
	if turn := r.turnAt(now); turn != r.turn {
		r.turn = turn
		for _, ri := range r.items {
			if ri.windowed {
				r.mark(now, ri) // the window moved on: other names
			}
		}
	}
	r.reportOwn(h)
	tree := h.treeLinks()
	if !r.due(h, tree) {
		return
	}
	batches := r.ready(h)
	for _, l := range tree {
		rl := r.link(l.id)
		batch := batches[l.id]
		if now.Before(rl.nextAt) {
			continue
		}
		subtree, network := h.netCensusFor(l)
		if !rl.censusStale && len(batch) == 0 && subtree == nil && network == nil {
			continue
		}
		if !h.reportRoom(l) {
			continue // items first: try again next tick
		}
		m := &ReachReport{}
		if rl.censusStale {
			rl.censusStale = false
			u, pubs := r.censusFor(h, l), r.publishersFor(h, l)
			if !rl.sentCensus || !maps.Equal(u, rl.censusSent) || !slices.Equal(pubs, rl.pubsSent) {
				m.HasCensus, m.Census, m.Publishers = true, r.fitCensus(h, censusList(u)), pubs
				rl.censusSent, rl.pubsSent, rl.sentCensus = u, pubs, true
			}
		}
		size := 0
		for _, p := range batch {
			if size > 0 && size+itemReachSize(&p.total) > r.cfg.ReportBytes {
				break // the rest stays dirty for the next period
			}
			size += itemReachSize(&p.total)
			appendItemReach(m, p.item, p.total)
			p.item.sentTo, p.item.sent = l.id, &p.total
			delete(r.dirty, p.item.id)
		}
		h.addNetCensus(l, m, subtree, network)
		if !m.HasCensus && len(m.Sources) == 0 && m.Subtree == nil && m.Network == nil {
			continue
		}
		rl.nextAt = now.Add(r.cfg.ReportPeriod)
		h.send(l, m)
	}
}

// due reports whether some tree link may carry a report now and has
// something that may need one: most ticks of most servants end here.
func (r *reachReports) due(h reachHost, tree []*link) bool {
	now := h.clock()
	return slices.ContainsFunc(tree, func(l *link) bool {
		rl := r.link(l.id)
		if now.Before(rl.nextAt) {
			return false
		}
		if rl.censusStale || len(r.dirty) > 0 {
			return true
		}
		subtree, network := h.netCensusFor(l)
		return subtree != nil || network != nil
	})
}

// treeChanged forgets the reach state of links that are no longer tree
// links and, when the tree links changed, marks every item: its totals or
// its reverse path may have changed.
func (r *reachReports) treeChanged(h reachHost) {
	if h.isTree(r.tree) {
		return
	}
	var ids []LinkID
	for _, l := range h.treeLinks() {
		ids = append(ids, l.id)
	}
	r.tree = ids
	for id := range r.links {
		if !slices.Contains(ids, id) {
			delete(r.links, id)
		}
	}
	now := h.clock()
	for _, ri := range r.items {
		for id := range ri.from {
			if !slices.Contains(ids, id) {
				delete(ri.from, id)
			}
		}
		r.mark(now, ri)
	}
	r.censusChanged(h, 0)
}

// pendingReach is one item's totals ready to go.
type pendingReach struct {
	item  *reachItem
	total ItemReach
}

// ready returns, per link, the changed items ready to go on it, in frame
// order. Items that need nothing sent are no longer dirty.
func (r *reachReports) ready(h reachHost) map[LinkID][]pendingReach {
	if len(r.dirty) == 0 {
		return nil
	}
	now := h.clock()
	items := slices.SortedFunc(maps.Values(r.dirty), compareReachItems)
	out := map[LinkID][]pendingReach{}
	for _, ri := range items {
		toward := r.toward(h, ri.source)
		if toward == nil {
			continue // no path yet: stays dirty
		}
		total := r.total(h, ri, toward)
		if ri.sent != nil && ri.sentTo == toward.id && sameReach(ri.sent, &total) {
			delete(r.dirty, ri.id)
			continue
		}
		if now.Sub(ri.dirtyAt) < r.cfg.ReportPeriod && !r.subtreeReported(h, ri, toward) {
			continue
		}
		out[toward.id] = append(out[toward.id], pendingReach{ri, total})
	}
	return out
}

// subtreeReported reports whether every link beyond which ri's category
// has subscribers (but toward) has reported ri: our totals are complete.
func (r *reachReports) subtreeReported(h reachHost, ri *reachItem, toward *link) bool {
	for _, l := range h.treeLinks() {
		if l == toward || !h.wants(l, ri.category) {
			continue
		}
		if _, ok := ri.from[l.id]; !ok {
			return false
		}
	}
	return true
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
