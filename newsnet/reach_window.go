package newsnet

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"time"
)

// Reach windows: a must-read item's Pending and Acks lists hold at most
// ReachIdentities readers, which leaves the rest of a large audience
// unnamed. The readers take turns instead. Every servant ranks an item's
// identity blobs the same way, by a hash of item and blob, and in turn k
// of a cycle of ReachWindowTurns keeps the first ReachIdentities at or
// after the k-th of as many equal points of the hash space (wrapping
// round). The first n under one common order are composable: a servant's
// window of its subtree is the window of its down-servants' windows and
// its own blob, so the publisher gets the window of the whole tree. A
// turn lasts ReachWindowEvery; as long as no segment between two points
// holds more than ReachIdentities readers (16,384 at the default 256),
// the publisher has heard every name once each cycle. Servants agree on
// the turn by the clock; a servant a little off sends a neighbouring
// window for a moment, which is only another sample of the same names.

// ReachWindowTurns is the number of turns in a cycle of reach windows.
const ReachWindowTurns = 64

// ReachWindowEvery is how long one window lasts: six report periods, so
// a list that changes with its turn is sent up once in six periods. A
// cycle is ReachWindowTurns of them.
func ReachWindowEvery(c Config) time.Duration { return 6 * c.ReportPeriod }

// turnAt is the turn of the cycle at now.
func (r *reachReports) turnAt(now time.Time) int {
	every := ReachWindowEvery(*r.cfg)
	if every <= 0 {
		return 0
	}
	return int(uint64(now.UnixNano()/int64(every)) % ReachWindowTurns)
}

// reachWindow returns the n blobs of bs (more than n, distinct) that
// follow turn's point of the hash space of item.
func reachWindow(item [16]byte, bs [][]byte, turn, n int) [][]byte {
	type ranked struct {
		dist uint64 // from the turn's point, wrapping
		hash [32]byte
		blob []byte
	}
	point := uint64(turn) * (^uint64(0)/ReachWindowTurns + 1)
	rs := make([]ranked, len(bs))
	for i, b := range bs {
		h := sha256.New()
		h.Write(item[:])
		h.Write(b)
		var sum [32]byte
		h.Sum(sum[:0])
		rs[i] = ranked{dist: binary.BigEndian.Uint64(sum[:8]) - point, hash: sum, blob: b}
	}
	slices.SortFunc(rs, func(x, y ranked) int {
		if x.dist != y.dist {
			if x.dist < y.dist {
				return -1
			}
			return 1
		}
		if c := bytes.Compare(x.hash[:], y.hash[:]); c != 0 {
			return c
		}
		return bytes.Compare(x.blob, y.blob)
	})
	out := make([][]byte, n)
	for i := range out {
		out[i] = rs[i].blob
	}
	return out
}
