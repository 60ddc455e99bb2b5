package newsnet

// The reach sub-machine (reach.go, reach_send.go, reach_census.go,
// reach_budget.go) on its own, through a fake of the servant it is stepped
// by. The rules as the network shows them are in reach_test.go and the
// simulator's tests.

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// fakeReachHost is a servant with an uplink and two downlinks, each link
// wanting every category unless told otherwise.
type fakeReachHost struct {
	now       time.Time
	tree      []*link
	self      CategorySet
	unwanted  map[*link]bool
	arrivals  map[string]*link  // the link each source's items came over
	arrivedAt map[string]uint64 // and when, on the arrival clock
	stamp     uint64
	noRoom    map[*link]bool

	sent  []sentFrame
	bad   []string
	notes []string
}

func newFakeReachHost() (*fakeReachHost, *link, *link, *link) {
	up := &link{id: 1, kind: linkUp, peer: "up"}
	a := &link{id: 2, kind: linkDown, peer: "a"}
	b := &link{id: 3, kind: linkDown, peer: "b"}
	return &fakeReachHost{now: time.Unix(1_700_000_000, 0), tree: []*link{up, a, b}, unwanted: map[*link]bool{},
		arrivals: map[string]*link{}, arrivedAt: map[string]uint64{}, noRoom: map[*link]bool{}}, up, a, b
}

func (h *fakeReachHost) clock() time.Time { return h.now }
func (h *fakeReachHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeReachHost) send(l *link, m Message)       { h.sent = append(h.sent, sentFrame{l, m}) }
func (h *fakeReachHost) treeLinks() []*link            { return h.tree }
func (h *fakeReachHost) wants(l *link, _ string) bool  { return !h.unwanted[l] }
func (h *fakeReachHost) subscriptions() CategorySet    { return h.self }
func (h *fakeReachHost) inside(ps []netip.Prefix) bool { return len(ps) > 0 }
func (h *fakeReachHost) reportRoom(l *link) bool       { return !h.noRoom[l] }
func (h *fakeReachHost) misbehaved(l *link, reason string, _ float64) {
	h.bad = append(h.bad, string(l.peer)+": "+reason)
}
func (h *fakeReachHost) arrivalStamp() uint64 { h.stamp++; return h.stamp }

func (h *fakeReachHost) isTree(ids []LinkID) bool {
	return slices.Equal(ids, slicesMap(h.tree, func(l *link) LinkID { return l.id }))
}

func (h *fakeReachHost) towardSource(source string, except *link) *link {
	if l := h.arrivals[source]; l != nil && l != except {
		return l
	}
	if h.tree[0] != except {
		return h.tree[0]
	}
	return nil
}

func (h *fakeReachHost) lastArrivalLink(source string, except *link, _ bool) (*link, uint64) {
	if l := h.arrivals[source]; l != nil && l != except {
		return l, h.arrivedAt[source]
	}
	return nil, 0
}

func (h *fakeReachHost) netCensusFor(*link) (subtree, network *NetCensus)         { return nil, nil }
func (h *fakeReachHost) addNetCensus(*link, *ReachReport, *NetCensus, *NetCensus) {}

func (h *fakeReachHost) takeSent() []sentFrame {
	out := h.sent
	h.sent = nil
	return out
}

func slicesMap[T, U any](ts []T, f func(T) U) []U {
	out := make([]U, 0, len(ts))
	for _, t := range ts {
		out = append(out, f(t))
	}
	return out
}

func testReachConfig() *Config {
	cfg := DefaultConfig("me")
	cfg.Source = "me"
	return &cfg
}

// itemReport is a report of one item's totals in category "news".
func itemReport(source string, id [16]byte, t ItemReach) *ReachReport {
	t.ID = id
	return &ReachReport{Sources: []SourceReach{{Source: source, Category: "news", Items: []ItemReach{t}}}}
}

