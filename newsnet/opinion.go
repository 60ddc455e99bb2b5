package newsnet

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// The second opinion: a black hole is noticed (issue 32, part 6).
//
// A relay that tampers with what it passes on is caught by the signatures
// (Config.ForgedReasons), and one that drops some items leaves gaps that
// recovery finds and counts. One that passes on nothing at all, items and
// edges alike, while it keeps its links alive with heartbeats, leaves its
// subtree with nothing to notice: no gap, no edge, `lost` 0 everywhere.
// Only another path can tell. So every OpinionInterval (jittered ±50 %) a
// servant with an up-servant dials a seed other than that up-servant, over
// a link of its own (secured as every link), and asks it how far the
// streams of its subscriptions have got (StreamQuery); the seed answers
// with the latest count it knows of each (StreamHeads, from its edges) and
// the asker closes the link.
//
// A stream the seed knows further than we do is a suspect, noted with the
// stamp of the last item or edge of its source that came over our uplink.
// It is cleared when our copy of the stream catches up, or when anything of
// that source comes over the uplink: a relay that is merely slow, or
// holds items back for a slow link, still passes something on. One that
// passed on nothing of it for opinionGrace is silent: the servant leaves
// it, refusing it as an up-servant for the ban's duration (conduct.go,
// reason "silent"), and joins elsewhere; the new up-servant's edges show
// the gap, and recovery brings the items.
//
// Only streams of sources this servant has heard of are judged: items
// published before it attached are not owed to it, and a head alone
// cannot tell when it was published. The seed may lag behind the truth,
// never run ahead of it (counts come from its publisher's items), so a
// suspect is never made up by an honest seed. A modified seed can make its
// askers leave their up-servants, as its own down-servants can be made to
// leave by any seed anyway.

// opinionGrace is how long a suspect stream's source may pass nothing over
// the uplink before the up-servant counts as silent: well above the time
// an item takes down a tree that is busy but working.
const opinionGrace = time.Minute

// maxSuspects bounds the suspect streams kept between two opinions.
const maxSuspects = 256

// opinionState is the servant's second-opinion bookkeeping.
type opinionState struct {
	next     time.Time // when to ask next; zero until first attached
	asking   LinkID    // the opinion link under way, 0 for none
	suspects map[edgeKey]suspect
}

// suspect is a stream a seed knew further than we did.
type suspect struct {
	head  uint64    // the seed's count
	up    ServantID // our up-servant when it was noted
	stamp uint64    // the uplink's arrival stamp of the source then
	seed  ServantID
	at    time.Time
}

// tickOpinion asks a seed when due, times out an opinion nobody gives, and
// judges the suspects whose grace ran out.
func (s *Servant) tickOpinion() {
	o := &s.opinion
	if s.cfg.OpinionInterval == 0 {
		return
	}
	switch l := s.links[o.asking]; {
	case l == nil:
		o.asking = 0 // closed under us, or never asked
	case s.now.Sub(l.opened) >= 2*s.cfg.JoinTimeout:
		s.closeLink(l, "second opinion timed out")
		o.asking = 0
	}
	s.judgeSuspects()
	switch {
	case s.up == nil || s.up.kind != linkUp:
		return
	case o.next.IsZero():
		o.next = s.nextOpinionAt()
		return
	case s.now.Before(o.next) || o.asking != 0:
		return
	}
	o.next = s.nextOpinionAt()
	seeds := slices.DeleteFunc(slices.Clone(s.cfg.Seeds), func(id ServantID) bool { return id == s.id || id == s.up.peer })
	if len(seeds) == 0 || len(s.self) == 0 {
		return
	}
	seed := seeds[s.cfg.Rand.IntN(len(seeds))]
	s.nextDial++
	l := &link{id: s.nextDial | dialedLinkBit, kind: linkOpinion, peer: seed, value: IDValue(seed), opened: s.now}
	s.links[l.id] = l
	o.asking = l.id
	s.counters.Opinions++
	s.out = append(s.out, Dial{Link: l.id, Addr: seed})
}

// nextOpinionAt is OpinionInterval from now, jittered by ±50 %.
func (s *Servant) nextOpinionAt() time.Time {
	d := s.cfg.OpinionInterval
	return s.now.Add(d/2 + time.Duration(s.cfg.Rand.Int64N(int64(d)+1)))
}

// opinionLinkUp asks the seed, if it speaks a version that knows how.
func (s *Servant) opinionLinkUp(l *link) {
	if l.version != 0 && l.version < opinionSince {
		s.closeLink(l, "the seed's release gives no second opinion")
		s.opinion.asking = 0
		return
	}
	l.lastRecv, l.lastSend = s.now, s.now
	s.send(l, &StreamQuery{Categories: s.self})
}

// answerOpinion is the seed's side: the heads of the streams asked about,
// from its edges. The asker closes the link; if it does not, the accepted
// link times out like any link that never asked to join.
func (s *Servant) answerOpinion(l *link, q *StreamQuery) {
	var heads []StreamHead
	for _, k := range s.sortedEdgeKeys() {
		if q.Categories.Matches(k.category) {
			heads = append(heads, StreamHead{Source: k.source, Category: k.category, Count: s.edges[k].Count})
		}
	}
	if len(heads) > MaxStreamHeads {
		slices.SortStableFunc(heads, func(a, b StreamHead) int { return cmp.Compare(b.Count, a.Count) })
		heads = heads[:MaxStreamHeads]
	}
	s.send(l, &StreamHeads{Heads: heads})
}

// takeOpinion notes the streams the seed knows further than we do.
func (s *Servant) takeOpinion(l *link, m *StreamHeads) {
	s.closeLink(l, "second opinion taken")
	s.opinion.asking = 0
	if s.up == nil || s.up.kind != linkUp {
		return
	}
	for _, h := range m.Heads {
		k := edgeKey{h.Source, h.Category}
		if h.Source == s.cfg.Source || !s.self.Matches(h.Category) || s.seq.sources[h.Source] == nil && s.edges[k] == nil {
			continue
		}
		if e := s.edges[k]; e != nil && e.Count >= h.Count {
			continue
		}
		if _, ok := s.opinion.suspects[k]; ok || len(s.opinion.suspects) >= maxSuspects {
			continue
		}
		if s.opinion.suspects == nil {
			s.opinion.suspects = map[edgeKey]suspect{}
		}
		s.opinion.suspects[k] = suspect{head: h.Count, up: s.up.peer, stamp: s.up.sources[h.Source].original, seed: l.peer, at: s.now}
	}
}

// judgeSuspects clears the suspects that were answered and leaves an
// up-servant that stayed silent about one.
func (s *Servant) judgeSuspects() {
	o := &s.opinion
	for _, k := range slices.SortedFunc(maps.Keys(o.suspects), compareEdgeKeys) {
		p := o.suspects[k]
		switch {
		case s.up == nil || s.up.kind != linkUp || s.up.peer != p.up,
			s.up.sources[k.source].original != p.stamp,
			s.edges[k] != nil && s.edges[k].Count >= p.head:
			delete(o.suspects, k) // moved, or it spoke
			continue
		case s.now.Sub(p.at) < opinionGrace:
			continue
		}
		clear(o.suspects)
		s.counters.SilentUps++
		s.note("up-servant %s passed on nothing of %s in %q for %v, while seed %s knows of count %d: leaving it",
			p.up, k.source, k.category, s.now.Sub(p.at).Round(time.Second), p.seed, p.head)
		s.misbehavedBy(s.up, reasonSilent, conductLimit)
		return
	}
}
