package sim

import (
	"cmp"
	"slices"
	"time"

	"newsdesk/newsnet"
)

// Archive is a simulated host store: the messages a servant delivered or
// published, by source and count, with the virtual time they were stored.
// It survives a servant's restart, as the bbolt store does.
type Archive map[archiveKey]archived

type archiveKey struct {
	source string
	count  uint64
}

type archived struct {
	msg *newsnet.Multicast
	at  time.Time
}

var _ newsnet.Archive = Archive(nil)

// Lookup implements newsnet.Archive.
func (a Archive) Lookup(source string, count uint64) *newsnet.Multicast {
	return a[archiveKey{source, count}].msg
}

// CatchUp implements newsnet.Archive.
func (a Archive) CatchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	var out []*newsnet.Multicast
	for k, e := range a {
		next, followed := known[k.source]
		switch {
		case !cats.Matches(e.msg.Category):
		case followed && k.count >= next, !followed && !e.at.Before(since):
			out = append(out, e.msg)
		}
	}
	slices.SortFunc(out, func(x, y *newsnet.Multicast) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Count, y.Count))
	})
	return out[:min(len(out), limit)]
}

func (a Archive) put(m *newsnet.Multicast, at time.Time) {
	if k := (archiveKey{m.Source, m.Count}); m.Count > 0 {
		if _, dup := a[k]; !dup {
			a[k] = archived{m, at}
		}
	}
}