// reportedItems returns the item totals of the reach reports sent, by link.
func reportedItems(frames []sentFrame) map[*link][]ItemReach {
	out := map[*link][]ItemReach{}
	for _, f := range frames {
		if m, ok := f.m.(*ReachReport); ok {
			for _, sr := range m.Sources {
				out[f.to] = append(out[f.to], sr.Items...)
			}
		}
	}
	return out
}

// A relay reports an item toward its source once: its own part plus what
// every other link reported, as soon as every link that wants the item
// has reported; a report that repeats the last one changes nothing.
func TestReachReportsAddUpTowardTheSource(t *testing.T) {
	h, up, a, b := newFakeReachHost()
	h.arrivals["pub"] = up
	r := newReachReports(testReachConfig(), &Counters{}, h)
	id := [16]byte{1}
	r.tick(h) // the first census goes: the next report waits a period
	h.takeSent()
	h.now = h.now.Add(r.cfg.ReportPeriod / 2)
	r.noteActions(h, []Action{Deliver{Msg: &Multicast{ID: id, Source: "pub", Category: "news", Count: 1}}})
	r.event(h, ReadItem{ID: id, Source: "pub"})
	h.now = h.now.Add(r.cfg.ReportPeriod / 2)
	r.tick(h)
	if got := reportedItems(h.takeSent())[up]; len(got) != 0 {
		t.Fatalf("reported %v before the downlinks did, within the period", got)
	}
	r.receive(h, a, itemReport("pub", id, ItemReach{Delivered: 3, Read: 1}))
	r.receive(h, b, itemReport("pub", id, ItemReach{Delivered: 2}))
	r.tick(h)
	got := reportedItems(h.takeSent())[up]
	if len(got) != 1 || got[0].Delivered != 6 || got[0].Read != 2 {
		t.Fatalf("reported %+v, want 6 delivered and 2 read", got)
	}
	h.now = h.now.Add(r.cfg.ReportPeriod)
	r.receive(h, a, itemReport("pub", id, ItemReach{Delivered: 3, Read: 1}))
	r.tick(h)
	if got := reportedItems(h.takeSent())[up]; len(got) != 0 {
		t.Errorf("a repeated report was reported again: %+v", got)
	}
}

// A link that leaves the tree takes its subtree's totals with it.
func TestReachReportsForgetALinkThatLeft(t *testing.T) {
	h, up, a, b := newFakeReachHost()
	h.arrivals["pub"] = up
	r := newReachReports(testReachConfig(), &Counters{}, h)
	id := [16]byte{2}
	r.receive(h, a, itemReport("pub", id, ItemReach{Delivered: 4}))
	r.receive(h, b, itemReport("pub", id, ItemReach{Delivered: 1}))
	r.tick(h)
	if got := reportedItems(h.takeSent())[up]; len(got) != 1 || got[0].Delivered != 5 {
		t.Fatalf("reported %+v", got)
	}
	h.tree = []*link{up, b}
	h.now = h.now.Add(r.cfg.ReportPeriod)
	r.tick(h)
	if got := reportedItems(h.takeSent())[up]; len(got) != 1 || got[0].Delivered != 1 {
		t.Errorf("after a left: reported %+v, want 1 delivered", got)
	}
}

