package newsnet

import (
	"hash/fnv"
	"strings"
)

// ShortID is the short form of a category carried in message histories
// (JP3679935B2 ¶0106-0107: past message IDs may be sent in a shortened,
// hashed form): 16 bits of hash of the top-level segment ("sales" of
// "sales/emea"), then 16 bits of hash of the whole category. A receiver that
// has never seen a category can still tell from the top half that it cannot
// lie under any of its subscriptions, and skip it without asking. A
// collision can only make a receiver ask for something it did not need,
// never skip what it needed.
func ShortID(category string) uint32 {
	top, _, _ := strings.Cut(category, "/")
	return uint32(hash16(top))<<16 | uint32(hash16(category))
}

func hash16(s string) uint16 {
	h := fnv.New32a()
	h.Write([]byte(s))
	v := h.Sum32()
	return uint16(v>>16) ^ uint16(v)
}

// ownHistory is the publisher's record of its recent categories, newest
// last, bounded by the history window.
type ownHistory struct {
	shorts []uint32
	limit  int
}

func (h *ownHistory) add(category string) {
	h.shorts = append(h.shorts, ShortID(category))
	if over := len(h.shorts) - h.limit; over > 0 {
		h.shorts = append(h.shorts[:0], h.shorts[over:]...)
	}
}

// runs encodes the recorded categories newest first, run-length encoded.
func (h *ownHistory) runs() []HistoryRun {
	var out []HistoryRun
	for i := len(h.shorts) - 1; i >= 0; i-- {
		if n := len(out); n > 0 && out[n-1].Short == h.shorts[i] {
			out[n-1].Len++
			continue
		}
		out = append(out, HistoryRun{Short: h.shorts[i], Len: 1})
	}
	return out
}

// historyShort returns the short ID of count k as described by the history
// of the message with count, and whether the history reaches back that far.
func historyShort(history []HistoryRun, count, k uint64) (uint32, bool) {
	if k >= count || k == 0 {
		return 0, false
	}
	back := count - k // 1 for the message just before
	for _, r := range history {
		if back <= uint64(r.Len) {
			return r.Short, true
		}
		back -= uint64(r.Len)
	}
	return 0, false
}

// restoredHistory rebuilds the publisher's history window after a
// restart, with ownCount publications made, from the host's archive of its
// own messages.
func restoredHistory(cfg *Config, ownCount uint64) ownHistory {
	h := ownHistory{limit: cfg.HistoryWindow}
	if cfg.Archive == nil || ownCount == 0 {
		return h
	}
	from := uint64(1)
	if ownCount > uint64(cfg.HistoryWindow) {
		from = ownCount - uint64(cfg.HistoryWindow) + 1
	}
	for k := from; k <= ownCount; k++ {
		if m := cfg.Archive.Lookup(cfg.Source, k); m != nil {
			h.add(m.Category)
		} else {
			h = ownHistory{limit: cfg.HistoryWindow} // a hole: start afresh
		}
	}
	return h
}

// historyLen is how many earlier counts a history describes.
func historyLen(history []HistoryRun) uint64 {
	var n uint64
	for _, r := range history {
		n += uint64(r.Len)
	}
	return n
}
