package newsnet

// The direct-delivery sub-machine (direct.go, direct_cover.go) on its own,
// through a fake of the servant it is stepped by. The rules as the network
// shows them are in direct_rules_test.go and direct_patent_test.go.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeDirectHost records what the sub-machine asks of the servant.
type fakeDirectHost struct {
	now      time.Time
	tree     []*link
	held     map[*link]bool
	toward   map[string]*link // per source
	hops     fakeHops
	self     CategorySet
	detach   bool
	nextLink LinkID

	sent   []sentFrame
	closed []*link
	dialed []ServantID
	lifted []string // "peer source cats"
	notes  []string
}

type sentFrame struct {
	to *link
	m  Message
}

func newFakeDirectHost(self ...string) *fakeDirectHost {
	return &fakeDirectHost{now: time.Unix(1_700_000_000, 0), held: map[*link]bool{}, toward: map[string]*link{},
		hops: fakeHops{}, self: NewCategorySet(self...)}
}

func (h *fakeDirectHost) treeLink(peer ServantID, kind linkKind, wants ...string) *link {
	h.nextLink++
	l := &link{id: h.nextLink, kind: kind, peer: peer, infoKnown: true, received: NewCategorySet(wants...)}
	h.tree = append(h.tree, l)
	h.held[l] = true
	return l
}

func (h *fakeDirectHost) clock() time.Time { return h.now }
func (h *fakeDirectHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeDirectHost) send(l *link, m Message)    { h.sent = append(h.sent, sentFrame{l, m}) }
func (h *fakeDirectHost) holds(l *link) bool         { return h.held[l] }
func (h *fakeDirectHost) treeLinks() []*link         { return h.tree }
func (h *fakeDirectHost) detached() bool             { return h.detach }
func (h *fakeDirectHost) subscriptions() CategorySet { return h.self }
func (h *fakeDirectHost) closeLink(l *link, reason string) {
	h.closed = append(h.closed, l)
	delete(h.held, l)
}

func (h *fakeDirectHost) dialDirect(peer ServantID, d *directLink) *link {
	h.nextLink++
	l := &link{id: h.nextLink | dialedLinkBit, kind: linkDirectDialing, peer: peer, direct: d}
	h.held[l] = true
	h.dialed = append(h.dialed, peer)
	return l
}

func (h *fakeDirectHost) towardSource(source string, except *link) *link {
	if l := h.toward[source]; l != except {
		return l
	}
	return nil
}

// fakeHops is the sequencer's measure of how far each source is.
type fakeHops map[string]uint64

func (f fakeHops) hops(source string) (uint64, bool) {
	n, ok := f[source]
	return n, ok
}

func (h *fakeDirectHost) sendLiftedEdges(l *link, source string, cats CategorySet) {
	h.lifted = append(h.lifted, fmt.Sprintf("%s %s %v", l.peer, source, cats))
}

// takeSent returns the frames sent since the last call.
func (h *fakeDirectHost) takeSent() []sentFrame {
	out := h.sent
	h.sent = nil
	return out
}

func testDirectConfig() directConfig {
	cfg := DefaultConfig("me")
	cfg.Source = "me"
	cfg.DirectThreshold, cfg.DirectWindow, cfg.DirectMinHops, cfg.DirectBudget = 3, time.Minute, 2, 1
	return newDirectConfig(&cfg, "me")
}

// A source turns hot at the threshold within the window, and only then:
// one request goes toward it, naming our subscriptions that matched.
func TestDirectLinksHeat(t *testing.T) {
	h := newFakeDirectHost("it", "it/ops", "sales")
	up := h.treeLink("up", linkUp, "it")
	h.toward["pub"], h.hops["pub"] = up, 3
	var c Counters
	d := newDirectLinks(testDirectConfig(), &c, h.hops)
	item := func(n uint64) *Multicast { return &Multicast{Source: "pub", Category: "it/ops", Count: n} }

	d.delivered(h, item(1))
	h.now = h.now.Add(2 * time.Minute) // the first falls out of the window
	d.delivered(h, item(2))
	d.delivered(h, item(3))
	if got := h.takeSent(); len(got) != 0 {
		t.Fatalf("asked before the threshold within the window: %v", got)
	}
	d.delivered(h, item(4))
	got := h.takeSent()
	if len(got) != 1 || got[0].to != up {
		t.Fatalf("sent %v, want one request up", got)
	}
	r, ok := got[0].m.(*DirectRequest)
	if !ok || r.Source != "pub" || !r.Categories.Equal(NewCategorySet("it", "it/ops")) || !slices.Equal(r.Trail, []ServantID{"me"}) {
		t.Fatalf("request %+v", got[0].m)
	}
	d.delivered(h, item(5))
	if got := h.takeSent(); len(got) != 0 {
		t.Errorf("asked again while the first request is under way: %v", got)
	}
}

