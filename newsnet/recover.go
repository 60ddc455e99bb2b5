package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Retransmission of missed messages along the reverse path (JP3679935B2
// with JP5458944B2's reverse-path mechanism): the requester's side. The
// sequencer asks for what it misses and classifies the answers; the
// servant takes the items that come back (they may go on down the tree).
// The relays on the way are requestRelay's (relay.go).

// tickRecover sends the requests that are due and gives up on counts that
// ran out of attempts.
func (q *sequencer) tickRecover(host sequencerHost) {
	var due []string
	for id, st := range q.sources {
		if len(st.wanted) > 0 {
			due = append(due, id)
		}
	}
	slices.Sort(due) // deterministic order of requests
	for _, id := range due {
		q.requestDue(host, id, q.sources[id])
	}
}

// requestDue sends one request for the due message counts and one for the
// due category counts of a source; counts that exhausted their attempts are
// recorded as lost and released. At most Config.RecoverWindow counts of a
// source are asked for at a time, so the answers in flight toward this
// servant stay bounded however much it missed; the rest wait their turn.
// A detached servant asks nothing: a request would have nowhere to go, and
// an attempt spent then would bring a count closer to being given up for
// want of a link rather than of a holder.
func (q *sequencer) requestDue(host sequencerHost, source string, st *sourceState) {
	if len(st.wanted) == 0 || host.clock().Before(st.due) || host.followingUp() || host.detached() {
		return
	}
	var msgs, cats []uint64
	var lost uint64
	asked, search := 0, false
	for _, w := range st.wanted {
		if w.attempts > 0 && host.clock().Before(w.due) {
			asked++
		}
	}
	var next time.Time // the earliest due left
	later := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, k := range slices.Sorted(maps.Keys(st.wanted)) {
		w := st.wanted[k]
		if host.clock().Before(w.due) {
			later(w.due)
			continue
		}
		if w.attempts >= q.cfg.RecoverAttempts && !q.stillAnswering(host, st, w) {
			delete(st.wanted, k)
			st.skip[k] = true
			lost++
			continue
		}
		if asked >= q.cfg.RecoverWindow {
			// The window is full: look again a little later (answers
			// free it up) rather than on every message.
			later(host.clock().Add(q.cfg.RecoverTimeout / 4))
			continue
		}
		asked++
		w.attempts++
		search = search || w.attempts > searchAfter
		w.due = host.clock().Add(q.cfg.RecoverTimeout << (min(w.attempts, q.cfg.RecoverAttempts) - 1))
		later(w.due)
		if w.categoryOnly {
			cats = append(cats, k)
			q.counters.AskedClasses++
		} else {
			msgs = append(msgs, k)
			q.counters.AskedMessages++
		}
	}
	st.due = next
	if lost > 0 {
		q.noteLost(host, source, lost)
		q.drain(host, source, st, 0)
	}
	// The first requests follow the reverse path; later ones search the
	// whole tree, for the reverse path may be stale: the tree re-formed
	// since the source's last item and nothing has passed to correct it.
	for _, l := range host.recoverLinks(source, search) {
		q.sendRecover(host, l, &Recover{Source: source, Counts: msgs, Search: search, Trail: []ServantID{q.cfg.ID}})
		q.sendRecover(host, l, &Recover{Source: source, Counts: cats, CategoriesOnly: true, Search: search, Trail: []ServantID{q.cfg.ID}})
	}
}

// stillAnswering reports whether a count that used up its attempts is
// asked for again: while answers to our requests for its source still
// settle other counts (within the longest wait between two requests), the
// holders are there and busy (a publisher working off a burst's repairs
// on a starved machine, its requests parked behind the answers it owes),
// and giving up would count lost what they are about to send. It gets as
// many attempts again at the longest wait, then is given up whatever
// comes: a count no answer ever settles (its holders gone while a relay's
// cache answers the others) is still counted lost, later.
func (q *sequencer) stillAnswering(host sequencerHost, st *sourceState, w *want) bool {
	longest := q.cfg.RecoverTimeout << (q.cfg.RecoverAttempts - 1)
	return w.attempts < 2*q.cfg.RecoverAttempts && !st.answered.IsZero() && host.clock().Sub(st.answered) < longest
}

// searchAfter is how many requests for a count follow the reverse path
// before the next ones search the tree (about 3 seconds with the default
// timeouts: the time a re-formed tree takes to settle).
const searchAfter = 2

// sendRecover sends r on l, in frames of at most MaxCounts counts.
func (q *sequencer) sendRecover(host sequencerHost, l *link, r *Recover) {
	for counts := r.Counts; len(counts) > 0; {
		n := min(len(counts), MaxCounts)
		part := *r
		part.Counts = counts[:n]
		host.send(l, &part)
		counts = counts[n:]
	}
}

// noteLost records n needed messages of source given up on, for the
// counters and for the host to persist.
func (q *sequencer) noteLost(host sequencerHost, source string, n uint64) {
	q.counters.Lost += n
	host.note("gave up on %d messages of %s: lost", n, source)
	host.act(Lost{Source: source, N: n, Total: q.counters.Lost})
}

// handleRecovered passes an answer back along its trail, or takes it when
// this servant asked. A holder of the source's items lies the way it came:
// that is the reverse path from now on (it may have gone stale).
func (s *Servant) handleRecovered(from *link, r *Recovered) {
	if r.Msg != nil || len(r.Categories) > 0 {
		if st := s.seq.sources[r.Source]; st != nil {
			st.arrival = from.id
		}
		s.noteArrival(from, r.Source, false)
	}
	if !s.repairs.retrace(s, r.Trail, r) {
		return
	}
	s.catchUp.progress(s.now)
	if r.Source == s.cfg.Source {
		return // our own messages, from a catch-up: we have them
	}
	st := s.seq.source(r.Source)
	if m := r.Msg; m != nil && m.Source == r.Source && m.Count > 0 && s.verifiedOn(from, m) {
		s.cache.add(m)
		s.takeRecovered(st, m, from)
	}
	s.seq.takeAnswer(s, r, st)
}

// takeAnswer classifies what an answer to our request tells of the counts
// we asked for (the item itself is the servant's to take: it may go on
// down the tree): the categories of counts asked for by category only, the
// counts whose item is not for us (outside its audience), and the counts
// nobody holds, which are lost. An answer to an opening's probe settles
// the opening (owed.go).
func (q *sequencer) takeAnswer(host sequencerHost, r *Recovered, st *sourceState) {
	for _, cc := range r.Categories {
		if o := st.open; o != nil && cc.Count == o.probe && isNotForYou(cc.Category) {
			// The probed item is not for us, and so not dated for us:
			// give up looking, as for an undated item.
			q.settleOpening(host, r.Source, st, o.fallback())
			continue
		}
		w := st.wanted[cc.Count]
		if w != nil {
			st.answered = host.clock()
		}
		if w != nil && isNotForYou(cc.Category) {
			delete(st.wanted, cc.Count)
			q.counters.GapSkipped++
			st.skip[cc.Count] = true
			continue
		}
		if w == nil || !w.categoryOnly {
			continue
		}
		q.learnCategory(cc.Category)
		delete(st.wanted, cc.Count)
		if host.subscriptions().Matches(cc.Category) {
			q.counters.GapNeeded++
			q.wantMessage(host, r.Source, st, cc.Count)
		} else {
			q.counters.GapSkipped++
			st.skip[cc.Count] = true
		}
	}
	var lost uint64
	for _, k := range r.Missing {
		if st.open != nil {
			q.openingMissing(host, r.Source, st, k)
			continue
		}
		if st.wanted[k] != nil {
			st.answered = host.clock()
			delete(st.wanted, k)
			st.skip[k] = true
			lost++
		}
	}
	if lost > 0 {
		q.noteLost(host, r.Source, lost)
	}
	q.settle(host, r.Source, st, 0)
}

// takeRecovered handles a message that came back from a retransmission
// request or a catch-up: into the sequence when it is at or after what we
// expect. An older one is delivered only as the history a new
// subscription asked for (a category we subscribed to after the message
// went by), and not when it is stored already; anything else below what
// we resolved is a copy (delivered, skipped, or counted lost) and dropped.
//
// A message of a source we follow that we missed, the servants below us
// missed too: the tree brought them nothing we did not have. So it goes on
// down as if live. A servant below that follows the source would find the
// gap and ask itself (the copy saves it the wait), but one that never heard
// of the source, because its first items were held up above us, has no gap
// to find: without the copy it would never learn of them, and count nothing
// lost. (Of a source we never heard of, the tree below us has seen nothing
// either: catch-up brought it, as history or for a time we were away, and
// it is not theirs unasked.)
func (s *Servant) takeRecovered(st *sourceState, m *Multicast, from *link) {
	first := s.seen.add(m.ID)
	if st.next == 0 || m.Count >= st.next {
		if first && st.next > 0 {
			s.relay(m, from, s.links[st.live])
		}
		s.seq.sequence(s, m, 0)
		return
	}
	stored := s.cfg.Archive != nil && s.cfg.Archive.Lookup(m.Source, m.Count) != nil
	if first && !stored && s.seq.delivers(s, m) && s.catchUp.historyWanted(m.Category) {
		s.counters.Delivered++
		s.out = append(s.out, Deliver{Msg: m})
	}
}
