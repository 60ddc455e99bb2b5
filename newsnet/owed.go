package newsnet

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Owed items. Every item of a subscribed category published after this
// servant first attached (in this run) is owed to it, whether or not it
// had heard of the item's source before. Gap detection finds what is
// missing only between counts a servant knows of, so a servant that first
// meets a source at count k > 1 must find out which of 1..k−1 it is owed:
// the source's first items may have been held up above it (a relay that
// stalled, a subtree that re-formed while a new publisher started) and
// nothing else would ever reveal them. Items it is not owed (a source's
// history from before it attached) are never asked for: that is catch-up's
// business, from an archive and within its window.
//
// Item IDs are UUIDv7, so every item carries its publication time by its
// publisher's clock (PublishedAt), and a source's counts go up with time.
// Owed is therefore a boundary: the first owed count B, below which
// nothing is owed and from which everything is. Until B is found the
// source is *opening*: its items are relayed and cached as usual, but kept
// from the sequence, and the servant probes single counts of the source
// with ordinary retransmission requests (any holder answers: a relay's
// cache, an archive, the publisher's own store), narrowing B down:
//
//   - first the latest count under our subscriptions before k, as the
//     first header's chain (Lasts) names it: not owed means nothing we need
//     is, and the source starts just after it (a fresh joiner's usual
//     case: one probe); without a chain, k−1 instead;
//   - then count 1: owed means everything is (a new publisher whose first
//     items were held up from a servant attached all along: two probes);
//   - then halves of what is left, until one count is, or until the
//     chain of the lowest owed item shows that nothing we need lies
//     between it and the highest count found not owed.
//
// When B is found the source's sequence starts at B and the kept items go
// through it in order: gap classification and retransmission take over,
// and what no holder has is counted lost like any other loss. A probe that
// nobody answers falls back to what the first header's history reaches,
// as a source met without a date does.
//
// The cut is made on the publisher's clock, from when we first attached
// less Config.ClockSkew; for a source first met live, also from the item's
// own date less the time we have been attached (its age on arrival only
// widens that), whichever is earlier. So a slow publisher clock makes us
// ask for a little more, never for less.

// PublishedAt returns when the item with this ID was published, by its
// publisher's clock: item IDs are UUIDv7 (RFC 9562), whose first 48 bits
// are the Unix time in milliseconds. ok is false for an ID of another
// kind: its source is then started as it always was, from what the first
// header's history reaches.
func PublishedAt(id [16]byte) (t time.Time, ok bool) {
	if id[6]>>4 != 7 || id[8]>>6 != 2 {
		return time.Time{}, false
	}
	var ms int64
	for _, b := range id[:6] {
		ms = ms<<8 | int64(b)
	}
	return time.UnixMilli(ms), true
}

// opening is what a servant knows, while it looks for the first count of a
// source it is owed.
type opening struct {
	first     uint64    // the count of the header the source was met at
	window    uint64    // where that header's history reaches: the fallback start
	threshold time.Time // on the publisher's clock: published since is owed

	// The first owed count B lies in (lo, hi]: lo is the highest count
	// found not owed, hi the lowest found owed (first+1 until first is).
	lo, hi uint64
	// needBelow is the latest count under our subscriptions before hi, as
	// the chain of hi's header told it; needKnown says it did.
	needBelow uint64
	needKnown bool

	guess    uint64 // the latest count we need before first, as its chain told; 0 if it did not
	probed   map[uint64]bool
	probe    uint64 // the count asked for; 0 when none is
	attempts int
	due      time.Time

	// floor is the lowest count a catch-up brought: catch-up decided
	// that one was missed, so the sequence starts there at the latest.
	floor uint64
	// kept holds what arrived meanwhile, to be sequenced once B is known;
	// beyond maxDeferred only the latest header per stream.
	kept      []deferredItem
	keptEdges map[edgeKey]deferredItem
}

// latestNeeded returns the latest count before h under our subscriptions,
// as h's chain tells it, and whether it told it for all of them.
func (q *sequencer) latestNeeded(host sequencerHost, h *header) (latest uint64, known bool) {
	known = true
	for _, sub := range host.subscriptions() {
		if sub == AllCategories {
			return h.count - 1, true
		}
		p, ok := q.aud.lastForMe(h, sub)
		if !ok {
			known = false
			continue
		}
		latest = max(latest, p)
	}
	return latest, known
}

