package newsnet

import (
	"slices"
	"strings"
)

// ownChains is the publisher's side of chain.go: per top-level category
// and per deeper ancestor of every category it published in, the count of
// its latest publication there. complete says it knows its whole past;
// otherwise what it does not know is left out of the messages, and
// receivers fall back on the history for it.
type ownChains struct {
	last     map[string]uint64 // every ancestor, top level included → latest count under it
	tops     []TopCount        // the top-level entries of last, by Short
	complete bool
}

// add records a publication of count under category c.
func (o *ownChains) add(c string, count uint64) {
	if o.last == nil {
		o.last = map[string]uint64{}
	}
	for i := 0; ; {
		j := strings.IndexByte(c[i:], '/')
		prefix := c
		if j >= 0 {
			prefix = c[:i+j]
		}
		o.last[prefix] = max(o.last[prefix], count)
		if j < 0 {
			break
		}
		i += j + 1
	}
	short := ShortID(topOf(c))
	i, found := findTop(o.tops, short)
	if found {
		o.tops[i].Count = max(o.tops[i].Count, count)
	} else {
		o.tops = slices.Insert(o.tops, i, TopCount{Short: short, Count: count})
	}
}

// fields returns the chain fields of the next publication under c: the
// tops (a copy: earlier messages keep theirs) and the previous count under
// each deeper ancestor of c, as far as they are known.
func (o *ownChains) fields(c string) (tops []TopCount, complete bool, prev []uint64) {
	tops = slices.Clone(o.tops)
	for i, d := 0, 0; ; d++ {
		j := strings.IndexByte(c[i:], '/')
		if j < 0 {
			break
		}
		i += j + 1
		// The ancestor at level d+1 ends at the next '/' after i, or is c.
		end := strings.IndexByte(c[i:], '/')
		prefix := c
		if end >= 0 {
			prefix = c[:i+end]
		}
		p, ok := o.last[prefix]
		if !ok && !o.complete {
			break // unknown from here down
		}
		prev = append(prev, p)
	}
	return tops, o.complete, prev
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
