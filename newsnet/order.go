package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Reliable ordered delivery (JP3679935B2): every multicast message carries
// its source's communication count and what the receiver needs to classify
// the counts before it: the categories of the source's previous messages
// (the history, ¶0106) and the chain fields of chain.go. A servant keeps,
// per source, the next count it expects; a message above it reveals a gap.
// Missed counts in categories this servant does not need are counted as
// received at once (¶0091-0097); missed counts it needs are requested
// again, and later messages wait in a save buffer so that delivery keeps
// the source's order (¶0073, ¶0087).

// The sequencer owns this: the sequence of every source followed
// (sourceState), the table of the categories met (to read histories), and
// the search for the first count owed to us (owed.go). It asks for what
// is missing (recover.go's requestDue) and gives up on what nobody holds.
// The servant steps it with plain calls and lends it, through
// sequencerHost, what is not the sequence's: our subscriptions and
// audience, the links requests go over, and delivery.

// sequencerHost is what the sequencer needs of the servant. *Servant
// implements it.
type sequencerHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	subscriptions() CategorySet
	// deliver hands m, next in its source's order, to the application.
	deliver(m *Multicast, from LinkID)
	// act appends an action of the sequencer's (Lost) to the step's.
	act(a Action)
	// recoverLinks are the links a request for source's items goes over:
	// the reverse path, or, to search, every tree link.
	recoverLinks(source string, search bool) []*link
	detached() bool
	// followingUp reports whether a catch-up of the sources we follow is
	// under way (catchUps.followingUp): requests wait for it.
	followingUp() bool
	// owedSince is when items started being owed to us (owed.go).
	owedSince() time.Time
}

var _ sequencerHost = (*Servant)(nil)

// audienceChains is what the sequencer reads of our audiences
// (audienceState meets it).
type audienceChains interface {
	// lastForMe is the last count before h under sub that lies in our
	// audience, as h's chain tells it (audience.go).
	lastForMe(h *header, sub string) (uint64, bool)
	// forMe reports whether m's audience includes us.
	forMe(m *Multicast) bool
}

var _ audienceChains = (*audienceState)(nil)

// sequencer is the servant's ordered delivery state.
type sequencer struct {
	cfg      *Config        // the servant's
	counters *Counters      // the servant's
	aud      audienceChains // the servant's audienceState
	sources  map[string]*sourceState
	// progressed: the sources whose next count moved this step.
	progressed map[string]bool
	known      map[uint32][]string // short ID -> categories seen
}

func newSequencer(cfg *Config, counters *Counters, aud audienceChains) sequencer {
	return sequencer{cfg: cfg, counters: counters, aud: aud, sources: map[string]*sourceState{},
		progressed: map[string]bool{}, known: map[uint32][]string{}}
}

// maxGap bounds the missed counts of one source that are classified and
// tracked one by one.
const maxGap = 1 << 16

// sourceState is what a servant knows of one source's sequence.
type sourceState struct {
	next    uint64                // lowest count not yet resolved; 0 before the first message
	held    map[uint64]*Multicast // the save buffer: needed messages above next
	skip    map[uint64]bool       // resolved above next without delivery
	wanted  map[uint64]*want      // missed counts awaiting an answer
	chains  map[string]*chain     // per subscription: see chain.go
	arrival LinkID                // the reverse path: where its messages come from
	hops    uint64                // links from the source over the tree, as its last item came
	viaUp   bool                  // arrival was our uplink when the last item came
	// live is the tree link its live items last came over (answers to
	// requests, which move arrival, do not count): where the tree's
	// copies of what a direct link brings come from (direct.go).
	live LinkID

	// longest and longestAt: the longest path the source's items came
	// over recently, and when; graceUntil: until when counts found missing
	// wait for copies still on it (overtake.go).
	longest    uint64
	longestAt  time.Time
	graceUntil time.Time

	// due is when requestDue next has something to do (zero: now); swept
	// is how far resolveByChains has looked. Both keep the work per
	// message small however many counts are wanted.
	due   time.Time
	swept uint64
	// answered is when an answer to our requests last settled one of
	// its wanted counts: while answers come, the holders are busy, not
	// gone (requestDue).
	answered time.Time

	// came marks the skipped counts above next whose item did pass
	// through us (one of another category, relayed). unseen marks, for
	// the last unseenSpan counts below next, those resolved without their
	// item (skipped as another category's before it came, or given up
	// on): when it does come, late, it is relayed, not dropped as a
	// replay (see replayed). A ring of bits indexed by count; nil until
	// such a count is passed.
	came   map[uint64]bool
	unseen []uint64

	// open is set while the first count owed to us is looked for: the
	// source was met at a count above 1 (owed.go).
	open *opening
}

