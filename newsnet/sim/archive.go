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

// archiveIndex orders a simulated host's Archive by source, then count, so
// that a catch-up page is read from where it starts rather than by a scan
// of the whole store (Archive.CatchUp, which a servant with thousands of
// items stored asked for at every page). It answers as Archive.CatchUp
// does; TestArchiveIndexAnswersAsTheStore checks that.
//
// Entries come in through Node.store along with the Archive's own. n counts
// them: the store can be changed otherwise only by deleting from it (a
// test that clears it), so a count that no longer matches the store's
// tells that it did, and the index is dropped and built again.
type archiveIndex struct {
	n       int
	sources []string              // sorted
	runs    map[string][]archived // per source, by count
}

func newArchiveIndex(a Archive) *archiveIndex {
	x := &archiveIndex{runs: make(map[string][]archived)}
	for k, e := range a {
		x.runs[k.source] = append(x.runs[k.source], e)
	}
	for src, run := range x.runs {
		x.sources = append(x.sources, src)
		slices.SortFunc(run, func(p, q archived) int { return cmp.Compare(p.msg.Count, q.msg.Count) })
	}
	slices.Sort(x.sources)
	x.n = len(a)
	return x
}

// add indexes an entry that was new to the store.
func (x *archiveIndex) add(e archived) {
	src := e.msg.Source
	run, ok := x.runs[src]
	if !ok {
		i, _ := slices.BinarySearch(x.sources, src)
		x.sources = slices.Insert(x.sources, i, src)
	}
	i := len(run)
	if i > 0 && run[i-1].msg.Count > e.msg.Count { // mostly, counts come in order
		i, _ = slices.BinarySearchFunc(run, e.msg.Count, func(p archived, c uint64) int { return cmp.Compare(p.msg.Count, c) })
	}
	x.runs[src] = slices.Insert(run, i, e)
	x.n++
}

// catchUp is Archive.CatchUp over the index.
func (x *archiveIndex) catchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	if limit <= 0 {
		return nil
	}
	var out []*newsnet.Multicast
	for _, src := range x.sources {
		run := x.runs[src]
		next, followed := known[src]
		if followed {
			i, _ := slices.BinarySearchFunc(run, next, func(p archived, c uint64) int { return cmp.Compare(p.msg.Count, c) })
			run = run[i:]
		}
		for _, e := range run {
			if (followed || !e.at.Before(since)) && cats.Matches(e.msg.Category) {
				if out = append(out, e.msg); len(out) == limit {
					return out
				}
			}
		}
	}
	return out
}

// store keeps m in the host's store, as Archive.put, and in its index.
func (nd *Node) store(m *newsnet.Multicast, at time.Time) {
	before := len(nd.Store)
	if nd.index != nil && nd.index.n != before {
		nd.index = nil // the store changed behind it; catchUp builds it again
	}
	nd.Store.put(m, at)
	if len(nd.Store) > before && nd.index != nil {
		nd.index.add(archived{m, at})
	}
}

// catchUp answers a catch-up page from the host's store through its index,
// built afresh when the store changed behind it.
func (nd *Node) catchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	if nd.index == nil || nd.index.n != len(nd.Store) {
		nd.index = newArchiveIndex(nd.Store)
	}
	return nd.index.catchUp(cats, known, since, limit)
}
