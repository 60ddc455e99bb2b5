package newsnet

import (
	"maps"
	"slices"
	"strings"
)

// The subscriber census: how many servants subscribe to each category, so
// that a publisher knows how many servants an item of its should reach.
// It works as the routing information does (JP4353827B2 Fig. 7), with
// counts instead of sets: each tree link carries the census of the
// servants on the sender's side, our own entry plus what every other link
// reported, and a new census from a link replaces its old one.
//
// A servant counts once per category it subscribes to, after dropping the
// categories an ancestor of which it also subscribes to ("hr" covers
// "hr/payroll"; "*" covers everything). Those entries are an antichain, and
// the categories that match an item ("hr/payroll/eu", "hr/payroll", "hr",
// "*") a chain, so at most one entry of a servant matches: the subscribers
// of an item are the sum of the census over its category's chain, each
// servant counted once however it subscribes.
//
// The census changes only when subscriptions or the tree do, and goes in
// the reach report frames, so it costs at most one frame per link and
// ReportPeriod.

// The census also names the publishers on the sender's side: the sources
// with publications whose reach they track. That is the reports' way to a
// publisher only where its items never passed: the reverse-path lists
// (reverse.go) learn a source's link from its items and edges, and a link
// that never carried one (a servant that just joined, or after the
// publisher moved, until its next item) has nothing to say, while the
// census follows a move within a few report periods, as routing
// information does.

// toward returns the tree link that leads to source's servant. Two
// things tell: the reverse path its own items and edges came along
// (JP5458944B2), and the census of each link, which names the publishers
// on its far side. The newer wins: the census follows a publisher that
// moved and published nothing since, and its items correct a census that
// named it wrongly. A link's claim dates from when the link first named the
// source (claimedAt), so a relay cannot renew a false claim by dropping
// the name and naming it again: it diverts a publisher's reports at most
// until that publisher's next item. With neither, the uplink.
func (r *reachReports) toward(h reachHost, source string) *link {
	best, at := h.lastArrivalLink(source, nil, true)
	for _, l := range h.treeLinks() {
		rl := r.links[l.id]
		if rl == nil {
			continue
		}
		if _, ok := slices.BinarySearch(rl.publishers, source); ok && rl.claimedAt[source] > at {
			best, at = l, rl.claimedAt[source]
		}
	}
	if best != nil {
		return best
	}
	return h.towardSource(source, nil)
}

// notePublishers takes the publishers link l's census names now. A name it
// never gave before is dated now, on the clock of the reverse-path stamps;
// one it gave before keeps its date while the link lives. At most
// maxClaims names are dated per link: beyond that a new name dates from
// the link's first report, and loses to any item's path.
func (r *reachReports) notePublishers(h reachHost, rl *reachLink, pubs []string) {
	rl.publishers = pubs
	if rl.claimedAt == nil {
		rl.claimedAt = map[string]uint64{}
	}
	for _, p := range pubs {
		if _, ok := rl.claimedAt[p]; !ok && len(rl.claimedAt) < maxClaims {
			rl.claimedAt[p] = h.arrivalStamp()
		}
	}
}

// pathMoved notes that source's items now arrive over another tree
// link: its reports go there from now on, and no census we send names it
// back toward it (publishersFor).
func (r *reachReports) pathMoved(h reachHost, source string) {
	for _, l := range h.treeLinks() {
		r.link(l.id).censusStale = true
	}
	now := h.clock()
	for _, ri := range r.items {
		if ri.source == source {
			r.mark(now, ri)
		}
	}
}

// maxClaims bounds the dated publisher names of one link.
const maxClaims = 4 * MaxReachPublishers

