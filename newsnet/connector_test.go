package newsnet

// The connector (connector.go) on its own, through a fake of the servant:
// the join search of JP4353827B2 Fig. 3 and the seed rules. Joining a
// real tree is tested in rules_test.go, patent_test.go and the simulator.

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeConnectorHost lists the dials and closes the connector asks for.
type fakeConnectorHost struct {
	now      time.Time
	up       *link
	vertex   bool
	next     LinkID
	dialed   []ServantID
	within   []time.Duration // each dial's time to connect and greet
	closed   []string        // "peer: reason"
	refusing map[ServantID]bool
	notes    []string
	attached *JoinAccept
}

func newFakeConnector(id ServantID, seeds ...ServantID) (*connector, *fakeConnectorHost) {
	cfg := &Config{Seeds: seeds, JoinTimeout: 5 * time.Second, SeedProbeInterval: time.Minute,
		BackoffMin: time.Second, BackoffMax: 8 * time.Second, MaxRedirects: 3, Rand: rand.New(rand.NewPCG(1, 2))}
	c := newConnector(cfg, id)
	return &c, &fakeConnectorHost{now: time.Unix(1_700_000_000, 0), refusing: map[ServantID]bool{}}
}

func (h *fakeConnectorHost) clock() time.Time           { return h.now }
func (h *fakeConnectorHost) note(f string, args ...any) { h.notes = append(h.notes, f) }
func (h *fakeConnectorHost) upLink() *link              { return h.up }
func (h *fakeConnectorHost) isVertex() bool             { return h.vertex }
func (h *fakeConnectorHost) banned(t ServantID) bool    { return h.refusing[t] }
func (h *fakeConnectorHost) becomeVertex()              { h.vertex = true }
func (h *fakeConnectorHost) closeLink(l *link, reason string) {
	h.closed = append(h.closed, string(l.peer)+": "+reason)
}
func (h *fakeConnectorHost) becomeAttached(l *link, acc *JoinAccept) { h.up, h.attached = l, acc }
func (h *fakeConnectorHost) dialWithin(t ServantID, kind linkKind, within time.Duration) *link {
	h.next++
	h.dialed = append(h.dialed, t)
	h.within = append(h.within, within)
	return &link{id: h.next, kind: kind, peer: t, opened: h.now}
}

// dials lists the dials since the last call.
func (h *fakeConnectorHost) dials() string {
	var out []string
	for _, t := range h.dialed {
		out = append(out, string(t))
	}
	h.dialed = nil
	return strings.Join(out, " ")
}

// A connector tries the servants it was given first, then the seeds, in
// order, each once and never itself; when all refused, a servant that is
// not a seed backs off and tries again.
// Reference: JP4353827B2, Fig. 3; DESIGN.md, tree construction, connector.
func TestConnectorTriesTargetsInOrderThenBacksOff(t *testing.T) {
	c, h := newFakeConnector("me", "s1", "s2", "me2")
	c.start(h, []ServantID{"x", "s2", "me"})
	for range 4 {
		c.refused(h, c.attempt, "no")
	}
	if got := h.dials(); got != "x s2 s1 me2" {
		t.Fatalf("dialed %q, want x s2 s1 me2", got)
	}
	if h.vertex || c.attempt != nil || c.rounds != 1 {
		t.Fatalf("vertex %v, attempt %v, rounds %d: want a failed round", h.vertex, c.attempt, c.rounds)
	}
	if d := c.retryAt.Sub(h.now); d < time.Second/2 || d > 3*time.Second/2 {
		t.Fatalf("retry in %v, want BackoffMin jittered ±50%%", d)
	}
	h.now = c.retryAt
	c.tick(h)
	c.refused(h, c.attempt, "no")
	c.refused(h, c.attempt, "no")
	if got := h.dials(); got != "s1 s2 me2" || c.rounds != 1 {
		t.Fatalf("next round dialed %q (rounds %d), want the seeds", got, c.rounds)
	}
}

