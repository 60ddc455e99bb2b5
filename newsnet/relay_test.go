package newsnet

// The request relay (relay.go) on its own, through a fake of the servant:
// answering from what it holds, passing the rest toward the source along
// the reverse path, and answers retracing their trails. retransmit_test.go
// tests retransmission through whole servants, the simulator across
// re-forming trees.

import (
	"fmt"
	"strings"
	"testing"
)

// fakeRelayHost is a servant "me" with an uplink and two downlinks, whose
// sends are listed by link, and its sequencer's arrival links.
type fakeRelayHost struct {
	*fakeFlowHost
	up, d1, d2 *link
	arrivals   map[string]LinkID // sourceState.arrival, by source
	listed     map[string]*link  // the reverse-path lists' answer
	rejected   map[uint64]bool   // counts Config.Verify refuses
	events     []string
}

func newFakeRelay() (*requestRelay, *fakeRelayHost) {
	h := &fakeRelayHost{fakeFlowHost: newFakeFlowHost(), arrivals: map[string]LinkID{}, listed: map[string]*link{}, rejected: map[uint64]bool{},
		up: &link{id: 1, kind: linkUp, peer: "up"}, d1: &link{id: 2, kind: linkDown, peer: "d1"}, d2: &link{id: 3, kind: linkDown, peer: "d2"}}
	h.cfg.ID, h.cfg.Source = "me", "my-source"
	h.cfg.LinkBuffer = 1 << 20
	aud := newAudienceState(&h.cfg, &h.counters)
	r := newRequestRelay(&h.cfg, &aud, h)
	return &r, h
}

func (h *fakeRelayHost) treeLinks() []*link {
	if h.up == nil {
		return []*link{h.d1, h.d2}
	}
	return []*link{h.up, h.d1, h.d2}
}
func (h *fakeRelayHost) upLink() *link { return h.up }
func (h *fakeRelayHost) linkByID(id LinkID) *link {
	for _, l := range h.treeLinks() {
		if l.id == id {
			return l
		}
	}
	return nil
}
func (h *fakeRelayHost) listedToward(source string, except *link, _ bool) *link {
	if l := h.listed[source]; l != except {
		return l
	}
	return nil
}
func (h *fakeRelayHost) arrival(source string) (LinkID, bool) {
	id, ok := h.arrivals[source]
	return id, ok
}
func (h *fakeRelayHost) verify(_ ServantID, m *Multicast) string {
	if h.rejected[m.Count] {
		return "bad signature"
	}
	return ""
}
func (h *fakeRelayHost) send(l *link, m Message) {
	h.fakeFlowHost.send(l, m)
	var what string
	switch m := m.(type) {
	case *Recover:
		what = fmt.Sprintf("recover %s %v trail %v", m.Source, m.Counts, m.Trail)
		if m.CategoriesOnly {
			what += " categories"
		}
	case *Recovered:
		switch {
		case m.Msg != nil:
			what = fmt.Sprintf("answer %s/%d trail %v", m.Msg.Source, m.Msg.Count, m.Trail)
		case len(m.Missing) > 0:
			what = fmt.Sprintf("missing %s %v trail %v", m.Source, m.Missing, m.Trail)
		default:
			what = fmt.Sprintf("categories %s %v trail %v", m.Source, m.Categories, m.Trail)
		}
	default:
		what = fmt.Sprintf("%T", m)
	}
	h.events = append(h.events, string(l.peer)+": "+what)
}

func (h *fakeRelayHost) took() string {
	s := strings.Join(h.events, ", ")
	h.events = nil
	return s
}

// hold has the host hold source's items of counts (core's relay cache or
// store).
func (h *fakeRelayHost) hold(source string, counts ...uint64) {
	for _, k := range counts {
		h.item(source, k, 1)
	}
}

// A relay answers the counts it holds from its cache and passes the rest
// on toward the source over the link the source's items arrived on, with
// itself added to the trail; asked by category, it answers the categories.
// Reference: JP3679935B2 (retransmission); JP5458944B2, S71, S79 (reverse
// path); DESIGN.md, reliable ordered delivery.
func TestRelayAnswersWhatItHoldsAndPassesTheRest(t *testing.T) {
	r, h := newFakeRelay()
	h.hold("pub", 1, 2)
	h.arrivals["pub"] = h.up.id
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1, 2, 3}, Trail: []ServantID{"req", "d1"}})
	if got, want := h.took(), "d1: answer pub/1 trail [req d1], d1: answer pub/2 trail [req d1], up: recover pub [3] trail [req d1 me]"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{2, 4}, CategoriesOnly: true, Trail: []ServantID{"d1"}})
	if got, want := h.took(), "d1: categories pub [{2 news}] trail [d1], up: recover pub [4] trail [d1 me] categories"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// The source itself answers what it does not hold as missing: nobody