// unseenSpan is how many counts below next a source's unseen ring covers:
// an item that comes later than that after the counts around it is taken
// for a replay. 2 KiB per source followed.
const unseenSpan = 1 << 14

// passed records that next moved past count k, with or without its item.
func (st *sourceState) passed(k uint64, unseen bool) {
	if st.unseen == nil {
		if !unseen {
			return
		}
		st.unseen = make([]uint64, unseenSpan/64)
	}
	i := k % unseenSpan
	if unseen {
		st.unseen[i/64] |= 1 << (i % 64)
	} else {
		st.unseen[i/64] &^= 1 << (i % 64)
	}
}

// resolvedUnseen reports whether count k, below next, was resolved without
// its item passing through us, as far as the ring remembers.
func (st *sourceState) resolvedUnseen(k uint64) bool {
	if st.unseen == nil || k >= st.next || st.next-k > unseenSpan {
		return false
	}
	i := k % unseenSpan
	return st.unseen[i/64]&(1<<(i%64)) != 0
}

// want records a wanted count and keeps st.due at the earliest due.
func (st *sourceState) want(k uint64, w *want) {
	st.wanted[k] = w
	if st.due.IsZero() || w.due.Before(st.due) {
		st.due = w.due
	}
}

// want is an outstanding request for one missed count.
type want struct {
	categoryOnly bool // its category is unknown: ask for that first
	attempts     int
	due          time.Time // when to (re)send the request
}

func (q *sequencer) source(id string) *sourceState {
	st := q.sources[id]
	if st == nil {
		st = &sourceState{
			next:   q.cfg.Expected[id],
			held:   map[uint64]*Multicast{},
			skip:   map[uint64]bool{},
			wanted: map[uint64]*want{},
		}
		q.sources[id] = st
	}
	return st
}

// nextOf returns the next count expected from a source: what its sequence
// holds, or what the host persisted for it before a restart; 0 for a
// source this servant does not follow.
func (q *sequencer) nextOf(source string) uint64 {
	if st := q.sources[source]; st != nil {
		return st.next
	}
	return q.cfg.Expected[source]
}

// sequencing reports whether the sequencer keeps a state for source: we
// met an item or header of it in this run (opinions read it).
func (q *sequencer) sequencing(source string) bool { return q.sources[source] != nil }

// arrival is the link source's items last arrived on; ok is false when we
// never sequenced source (the relay reads it).
func (q *sequencer) arrival(source string) (LinkID, bool) {
	if st := q.sources[source]; st != nil {
		return st.arrival, true
	}
	return 0, false
}

// delivers reports whether m goes to the application: one of our
// categories, and for us.
func (q *sequencer) delivers(host sequencerHost, m *Multicast) bool {
	return host.subscriptions().Matches(m.Category) && q.aud.forMe(m)
}

// hops is how many links away the source's last item came from
// (sourceDistances, for direct delivery).
func (q *sequencer) hops(source string) (uint64, bool) {
	if st := q.sources[source]; st != nil {
		return st.hops, true
	}
	return 0, false
}

