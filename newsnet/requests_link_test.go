package newsnet

// Answering a link's requests (requests.go) on its own, through a fake of
// the servant. requests_test.go floods a whole servant.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeRequestHost serves what it is given by listing it; its link is a
// downlink to "down".
type fakeRequestHost struct {
	now      time.Time
	cfg      Config
	counters Counters
	gone     bool // the link is no longer ours
	reading  int  // pages being read
	served   []string
	bad      []string // misconduct reasons
}

func newFakeRequestHost() (*fakeRequestHost, *link) {
	return &fakeRequestHost{now: time.Unix(1_700_000_000, 0), cfg: Config{LinkBuffer: 64 << 10}},
		&link{id: 1, kind: linkDown, peer: "down"}
}

func (h *fakeRequestHost) clock() time.Time                          { return h.now }
func (h *fakeRequestHost) config() *Config                           { return &h.cfg }
func (h *fakeRequestHost) tally() *Counters                          { return &h.counters }
func (h *fakeRequestHost) holds(*link) bool                          { return !h.gone }
func (h *fakeRequestHost) pagesReading() int                         { return h.reading }
func (h *fakeRequestHost) misbehaved(_ *link, why string, _ float64) { h.bad = append(h.bad, why) }
func (h *fakeRequestHost) answer(_ *link, m Message) {
	switch m := m.(type) {
	case *CatchUp:
		h.served = append(h.served, "page "+string(m.Trail[0]))
	case *Recover:
		h.served = append(h.served, fmt.Sprintf("%s %s%v", m.Trail[0], m.Source, m.Counts))
	}
}

func (h *fakeRequestHost) took() string {
	s := strings.Join(h.served, ", ")
	h.served = nil
	return s
}

func recoverFrom(requester ServantID, source string, counts ...uint64) *Recover {
	return &Recover{Trail: []ServantID{requester, "down"}, Source: source, Counts: counts}
}

// fillAnswers makes l's withheld answers reach their budget.
func fillAnswers(h *fakeRequestHost, l *link) {
	l.flow.backlogBytes = answerBudget(&h.cfg)
	l.flow.backlog = []withheld{{msg: &Ping{}, size: l.flow.backlogBytes}}
}

// A request is served at once while the link's answers are within budget.
// One whose trail does not end with the down-servant it came from is
// misconduct; from the uplink, the trail is not checked.
func TestRequestsServedOrRefusedByTrail(t *testing.T) {
	h, l := newFakeRequestHost()
	l.requests.take(h, l, recoverFrom("r", "a", 1))
	if got := h.took(); got != "r a[1]" {
		t.Fatalf("served %q", got)
	}
	l.requests.take(h, l, &Recover{Trail: []ServantID{"r", "else"}, Source: "a", Counts: []uint64{1}})
	if got := h.took(); got != "" || len(h.bad) != 1 || h.bad[0] != reasonRequests {
		t.Fatalf("served %q, misconduct %v: want a forged trail refused and counted", got, h.bad)
	}
	up := &link{id: 2, kind: linkUp, peer: "up"}
	up.requests.take(h, up, &Recover{Trail: []ServantID{"r"}, Source: "a", Counts: []uint64{2}})
	if got := h.took(); got != "r a[2]" {
		t.Fatalf("served %q from the uplink", got)
	}
}

// Requests come at requestRate with a burst of requestBurst, searches at a
// tenth of both.
func TestRequestsRate(t *testing.T) {
	h, l := newFakeRequestHost()
	search := recoverFrom("r", "a", 1)
	search.Search = true
	for range requestBurst / 10 {
		l.requests.take(h, l, search)
	}
	l.requests.take(h, l, search)
	if n := len(h.served); n != requestBurst/10 || h.counters.RequestsRefused != 1 {
		t.Fatalf("served %d searches, refused %d: want %d and 1", n, h.counters.RequestsRefused, requestBurst/10)
	}
	for range requestBurst - requestBurst/10 {
		l.requests.take(h, l, recoverFrom("r", "a", 1))
	}
	h.served = nil
	l.requests.take(h, l, recoverFrom("r", "a", 1))
	if len(h.served) != 0 || h.counters.RequestsRefused != 2 {
		t.Fatalf("served %v beyond the burst", h.served)
	}
	h.now = h.now.Add(time.Second/requestRate + time.Millisecond)
	l.requests.take(h, l, recoverFrom("r", "a", 1))
	if len(h.served) != 1 {
		t.Fatal("no request served after a token came back")
	}
}

