package newsnet

import "time"

// Items that overtake others. Over one path a source's items arrive in
// count order (every link keeps order and every relay forwards as items
// come), so a gap is a loss and is asked for at once. Over two paths of
// different lengths they do not: when a subscriber's direct link starts
// (direct.go), its first items arrive ahead of those still on their way
// over the tree's relays, and the subscriber relays them into its subtree
// ahead of the tree's copies too; the same happens, more rarely, when the
// tree re-forms shorter. A gap revealed by an item that came a shorter way
// than one of the source's items came recently is most likely still in
// flight on the longer way, so asking at once would cost a request and an
// answer for an item that arrives anyway.
//
// So a servant keeps, per source, the longest path (Multicast.Hops + 1) its
// items came over within longerPathMemory. An item that comes a shorter
// way opens a grace of overtakeGrace: the counts found missing until then
// are asked for when it ends, unless their copies came meanwhile. A real
// loss is still asked for, one grace later than over a single path.
// Nothing is held back from delivery or relaying: the save buffer keeps
// the source's order as it does for any gap. And while the grace is open,
// a copy from the longer path of a count we resolved already is relayed,
// not dropped as a replay: we skipped it (not one of our categories) when
// the item that overtook it came, but a servant below may need it. Hop
// counts do not show every overtaking (a direct subscriber that is also
// the source's tree neighbour gets both copies one hop away, and a busy
// tree link lets the quiet direct one pass it), so beyond the grace a
// relay still passes on the first copy of any count it resolved without
// its item (sourceState.unseen, routing.go's replayed).

// longerPathMemory is how long a longer path is remembered after its last
// item: items of a category that only it still carries may come that
// rarely.
const longerPathMemory = time.Minute

// overtakeGrace is how long a count that an item on a shorter path found
// missing waits for its copy on the longer one: the first wait for a
// retransmission, far above the few milliseconds a relay adds.
func (q *sequencer) overtakeGrace() time.Duration { return q.cfg.RecoverTimeout }

// notePath records that an item of st came over hops links, opening the
// grace when a longer path carried the source's items recently.
func (q *sequencer) notePath(host sequencerHost, st *sourceState, hops uint64) {
	if hops >= st.longest || host.clock().Sub(st.longestAt) > longerPathMemory {
		st.longest, st.longestAt = hops, host.clock()
		return
	}
	st.graceUntil = host.clock().Add(q.overtakeGrace())
}

// askAt is when a count of st found missing now is first asked for: at
// once, or when an open grace ends.
func (q *sequencer) askAt(host sequencerHost, st *sourceState) time.Time {
	if q.overtaking(host, st) {
		return st.graceUntil
	}
	return host.clock()
}

// overtaking reports whether the grace of st is open: an item of the
// source came a shorter way than others within the last overtakeGrace.
func (q *sequencer) overtaking(host sequencerHost, st *sourceState) bool {
	return st.graceUntil.After(host.clock())
}