// followedFrom lists where a catch-up of the sources we follow starts for
// each: sourceState.catchUpFrom, or the next count the host kept
// (Config.Expected) for a source not met in this run yet.
func (q *sequencer) followedFrom() map[string]uint64 {
	from := map[string]uint64{}
	for id, next := range q.cfg.Expected {
		if q.sources[id] == nil && next > 0 {
			from[id] = next
		}
	}
	for id, st := range q.sources {
		if st.next > 0 {
			from[id] = max(from[id], st.catchUpFrom())
		}
	}
	return from
}

// ahead is where a catch-up of a followed source usually starts (see
// catchUpFrom): after the highest count already held or resolved. Counts
// below it that are still missing are asked for one by one once the
// catch-up ends; asking the archive for what we hold would only bring it
// again (a repeated catch-up during a burst used to resend the whole
// burst).
func (st *sourceState) ahead() uint64 {
	top := st.next
	for k := range st.held {
		top = max(top, k+1)
	}
	for k := range st.skip {
		top = max(top, k+1)
	}
	return top
}

// catchUpFrom is where a catch-up of a followed source starts: usually
// ahead, but next when most counts between the two are still missing — a
// servant that was away for much of a burst and learnt its extent from an
// edge or a later item. Asking for those one by one would take a recovery
// window at a time, and for most of them their categories first; a catch-up
// brings the items of our categories, whose chains classify the rest, and
// resends only the few held.
func (st *sourceState) catchUpFrom() uint64 {
	top := st.ahead()
	resolved := uint64(len(st.held) + len(st.skip))
	if missing := top - st.next - min(resolved, top-st.next); missing > uint64(len(st.held)) {
		return st.next
	}
	return top
}

// accounted reports whether count k of st is resolved, held or asked for.
func (st *sourceState) accounted(k uint64) bool {
	return k < st.next || st.held[k] != nil || st.skip[k] || st.wanted[k] != nil
}

// begin prepares st for header h: it starts following a source it had no
// expectation of, and bounds a huge gap. It reports whether h's count is
// still open (not resolved, held or skipped).
func (q *sequencer) begin(st *sourceState, h *header) bool {
	if st.next == 0 {
		// The first message of a source we had no expectation of: follow it
		// from as far back as its history reaches, so a needed message
		// missed just before is still found; older ones are for catch-up.
		st.next = h.count - min(historyLen(h.runs()), h.count-1)
	}
	if h.count < st.next || st.held[h.count] != nil || st.skip[h.count] {
		return false
	}
	if h.count-st.next > maxGap {
		// Away for very long (or a source gone haywire): classifying every
		// count would cost memory without bound. The older ones are left to
		// catch-up, which asks the archive by source and count.
		q.counters.GapSkipped += h.count - maxGap - st.next
		st.next = h.count - maxGap
		st.unseen = nil // the counts jumped over are not in the ring
		below := func(k uint64) bool { return k < st.next }
		maps.DeleteFunc(st.held, func(k uint64, _ *Multicast) bool { return below(k) })
		maps.DeleteFunc(st.skip, func(k uint64, _ bool) bool { return below(k) })
		maps.DeleteFunc(st.came, func(k uint64, _ bool) bool { return below(k) })
		maps.DeleteFunc(st.wanted, func(k uint64, _ *want) bool { return below(k) })
	}
	return true
}

// sequence takes a message of another source (arrived on the tree, or
// retransmitted) through gap detection and the save buffer, delivering what
// is in order. It reports whether the message was new to the sequence.
func (q *sequencer) sequence(host sequencerHost, m *Multicast, from LinkID) bool {
	st := q.source(m.Source)
	h := headerOf(m)

	if st.next == 0 && st.open == nil {
		if published, dated := PublishedAt(m.ID); q.opens(host, &h, dated) {
			if from == 0 {
				published = time.Time{} // an answer: its age on arrival says nothing
			}
			q.startOpening(host, m.Source, st, &h, published)
		}
	}
	if st.open != nil {
		q.openingTake(host, m.Source, st, m, from, from == 0)
		return true
	}
	if !q.begin(st, &h) {
		return false
	}
	if from == 0 && st.wanted[m.Count] != nil {
		st.answered = host.clock()
	}
	delete(st.wanted, m.Count)
	q.account(host, st, &h)
	if q.delivers(host, m) {
		st.held[m.Count] = m
	} else {
		st.skip[m.Count] = true
		if st.came == nil {
			st.came = map[uint64]bool{}
		}
		st.came[m.Count] = true
	}
	q.settle(host, m.Source, st, from)
	return true
}

