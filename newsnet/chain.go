package newsnet

import (
	"math"
)

// Gap classification without a window. The history (JP3679935B2) tells a
// receiver the categories of a bounded number of earlier counts, so a run
// of foreign items longer than the window used to cost a request for
// their categories even when nothing was lost. Every message therefore
// also carries, for every category and ancestor the source ever used, its
// latest count there (Lasts). A subscriber to S keeps one chain per source:
// the counts up to `covered` hold no message under S that it has not
// accounted for. Each header links the chain on ("nothing under S between
// p and c"), so a lossless stream of any mix of categories resolves every
// gap at once, and a real loss names the very count that is missing. The
// history remains for what the chain cannot tell: a retransmitted message
// from a store that kept no Lasts.

// chain is what a receiver knows of one source's counts under one of its
// subscriptions.
type chain struct {
	covered uint64            // every count ≤ covered under the subscription is accounted for
	after   map[uint64]uint64 // p → c: no count under it in (p, c), and c is accounted for
}

// link records that no count under the subscription lies in (p, c) and
// that c is accounted for; base is the highest count resolved anyway.
func (ch *chain) link(p, c, base uint64) {
	old := ch.covered
	ch.covered = max(ch.covered, base)
	switch {
	case c <= ch.covered:
	case p <= ch.covered:
		ch.covered = c
	default:
		if ch.after == nil {
			ch.after = map[uint64]uint64{}
		}
		ch.after[p] = max(ch.after[p], c)
	}
	ch.follow(old)
}

// upTo returns covered after taking in base and the links it reaches.
func (ch *chain) upTo(base uint64) uint64 {
	if base > ch.covered {
		old := ch.covered
		ch.covered = base
		ch.follow(old)
	}
	return ch.covered
}

// follow takes the links that covered, moved on from old, now reaches.
// Every stored link starts above the covered count of its time, so only
// those starting in (old, covered] can be new; a short stretch is looked
// up count by count, a long one by walking the links.
func (ch *chain) follow(old uint64) {
	for ch.covered > old && len(ch.after) > 0 {
		reach := ch.covered
		if reach-old <= uint64(len(ch.after)) {
			for p := old + 1; p <= reach; p++ {
				if c, ok := ch.after[p]; ok {
					ch.covered = max(ch.covered, c)
					delete(ch.after, p)
				}
			}
		} else {
			for p, c := range ch.after {
				if p <= reach {
					ch.covered = max(ch.covered, c)
					delete(ch.after, p)
				}
			}
		}
		old = reach
	}
}

// header is what sequencing reads of a message or an edge.
type header struct {
	source, category string
	count            uint64
	history          []HistoryRun // decoded from historyWire when first read
	historyWire      []byte
	lasts            []LastCount
	lastsComplete    bool
}

func headerOf(m *Multicast) header {
	return header{m.Source, m.Category, m.Count, m.History, m.historyWire, m.Lasts, m.LastsComplete}
}

func (e *LatestHeader) header() header {
	return header{e.Source, e.Category, e.Count, e.History, e.historyWire, e.Lasts, e.LastsComplete}
}

// runs returns h's history, decoding it once: only a gap, or a source's
// first message, reads it.
func (h *header) runs() []HistoryRun {
	if h.history == nil && h.historyWire != nil {
		h.history, h.historyWire = runsOf(nil, h.historyWire), nil
	}
	return h.history
}

// lastUnder returns the source's latest count under sub before h, and
// whether h tells it.
func (h *header) lastUnder(sub string) (uint64, bool) {
	i, found := findLast(h.lasts, ShortID(sub))
	switch {
	case found:
		return h.lasts[i].Count, true
	case h.lastsComplete:
		return 0, true // never published under it
	}
	return 0, false
}

// findLast finds the entry for short in lasts (sorted by Short), or where
// it would go.
func findLast(lasts []LastCount, short uint32) (int, bool) {
	// A plain loop: the generic search with a comparison func was the
	// hottest line of a burst (one call per subscription per message).
	lo, hi := 0, len(lasts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if lasts[mid].Short < short {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(lasts) && lasts[lo].Short == short
}

// linkChains takes h into the chains of st, one per subscription, and
// returns the counts it names that this servant needs: the previous
// message under a subscription, when it is not resolved yet. (A chain's
// covered counts include these: "accounted for" means held or asked for,
// so the caller must make sure they are asked for as messages.)
func (q *sequencer) linkChains(host sequencerHost, st *sourceState, h *header) (missing []uint64) {
	base := st.next - 1
	for _, sub := range host.subscriptions() {
		if sub == AllCategories {
			continue
		}
		p, ok := q.aud.lastForMe(h, sub)
		if !ok {
			continue
		}
		ch := st.chains[sub]
		if ch == nil {
			if st.chains == nil {
				st.chains = map[string]*chain{}
			}
			ch = &chain{covered: base}
			st.chains[sub] = ch
		}
		ch.link(p, h.count, base)
		if p >= st.next {
			missing = append(missing, p)
		}
	}
	return missing
}

// chainsCover reports whether count k lies under none of our
// subscriptions (unless it is accounted for already), as the chains know it.
func (q *sequencer) chainsCover(host sequencerHost, st *sourceState, k uint64) bool {
	return k <= q.coveredByAll(host, st)
}

// coveredByAll is the highest count up to which every chain of st is
// covered: the least of them (everything when we subscribe to nothing,
// nothing when a subscription has no chain yet or is AllCategories).
func (q *sequencer) coveredByAll(host sequencerHost, st *sourceState) uint64 {
	if len(host.subscriptions()) == 0 {
		return math.MaxUint64
	}
	least := uint64(math.MaxUint64)
	for _, sub := range host.subscriptions() {
		ch := st.chains[sub]
		if sub == AllCategories || ch == nil {
			return 0
		}
		least = min(least, ch.upTo(st.next-1))
	}
	return least
}
