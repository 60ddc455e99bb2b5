package newsnet

// The catch-up sub-machine (catchup.go) on its own, through a fake of the
// servant it is stepped by. Catch-up across a network is tested in the
// simulator (sim/catchup_test.go and the property tests).

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeCatchUpHost is a servant below an uplink, with one downlink, and
// its sequencer's followed streams.
type fakeCatchUpHost struct {
	now      time.Time
	up, down *link
	vertex   bool
	archive  bool
	self     CategorySet
	next     map[string]uint64 // per followed source
	own      uint64

	sent      []sentFrame
	sequenced []string // "item source count" or "edge source count"
	taken     []Message
	notes     []string
}

func newFakeCatchUpHost() *fakeCatchUpHost {
	return &fakeCatchUpHost{now: time.Unix(1_700_000_000, 0), up: &link{id: 1, kind: linkUp, peer: "up"},
		down: &link{id: 2, kind: linkDown, peer: "down"}, self: NewCategorySet("news"), next: map[string]uint64{}, own: 1}
}

func (h *fakeCatchUpHost) clock() time.Time { return h.now }
func (h *fakeCatchUpHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeCatchUpHost) send(l *link, m Message)    { h.sent = append(h.sent, sentFrame{l, m}) }
func (h *fakeCatchUpHost) upLink() *link              { return h.up }
func (h *fakeCatchUpHost) downLinks() []*link         { return []*link{h.down} }
func (h *fakeCatchUpHost) isVertex() bool             { return h.vertex }
func (h *fakeCatchUpHost) detached() bool             { return h.up == nil && !h.vertex }
func (h *fakeCatchUpHost) subscriptions() CategorySet { return h.self }
func (h *fakeCatchUpHost) nextOf(source string) uint64 {
	return h.next[source]
}
func (h *fakeCatchUpHost) followedFrom() map[string]uint64 { return h.next }
func (h *fakeCatchUpHost) ownNext() uint64                 { return h.own }
func (h *fakeCatchUpHost) keepsArchive() bool              { return h.archive }
func (h *fakeCatchUpHost) takeRequest(_ *link, m Message)  { h.taken = append(h.taken, m) }

func (h *fakeCatchUpHost) sequenceHeld(d deferredItem) {
	if m := d.msg; m != nil {
		h.sequenced = append(h.sequenced, fmt.Sprintf("item %s %d", m.Source, m.Count))
		return
	}
	h.sequenced = append(h.sequenced, fmt.Sprintf("edge %s %d", d.edge.Source, d.edge.Count))
}

// requests returns the catch-up requests sent up since the last call.
func (h *fakeCatchUpHost) requests() []*CatchUp {
	var out []*CatchUp
	for _, f := range h.sent {
		if c, ok := f.m.(*CatchUp); ok && f.to == h.up {
			out = append(out, c)
		}
	}
	h.sent = nil
	return out
}

func testCatchUpConfig() *Config {
	cfg := DefaultConfig("me")
	cfg.Source = "me"
	cfg.Durable = []string{"news/policy"}
	return &cfg
}

// On attaching, a servant asks for what it missed since it was last
// attached (within the window), with the next counts of the sources it
// follows and its own; durable categories once more without the bound;
// its downs get the hint. The same catch-up is asked again CatchUpRepeat
// later.
func TestCatchUpsOnAttaching(t *testing.T) {
	h := newFakeCatchUpHost()
	h.self = NewCategorySet("news")
	h.next["pub"], h.own = 7, 3
	c := newCatchUps(testCatchUpConfig(), h)
	c.lastUp = h.now.Add(-time.Hour)
	c.attached(h)
	var hints int
	for _, f := range h.sent {
		if m, ok := f.m.(*CatchUp); ok && f.to == h.down && len(m.Trail) == 0 {
			hints++
		}
	}
	reqs := h.requests()
	if hints != 1 || len(reqs) != 1 {
		t.Fatalf("hints %d, requests %d: want one of each (one run at a time)", hints, len(reqs))
	}
	r := reqs[0]
	want := []SourceCount{{Source: "me", Next: 3}, {Source: "pub", Next: 7}}
	if !r.Categories.Equal(h.self) || r.Since != h.now.Add(-time.Hour).UnixNano() || !slices.Equal(r.Known, want) {
		t.Errorf("request %+v", r)
	}
	if len(c.runs) != 2 || c.runs[1].since != 0 || !c.runs[1].cats.Equal(NewCategorySet("news/policy")) {
		t.Errorf("runs %+v, want the durable category queued without a bound", c.runs)
	}
	h.now = h.now.Add(c.cfg.CatchUpRepeat)
	c.done(h, &CatchUpDone{Trail: []ServantID{"me"}})
	c.done(h, &CatchUpDone{Trail: []ServantID{"me"}})
	h.requests()
	c.tick(h)
	if reqs := h.requests(); len(reqs) != 1 {
		t.Errorf("CatchUpRepeat later: %d requests, want the catch-up again", len(reqs))
	}
}