// opens reports whether the first header met of a source needs its owed
// counts found: some count before it may be ours. A source met with an
// undated item starts as before (see begin).
func (q *sequencer) opens(host sequencerHost, h *header, dated bool) bool {
	if h.count <= 1 || len(host.subscriptions()) == 0 || !dated {
		return false
	}
	latest, known := q.latestNeeded(host, h)
	return latest > 0 || !known
}

// edgeOpens is opens for an edge of a source met for the first time. An
// edge carries no date, so whether even its own count is owed takes a
// probe: it opens the source whenever that count, or one before it, may
// be ours.
func (q *sequencer) edgeOpens(host sequencerHost, h *header) bool {
	if len(host.subscriptions()) == 0 {
		return false
	}
	latest, known := q.latestNeeded(host, h)
	return host.subscriptions().Matches(h.category) || latest > 0 || !known
}

// startOpening opens st at header h. published is h's date when h is an
// item that came live over a link; zero otherwise.
func (q *sequencer) startOpening(host sequencerHost, source string, st *sourceState, h *header, published time.Time) {
	since := host.owedSince()
	o := &opening{
		first:     h.count,
		window:    h.count - min(historyLen(h.runs()), h.count-1),
		threshold: since.Add(-q.cfg.ClockSkew),
		hi:        h.count + 1,
		probed:    map[uint64]bool{},
	}
	if !published.IsZero() {
		if live := published.Add(-host.clock().Sub(since)); live.Before(o.threshold) {
			o.threshold = live
		}
	}
	if latest, _ := q.latestNeeded(host, h); latest > 0 && latest < h.count {
		o.guess = latest
	}
	st.open = o
	host.note("met source %s at count %d: finding the first count owed to us (published since %v)", source, h.count, o.threshold.UTC().Format(time.RFC3339))
}

// openingTake takes an item of an opening source: its date narrows B down,
// and it is kept for the sequence. recovered says it came as an answer (to
// a probe or a catch-up) rather than live.
func (q *sequencer) openingTake(host sequencerHost, source string, st *sourceState, m *Multicast, from LinkID, recovered bool) {
	o := st.open
	if recovered && !o.probed[m.Count] {
		// A catch-up brought it (we asked for no such count; nothing else
		// is asked of a source not followed): it judged the item missed,
		// so we start there at the latest.
		if o.floor == 0 || m.Count < o.floor {
			o.floor = m.Count
		}
	}
	h := headerOf(m)
	q.learnCategory(h.category)
	if t, ok := PublishedAt(m.ID); ok {
		q.dateCount(host, o, &h, !t.Before(o.threshold))
	} else if m.Count == o.probe {
		// An undated item tells nothing: give up looking, as a source
		// met undated would have.
		q.keep(o, deferredItem{msg: m, from: from})
		q.settleOpening(host, source, st, o.fallback())
		return
	}
	q.keep(o, deferredItem{msg: m, from: from})
	if m.Count == o.probe {
		o.probe = 0
	}
	q.advanceOpening(host, source, st)
}

// openingEdge keeps an edge of an opening source for the sequence.
func (q *sequencer) openingEdge(host sequencerHost, source string, st *sourceState, e *LatestHeader) {
	q.keep(st.open, deferredItem{edge: e})
	q.advanceOpening(host, source, st)
}

// dateCount narrows B down with the date of h's count: owed or not.
func (q *sequencer) dateCount(host sequencerHost, o *opening, h *header, owed bool) {
	switch {
	case owed && h.count < o.hi:
		o.hi = h.count
		o.needBelow, o.needKnown = q.latestNeeded(host, h)
	case !owed && h.count > o.lo:
		o.lo = h.count
	}
}

// keep holds d until the source's start is known, bounded like the items
// deferred for a catch-up.
func (q *sequencer) keep(o *opening, d deferredItem) {
	if d.msg != nil && len(o.kept) < maxDeferred {
		o.kept = append(o.kept, d)
		return
	}
	e := d.edge
	if e == nil {
		e = edgeOf(d.msg)
	}
	keepLatestEdge(&o.keptEdges, e, d.from)
}

// fallback is where the source starts when its owed counts cannot be
// found: as far back as the first header's history reaches, within what
// is known.
func (o *opening) fallback() uint64 {
	return min(max(o.window, o.lo+1), o.hi)
}

