package newsnet

// The sequencer (order.go, chain.go, overtake.go, owed.go, recover.go's
// requests) on its own, through a fake of the servant it is stepped by.
// The same rules across a network are in retransmit_test.go and the
// simulator's tests.

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeSequencerHost is a servant with one link, over which requests go.
type fakeSequencerHost struct {
	now  time.Time
	self CategorySet
	up   *link

	delivered []uint64 // counts, in delivery order
	asked     [][]uint64
	askedCats [][]uint64
	acts      []Action
	notes     []string
}

func newFakeSequencerHost(self ...string) *fakeSequencerHost {
	return &fakeSequencerHost{now: time.Unix(1_700_000_000, 0), self: NewCategorySet(self...), up: &link{id: 1, kind: linkUp}}
}

func (h *fakeSequencerHost) clock() time.Time { return h.now }
func (h *fakeSequencerHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeSequencerHost) subscriptions() CategorySet { return h.self }
func (h *fakeSequencerHost) deliver(m *Multicast, _ LinkID) {
	h.delivered = append(h.delivered, m.Count)
}
func (h *fakeSequencerHost) act(a Action)                      { h.acts = append(h.acts, a) }
func (h *fakeSequencerHost) recoverLinks(string, bool) []*link { return []*link{h.up} }
func (h *fakeSequencerHost) detached() bool                    { return false }
func (h *fakeSequencerHost) followingUp() bool                 { return false }
func (h *fakeSequencerHost) owedSince() time.Time              { return h.now }
func (h *fakeSequencerHost) lastForMe(hd *header, sub string) (uint64, bool) {
	return hd.lastUnder(sub)
}
func (h *fakeSequencerHost) forMe(*Multicast) bool { return true }

func (h *fakeSequencerHost) send(_ *link, m Message) {
	if r, ok := m.(*Recover); ok {
		if r.CategoriesOnly {
			h.askedCats = append(h.askedCats, r.Counts)
		} else {
			h.asked = append(h.asked, r.Counts)
		}
	}
}

// publisher makes a source's items with their histories, as a servant
// publishes them (without chains: the history alone classifies a gap).
type publisher struct {
	count   uint64
	history ownHistory
}

func (p *publisher) item(category string) *Multicast {
	p.count++
	p.history.limit = 64
	m := &Multicast{ID: [16]byte{byte(p.count)}, Source: "1a", Category: category, Count: p.count, History: p.history.runs()}
	p.history.add(category)
	return m
}

// testSequencer is the sequencer of a servant subscribed to what h
// subscribes to: it knows those categories from the start.
func testSequencer(h *fakeSequencerHost) sequencer {
	cfg := DefaultConfig("me")
	cfg.Source = "me"
	q := newSequencer(&cfg, &Counters{}, h)
	for _, c := range h.self {
		q.learnCategory(c)
	}
	return q
}

// Computers 1b ({B,D,E}) and 1c ({A,B,E,F}) receive 1a's items to A, E, D
// and B. 1b misses E: D's count shows the gap and its history that the
// missed item was E's, so 1b asks for it and delivers E before D. 1c
// misses D: B's history shows it was D's, not needed, and 1c counts it as
// received without asking.
// Reference: JP3679935B2, Figs. 10-11, steps S1-S6.
func TestSequencerPatentExample(t *testing.T) {
	var p publisher
	a, e, d, b := p.item("A"), p.item("E"), p.item("D"), p.item("B")

	h1b := newFakeSequencerHost("B", "D", "E")
	q1b := testSequencer(h1b)
	for _, m := range []*Multicast{a, d} {
		q1b.sequence(h1b, m, 1)
	}
	if len(h1b.asked) != 1 || !slices.Equal(h1b.asked[0], []uint64{2}) || len(h1b.delivered) != 0 {
		t.Fatalf("1b: asked %v, delivered %v: want count 2 asked for and D held", h1b.asked, h1b.delivered)
	}
	q1b.sequence(h1b, e, 0) // the answer
	q1b.sequence(h1b, b, 1)
	if !slices.Equal(h1b.delivered, []uint64{2, 3, 4}) {
		t.Errorf("1b delivered %v, want E (2), D (3), B (4)", h1b.delivered)
	}

	h1c := newFakeSequencerHost("A", "B", "E", "F")
	q1c := testSequencer(h1c)
	for _, m := range []*Multicast{a, e, b} {
		q1c.sequence(h1c, m, 1)
	}
	if len(h1c.asked)+len(h1c.askedCats) != 0 || !slices.Equal(h1c.delivered, []uint64{1, 2, 4}) {
		t.Errorf("1c: asked %v %v, delivered %v: want nothing asked, A, E, B delivered", h1c.asked, h1c.askedCats, h1c.delivered)
	}
	if q1c.nextOf("1a") != 5 {
		t.Errorf("1c expects %d next, want 5", q1c.nextOf("1a"))
	}
	out := q1c.flushProgress(nil)
	if len(out) != 1 || out[0].(Progress).Next != 5 {
		t.Errorf("progress %v", out)
	}
}