// Pages: a page end with more asks for the next page from where it got
// to; a page that does not come is asked again, and given up after
// catchUpTimeouts; a page that trickles in is not silent.
func TestCatchUpsPages(t *testing.T) {
	h := newFakeCatchUpHost()
	c := newCatchUps(testCatchUpConfig(), h)
	c.request(h, NewCategorySet("sales"), h.now.Add(-time.Minute), false)
	h.requests()
	c.done(h, &CatchUpDone{Trail: []ServantID{"me"}, More: true, Next: []SourceCount{{Source: "pub", Next: 40}}})
	reqs := h.requests()
	if len(reqs) != 1 || !slices.Contains(reqs[0].Known, SourceCount{Source: "pub", Next: 40}) {
		t.Fatalf("next page: %+v", reqs)
	}
	h.now = h.now.Add(c.timeout() - time.Second)
	c.progress(h.now) // an answer of the page arrived
	h.now = h.now.Add(2 * time.Second)
	c.tick(h)
	if reqs := h.requests(); len(reqs) != 0 {
		t.Errorf("a page that trickles in was asked again: %+v", reqs)
	}
	for range catchUpTimeouts {
		h.now = h.now.Add(c.timeout())
		c.tick(h)
	}
	if c.running() || len(h.notes) != 1 {
		t.Errorf("after %d silent pages: running %v, notes %q", catchUpTimeouts, c.running(), h.notes)
	}
}

// Live items of a source we do not follow wait while a catch-up runs and
// are sequenced after it, in arrival order; beyond maxDeferred only the
// latest edge of each stream is kept.
func TestCatchUpsHoldLiveItems(t *testing.T) {
	h := newFakeCatchUpHost()
	h.next["old"] = 5
	c := newCatchUps(testCatchUpConfig(), h)
	c.request(h, NewCategorySet("sales"), h.now.Add(-time.Minute), true)
	if !c.holds(h, "new") || c.holds(h, "old") {
		t.Fatalf("holds new %v, old %v: want only the source we do not follow", c.holds(h, "new"), c.holds(h, "old"))
	}
	for i := range uint64(maxDeferred + 3) {
		c.deferLive(&Multicast{Source: "new", Category: "news", Count: i + 1}, 1)
	}
	c.release(h)
	if len(h.sequenced) != 0 {
		t.Fatal("released while the catch-up runs")
	}
	c.done(h, &CatchUpDone{Trail: []ServantID{"me"}})
	if n := len(h.sequenced); n != maxDeferred+1 || h.sequenced[0] != "item new 1" || h.sequenced[n-1] != fmt.Sprintf("edge new %d", maxDeferred+3) {
		t.Fatalf("released %d, want %d items and one edge: %.3q", n, maxDeferred, h.sequenced)
	}
	c.request(h, h.self, h.now, true)
	c.becameVertex(h)
	if c.running() || c.holds(h, "new") {
		t.Error("the vertex still runs a catch-up")
	}
}

// A request from below goes up, unless we are an archive, which answers
// it; a detached servant that is no archive drops it (its hint later
// makes the requester ask again); a looping request is dropped.
func TestCatchUpsAnswerFromBelow(t *testing.T) {
	req := &CatchUp{Categories: NewCategorySet("news"), Trail: []ServantID{"down"}}
	h := newFakeCatchUpHost()
	c := newCatchUps(testCatchUpConfig(), h)
	c.answer(h, h.down, req)
	if reqs := h.requests(); len(reqs) != 1 || !slices.Equal(reqs[0].Trail, []ServantID{"down", "me"}) {
		t.Errorf("forwarded %+v", reqs)
	}
	h.archive = true
	c.answer(h, h.down, req)
	if len(h.taken) != 1 || len(h.sent) != 0 {
		t.Errorf("an archive: taken %d, sent %d", len(h.taken), len(h.sent))
	}
	h.archive, h.up = false, nil
	c.answer(h, h.down, req)
	c.answer(h, h.down, &CatchUp{Trail: []ServantID{"down", "me"}})
	if len(h.taken) != 1 || len(h.sent) != 0 {
		t.Errorf("detached, or looping: taken %d, sent %d", len(h.taken), len(h.sent))
	}
}