// The backoff doubles from BackoffMin up to BackoffMax, jittered ±50%.
func TestConnectorBackoff(t *testing.T) {
	c, _ := newFakeConnector("me", "s1")
	for rounds, base := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 9: 8 * time.Second} {
		for range 50 {
			if d := c.backoff(rounds); d < base/2 || d > base*3/2 {
				t.Fatalf("backoff after %d rounds is %v, want within ±50%% of %v", rounds, d, base)
			}
		}
	}
}

// A seed joins only the seeds before it, and becomes the vertex when none
// of them answers; a seed list that names it by another spelling counts
// once a dial to that name reached itself.
// Reference: DESIGN.md, tree construction, seeds.
func TestConnectorSeedJoinsEarlierSeedsOnly(t *testing.T) {
	c, h := newFakeConnector("me", "s1", "alias", "s3")
	if c.isSeed() || len(c.seedTargets()) != 3 {
		t.Fatalf("seed %v, targets %v before the alias is known", c.isSeed(), c.seedTargets())
	}
	c.start(h, nil)
	c.refused(h, c.attempt, "no")
	c.learnAlias(h, c.attempt.peer) // our dial to "alias" reached ourselves
	if !c.isSeed() || !slices.Equal(c.seedTargets(), []ServantID{"s1"}) || len(c.targets) != 0 {
		t.Fatalf("seed %v, seed targets %v, round %v: want s1 only", c.isSeed(), c.seedTargets(), c.targets)
	}
	c.refused(h, c.attempt, "that is this servant")
	if !h.vertex {
		t.Fatal("a seed whose earlier seeds failed is not the vertex")
	}
	if got := h.dials(); got != "s1 alias" {
		t.Fatalf("dialed %q, want s1 alias and not s3", got)
	}
}

// Redirects are followed up to MaxRedirects; a servant we were sent to and
// cannot dial is avoided, and we go back to the one that sent us there.
// Reference: JP4353827B2, Fig. 3 (S107-S111); leaf.go.
func TestConnectorFollowsRedirectsAndGoesBackFromDeadEnds(t *testing.T) {
	c, h := newFakeConnector("me", "s1", "s2")
	c.start(h, nil)
	c.redirected(h, c.attempt, &JoinRedirect{To: "a", Full: true})
	c.attemptFailed(h, c.attempt, "connection refused")
	if got := h.dials(); got != "s1 a s1" {
		t.Fatalf("dialed %q, want s1 a s1", got)
	}
	if !slices.Equal(c.avoid, []ServantID{"a"}) || !slices.Equal(c.full, []ServantID{"s1"}) || c.redirects != 2 || c.redirector != "" {
		t.Fatalf("avoid %v, full %v, redirects %d, redirector %q", c.avoid, c.full, c.redirects, c.redirector)
	}
	c.redirected(h, c.attempt, &JoinRedirect{To: "b"})
	c.redirected(h, c.attempt, &JoinRedirect{To: "c"}) // the 4th: beyond MaxRedirects
	if got := h.dials(); got != "b s2" {
		t.Fatalf("dialed %q, want b, then the next seed", got)
	}
	c.redirected(h, &link{peer: "old"}, &JoinRedirect{To: "d"})
	if last := h.closed[len(h.closed)-1]; last != "old: stale join attempt" || h.dials() != "" {
		t.Fatalf("closed %q for a stale attempt", last)
	}
}

// Servants whose joins we refuse for misconduct are not joined either:
// skipped as targets, and avoided when a redirect names them.
func TestConnectorSkipsBannedServants(t *testing.T) {
	c, h := newFakeConnector("me", "bad", "s2")
	h.refusing["bad"] = true
	c.start(h, nil)
	c.redirected(h, c.attempt, &JoinRedirect{To: "bad"})
	if got := h.dials(); got != "s2 s2" || !slices.Equal(c.avoid, []ServantID{"bad"}) {
		t.Fatalf("dialed %q, avoid %v: want s2, and s2 again to be placed elsewhere", got, c.avoid)
	}
}