// No request for a source too close, one of ours, one we do not
// subscribe to, or while detached.
func TestDirectLinksNoRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(h *fakeDirectHost)
		source string
		cat    string
	}{
		{"too close", func(h *fakeDirectHost) { h.hops["pub"] = 1 }, "pub", "it"},
		{"own items", nil, "me", "it"},
		{"not subscribed", nil, "pub", "sales"},
		{"detached", func(h *fakeDirectHost) { h.detach = true }, "pub", "it"},
		{"path unknown", func(h *fakeDirectHost) { delete(h.hops, "pub") }, "pub", "it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newFakeDirectHost("it")
			h.toward["pub"], h.hops["pub"] = h.treeLink("up", linkUp), 5
			if tc.setup != nil {
				tc.setup(h)
			}
			d := newDirectLinks(testDirectConfig(), &Counters{}, h.hops)
			for n := range uint64(10) {
				d.delivered(h, &Multicast{Source: tc.source, Category: tc.cat, Count: n + 1})
			}
			if len(h.sent) != 0 {
				t.Errorf("sent %v", h.sent)
			}
		})
	}
}

// A source reserves places within its budget; a subscriber that asks
// again keeps its place; a reservation without a hello lapses.
// Reference: JP5458944B2, S271-S273.
func TestDirectLinksReserve(t *testing.T) {
	h := newFakeDirectHost()
	d := newDirectLinks(testDirectConfig(), &Counters{}, h.hops)
	d.init()
	cats := NewCategorySet("it")
	if why := d.reserve("a", cats, 1, h.now); !strings.Contains(why, "too close") {
		t.Errorf("1 hop: %q", why)
	}
	if why := d.reserve("a", cats, 3, h.now); why != "" {
		t.Fatalf("first: %q", why)
	}
	if why := d.reserve("a", cats, 3, h.now); why != "" {
		t.Errorf("the same subscriber again: %q", why)
	}
	if why := d.reserve("b", cats, 3, h.now); !strings.Contains(why, "budget full") {
		t.Errorf("beyond the budget: %q", why)
	}
	h.now = h.now.Add(d.cfg.setup)
	d.tick(h)
	if why := d.reserve("b", cats, 3, h.now); why != "" {
		t.Errorf("after a's reservation lapsed: %q", why)
	}
	off := testDirectConfig()
	off.budget = 0
	d = newDirectLinks(off, &Counters{}, h.hops)
	d.init()
	if why := d.reserve("a", cats, 3, h.now); !strings.Contains(why, "off") {
		t.Errorf("budget 0: %q", why)
	}
}

// A refusal is counted and waits a window before asking again; an accept
// dials the publisher; an answer for another servant goes back along its
// trail.
func TestDirectLinksAnswers(t *testing.T) {
	h := newFakeDirectHost("it")
	up := h.treeLink("up", linkUp, "it")
	down := h.treeLink("down", linkDown)
	h.toward["pub"], h.hops["pub"] = up, 3
	var c Counters
	d := newDirectLinks(testDirectConfig(), &c, h.hops)
	heat := func() {
		for n := range uint64(3) {
			d.delivered(h, &Multicast{Source: "pub", Category: "it", Count: n + 1})
		}
	}
	heat()
	h.takeSent()
	d.answered(h, &DirectAnswer{Trail: []ServantID{"me"}, Source: "pub", Publisher: "pub", Refused: "budget full"})
	if c.DirectRefused != 1 || d.subs["pub"] != nil {
		t.Fatalf("refusal: counted %d, sub %v", c.DirectRefused, d.subs["pub"])
	}
	heat()
	if len(h.takeSent()) != 0 {
		t.Error("asked again within the window after a refusal")
	}
	h.now = h.now.Add(d.cfg.window)
	heat()
	if len(h.takeSent()) != 1 {
		t.Fatal("did not ask again after the window")
	}
	d.answered(h, &DirectAnswer{Trail: []ServantID{"me"}, Source: "pub", Publisher: "pub"})
	if !slices.Equal(h.dialed, []ServantID{"pub"}) || d.subs["pub"].link == nil {
		t.Fatalf("accept: dialed %v", h.dialed)
	}
	d.answered(h, &DirectAnswer{Trail: []ServantID{"down", "me"}, Source: "x", Publisher: "x"})
	got := h.takeSent()
	if len(got) != 1 || got[0].to != down || !slices.Equal(got[0].m.(*DirectAnswer).Trail, []ServantID{"down"}) {
		t.Errorf("answer for below: %v", got)
	}
}