// A needed count nobody answers for is asked again with a growing wait,
// then given up: counted lost, reported, and released, so the items after
// it are delivered.
func TestSequencerGivesUpAndReleases(t *testing.T) {
	var p publisher
	first, missed, last := p.item("B"), p.item("B"), p.item("B")
	h := newFakeSequencerHost("B")
	q := testSequencer(h)
	q.sequence(h, first, 1)
	q.sequence(h, last, 1)
	_ = missed
	for range 100 {
		h.now = h.now.Add(time.Second)
		for id, st := range q.sources {
			q.requestDue(h, id, st)
		}
		if len(h.acts) > 0 {
			break
		}
	}
	if len(h.asked) != q.cfg.RecoverAttempts {
		t.Errorf("asked %d times, want %d", len(h.asked), q.cfg.RecoverAttempts)
	}
	if len(h.acts) != 1 || h.acts[0].(Lost).N != 1 || q.counters.Lost != 1 {
		t.Fatalf("actions %v, lost %d", h.acts, q.counters.Lost)
	}
	if !slices.Equal(h.delivered, []uint64{1, 3}) {
		t.Errorf("delivered %v, want 1 and then 3 once 2 was given up", h.delivered)
	}
}

// An answer to our request, classified by the sequencer: a gap the
// history cannot classify is asked for by category; the answer's
// categories settle one count as not needed and make the other asked for
// as an item; a Missing answer gives that one up as lost, and the held
// item behind the gap is delivered.
func TestSequencerTakesAnswers(t *testing.T) {
	h := newFakeSequencerHost("A", "B")
	q := testSequencer(h)
	q.sequence(h, &Multicast{ID: [16]byte{1}, Source: "1a", Category: "A", Count: 1}, 1)
	q.sequence(h, &Multicast{ID: [16]byte{4}, Source: "1a", Category: "A", Count: 4}, 1) // no history: 2 and 3 unknown
	h.now = h.now.Add(time.Minute)                                                       // past any overtaking grace
	q.tickRecover(h)
	if len(h.askedCats) != 1 || !slices.Equal(h.askedCats[0], []uint64{2, 3}) {
		t.Fatalf("asked by category %v, want [2 3]", h.askedCats)
	}
	st := q.sources["1a"]
	q.takeAnswer(h, &Recovered{Source: "1a", Categories: []CountCategory{{Count: 2, Category: "D"}, {Count: 3, Category: "B"}}}, st)
	if q.counters.GapSkipped != 1 || q.counters.GapNeeded != 1 || len(h.asked) != 1 || !slices.Equal(h.asked[0], []uint64{3}) {
		t.Fatalf("after the categories: skipped %d, needed %d, asked %v; want 1, 1, [[3]]", q.counters.GapSkipped, q.counters.GapNeeded, h.asked)
	}
	if !slices.Equal(h.delivered, []uint64{1}) {
		t.Fatalf("delivered %v before the gap closed, want [1]", h.delivered)
	}
	q.takeAnswer(h, &Recovered{Source: "1a", Missing: []uint64{3}}, st)
	if !slices.Equal(h.delivered, []uint64{1, 4}) || q.counters.Lost != 1 {
		t.Errorf("after Missing: delivered %v, lost %d; want [1 4], 1", h.delivered, q.counters.Lost)
	}
	var lost []Lost
	for _, a := range h.acts {
		if l, ok := a.(Lost); ok {
			lost = append(lost, l)
		}
	}
	if len(lost) != 1 || lost[0].Source != "1a" || lost[0].N != 1 {
		t.Errorf("Lost actions %v, want one of 1a, 1", lost)
	}
	// An answer for a count nobody asked about changes nothing.
	q.takeAnswer(h, &Recovered{Source: "1a", Missing: []uint64{9}, Categories: []CountCategory{{Count: 8, Category: "B"}}}, st)
	if q.counters.Lost != 1 || q.counters.GapNeeded != 1 || q.nextOf("1a") != 5 {
		t.Errorf("an unasked answer moved the sequence: lost %d, needed %d, next %d", q.counters.Lost, q.counters.GapNeeded, q.nextOf("1a"))
	}
}

