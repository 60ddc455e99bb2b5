package newsnet

// A link's flow control (flow.go) on its own, through a fake of the
// servant it belongs to. Flow control across a network is tested with a
// servant that reads slowly (requests_test.go) and in the simulator
// (sim/flow_test.go).

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeFlowHost holds items by (source, count), the edges it knows, and
// the frames sent; like the servant, it counts each frame it sends on the
// link's flow.
type fakeFlowHost struct {
	now      time.Time
	cfg      Config
	counters Counters
	items    map[string]*Multicast // by "source/count"
	edges    leadingEdges
	unwanted map[string]bool // categories the link does not want
	sent     []Message
	served   int // serveParked calls
}

func newFakeFlowHost() *fakeFlowHost {
	return &fakeFlowHost{now: time.Unix(1_700_000_000, 0), items: map[string]*Multicast{}, edges: map[edgeKey]*LatestHeader{},
		unwanted: map[string]bool{}, cfg: Config{LinkBuffer: 1000, LinkBacklog: 3, LinkTimeout: time.Minute}}
}

func (h *fakeFlowHost) clock() time.Time  { return h.now }
func (h *fakeFlowHost) config() *Config   { return &h.cfg }
func (h *fakeFlowHost) tally() *Counters  { return &h.counters }
func (h *fakeFlowHost) serveParked(*link) { h.served++ }
func (h *fakeFlowHost) send(l *link, m Message) {
	h.sent = append(h.sent, m)
	l.flow.sent(SizeOf(m), h.now)
}
func (h *fakeFlowHost) lookup(source string, count uint64) *Multicast {
	return h.items[fmt.Sprintf("%s/%d", source, count)]
}
func (h *fakeFlowHost) wants(_ *link, category string) bool { return !h.unwanted[category] }
func (h *fakeFlowHost) latestEdges() leadingEdges           { return h.edges }

// item is a held item of source with a payload of size bytes.
func (h *fakeFlowHost) item(source string, count uint64, size int) *Multicast {
	m := &Multicast{Category: "news", Source: source, Count: count, Payload: make([]byte, size)}
	h.items[fmt.Sprintf("%s/%d", source, count)] = m
	return m
}

// fill sends a frame of about n bytes, so that the link's queue holds n
// bytes more.
func (h *fakeFlowHost) fill(l *link, n int) {
	l.flow.sent(n, h.now)
}

// took lists what was sent since the last call: "source/count" for an
// item, "answer source/count" for a Recovered, "edge source" for an edge.
func (h *fakeFlowHost) took() string {
	var out []string
	for _, m := range h.sent {
		switch m := m.(type) {
		case *Multicast:
			out = append(out, fmt.Sprintf("%s/%d", m.Source, m.Count))
		case *Recovered:
			out = append(out, fmt.Sprintf("answer %s/%d", m.Msg.Source, m.Msg.Count))
		case *LatestHeader:
			out = append(out, "edge "+m.Source)
		default:
			out = append(out, fmt.Sprintf("%T", m))
		}
	}
	h.sent = nil
	return strings.Join(out, " ")
}

// Items go out at once until the host queue holds LinkBuffer bytes; then
// they are withheld as keys, and sent in order, looked up again, once the
// host reports the queue half drained.
func TestFlowWithholdsWhileBusyAndDrainsAtHalf(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown, peer: "down"}
	l.flow.forward(h, l, h.item("a", 1, 10))
	h.fill(l, 1000)
	l.flow.forward(h, l, h.item("a", 2, 10))
	l.flow.forward(h, l, h.item("a", 3, 10))
	if got := h.took(); got != "a/1" {
		t.Fatalf("sent %q, want only a/1 before the link was busy", got)
	}
	if l.flow.keys != 2 || h.counters.Withheld != 2 || !l.flow.backedUp(&h.cfg) {
		t.Fatalf("keys %d, Withheld %d: want both later items withheld", l.flow.keys, h.counters.Withheld)
	}
	inflight := l.flow.inflight
	l.flow.written(h, l, inflight-h.cfg.LinkBuffer/2-1) // not yet half drained
	if got := h.took(); got != "" {
		t.Fatalf("sent %q before the queue was half drained", got)
	}
	h.now = h.now.Add(time.Second)
	l.flow.written(h, l, 1)
	if got := h.took(); got != "a/2 a/3" {
		t.Fatalf("sent %q once half drained, want a/2 a/3", got)
	}
	if l.flow.keys != 0 || l.flow.backlog != nil || !l.flow.progressAt.Equal(h.now) || h.served != 1 {
		t.Fatalf("after draining: keys %d, backlog %v, progress at %v, served %d", l.flow.keys, l.flow.backlog, l.flow.progressAt, h.served)
	}
}

// Messages without a count cannot be looked up again, so they are sent
// even on a busy link.
func TestFlowSendsUnsequencedWhenBusy(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown}
	h.fill(l, 2000)
	l.flow.forward(h, l, &Multicast{Category: "news", Source: "a"})
	if got := h.took(); got != "a/0" || l.flow.keys != 0 {
		t.Fatalf("sent %q, keys %d: want the unsequenced item sent", got, l.flow.keys)
	}
}

