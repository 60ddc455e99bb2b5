package newsnet

import "fmt"

// The servant's side of direct delivery (direct.go): the items a direct
// link carries enter and leave the servant's item path here, and the
// servant lends the sub-machine its tree (directHost).

// sendDirect sends one of our publications on every direct link whose
// categories match it, and reports how many.
func (s *Servant) sendDirect(m *Multicast) int {
	ls := s.direct.servingLinks(s, m.Category)
	for _, l := range ls {
		l.flow.forward(s, l, m)
		l.direct.delivered++
		s.counters.DirectSent++
	}
	return len(ls)
}

// routeDirect takes an item that arrived over a direct link: it is the
// tree's item as well, so it is sequenced and relayed to our tree links
// that want it (but toward the source, where it came from by the tree),
// and the first one starts our cover.
func (s *Servant) routeDirect(l *link, m *Multicast) {
	d := l.direct
	if m.Source != d.source || !d.cats.Matches(m.Category) || m.Count == 0 {
		s.closeLink(l, fmt.Sprintf("direct link carried %s's item in %q", m.Source, m.Category))
		s.direct.lost(s, l, "foreign item")
		return
	}
	if !s.verifiedOn(l, m) {
		return
	}
	s.direct.arrived(l, m)
	if !s.seen.add(m.ID) || s.replayed(m) {
		s.counters.Duplicates++
		return
	}
	d.delivered++
	s.counters.DirectReceived++
	s.relay(m, s.treeCopiesFrom(m.Source), nil)
	s.cache.add(m)
	s.edges.note(m)
	if s.catchUp.holds(s, m.Source) {
		s.catchUp.deferLive(m, l.id)
		return
	}
	s.seq.notePath(s, s.seq.source(m.Source), m.Hops+1)
	s.seq.sequence(s, m, l.id)
}

// treeCopiesFrom is the tree link the tree's copies of a source's items
// come over: the one its live items last did. Not the reverse path, which
// an answer to a request from below may have turned toward a servant that
// merely held the items: a direct item not relayed there would be lost for
// that whole branch, whose tree copies we drop as duplicates.
func (s *Servant) treeCopiesFrom(source string) *link {
	if st := s.seq.sources[source]; st != nil {
		if l := s.links[st.live]; l != nil && l.tree() {
			return l
		}
	}
	return s.towardSource(source, nil)
}

// sendLiftedEdges sends l the leading edges of the source's streams an
// exception no longer covers: what the servants beyond missed while it
// stood is asked for at once, also when the source never sends again.
func (s *Servant) sendLiftedEdges(l *link, source string, cats CategorySet) {
	for _, k := range s.edges.sortedKeys() {
		if k.source == source && cats.Matches(k.category) && s.wants(l, k.category) && !l.except.covers(source, k.category, s.edges[k].Count, s.now) {
			l.flow.sendBulk(s, l, s.edges[k])
		}
	}
}