// will have it.
func TestRelaySourceAnswersMissing(t *testing.T) {
	r, h := newFakeRelay()
	h.hold("my-source", 1)
	r.recover(h, h.d2, &Recover{Source: "my-source", Counts: []uint64{1, 2}, Trail: []ServantID{"d2"}})
	if got, want := h.took(), "d2: answer my-source/1 trail [d2], d2: missing my-source [2] trail [d2]"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// A search, or a request with no way toward the source but back, goes
// over every other tree link, but only for a source this servant heard
// of; a request that looped back to us, or has no trail, is dropped.
func TestRelaySearchesOnlyForSourcesHeardOf(t *testing.T) {
	r, h := newFakeRelay()
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1}, Search: true, Trail: []ServantID{"d1"}})
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1}, Trail: []ServantID{"d1", "me", "x"}})
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1}})
	if got := h.took(); got != "" {
		t.Fatalf("for a source never heard of, a loop, no trail: sent %s", got)
	}
	h.d2.sources = map[string]arrivalStamps{"pub": {any: 1}}
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1}, Search: true, Trail: []ServantID{"d1"}})
	if got, want := h.took(), "up: recover pub [1] trail [d1 me], d2: recover pub [1] trail [d1 me]"; got != want {
		t.Fatalf("search:\n got %s\nwant %s", got, want)
	}
	h.arrivals["pub"], h.up = h.d1.id, nil
	r.recover(h, h.d1, &Recover{Source: "pub", Counts: []uint64{1}, Trail: []ServantID{"d1"}})
	if got, want := h.took(), "d2: recover pub [1] trail [d1 me]"; got != want {
		t.Fatalf("no way but back:\n got %s\nwant %s", got, want)
	}
}

// The way toward a source: the link its traffic arrived on most recently
// by the lists, else the last arrival link of its sequence, else the
// uplink; never the link the request came in on. The reverse path
// prefers the arrival link.
// Reference: JP5458944B2, S71, S79, S159.
func TestRelayTowardSource(t *testing.T) {
	r, h := newFakeRelay()
	if l := r.towardSource(h, "pub", nil); l != h.up {
		t.Fatalf("no list, no arrival: %v, want the uplink", l)
	}
	if l := r.towardSource(h, "pub", h.up); l != nil {
		t.Fatalf("except the uplink: %v, want none", l)
	}
	h.arrivals["pub"] = h.d2.id
	h.listed["pub"] = h.d1
	if a, b := r.towardSource(h, "pub", nil), r.reversePath(h, "pub", nil); a != h.d1 || b != h.d2 {
		t.Fatalf("toward %v, reverse path %v; want d1 (listed), d2 (arrival)", a, b)
	}
	if a, b := r.towardSource(h, "pub", h.d1), r.reversePath(h, "pub", h.d2); a != h.d2 || b != h.d1 {
		t.Fatalf("toward except d1 %v, reverse path except d2 %v; want d2, d1", a, b)
	}
}

// An answer goes one hop back along its trail, shortened by us; an answer
// whose trail is ours alone is ours. Nothing goes on when the item fails
// verification, when the hop back is no longer a neighbour, or when the
// trail does not end with us.
func TestRelayRetrace(t *testing.T) {
	r, h := newFakeRelay()
	item := func(k uint64) *Multicast { return &Multicast{Source: "pub", Count: k} }
	if !r.retrace(h, []ServantID{"me"}, &Recovered{Source: "pub", Msg: item(1)}) {
		t.Fatal("an answer to us is not ours")
	}
	h.rejected[3] = true
	for _, trail := range [][]ServantID{{"req", "d1", "me"}, {"req", "gone", "me"}, {"req", "d1"}} {
		for _, k := range []uint64{2, 3} {
			if r.retrace(h, trail, &Recovered{Trail: trail, Source: "pub", Msg: item(k)}) {
				t.Fatalf("%v: ours", trail)
			}
		}
	}
	r.retrace(h, []ServantID{"req", "d2", "me"}, &CatchUpDone{Trail: []ServantID{"req", "d2", "me"}, More: true})
	if got, want := h.took(), "d1: answer pub/2 trail [req d1], d2: *newsnet.CatchUpDone"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}