// advanceOpening settles the source when B is known, and otherwise asks
// for the next count that narrows it down.
func (q *sequencer) advanceOpening(host sequencerHost, source string, st *sourceState) {
	o := st.open
	if o.probe != 0 {
		return // wait for its answer
	}
	switch {
	case o.hi-o.lo <= 1:
		q.settleOpening(host, source, st, o.hi)
		return
	case o.hi <= o.first && o.needKnown && o.lo >= o.needBelow:
		// Nothing under our subscriptions lies between the last count
		// found not owed and the first found owed: where exactly B lies
		// between them does not matter.
		q.settleOpening(host, source, st, o.lo+1)
		return
	}
	o.probe = o.nextProbe()
	o.attempts = 0
	o.due = time.Time{}
	q.sendProbe(host, source, st)
}

// nextProbe picks the count to ask for: the latest count we need before
// the first one met (not owed: we need nothing earlier; a fresh joiner's
// usual case), else, without that, the count just below the lowest owed
// one (the same for a chain that did not tell), else count 1 (owed: we
// need everything; a new publisher's case), else the middle.
func (o *opening) nextProbe() uint64 {
	if g := o.guess; g > o.lo && g < o.hi && !o.probed[g] {
		return g
	}
	if top := o.hi - 1; (o.guess == 0 && top == o.first-1 || top == o.first) && !o.probed[top] {
		return top
	}
	if o.lo == 0 && !o.probed[1] {
		return 1
	}
	return o.lo + (o.hi-o.lo)/2
}

// sendProbe asks for the probed count along the reverse path (the whole
// tree from the third try, as a retransmission request does), unless the
// servant has no link to ask over; tickOpenings retries.
func (q *sequencer) sendProbe(host sequencerHost, source string, st *sourceState) {
	o := st.open
	if host.detached() || host.clock().Before(o.due) {
		return
	}
	if o.attempts >= q.cfg.RecoverAttempts {
		host.note("no holder answered for count %d of %s: its owed items are looked for from count %d", o.probe, source, o.fallback())
		q.settleOpening(host, source, st, o.fallback())
		return
	}
	o.attempts++
	o.probed[o.probe] = true
	o.due = host.clock().Add(q.cfg.RecoverTimeout << (o.attempts - 1))
	q.counters.AskedOwed++
	r := &Recover{Source: source, Counts: []uint64{o.probe}, Search: o.attempts > searchAfter, Trail: []ServantID{q.cfg.ID}}
	for _, l := range host.recoverLinks(source, r.Search) {
		host.send(l, r)
	}
}

// openingMissing handles the answer that nobody holds count k: if it is
// the one probed, the search stops there.
func (q *sequencer) openingMissing(host sequencerHost, source string, st *sourceState, k uint64) {
	if o := st.open; o.probe == k {
		host.note("count %d of %s is held by nobody: its owed items are looked for from count %d", k, source, o.fallback())
		q.settleOpening(host, source, st, o.fallback())
	}
}

// tickOpenings repeats the probes that went unanswered.
func (q *sequencer) tickOpenings(host sequencerHost) {
	var due []string
	for id, st := range q.sources {
		if st.open != nil && st.open.probe != 0 && !host.clock().Before(st.open.due) {
			due = append(due, id)
		}
	}
	slices.Sort(due)
	for _, id := range due {
		if st := q.sources[id]; st.open != nil {
			q.sendProbe(host, id, st)
		}
	}
}

// settleOpening starts the source's sequence at b (or at what a catch-up
// brought, if lower) and sequences what was kept meanwhile, in count
// order: the usual gap classification then asks for whatever owed count
// is missing.
func (q *sequencer) settleOpening(host sequencerHost, source string, st *sourceState, b uint64) {
	o := st.open
	st.open = nil
	if o.floor > 0 && o.floor < b {
		b = o.floor
	}
	st.next = max(b, 1)
	q.progressed[source] = true // the start itself is news to persist
	host.note("source %s starts at count %d for us (met at %d, %d probes)", source, st.next, o.first, len(o.probed))
	slices.SortStableFunc(o.kept, func(x, y deferredItem) int { return cmp.Compare(x.msg.Count, y.msg.Count) })
	for _, d := range o.kept {
		q.sequence(host, d.msg, d.from)
	}
	for _, k := range slices.SortedFunc(maps.Keys(o.keptEdges), compareEdgeKeys) {
		q.sequenceEdge(host, st, o.keptEdges[k].edge)
	}
	q.settle(host, source, st, 0)
}