// sequenceEdge takes a source's leading edge as a message without a
// payload: the counts before it are classified, and its own count is
// asked for when this servant needs it.
func (q *sequencer) sequenceEdge(host sequencerHost, st *sourceState, e *LatestHeader) {
	h := e.header()
	if st.next == 0 && st.open == nil && q.edgeOpens(host, &h) {
		q.startOpening(host, e.Source, st, &h, time.Time{})
	}
	if st.open != nil {
		q.openingEdge(host, e.Source, st, e)
		return
	}
	if !q.begin(st, &h) {
		return
	}
	if w := st.wanted[e.Count]; w != nil && w.categoryOnly {
		delete(st.wanted, e.Count) // its category is known now
	}
	q.account(host, st, &h)
	if !st.accounted(e.Count) {
		if host.subscriptions().Matches(e.Category) {
			q.counters.GapNeeded++
			q.wantMessage(host, e.Source, st, e.Count)
		} else {
			q.counters.GapSkipped++
			st.skip[e.Count] = true
		}
	}
	q.settle(host, e.Source, st, 0)
}

// account learns what header h tells of the counts before it: the chains
// move on, a needed count they name as missing is asked for, and every
// other open count in the gap is classified.
func (q *sequencer) account(host sequencerHost, st *sourceState, h *header) {
	q.learnCategory(h.category)
	for _, p := range q.linkChains(host, st, h) {
		if w := st.wanted[p]; w != nil && w.categoryOnly {
			delete(st.wanted, p) // its category is known now: one of ours
		}
		if !st.accounted(p) {
			q.counters.GapNeeded++
			q.wantMessage(host, h.source, st, p)
		}
	}
	q.classifyGap(host, h.source, st, h)
}

// settle ends the handling of new knowledge about a source: counts the
// chains now show unneeded are released, what is in order is delivered,
// and due requests go out.
func (q *sequencer) settle(host sequencerHost, source string, st *sourceState, from LinkID) {
	q.resolveByChains(host, st)
	q.drain(host, source, st, from)
	q.requestDue(host, source, st)
}

// classifyGap decides, for every count between next and h's that is not
// yet accounted for, whether it was needed.
func (q *sequencer) classifyGap(host sequencerHost, source string, st *sourceState, h *header) {
	for k := st.next; k < h.count; k++ {
		if st.accounted(k) {
			continue
		}
		if q.chainsCover(host, st, k) {
			q.counters.GapSkipped++
			st.skip[k] = true
			continue
		}
		short, ok := historyShort(h.runs(), h.count, k)
		switch {
		case host.subscriptions().Has(AllCategories):
			q.counters.GapNeeded++
			q.wantMessage(host, source, st, k)
		case !ok:
			// Neither the chains nor the history tell yet. A later header
			// (or the retransmission of a missing one) usually will: ask
			// for the category only if none has when the wait is over.
			st.want(k, &want{categoryOnly: true, due: host.clock().Add(q.cfg.RecoverTimeout)})
		case !q.shortKnown(short) && q.mayNeedUnknown(host, short):
			st.want(k, &want{categoryOnly: true, due: q.askAt(host, st)})
		case q.neededShort(host, short):
			q.counters.GapNeeded++
			q.wantMessage(host, source, st, k)
		default:
			q.counters.GapSkipped++
			st.skip[k] = true
		}
	}
}