// An exception covers a source's items in its categories from its count
// on, until it lapses.
func TestExceptionsCover(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	e := exceptions{"pub": {cats: NewCategorySet("it"), from: 5, expires: now.Add(time.Minute)}}
	for _, tc := range []struct {
		source, cat string
		count       uint64
		at          time.Time
		want        bool
	}{
		{"pub", "it", 5, now, true},
		{"pub", "it/ops", 9, now, true},
		{"pub", "it", 4, now, false},
		{"pub", "sales", 9, now, false},
		{"other", "it", 9, now, false},
		{"pub", "it", 9, now.Add(time.Minute), false},
		{"pub", "it", 0, now, false},
	} {
		if got := e.covers(tc.source, tc.cat, tc.count, tc.at); got != tc.want {
			t.Errorf("covers(%s, %s, %d, +%v) = %v", tc.source, tc.cat, tc.count, tc.at.Sub(now), got)
		}
	}
}

// A cover that narrows or is withdrawn sends the edges of what it no
// longer covers, so the branch asks at once for what it missed.
func TestDirectLinksCoverLifted(t *testing.T) {
	h := newFakeDirectHost()
	down := h.treeLink("down", linkDown)
	d := newDirectLinks(testDirectConfig(), &Counters{}, h.hops)
	d.cover(h, down, &DirectCover{Source: "pub", Categories: NewCategorySet("it", "sales"), From: 7})
	if !down.except.covers("pub", "sales", 7, h.now) || len(h.lifted) != 0 {
		t.Fatalf("cover not recorded, or lifted %v", h.lifted)
	}
	d.cover(h, down, &DirectCover{Source: "pub", Categories: NewCategorySet("it"), From: 7})
	d.cover(h, down, &DirectCover{Source: "pub"})
	want := []string{"down pub [sales]", "down pub [it]"}
	if !slices.Equal(h.lifted, want) || down.except["pub"] != nil {
		t.Errorf("lifted %v, want %v", h.lifted, want)
	}
}

// A servant passes a cover on toward the source only for what nobody on
// its side still needs through it, from the highest count any of them
// covers.
// Reference: JP5458944B2, Fig. 27.
func TestDirectLinksDesiredCover(t *testing.T) {
	h := newFakeDirectHost()
	up := h.treeLink("up", linkUp)
	a := h.treeLink("a", linkDown, "it")
	b := h.treeLink("b", linkDown, "it", "sales")
	h.toward["pub"] = up
	d := newDirectLinks(testDirectConfig(), &Counters{}, h.hops)
	d.cover(h, a, &DirectCover{Source: "pub", Categories: NewCategorySet("it"), From: 4})
	if cats, _, _ := d.desiredCover(h, "pub", h.tree); len(cats) != 0 {
		t.Errorf("b still wants it through us, yet the cover claims %v", cats)
	}
	d.cover(h, b, &DirectCover{Source: "pub", Categories: NewCategorySet("it"), From: 9})
	cats, from, to := d.desiredCover(h, "pub", h.tree)
	if !cats.Equal(NewCategorySet("it")) || from != 9 || to != up {
		t.Errorf("both branches covered: %v from %d to %v", cats, from, to)
	}
	h.self = NewCategorySet("it/ops")
	if cats, _, _ := d.desiredCover(h, "pub", h.tree); len(cats) != 0 {
		t.Errorf("we subscribe below it ourselves, yet the cover claims %v", cats)
	}
	d.reconcile(h)
	h.self = nil
	d.reconcile(h)
	got := h.takeSent()
	if len(got) != 1 || got[0].to != up || got[0].m.(*DirectCover).From != 9 {
		t.Fatalf("reconcile sent %v", got)
	}
	h.now = h.now.Add(d.cfg.lifetime)
	d.reconcile(h)
	if got := h.takeSent(); len(got) != 1 || len(got[0].m.(*DirectCover).Categories) != 0 {
		t.Errorf("after the exceptions lapsed, sent %v, want a withdrawal", got)
	}
	if len(h.lifted) != 2 {
		t.Errorf("lapsed exceptions lifted %v", h.lifted)
	}
}