// The publisher hears its own item's totals once per change, with the
// subscribers the census counts beyond its links.
func TestReachReportsOwnTotals(t *testing.T) {
	h, _, a, b := newFakeReachHost()
	r := newReachReports(testReachConfig(), &Counters{}, h)
	id := [16]byte{3}
	r.noteActions(h, []Action{Published{ID: id, Category: "news", Count: 1}})
	r.receive(h, a, &ReachReport{HasCensus: true, Census: []CategoryCount{{Category: "news", Count: 3}}})
	r.receive(h, b, &ReachReport{HasCensus: true, Census: []CategoryCount{{Category: AllCategories, Count: 1}}})
	r.receive(h, a, itemReport("me", id, ItemReach{Delivered: 2, Acknowledged: 1, Acks: [][]byte{[]byte("ann")}}))
	out := r.flush(nil)
	if len(out) != 1 {
		t.Fatalf("actions %v, want one ReachUpdated", out)
	}
	u := out[0].(ReachUpdated)
	if u.Subscribers != 4 || u.Delivered != 2 || u.Acknowledged != 1 || len(u.Acks) != 1 {
		t.Errorf("totals %+v", u.ReachTotals)
	}
	r.receive(h, a, itemReport("me", id, ItemReach{Delivered: 2, Acknowledged: 1, Acks: [][]byte{[]byte("ann")}}))
	if out := r.flush(nil); len(out) != 0 {
		t.Errorf("unchanged totals reported again: %v", out)
	}
	if totals, ok := r.ownReach(h, id); !ok || totals.Delivered != 2 {
		t.Errorf("own totals %+v, %v", totals, ok)
	}
}

// A link's reports beyond the rate are refused and count against its
// peer; items it names that we do not track are taken at a bounded rate,
// and never items of our own.
func TestReachReportsBudget(t *testing.T) {
	h, _, a, _ := newFakeReachHost()
	cfg := testReachConfig()
	cfg.ReachItems = 8 // two new items per link and period
	var c Counters
	r := newReachReports(cfg, &c, h)
	for i := range reachBurst + 1 {
		r.receive(h, a, itemReport("pub", [16]byte{byte(i + 1)}, ItemReach{Delivered: 1}))
	}
	if c.ReportsRefused == 0 || len(h.bad) != 1 {
		t.Errorf("a burst of %d reports: refused %d, misconduct %v", reachBurst+1, c.ReportsRefused, h.bad)
	}
	if len(r.items) != r.newItemsPerPeriod() {
		t.Errorf("tracked %d items from one link's reports in a period, want %d", len(r.items), r.newItemsPerPeriod())
	}
	h.now = h.now.Add(time.Hour)
	r.receive(h, a, itemReport("me", [16]byte{99}, ItemReach{Delivered: 1}))
	if r.items[[16]byte{99}] != nil {
		t.Error("an item of our own was tracked from a report")
	}
}

// The census a link gets is ours and every other link's; the publishers
// it names lead the reports to them until the publisher's items say
// otherwise.
func TestReachReportsCensusAndPublishers(t *testing.T) {
	h, up, a, b := newFakeReachHost()
	h.self = NewCategorySet("news", "news/local")
	r := newReachReports(testReachConfig(), &Counters{}, h)
	r.receive(h, a, &ReachReport{HasCensus: true, Census: []CategoryCount{{Category: "news", Count: 2}}, Publishers: []string{"pub"}})
	r.receive(h, b, &ReachReport{HasCensus: true, Census: []CategoryCount{{Category: "hr", Count: 1}}})
	r.tick(h)
	if got := r.censusFor(h, a); got["news"] != 1 || got["hr"] != 1 || len(got) != 2 {
		t.Errorf("census toward a: %v (news/local is covered by news)", got)
	}
	if got := r.censusFor(h, up); got["news"] != 3 || got["hr"] != 1 {
		t.Errorf("census toward up: %v", got)
	}
	if got := r.toward(h, "pub"); got != a {
		t.Errorf("reports for pub go to %v, want a (its census names it)", got.peer)
	}
	if got := r.publishersFor(h, up); !slices.Equal(got, []string{"pub"}) {
		t.Errorf("publishers named up: %v", got)
	}
	if got := r.publishersFor(h, a); len(got) != 0 {
		t.Errorf("publishers named back toward a: %v", got)
	}
	h.arrivals["pub"], h.arrivedAt["pub"] = b, h.arrivalStamp() // its items came over b since
	if got := r.toward(h, "pub"); got != b {
		t.Errorf("after pub's items came over b, its reports go to %v", got.peer)
	}
}