// resolveByChains releases the counts waiting for their category that the
// chains now show lie under none of our subscriptions.
func (q *sequencer) resolveByChains(host sequencerHost, st *sourceState) {
	covered := q.coveredByAll(host, st)
	if covered <= st.swept {
		// Nothing newly covered; or coverage shrank (a new subscription
		// has no chain yet), and what it covers again later is new.
		st.swept = covered
		return
	}
	st.swept = covered
	for k, w := range st.wanted {
		if w.categoryOnly && k <= covered {
			delete(st.wanted, k)
			st.skip[k] = true
			q.counters.GapSkipped++
		}
	}
}

// wantMessage records that count k is needed: from the archive if the host
// already stores it (delivered before a restart), otherwise by request.
func (q *sequencer) wantMessage(host sequencerHost, source string, st *sourceState, k uint64) {
	if q.cfg.Archive != nil && q.cfg.Archive.Lookup(source, k) != nil {
		st.skip[k] = true
		return
	}
	st.want(k, &want{due: q.askAt(host, st)})
}

// drain delivers held messages and passes resolved counts from next on.
func (q *sequencer) drain(host sequencerHost, source string, st *sourceState, from LinkID) {
	start := st.next
	for {
		if m := st.held[st.next]; m != nil && !q.delivers(host, m) {
			// Held while we subscribed to its category, which we no
			// longer do: delivering now would break "exactly the
			// subscribers".
			delete(st.held, st.next)
			st.passed(st.next, false)
		} else if m != nil {
			delete(st.held, st.next)
			host.deliver(m, from)
			st.passed(st.next, false)
		} else if st.skip[st.next] {
			delete(st.skip, st.next)
			st.passed(st.next, !st.came[st.next])
			delete(st.came, st.next)
		} else {
			break
		}
		st.next++
	}
	if st.next != start {
		q.progressed[source] = true
	}
}

// learnCategory adds c to the table that maps short IDs back to categories.
func (q *sequencer) learnCategory(c string) {
	short := ShortID(c)
	if !slices.Contains(q.known[short], c) {
		q.known[short] = append(q.known[short], c)
	}
}

func (q *sequencer) shortKnown(short uint32) bool { return len(q.known[short]) > 0 }

// mayNeedUnknown reports whether a category we have never seen, with this
// short ID, could lie under one of our subscriptions: its top-level segment
// hashes like one of theirs.
func (q *sequencer) mayNeedUnknown(host sequencerHost, short uint32) bool {
	return slices.ContainsFunc(host.subscriptions(), func(c string) bool { return ShortID(c)>>16 == short>>16 })
}

// neededShort reports whether any known category with this short ID is one
// we subscribe to. A collision can only make us ask for too much.
func (q *sequencer) neededShort(host sequencerHost, short uint32) bool {
	return slices.ContainsFunc(q.known[short], host.subscriptions().Matches)
}

// flushProgress appends to out, once per step, a Progress for every
// source whose next expected count moved, for the host to persist.
func (q *sequencer) flushProgress(out []Action) []Action {
	switch len(q.progressed) {
	case 0:
		return out
	case 1: // the usual step: one item delivered, nothing to sort
		for id := range q.progressed {
			out = append(out, Progress{Source: id, Next: q.sources[id].next})
		}
		clear(q.progressed)
		return out
	}
	for _, id := range slices.Sorted(maps.Keys(q.progressed)) {
		out = append(out, Progress{Source: id, Next: q.sources[id].next})
	}
	clear(q.progressed)
	return out
}

// What the servant lends the sequencer alone (sequencerHost).

// deliver hands m to the application: it counts toward its source's heat
// for direct delivery too.
func (s *Servant) deliver(m *Multicast, from LinkID) {
	s.counters.Delivered++
	s.out = append(s.out, Deliver{Msg: m, From: from})
	s.direct.delivered(s, m)
	s.blobs.delivered(s, m)
}

func (s *Servant) followingUp() bool { return s.catchUp.followingUp(s) }

func (s *Servant) recoverLinks(source string, search bool) []*link {
	if search {
		return s.treeLinks()
	}
	if l := s.repairs.reversePath(s, source, nil); l != nil {
		return []*link{l}
	}
	return nil
}