// publishersFor lists the publishers on our side of link l: us, when we
// track publications of ours, and those every other tree link reported,
// less those we find through l itself (toward): a name that came from
// elsewhere while its items come over l is a stale or a false claim, and
// passing it on toward the publisher would spread it where it does most
// harm. Beyond MaxReachPublishers the last in byte order are left out
// (their reports fall back to the reverse path).
func (r *reachReports) publishersFor(h reachHost, l *link) []string {
	var pubs []string
	if r.advertised {
		pubs = append(pubs, r.cfg.Source)
	}
	for _, o := range h.treeLinks() {
		if rl := r.links[o.id]; o != l && rl != nil {
			pubs = append(pubs, rl.publishers...)
		}
	}
	slices.Sort(pubs)
	pubs = slices.Compact(pubs)
	pubs = slices.DeleteFunc(pubs, func(p string) bool { return p != r.cfg.Source && r.toward(h, p) == l })
	return pubs[:min(len(pubs), MaxReachPublishers):min(len(pubs), MaxReachPublishers)]
}

// ownCensus is the census entry of a servant subscribed to self.
func ownCensus(self CategorySet) map[string]uint64 {
	own := map[string]uint64{}
	if self.Has(AllCategories) {
		own[AllCategories] = 1
		return own
	}
	for _, c := range self {
		if !coveredByAncestor(self, c) {
			own[c] = 1
		}
	}
	return own
}

// coveredByAncestor reports whether a proper ancestor of c is in self.
func coveredByAncestor(self CategorySet, c string) bool {
	for {
		i := strings.LastIndexByte(c, '/')
		if i < 0 {
			return false
		}
		c = c[:i]
		if self.Has(c) {
			return true
		}
	}
}

// censusFor is the census of our side of link l: our entry and every other
// tree link's census.
func (r *reachReports) censusFor(h reachHost, l *link) map[string]uint64 {
	u := maps.Clone(r.own)
	if u == nil {
		u = map[string]uint64{}
	}
	for _, o := range h.treeLinks() {
		if o == l {
			continue
		}
		if rl := r.links[o.id]; rl != nil {
			for c, n := range rl.census {
				u[c] += n
			}
		}
	}
	return u
}

// censusChanged marks the census stale on every tree link but from (0: on
// all) and every own publication: its subscriber count may have changed.
func (r *reachReports) censusChanged(h reachHost, from LinkID) {
	for _, l := range h.treeLinks() {
		if l.id != from {
			r.link(l.id).censusStale = true
		}
	}
	now := h.clock()
	for _, ri := range r.items {
		if ri.source == r.cfg.Source {
			r.mark(now, ri)
		}
	}
}

// subscribers counts the servants beyond our tree links whose
// subscriptions match category.
func (r *reachReports) subscribers(h reachHost, category string) uint64 {
	if category == "" {
		return 0
	}
	var n uint64
	for _, l := range h.treeLinks() {
		rl := r.links[l.id]
		if rl == nil {
			continue
		}
		n += rl.census[AllCategories]
		for c := category; ; {
			n += rl.census[c]
			i := strings.LastIndexByte(c, '/')
			if i < 0 {
				break
			}
			c = c[:i]
		}
	}
	return n
}

// censusOf reads a report's census.
func censusOf(cs []CategoryCount) map[string]uint64 {
	m := make(map[string]uint64, len(cs))
	for _, c := range cs {
		m[c.Category] = c.Count
	}
	return m
}

// censusList writes a census for a report, sorted, zero counts left out.
func censusList(u map[string]uint64) []CategoryCount {
	var out []CategoryCount
	for _, c := range slices.Sorted(maps.Keys(u)) {
		if u[c] > 0 {
			out = append(out, CategoryCount{Category: c, Count: u[c]})
		}
	}
	return out
}

// maxCensusBytes bounds the census in one report, well inside a frame:
// some thousand categories. Beyond it the categories last in byte order
// are left out, with a note, and their subscribers go uncounted.
const maxCensusBytes = 64 << 10

func (r *reachReports) fitCensus(h reachHost, cs []CategoryCount) []CategoryCount {
	size := 0
	for i, c := range cs {
		size += len(c.Category) + 4
		if size > maxCensusBytes {
			h.note("subscriber census: %d categories do not fit a report; the last %d are not counted", len(cs), len(cs)-i)
			return cs[:i]
		}
	}
	return cs
}
