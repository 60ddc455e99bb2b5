package newsnet

import (
	"cmp"
	"maps"
	"slices"
)

// Leading edges (tail-loss detection). Gap detection needs a later message
// to reveal a gap, so the last items of a stream, lost with a link that
// broke right after them, would stay lost until the source sends again,
// which it may never do. PGM (RFC 3208) solves this with source path
// messages carrying the source's leading edge; here every servant keeps
// the header of the latest message it routed per source and category, and
// passes it on where it may be news:
//
//   - on a tree link whose routing information newly asks for the
//     category (a new link, a subscriber that rejoined elsewhere): the
//     servant behind it learns of items it missed while it was away;
//   - on a busy link, for items it withheld and no longer holds.
//
// A servant that receives an edge newer than its own forwards it like the
// message it describes and takes it into the source's sequence as a header
// without a payload: a needed count it lacks is then asked for along the
// reverse path, whose end is the publisher's own store. No archive is
// needed, and a lossless stream sends no edges beyond link changes.

// maxEdges bounds the streams whose edge a servant keeps.
const maxEdges = 1 << 16

// leadingEdges holds the header of the latest message this servant routed
// per source and category, at most maxEdges streams.
type leadingEdges map[edgeKey]*LatestHeader

// note records m as the latest of its stream, if it is.
// An audience message makes no edge: an edge has no audience, so it
// would make servants outside it ask for the message (audience.go).
func (es *leadingEdges) note(m *Multicast) {
	if m.Count == 0 || len(m.Audience) > 0 {
		return
	}
	if es.newer(m.Source, m.Category, m.Count) {
		es.keep(edgeOf(m))
	}
}

// newer reports whether count is beyond the stream's known edge.
func (es leadingEdges) newer(source, category string, count uint64) bool {
	old := es[edgeKey{source, category}]
	return old == nil || old.Count < count
}

// keep records e as its stream's edge. A stream not known yet is taken
// only while there is room.
func (es *leadingEdges) keep(e *LatestHeader) {
	k := edgeKey{e.Source, e.Category}
	if (*es)[k] == nil && len(*es) >= maxEdges {
		return
	}
	if *es == nil {
		*es = leadingEdges{}
	}
	(*es)[k] = e
}

func (es leadingEdges) sortedKeys() []edgeKey {
	return slices.SortedFunc(maps.Keys(es), compareEdgeKeys)
}

// edgeOf is m's header: the edge its stream has once m went by.
func edgeOf(m *Multicast) *LatestHeader {
	return &LatestHeader{Source: m.Source, Category: m.Category, Count: m.Count,
		History: m.History, historyWire: m.historyWire, Lasts: m.Lasts, LastsComplete: m.LastsComplete}
}

// sendEdgesFor sends l the edges of every stream l newly asks for: its
// received set matches the category now and did not before (known is false
// for a link whose first routing information just arrived). A stream whose
// items arrive over l is skipped: the peer knows it better. Up the tree go
// only the streams of sources in our own subtree: the rest came from above.
func (s *Servant) sendEdgesFor(l *link, was CategorySet, known bool) {
	for _, k := range s.edges.sortedKeys() {
		if !l.received.Matches(k.category) || known && was.Matches(k.category) {
			continue
		}
		st := s.seq.sources[k.source]
		switch {
		case st != nil && st.arrival == l.id:
			continue
		case l == s.up && k.source != s.cfg.Source && !s.fromBelow(st):
			continue
		case l.except.covers(k.source, k.category, s.edges[k].Count, s.now):
			continue
		}
		l.flow.sendBulk(s, l, s.edges[k])
	}
}

func compareEdgeKeys(a, b edgeKey) int {
	return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.category, b.category))
}

// receiveEdge takes an edge from a tree link: news is recorded, forwarded
// like the message it describes, and sequenced.
func (s *Servant) receiveEdge(from *link, e *LatestHeader) {
	if e.Source == s.cfg.Source || e.Count == 0 || ValidCategory(e.Category) != nil {
		return
	}
	if !s.edges.newer(e.Source, e.Category, e.Count) {
		return // nothing new (this also ends any loop)
	}
	if s.seq.sources[e.Source] == nil && s.edges[edgeKey{e.Source, e.Category}] == nil && !from.requests.takeNewSource(s, from) {
		return
	}
	s.edges.keep(e)
	if s.noteArrival(from, e.Source, true) {
		s.reach.pathMoved(s, e.Source)
	}
	for _, l := range s.treeLinks() {
		if l != from && s.wants(l, e.Category) && !l.except.covers(e.Source, e.Category, e.Count, s.now) {
			l.flow.sendBulk(s, l, e)
		}
	}
	// A source we do not follow yet is not taken up when nothing up to the
	// edge can be ours; it waits for a catch-up under way, which may bring
	// its items in order; otherwise the edge opens it: which of its counts
	// up to the edge's are owed to us is looked for (owed.go).
	if st := s.seq.sources[e.Source]; s.seq.nextOf(e.Source) == 0 && (st == nil || st.open == nil) {
		h := e.header()
		switch {
		case !s.seq.edgeOpens(s, &h):
			return
		case s.catchUp.holds(s, e.Source):
			s.catchUp.deferEdge(e, from.id)
			return
		}
	}
	st := s.seq.source(e.Source)
	if s.links[st.arrival] == nil {
		st.arrival = from.id // the edge came from where the source's items are
	}
	s.seq.sequenceEdge(s, st, e)
}
