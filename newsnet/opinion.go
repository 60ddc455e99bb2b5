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
//
// opinions is the sub-machine: when to ask next, the opinion link under
// way and the suspects. It reaches the servant through opinionHost, and
// opinion_test.go drives it through a fake.

// opinionGrace is how long a suspect stream's source may pass nothing over
// the uplink before the up-servant counts as silent: well above the time
// an item takes down a tree that is busy but working.
const opinionGrace = time.Minute

// maxSuspects bounds the suspect streams kept between two opinions.
const maxSuspects = 256

// opinions is the servant's second-opinion bookkeeping.
type opinions struct {
	cfg      *Config          // the servant's: OpinionInterval, Seeds, Source, Rand
	id       ServantID        // ours
	seq      sequencedSources // the servant's sequencer
	next     time.Time        // when to ask next; zero until first attached
	asking   LinkID           // the opinion link under way, 0 for none
	suspects map[edgeKey]suspect
}

// opinionHost is what the second opinion needs of the servant. *Servant
// implements it.
type opinionHost interface {
	clock() time.Time
	note(format string, args ...any)
	tally() *Counters
	send(l *link, m Message)
	closeLink(l *link, reason string)
	dial(t ServantID, kind linkKind) *link
	linkByID(id LinkID) *link
	// upLink is our uplink, nil when we are not attached.
	upLink() *link
	subscriptions() CategorySet
	latestEdges() leadingEdges
	misbehaved(l *link, reason string, points float64)
}

var _ opinionHost = (*Servant)(nil)

// sequencedSources is what opinions read of the sequencer, which meets
// it.
type sequencedSources interface {
	// sequencing reports whether the sequencer keeps a state for source:
	// we met an item or header of it in this run.
	sequencing(source string) bool
}

var _ sequencedSources = (*sequencer)(nil)

func newOpinions(cfg *Config, id ServantID, seq sequencedSources) opinions {
	return opinions{cfg: cfg, id: id, seq: seq}
}

// suspect is a stream a seed knew further than we did.
type suspect struct {
	head  uint64    // the seed's count
	up    ServantID // our up-servant when it was noted
	stamp uint64    // the uplink's arrival stamp of the source then
	seed  ServantID
	at    time.Time
}

// attachedUp is our uplink when we are attached, else nil.
func attachedUp(h opinionHost) *link {
	if up := h.upLink(); up != nil && up.kind == linkUp {
		return up
	}
	return nil
}

// tick asks a seed when due, times out an opinion nobody gives, and
// judges the suspects whose grace ran out.
func (o *opinions) tick(h opinionHost) {
	if o.cfg.OpinionInterval == 0 {
		return
	}
	now := h.clock()
	switch l := h.linkByID(o.asking); {
	case l == nil:
		o.asking = 0 // closed under us, or never asked
	case now.Sub(l.opened) >= 2*o.cfg.JoinTimeout:
		h.closeLink(l, "second opinion timed out")
		o.asking = 0
	}
	o.judge(h)
	up := attachedUp(h)
	switch {
	case up == nil:
		return
	case o.next.IsZero():
		o.next = o.nextAt(now)
		return
	case now.Before(o.next) || o.asking != 0:
		return
	}
	o.next = o.nextAt(now)
	seeds := slices.DeleteFunc(slices.Clone(o.cfg.Seeds), func(id ServantID) bool { return id == o.id || id == up.peer })
	if len(seeds) == 0 || len(h.subscriptions()) == 0 {
		return
	}
	seed := seeds[o.cfg.Rand.IntN(len(seeds))]
	l := h.dial(seed, linkOpinion)
	o.asking = l.id
	h.tally().Opinions++
}

// nextAt is OpinionInterval from now, jittered by ±50 %.
func (o *opinions) nextAt(now time.Time) time.Time {
	d := o.cfg.OpinionInterval
	return now.Add(d/2 + time.Duration(o.cfg.Rand.Int64N(int64(d)+1)))
}

// linkUp asks the seed, if it speaks a version that knows how.
func (o *opinions) linkUp(h opinionHost, l *link) {
	if l.version != 0 && l.version < opinionSince {
		h.closeLink(l, "the seed's release gives no second opinion")
		o.asking = 0
		return
	}
	l.lastRecv, l.lastSend = h.clock(), h.clock()
	h.send(l, &StreamQuery{Categories: h.subscriptions()})
}

// answer is the seed's side: the heads of the streams asked about, from
// its edges. The asker closes the link; if it does not, the accepted link
// times out like any link that never asked to join.
func (o *opinions) answer(h opinionHost, l *link, q *StreamQuery) {
	var heads []StreamHead
	for _, k := range h.latestEdges().sortedKeys() {
		if q.Categories.Matches(k.category) {
			heads = append(heads, StreamHead{Source: k.source, Category: k.category, Count: h.latestEdges()[k].Count})
		}
	}
	if len(heads) > MaxStreamHeads {
		slices.SortStableFunc(heads, func(a, b StreamHead) int { return cmp.Compare(b.Count, a.Count) })
		heads = heads[:MaxStreamHeads]
	}
	h.send(l, &StreamHeads{Heads: heads})
}

// take notes the streams the seed knows further than we do.
func (o *opinions) take(h opinionHost, l *link, m *StreamHeads) {
	h.closeLink(l, "second opinion taken")
	o.asking = 0
	up := attachedUp(h)
	if up == nil {
		return
	}
	self := h.subscriptions()
	for _, hd := range m.Heads {
		k := edgeKey{hd.Source, hd.Category}
		if hd.Source == o.cfg.Source || !self.Matches(hd.Category) || !o.seq.sequencing(hd.Source) && h.latestEdges()[k] == nil {
			continue
		}
		if e := h.latestEdges()[k]; e != nil && e.Count >= hd.Count {
			continue
		}
		if _, ok := o.suspects[k]; ok || len(o.suspects) >= maxSuspects {
			continue
		}
		if o.suspects == nil {
			o.suspects = map[edgeKey]suspect{}
		}
		o.suspects[k] = suspect{head: hd.Count, up: up.peer, stamp: up.sources[hd.Source].original, seed: l.peer, at: h.clock()}
	}
}

// judge clears the suspects that were answered and leaves an up-servant
// that stayed silent about one.
func (o *opinions) judge(h opinionHost) {
	now := h.clock()
	up := attachedUp(h)
	for _, k := range slices.SortedFunc(maps.Keys(o.suspects), compareEdgeKeys) {
		p := o.suspects[k]
		e := h.latestEdges()[k]
		switch {
		case up == nil || up.peer != p.up,
			up.sources[k.source].original != p.stamp,
			e != nil && e.Count >= p.head:
			delete(o.suspects, k) // moved, or it spoke
			continue
		case now.Sub(p.at) < opinionGrace:
			continue
		}
		clear(o.suspects)
		h.tally().SilentUps++
		h.note("up-servant %s passed on nothing of %s in %q for %v, while seed %s knows of count %d: leaving it",
			p.up, k.source, k.category, now.Sub(p.at).Round(time.Second), p.seed, p.head)
		h.misbehaved(up, reasonSilent, conductLimit)
		return
	}
}

// sequencing is opinionHost's.
