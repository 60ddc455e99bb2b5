package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Catch-up pages are read off the loop. Reading a page of 256 items from a
// store takes milliseconds to tens of milliseconds, and a servant that did
// so on its loop under a flood of catch-up requests stopped stepping: its
// heartbeats went late and its tree links were dropped as silent. So the
// core asks its host for a page (ReadPage) and goes on; the host reads it
// elsewhere and hands it back (PageRead), and the core sends it then. At
// most maxPageReads run at a time, one per link (requests.go parks the
// others), so the reads' memory is bounded too.

// ReadPage asks the host to read one catch-up page from its archive
// (Archive.CatchUp with these arguments) off the loop, and to answer with
// a PageRead carrying Req. The host answers every ReadPage it was given
// while the servant runs.
type ReadPage struct {
	Req        uint64
	Categories CategorySet
	Known      map[string]uint64
	Since      time.Time
	Limit      int
}

// PageRead is the host's answer to ReadPage: the messages the archive
// returned for it.
type PageRead struct {
	Req  uint64
	Msgs []*Multicast
}

func (ReadPage) isAction() {}
func (PageRead) isEvent()  {}

// maxPageReads bounds the catch-up pages being read at a time.
const maxPageReads = 2

// pageRequest is a page being read: for whom, and over which link.
type pageRequest struct {
	link  LinkID
	trail []ServantID
}

// serveCatchUp answers one page of catch-up request c from l: from the
// archive, read off the loop, or at once with nothing when there is none.
func (s *Servant) serveCatchUp(l *link, c *CatchUp) {
	if s.cfg.Archive == nil {
		s.sendPage(l, c.Trail, nil)
		return
	}
	known := make(map[string]uint64, len(c.Known))
	for _, k := range c.Known {
		known[k.Source] = k.Next
	}
	if s.pages == nil {
		s.pages = map[uint64]pageRequest{}
	}
	s.pageSeq++
	s.pages[s.pageSeq] = pageRequest{link: l.id, trail: c.Trail}
	l.requests.paging = true
	s.counters.PagesRead++
	s.out = append(s.out, ReadPage{Req: s.pageSeq, Categories: c.Categories, Known: known,
		Since: time.Unix(0, c.Since), Limit: s.cfg.CatchUpLimit})
}

// pageRead sends a page the host read, when its link is still there, and
// lets the requests waiting for a read have their turn.
func (s *Servant) pageRead(ev PageRead) {
	p, ok := s.pages[ev.Req]
	if !ok {
		return
	}
	delete(s.pages, ev.Req)
	if l := s.links[p.link]; l != nil {
		l.requests.paging = false
		s.sendPage(l, p.trail, ev.Msgs)
	}
	// The reads are shared by all links: every link's parked requests
	// have their turn, in link order.
	for _, l := range s.sortedLinks() {
		if len(l.requests.parked) > 0 {
			l.requests.serveParked(s, l)
		}
	}
}

// sendPage sends a catch-up page and its end to the requester at the end
// of trail over l.
func (s *Servant) sendPage(l *link, trail []ServantID, page []*Multicast) {
	next := map[string]uint64{}
	for _, m := range page {
		if !s.aud.notForRequester(trail[0], m) && !s.aud.withheldFrom(l, s.up, m) {
			l.flow.sendBulk(s, l, &Recovered{Trail: trail, Source: m.Source, Msg: m})
		}
		next[m.Source] = max(next[m.Source], m.Count+1)
	}
	done := &CatchUpDone{Trail: trail, More: len(page) >= s.cfg.CatchUpLimit}
	for _, src := range slices.Sorted(maps.Keys(next)) {
		done.Next = append(done.Next, SourceCount{Source: src, Next: next[src]})
	}
	l.flow.sendBulk(s, l, done)
}
