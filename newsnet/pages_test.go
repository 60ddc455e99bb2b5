package newsnet

// Catch-up page reads (pages.go) on their own, through a fake of the
// servant. requests_test.go tests them with the links' budgets through a
// whole servant.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakePageHost has two links and lists the actions and frames out.
type fakePageHost struct {
	*fakeFlowHost
	up, down *link
	acts     []Action
	events   []string
}

// shelf is an archive the page reads only ask whether it is there: the
// host reads pages.
type shelf struct{}

func (shelf) Lookup(string, uint64) *Multicast { return nil }
func (shelf) CatchUp(CategorySet, map[string]uint64, time.Time, int) []*Multicast {
	return nil
}

func newFakePages(archive Archive) (*pageReads, *fakePageHost) {
	h := &fakePageHost{fakeFlowHost: newFakeFlowHost(), up: &link{id: 1, kind: linkUp, peer: "up"}, down: &link{id: 2, kind: linkDown, peer: "down"}}
	h.cfg.Archive, h.cfg.CatchUpLimit, h.cfg.LinkBuffer = archive, 2, 1<<20
	aud := newAudienceState(&h.cfg, &h.counters)
	p := newPageReads(&h.cfg, &aud)
	return &p, h
}

func (h *fakePageHost) act(a Action)  { h.acts = append(h.acts, a) }
func (h *fakePageHost) upLink() *link { return h.up }
func (h *fakePageHost) serveParked(l *link) {
	h.events = append(h.events, "parked "+string(l.peer))
}
func (h *fakePageHost) sortedLinks() []*link {
	var ls []*link
	for _, l := range []*link{h.up, h.down} {
		if l != nil {
			ls = append(ls, l)
		}
	}
	return ls
}
func (h *fakePageHost) linkByID(id LinkID) *link {
	for _, l := range h.sortedLinks() {
		if l.id == id {
			return l
		}
	}
	return nil
}
func (h *fakePageHost) send(l *link, m Message) {
	h.fakeFlowHost.send(l, m)
	switch m := m.(type) {
	case *Recovered:
		h.events = append(h.events, fmt.Sprintf("%s: %s/%d to %v", l.peer, m.Msg.Source, m.Msg.Count, m.Trail))
	case *CatchUpDone:
		h.events = append(h.events, fmt.Sprintf("%s: done more=%v next=%v to %v", l.peer, m.More, m.Next, m.Trail))
	}
}

func (h *fakePageHost) took() string {
	s := strings.Join(h.events, ", ")
	h.events = nil
	return s
}

// Without an archive a page is answered at once, empty and last.
func TestPagesWithoutArchiveEndAtOnce(t *testing.T) {
	p, h := newFakePages(nil)
	p.serve(h, h.down, &CatchUp{Trail: []ServantID{"req", "down"}})
	if got, want := h.took(), "down: done more=false next=[] to [req down]"; got != want || len(h.acts) != 0 || p.reading() != 0 {
		t.Fatalf("sent %s, acts %v, reading %d; want %s and no read", got, h.acts, p.reading(), want)
	}
}

// An archive's page is read off the loop: the host is asked to read it
// (ReadPage) and the link marked paging; when the host hands the page
// back, its items and its end (with each source's next count, more to
// come when the page is full) go to the requester, and every link's
// waiting requests have their turn. A page whose link went, and an
// answer nobody asked for, send nothing.
// Reference: DESIGN.md, bounded memory, bounded waits.
func TestPagesReadOffTheLoop(t *testing.T) {
	p, h := newFakePages(shelf{})
	h.down.requests.parked = []parkedRequest{{msg: &CatchUp{}}}
	since := time.Unix(1_700_000_000, 0)
	p.serve(h, h.down, &CatchUp{Trail: []ServantID{"req", "down"}, Categories: NewCategorySet("news"),
		Known: []SourceCount{{Source: "pub", Next: 7}}, Since: since.UnixNano()})
	if len(h.acts) != 1 || p.reading() != 1 || !h.down.requests.paging || h.counters.PagesRead != 1 {
		t.Fatalf("acts %v, reading %d, paging %v, read %d", h.acts, p.reading(), h.down.requests.paging, h.counters.PagesRead)
	}
	rp := h.acts[0].(ReadPage)
	if rp.Req != 1 || rp.Known["pub"] != 7 || !rp.Since.Equal(since) || rp.Limit != 2 || !rp.Categories.Has("news") {
		t.Fatalf("asked to read %+v", rp)
	}
	p.read(h, PageRead{Req: 9})
	if got := h.took(); got != "" {
		t.Fatalf("an answer nobody asked for: %s", got)
	}
	p.read(h, PageRead{Req: 1, Msgs: []*Multicast{{Source: "pub", Count: 7}, {Source: "a", Count: 3}}})
	if got, want := h.took(), "down: pub/7 to [req down], down: a/3 to [req down], down: done more=true next=[{a 4} {pub 8}] to [req down], parked down"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if p.reading() != 0 || h.down.requests.paging {
		t.Fatalf("reading %d, paging %v after the page", p.reading(), h.down.requests.paging)
	}
	p.serve(h, h.down, &CatchUp{Trail: []ServantID{"req", "down"}})
	h.down = nil
	p.read(h, PageRead{Req: 2, Msgs: []*Multicast{{Source: "pub", Count: 9}}})
	if got := h.took(); got != "" || p.reading() != 0 {
		t.Fatalf("a page for a link gone: sent %s, reading %d", got, p.reading())
	}
}