// An accept whose path holds us would make a cycle: declined, the next
// target tried; otherwise the link becomes the uplink under the name the
// listener gives itself.
// Reference: JP4353827B2, Fig. 3; rules_test.go (cycles).
func TestConnectorAccepts(t *testing.T) {
	c, h := newFakeConnector("me", "s1", "s2")
	c.start(h, nil)
	c.accepted(h, c.attempt, &JoinAccept{Path: []ServantID{"root", "me", "s1"}})
	if h.up != nil || h.dials() != "s1 s2" {
		t.Fatal("joined a listener in our own subtree")
	}
	l := c.attempt
	c.accepted(h, l, &JoinAccept{Path: []ServantID{"root", "s2.example:7400"}})
	if h.up != l || l.peer != "s2.example:7400" || l.value != IDValue("s2.example:7400") {
		t.Fatalf("up %v, peer %q: want attached under the listener's own name", h.up, l.peer)
	}
}

// A silent attempt times out after JoinTimeout; the vertex with seeds
// before it probes them every SeedProbeInterval.
func TestConnectorTick(t *testing.T) {
	c, h := newFakeConnector("me", "s1", "s2")
	c.start(h, nil)
	h.now = h.now.Add(5*time.Second - 1)
	c.tick(h)
	h.now = h.now.Add(1)
	c.tick(h)
	if got := h.dials(); got != "s1 s2" || h.closed[0] != "s1: join timed out" {
		t.Fatalf("dialed %q, closed %v", got, h.closed)
	}
	c.refused(h, c.attempt, "no")
	h.vertex = true // say s1 made us its vertex meanwhile
	c.becameVertex(h.now)
	h.now = h.now.Add(time.Minute - 1)
	c.tick(h)
	if got := h.dials(); got != "" {
		t.Fatalf("probed %q before SeedProbeInterval", got)
	}
	h.now = h.now.Add(1)
	c.tick(h)
	if got := h.dials(); got != "s1" || !c.active {
		t.Fatalf("probed %q, want s1", got)
	}
}

// A busy listener that answers after the join timeout is given longer at
// each attempt that connected and went unanswered: 5, 10, 20, 40 s, then
// no more; a target that never took the connection does not lengthen it,
// and joining starts again at the join timeout.
func TestConnectorWaitsLongerForBusyListeners(t *testing.T) {
	c, h := newFakeConnector("me", "s1")
	c.cfg.BackoffMin, c.cfg.BackoffMax = time.Millisecond, time.Millisecond
	c.start(h, nil)
	attempt := func(connected bool) time.Duration {
		t.Helper()
		if c.attempt == nil {
			h.now = c.retryAt
			c.tick(h)
		}
		if c.attempt == nil {
			t.Fatal("no attempt after the backoff")
		}
		l, opened := c.attempt, h.now
		if connected {
			l.lastSend = h.now // up, join request sent (Servant.linkUp)
		}
		for c.attempt == l {
			h.now = h.now.Add(time.Second)
			c.tick(h)
		}
		return h.now.Sub(opened)
	}
	for i, want := range []time.Duration{5, 10, 20, 40, 40} {
		if got := attempt(true); got != want*time.Second {
			t.Fatalf("unanswered attempt %d timed out after %v, want %v", i+1, got, want*time.Second)
		}
	}
	if got := attempt(false); got != 40*time.Second {
		t.Fatalf("an attempt that never connected timed out after %v, want the 40 s it was given", got)
	}
	if got := h.within[len(h.within)-1]; got != 40*time.Second {
		t.Fatalf("the host was given %v to connect, want 40 s", got)
	}
	h.now = c.retryAt
	c.tick(h)
	c.accepted(h, c.attempt, &JoinAccept{Path: []ServantID{"s1"}})
	h.up = nil
	c.start(h, nil)
	if got := h.within[len(h.within)-1]; got != 5*time.Second {
		t.Fatalf("after joining, the next attempt was given %v, want the join timeout", got)
	}
}