// Once the link's answers reach their budget, requests park; a newer one
// from the same requester for the same source merges its counts into the
// one waiting; parked ones are served in order once the answers drain, and
// not at all when the link went away.
func TestRequestsParkMergeAndServeInOrder(t *testing.T) {
	h, l := newFakeRequestHost()
	fillAnswers(h, l)
	l.requests.take(h, l, recoverFrom("r", "a", 1, 3))
	l.requests.take(h, l, recoverFrom("q", "b", 7))
	l.requests.take(h, l, recoverFrom("r", "a", 2, 3))
	if got := h.took(); got != "" || len(l.requests.parked) != 2 || h.counters.RequestsWaited != 3 {
		t.Fatalf("served %q, parked %d, waited %d", got, len(l.requests.parked), h.counters.RequestsWaited)
	}
	if want := SizeOf(recoverFrom("r", "a", 1, 2, 3)) + SizeOf(recoverFrom("q", "b", 7)); l.requests.parkedBytes != want {
		t.Fatalf("parked bytes %d, want %d", l.requests.parkedBytes, want)
	}
	// A later request waits behind the parked ones even with room.
	l.flow.backlogBytes, l.flow.backlog = 0, nil
	l.requests.take(h, l, recoverFrom("p", "c", 1))
	if got := h.took(); got != "" {
		t.Fatalf("served %q ahead of the parked requests", got)
	}
	l.requests.serveParked(h, l)
	if got := h.took(); got != "r a[1 2 3], q b[7], p c[1]" || l.requests.parked != nil || l.requests.parkedBytes != 0 {
		t.Fatalf("served %q, parked %v (%d bytes)", got, l.requests.parked, l.requests.parkedBytes)
	}
	fillAnswers(h, l)
	l.requests.take(h, l, recoverFrom("r", "a", 4))
	l.flow.backlogBytes, l.flow.backlog = 0, nil
	h.gone = true
	l.requests.serveParked(h, l)
	if got := h.took(); got != "" {
		t.Fatalf("served %q on a link that is gone", got)
	}
}

// Parked requests are bounded per requester and in bytes per link; what
// exceeds them is refused, not held against the peer.
func TestRequestsParkedBounds(t *testing.T) {
	h, l := newFakeRequestHost()
	fillAnswers(h, l)
	for i := range parkedPerRequester + 1 {
		l.requests.take(h, l, recoverFrom("r", fmt.Sprintf("s%d", i), 1))
	}
	if len(l.requests.parked) != parkedPerRequester || h.counters.RequestsRefused != 1 || len(h.bad) != 0 {
		t.Fatalf("parked %d, refused %d, misconduct %v", len(l.requests.parked), h.counters.RequestsRefused, h.bad)
	}
	big := make([]uint64, MaxCounts)
	for i := range big {
		big[i] = uint64(i + 1)
	}
	for i := range 8 {
		l.requests.take(h, l, recoverFrom(ServantID(fmt.Sprintf("q%d", i)), "a", big...))
	}
	if l.requests.parkedBytes > parkedBudget(&h.cfg) || h.counters.RequestsRefused < 2 {
		t.Fatalf("parked %d bytes (budget %d), refused %d", l.requests.parkedBytes, parkedBudget(&h.cfg), h.counters.RequestsRefused)
	}
}

// A catch-up page waits while one is being read for the link, or while
// maxPageReads are being read in all.
func TestRequestsCatchUpPagesWait(t *testing.T) {
	h, l := newFakeRequestHost()
	page := &CatchUp{Trail: []ServantID{"r", "down"}}
	l.requests.paging = true
	l.requests.take(h, l, page)
	if got := h.took(); got != "" {
		t.Fatalf("served %q while a page is being read for the link", got)
	}
	l.requests.paging = false
	h.reading = maxPageReads
	l.requests.serveParked(h, l)
	if got := h.took(); got != "" {
		t.Fatalf("served %q with %d pages being read", got, h.reading)
	}
	h.reading--
	l.requests.serveParked(h, l)
	if got := h.took(); got != "page r" {
		t.Fatalf("served %q, want the page", got)
	}
}

// A downlink may introduce newSourceBurst sources at once and as many
// more a minute; the uplink is not held to it.
func TestRequestsNewSources(t *testing.T) {
	h, l := newFakeRequestHost()
	for range newSourceBurst {
		if !l.requests.takeNewSource(h, l) {
			t.Fatal("refused within the burst")
		}
	}
	if l.requests.takeNewSource(h, l) || h.counters.EdgesRefused != 1 {
		t.Fatal("took a new source beyond the burst")
	}
	h.now = h.now.Add(time.Minute/newSourceBurst + time.Millisecond)
	if !l.requests.takeNewSource(h, l) {
		t.Fatal("refused after the allowance refilled")
	}
	up := &link{kind: linkUp}
	for range 2 * newSourceBurst {
		if !up.requests.takeNewSource(h, up) {
			t.Fatal("the uplink held to the allowance")
		}
	}
}