// Beyond LinkBacklog keys an item is dropped, and the link is owed the
// source's edge instead, sent once the backlog is empty; so is an item no
// longer held when its turn comes. An edge the link no longer wants is
// not sent.
func TestFlowOwesEdgesForWhatItCannotSend(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown}
	h.fill(l, 1000)
	for c := uint64(1); c <= 4; c++ {
		l.flow.forward(h, l, h.item("a", c, 10))
	}
	l.flow.forward(h, l, &Multicast{Category: "sport", Source: "b", Count: 1})
	if l.flow.keys != 3 || h.counters.BacklogDropped != 2 {
		t.Fatalf("keys %d, dropped %d: want 3 withheld and 2 dropped", l.flow.keys, h.counters.BacklogDropped)
	}
	delete(h.items, "a/2") // gone from the cache and the store meanwhile
	h.edges[edgeKey{"a", "news"}] = &LatestHeader{Source: "a", Category: "news", Count: 4}
	h.edges[edgeKey{"b", "sport"}] = &LatestHeader{Source: "b", Category: "sport", Count: 1}
	h.unwanted["sport"] = true
	l.flow.written(h, l, 1000)
	if got := h.took(); got != "a/1 a/3 edge a" {
		t.Fatalf("sent %q, want a/1 a/3 edge a", got)
	}
	if h.counters.BacklogDropped != 3 || l.flow.edgesOwed != nil {
		t.Fatalf("dropped %d, edges owed %v", h.counters.BacklogDropped, l.flow.edgesOwed)
	}
}

// Frames that must follow the items (answers, page ends, edges) queue
// behind them, and the drain stops when the link is busy again, letting
// waiting requests have their turn.
func TestFlowBulkFramesKeepTheirPlace(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown}
	h.fill(l, 1000)
	l.flow.forward(h, l, h.item("a", 1, 300))
	l.flow.sendBulk(h, l, &CatchUpDone{Trail: []ServantID{"r"}})
	l.flow.forward(h, l, h.item("a", 2, 300))
	l.flow.forward(h, l, h.item("a", 3, 300))
	if want := SizeOf(&CatchUpDone{Trail: []ServantID{"r"}}); l.flow.backlogBytes != want {
		t.Fatalf("backlog bytes %d, want the page end's %d", l.flow.backlogBytes, want)
	}
	l.flow.written(h, l, 1000)
	if got := h.took(); got != "a/1 *newsnet.CatchUpDone a/2 a/3" {
		t.Fatalf("sent %q, want the page end in its place", got)
	}
	l2 := &link{id: 2, kind: linkDown}
	h.fill(l2, 1000)
	for c := uint64(4); c <= 6; c++ {
		l2.flow.forward(h, l2, h.item("a", c, 600))
	}
	served := h.served
	l2.flow.written(h, l2, 1000)
	if got := h.took(); got != "a/4 a/5" || l2.flow.keys != 1 || h.served != served+1 {
		t.Fatalf("sent %q, keys %d, served %d: want the drain to stop when busy and requests served", got, l2.flow.keys, h.served-served)
	}
}

// Answers from our own cache or store wait whole within the link's answer
// budget and as keys beyond it; a keyed answer whose item is gone by its
// turn is not sent (the requester asks again).
func TestFlowAnswersWaitWholeWithinBudget(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown}
	trail := []ServantID{"r", "down"}
	h.fill(l, 1000)
	var sizes []int
	for c := uint64(1); c <= 4; c++ {
		m := h.item("a", c, 600)
		sizes = append(sizes, SizeOf(&Recovered{Trail: trail, Source: "a", Msg: m}))
		l.flow.sendAnswer(h, l, trail, m)
	}
	whole := 0
	for _, w := range l.flow.backlog {
		if w.msg != nil {
			whole++
		}
	}
	if whole != 3 || l.flow.keys != 0 {
		t.Fatalf("%d answers whole, keys %d: want 3 within the budget of %d, the 4th as a key", whole, l.flow.keys, answerBudget(&h.cfg))
	}
	if want := sizes[0] + sizes[1] + sizes[2] + sizes[3]; l.flow.backlogBytes != want || !l.flow.answersFull(&h.cfg) {
		t.Fatalf("backlog bytes %d, want %d and the answers full", l.flow.backlogBytes, want)
	}
	delete(h.items, "a/4")
	for range 4 {
		l.flow.written(h, l, l.flow.inflight)
	}
	if got := h.took(); got != "answer a/1 answer a/2 answer a/3" || l.flow.backlogBytes != 0 {
		t.Fatalf("sent %q, backlog bytes %d", got, l.flow.backlogBytes)
	}
}

// A link is stalled when frames were queued and nothing was written for
// LinkTimeout; reach reports go out only with a quarter of the buffer or
// less queued and nothing withheld.
func TestFlowStallAndReportRoom(t *testing.T) {
	h := newFakeFlowHost()
	l := &link{id: 1, kind: linkDown}
	if !l.flow.reportRoom(&h.cfg) {
		t.Fatal("an empty link has no room for a report")
	}
	start := h.now
	h.fill(l, 251)
	if l.flow.reportRoom(&h.cfg) {
		t.Fatal("room for a report with more than a quarter queued")
	}
	h.now = start.Add(time.Minute - time.Nanosecond)
	if stalled, _ := l.flow.stalled(&h.cfg, h.now); stalled {
		t.Fatal("stalled before LinkTimeout")
	}
	h.now = start.Add(time.Minute)
	h.fill(l, 10) // more queued is no progress
	if stalled, why := l.flow.stalled(&h.cfg, h.now); !stalled || !strings.Contains(why, "261 bytes queued") {
		t.Fatalf("stalled %v (%q), want stalled with 261 bytes queued", stalled, why)
	}
	l.flow.written(h, l, 261)
	h.now = h.now.Add(time.Hour)
	if stalled, _ := l.flow.stalled(&h.cfg, h.now); stalled {
		t.Fatal("stalled with nothing queued")
	}
	if l.flow.inflight != 0 {
		t.Fatalf("inflight %d after everything was written", l.flow.inflight)
	}
}