// A count nobody answers for is not given up while the answers to our
// other requests of its source still come, slowly (a busy publisher): it
// is asked again at the longest wait, and given up once they stop.
func TestSequencerWaitsWhileAnswersCome(t *testing.T) {
	var p publisher
	items := make([]*Multicast, 12)
	for i := range items {
		items[i] = p.item("B")
	}
	h := newFakeSequencerHost("B")
	q := testSequencer(h)
	q.sequence(h, items[0], 1)
	q.sequence(h, items[11], 1) // 2 to 11 missed
	start := h.now
	lastAnswer := start.Add(9 * 20 * time.Second)
	var gaveUp time.Time
	for h.now.Sub(start) < 10*time.Minute && gaveUp.IsZero() {
		h.now = h.now.Add(time.Second)
		if since := h.now.Sub(start); since%(20*time.Second) == 0 && since <= 9*20*time.Second {
			q.sequence(h, items[since/(20*time.Second)+1], 0) // counts 3 to 11, one every 20 s; never 2
		}
		q.tickRecover(h)
		if q.counters.Lost > 0 {
			gaveUp = h.now
		}
	}
	longest := q.cfg.RecoverTimeout << (q.cfg.RecoverAttempts - 1)
	switch {
	case gaveUp.IsZero():
		t.Fatal("count 2 was never given up")
	case gaveUp.Before(lastAnswer):
		t.Fatalf("count 2 given up %v in, while answers still came (the last at %v)", gaveUp.Sub(start), lastAnswer.Sub(start))
	case gaveUp.After(lastAnswer.Add(2*longest + time.Second)):
		t.Fatalf("count 2 given up %v in, more than two longest waits after the last answer (%v)", gaveUp.Sub(start), lastAnswer.Sub(start))
	}
	if q.counters.Lost != 1 || !slices.Equal(h.delivered, []uint64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {
		t.Errorf("lost %d, delivered %v: want 2 lost and the rest delivered in order", q.counters.Lost, h.delivered)
	}
	t.Logf("count 2 given up %v after the gap, %v after the last answer", gaveUp.Sub(start), gaveUp.Sub(lastAnswer))
}

// A catch-up of the sources we follow starts, for a source met in this
// run, where its sequence says (catchUpFrom), and for one the host kept an
// expectation of but not met yet, at that expectation; a source not
// followed yet (next 0) is not listed.
func TestSequencerFollowedFrom(t *testing.T) {
	cfg := Config{Expected: map[string]uint64{"kept": 5, "met": 2, "none": 0}}
	q := newSequencer(&cfg, &Counters{}, nil)
	q.source("met").next = 9
	q.source("new")
	got := q.followedFrom()
	if len(got) != 2 || got["kept"] != 5 || got["met"] != 9 {
		t.Fatalf("followed from %v, want kept 5, met 9", got)
	}
}
