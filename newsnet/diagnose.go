package newsnet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Diagnose describes the servant's delivery state in a few lines: its
// place in the tree, the catch-ups queued and the sequence of every
// source (next count, what waits in the save buffer, what is asked for).
// It is for logs and failing tests: when a servant holds fewer items
// than it should, this says which mechanism is still waiting.
func (s *Servant) Diagnose() string {
	var b strings.Builder
	up := ServantID("")
	if s.up != nil {
		up = s.up.peer
	}
	fmt.Fprintf(&b, "%s: role %s, up %q, %d downs, self %v, own count %d\n", s.id, s.Role(), up, len(s.downs), s.self, s.ownCount)
	if s.connector.active {
		attempt := ServantID("")
		if s.connector.attempt != nil {
			attempt = s.connector.attempt.peer
		}
		fmt.Fprintf(&b, "  connector: trying %q, %d targets left, %d redirects, round %d, retry in %v\n",
			attempt, len(s.connector.targets), s.connector.redirects, s.connector.rounds, s.connector.retryAt.Sub(s.now))
	}
	for i, run := range s.catchUp.runs {
		fmt.Fprintf(&b, "  catch-up %d: cats %v since %d followed %v history %v started %v sent %v timeouts %d known %v\n",
			i, run.cats, run.since, run.followed, run.history, run.started, !run.sentAt.IsZero(), run.timeouts, run.known)
	}
	if !s.catchUp.again.IsZero() {
		fmt.Fprintf(&b, "  catch-up again in %v\n", s.catchUp.again.Sub(s.now))
	}
	if len(s.catchUp.deferred) > 0 {
		fmt.Fprintf(&b, "  %d live items deferred\n", len(s.catchUp.deferred))
	}
	for _, id := range slices.Sorted(maps.Keys(s.seq.sources)) {
		st := s.seq.sources[id]
		fmt.Fprintf(&b, "  source %s: next %d, held %s, skipped above %s, wanted %s, arrival %d",
			id, st.next, countRange(maps.Keys(st.held)), countRange(maps.Keys(st.skip)), countRange(maps.Keys(st.wanted)), st.arrival)
		if len(st.wanted) > 0 {
			attempts := map[int]int{}
			for _, w := range st.wanted {
				attempts[w.attempts]++
			}
			fmt.Fprintf(&b, " (attempts: %v, due in %v)", attempts, st.due.Sub(s.now))
		}
		if o := st.open; o != nil {
			fmt.Fprintf(&b, "; opening: met at %d, first owed in (%d, %d], probing %d (try %d), %d probed, %d kept, floor %d",
				o.first, o.lo, o.hi, o.probe, o.attempts, len(o.probed), len(o.kept)+len(o.keptEdges), o.floor)
		}
		b.WriteByte('\n')
	}
	for _, key := range s.edges.sortedKeys() {
		if e := s.edges[key]; e.Source != s.cfg.Source {
			fmt.Fprintf(&b, "  edge %s %s: count %d\n", e.Source, e.Category, e.Count)
		}
	}
	for _, l := range s.treeLinks() {
		for _, src := range slices.Sorted(maps.Keys(l.except)) {
			e := l.except[src]
			fmt.Fprintf(&b, "  exception on the link to %s: %s's %v from %d, lapses in %v\n", l.peer, src, e.cats, e.from, e.expires.Sub(s.now))
		}
	}
	for _, src := range slices.Sorted(maps.Keys(s.direct.claims)) {
		c := s.direct.claims[src]
		fmt.Fprintf(&b, "  cover toward %s over the link to %s: %v from %d\n", src, c.link.peer, c.cats, c.from)
	}
	for _, src := range slices.Sorted(maps.Keys(s.direct.subs)) {
		sub := s.direct.subs[src]
		fmt.Fprintf(&b, "  direct from %s: %v, linked %v, first %d\n", src, sub.cats, sub.link != nil, sub.first)
	}
	fmt.Fprintf(&b, "  counters %+v", s.counters)
	return b.String()
}

// countRange sums up a set of counts as "n [lowest..highest]".
func countRange(counts func(yield func(uint64) bool)) string {
	n, lo, hi := 0, uint64(0), uint64(0)
	for k := range counts {
		if n == 0 || k < lo {
			lo = k
		}
		hi = max(hi, k)
		n++
	}
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d [%d..%d]", n, lo, hi)
}
