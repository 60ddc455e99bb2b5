package newsnet

import (
	"slices"
	"strings"
)

// ownChains is the publisher's side of chain.go: for every category it
// published under, and every ancestor of those, the count of its latest
// publication there. complete says it knows its whole past; otherwise what
// it does not know is left out of the messages, and receivers fall back on
// the history for it.
type ownChains struct {
	last     map[string]uint64 // category or ancestor → latest count under it
	lasts    []LastCount       // the same, by ShortID, as messages carry it
	complete bool
}

// add records a publication of count under category c.
func (o *ownChains) add(c string, count uint64) {
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

// fields returns the Lasts of the next publication (a copy: earlier
// messages keep theirs) and whether they are complete.
func (o *ownChains) fields() ([]LastCount, bool) {
	return slices.Clone(o.lasts), o.complete
}

// restoreOwnChains rebuilds the publisher's chains after a restart: from
// the host's record (Config.OwnLast), else from its archive of its own
// messages when that is small enough to read at start.
func (s *Servant) restoreOwnChains() {
	switch {
	case s.cfg.OwnLast != nil:
		for c, k := range s.cfg.OwnLast {
			if ValidCategory(c) == nil && k > 0 {
				s.chains.add(c, k)
			}
		}
		s.chains.complete = true
	case s.ownCount == 0:
		s.chains.complete = true
	case s.cfg.Archive != nil && s.ownCount <= maxGap:
		complete := true
		for k := uint64(1); k <= s.ownCount; k++ {
			if m := s.cfg.Archive.Lookup(s.cfg.Source, k); m != nil {
				s.chains.add(m.Category, k)
			} else {
				complete = false
			}
		}
		s.chains.complete = complete
	}
}
