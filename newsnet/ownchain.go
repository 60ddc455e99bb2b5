package newsnet

import (
	"slices"
	"strings"
)

// Chains is the publisher's side of chain.go: for every category a source
// published under, and every ancestor of those, the count of its latest
// message there, as Multicast.Lasts carries it. The core keeps one for its
// own publications; a host that rebuilds messages from its store (an
// archive answering a catch-up) can keep one per source it reads through.
type Chains struct {
	last     map[string]uint64 // category or ancestor → latest count under it
	lasts    []LastCount       // the same, by ShortID, as messages carry it
	complete bool              // the whole past is in it (the core's own)
}

// Add records a message of count under category c.
func (o *Chains) Add(c string, count uint64) {
	if o.last == nil {
		o.last = map[string]uint64{}
	}
	for end := 0; end < len(c); {
		j := strings.IndexByte(c[end+1:], '/')
		if j < 0 {
			end = len(c)
		} else {
			end += 1 + j
		}
		prefix := c[:end]
		if count <= o.last[prefix] {
			continue
		}
		o.last[prefix] = count
		short := ShortID(prefix)
		if i, found := findLast(o.lasts, short); found {
			o.lasts[i].Count = max(o.lasts[i].Count, count) // a collision keeps the later
		} else {
			o.lasts = slices.Insert(o.lasts, i, LastCount{Short: short, Count: count})
		}
	}
}

// Lasts returns the Lasts of the next message (a copy: earlier messages
// keep theirs).
func (o *Chains) Lasts() []LastCount { return slices.Clone(o.lasts) }

// Reset forgets everything (a hole in what the host reads).
func (o *Chains) Reset() { *o = Chains{} }

// restoredChains rebuilds the publisher's chains after a restart, with
// ownCount publications made: from the host's record (Config.OwnLast),
// else from its archive of its own messages when that is small enough to
// read at start.
func restoredChains(cfg *Config, ownCount uint64) Chains {
	var o Chains
	switch {
	case cfg.OwnLast != nil:
		for c, k := range cfg.OwnLast {
			if ValidCategory(c) == nil && k > 0 {
				o.Add(c, k)
			}
		}
		o.complete = true
	case ownCount == 0:
		o.complete = true
	case cfg.Archive != nil && ownCount <= maxGap:
		complete := true
		for k := uint64(1); k <= ownCount; k++ {
			if m := cfg.Archive.Lookup(cfg.Source, k); m != nil {
				o.addMessage(m)
			} else {
				complete = false
			}
		}
		o.complete = complete
	}
	return o
}
