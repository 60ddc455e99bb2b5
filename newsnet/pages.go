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

// pageReads serves catch-up pages to requesters below an archive: it asks
// the host to read each page off the loop (ReadPage), keeps the reads in
// flight, and sends a page that was read back along the requester's trail
// with its CatchUpDone, leaving out what an audience withholds. The links'
// requests (requests.go) decide when a page may be read; catch-up's own
// side is catchUps' (catchup.go). It reaches the servant through pageHost,
// met by core; pages_test.go drives it through a fake.
type pageReads struct {
	cfg   *Config        // the servant's: Archive, CatchUpLimit
	aud   *audienceState // the servant's: what is withheld from whom
	reads map[uint64]pageRequest
	seq   uint64 // the last ReadPage's Req
}

// pageHost is what page reads need of the servant. *Servant implements
// it.
type pageHost interface {
	// flowHost: pages go out through the link's flow (flow.go), and
	// serveParked gives a link's waiting requests their turn.
	flowHost
	act(a Action)
	upLink() *link
	linkByID(id LinkID) *link
	sortedLinks() []*link
}

var _ pageHost = (*Servant)(nil)

func newPageReads(cfg *Config, aud *audienceState) pageReads {
	return pageReads{cfg: cfg, aud: aud}
}

// reading is how many pages are being read.
func (p *pageReads) reading() int { return len(p.reads) }

// serve answers one page of catch-up request c from l: from the archive,
// read off the loop, or at once with nothing when there is none.
func (p *pageReads) serve(h pageHost, l *link, c *CatchUp) {
	if p.cfg.Archive == nil {
		p.send(h, l, c.Trail, nil)
		return
	}
	known := make(map[string]uint64, len(c.Known))
	for _, k := range c.Known {
		known[k.Source] = k.Next
	}
	if p.reads == nil {
		p.reads = map[uint64]pageRequest{}
	}
	p.seq++
	p.reads[p.seq] = pageRequest{link: l.id, trail: c.Trail}
	l.requests.paging = true
	h.tally().PagesRead++
	h.act(ReadPage{Req: p.seq, Categories: c.Categories, Known: known,
		Since: time.Unix(0, c.Since), Limit: p.cfg.CatchUpLimit})
}

// read sends a page the host read, when its link is still there, and
// lets the requests waiting for a read have their turn.
func (p *pageReads) read(h pageHost, ev PageRead) {
	r, ok := p.reads[ev.Req]
	if !ok {
		return
	}
	delete(p.reads, ev.Req)
	if l := h.linkByID(r.link); l != nil {
		l.requests.paging = false
		p.send(h, l, r.trail, ev.Msgs)
	}
	// The reads are shared by all links: every link's parked requests
	// have their turn, in link order.
	for _, l := range h.sortedLinks() {
		if len(l.requests.parked) > 0 {
			h.serveParked(l)
		}
	}
}

// send sends a catch-up page and its end to the requester at the end of
// trail over l.
func (p *pageReads) send(h pageHost, l *link, trail []ServantID, page []*Multicast) {
	next := map[string]uint64{}
	for _, m := range page {
		if !p.aud.notForRequester(trail[0], m) && !p.aud.withheldFrom(l, h.upLink(), m) {
			l.flow.sendBulk(h, l, &Recovered{Trail: trail, Source: m.Source, Msg: m})
		}
		next[m.Source] = max(next[m.Source], m.Count+1)
	}
	done := &CatchUpDone{Trail: trail, More: len(page) >= p.cfg.CatchUpLimit}
	for _, src := range slices.Sorted(maps.Keys(next)) {
		done.Next = append(done.Next, SourceCount{Source: src, Next: next[src]})
	}
	l.flow.sendBulk(h, l, done)
}
