package newsnet

// Admissions (admissions.go, leaf.go) on their own, through a fake of the
// servant: where a joiner goes, what merging slots and dial-back verdicts
// do to the downlinks. leaf_test.go and patent_test.go test the same rules
// through a whole servant, the simulator across networks.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeAdmissionHost lists what admissions ask of it.
type fakeAdmissionHost struct {
	now     time.Time
	up      *link
	anyLeaf bool
	next    LinkID
	events  []string
	notes   []string
}

const admitMe ServantID = "10.0.0.1:7400"

func newFakeAdmissions(leafCapacity int) (*admissions, *downSet, *fakeAdmissionHost) {
	cfg := &Config{Fanout: 16, LeafCapacity: leafCapacity, ReachProbeInterval: 10 * time.Minute}
	downs := new(downSet)
	a := newAdmissions(cfg, IDValue(admitMe), downs)
	return &a, downs, &fakeAdmissionHost{now: time.Unix(1_700_000_000, 0)}
}

func (h *fakeAdmissionHost) clock() time.Time { return h.now }
func (h *fakeAdmissionHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeAdmissionHost) upLink() *link            { return h.up }
func (h *fakeAdmissionHost) pathDown() []ServantID    { return []ServantID{"root", admitMe} }
func (h *fakeAdmissionHost) takesAnyLeaf() bool       { return h.anyLeaf }
func (h *fakeAdmissionHost) routeInfo(l *link)        { h.events = append(h.events, "route "+string(l.peer)) }
func (h *fakeAdmissionHost) routeInfoAllExcept(*link) { h.events = append(h.events, "route all") }
func (h *fakeAdmissionHost) dialBack(t ServantID) {
	h.events = append(h.events, "dial back "+string(t))
}
func (h *fakeAdmissionHost) undialable(j, t ServantID) {
	h.events = append(h.events, fmt.Sprintf("%s cannot dial %s", j, t))
}
func (h *fakeAdmissionHost) closeLink(l *link, reason string) {
	h.events = append(h.events, fmt.Sprintf("close %s: %s", l.peer, reason))
}
func (h *fakeAdmissionHost) send(l *link, m Message) {
	var what string
	switch m := m.(type) {
	case *JoinAccept:
		what = fmt.Sprintf("accept leaf=%v path=%v", m.Leaf, m.Path)
	case *JoinRedirect:
		what = fmt.Sprintf("redirect to %s full=%v", m.To, m.Full)
	case *Siblings:
		what = fmt.Sprintf("siblings %v", m.IDs)
	case *Reachability:
		what = fmt.Sprintf("reachable=%v leaf=%v", m.Reachable, m.Leaf)
	default:
		what = fmt.Sprintf("%T", m)
	}
	h.events = append(h.events, fmt.Sprintf("send %s %s", l.peer, what))
}

func (h *fakeAdmissionHost) took() string {
	s := strings.Join(h.events, ", ")
	h.events = nil
	return s
}

// Short names for the servants of these tests, written {A} in the
// expectations. With us at 10.0.0.1 and A and B below us, the partition
// has a slot per address; C widens it so that A and B share a slot.
const (
	admitA  ServantID = "10.0.0.2:7400"
	admitA2 ServantID = "10.0.0.2:7401" // in A's slot
	admitB  ServantID = "10.0.0.3:7400"
	admitC  ServantID = "10.0.1.9:7400"
	admitE  ServantID = "10.0.0.4:7400"
	admitF  ServantID = "10.0.0.5:7400"
)

var admitNames = strings.NewReplacer("{me}", string(admitMe), "{A}", string(admitA), "{A2}", string(admitA2),
	"{B}", string(admitB), "{C}", string(admitC), "{E}", string(admitE), "{F}", string(admitF))

// joinFor brings a joiner from c, reachable or not known to be, in over a
// new link, and returns the link and what admissions did.
func (a *admissions) joinFor(h *fakeAdmissionHost, c ServantID, reachable bool, avoid, full []ServantID) (*link, string) {
	req := &JoinRequest{From: c, Avoid: avoid, Full: full}
	if reachable {
		req.Reach = ReachReachable
	}
	h.next++
	l := &link{id: h.next, kind: linkAccepted}
	a.join(h, l, c, req)
	return l, h.took()
}

// expect fails unless got is want with the short names spelled out.
func expect(t *testing.T, what, got, want string) {
	t.Helper()
	if want = admitNames.Replace(want); got != want {
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// peersOf lists the downlinks: leaves, then members with their slots.
func peersOf(ds downSet) string {
	var out []string
	for _, d := range ds {
		if d.leaf {
			out = append(out, "leaf "+string(d.peer))
		} else {
			out = append(out, fmt.Sprintf("%s@%d", d.peer, d.slot))
		}
	}
	return strings.Join(out, ", ")
}

// A reachable joiner whose slot is empty takes it, is accepted with the
// path from the root, gets routing information and is dialed back; the
// members hear their new sibling list. A joiner whose slot is held is
// redirected to the holder; one not known reachable becomes a leaf.
// Reference: JP4353827B2, Fig. 4.
func TestAdmissionsPlaceJoiners(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	for _, c := range []struct {
		who       ServantID
		reachable bool
		want      string
	}{
		{admitA, true, "send {A} accept leaf=false path=[root {me}], route {A}, dial back {A}, send {A} siblings [{A}]"},
		{admitB, true, "send {B} accept leaf=false path=[root {me}], route {B}, dial back {B}, send {A} siblings [{A} {B}], send {B} siblings [{A} {B}]"},
		{admitA2, true, "send {A2} redirect to {A} full=false, close {A2}: redirected to {A}"},
		{admitE, false, "send {E} accept leaf=true path=[root {me}], route {E}, dial back {E}"},
	} {
		_, got := a.joinFor(h, c.who, c.reachable, nil, nil)
		expect(t, string(c.who)+" joins", got, c.want)
	}
	expect(t, "downs", peersOf(*downs), "leaf {E}, {A}@2, {B}@3")
}

// A joiner that reconnects before its old link was noticed dead replaces
// it: the old link is closed and its slot freed first.
func TestAdmissionsRejoinReplacesOldLink(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	old, _ := a.joinFor(h, admitA, true, nil, nil)
	l, got := a.joinFor(h, admitA, true, nil, nil)
	expect(t, "rejoin", got, "close {A}: replaced by a new link from the same servant, route all, "+
		"send {A} accept leaf=false path=[root {me}], route {A}, dial back {A}, send {A} siblings [{A}]")
	if len(*downs) != 1 || (*downs)[0] != l || (*downs)[0] == old {
		t.Fatalf("downs %s", peersOf(*downs))
	}
}

// When a joiner widens the partition so that two members fall into one
// slot, the first keeps it and the other is redirected to it and dropped;
// the rest hear the new sibling list.
// Reference: JP4353827B2, Fig. 4 (S205, S207); DESIGN.md, worked through.
func TestAdmissionsWidenMergesSlots(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	a.joinFor(h, admitA, true, nil, nil)
	a.joinFor(h, admitB, true, nil, nil)
	_, got := a.joinFor(h, admitC, true, nil, nil)
	expect(t, "C joins", got, "send {B} redirect to {A} full=false, close {B}: slot merged into {A}'s, route all, send {A} siblings [{A}], "+
		"send {C} accept leaf=false path=[root {me}], route {C}, dial back {C}, send {A} siblings [{A} {C}], send {C} siblings [{A} {C}]")
	expect(t, "downs", peersOf(*downs), "{A}@0, {C}@1")
	if !a.part.Contains(IDValue(admitC)) || a.vmin != IDValue(admitMe) || a.vmax != IDValue(admitC) {
		t.Fatalf("range [%d, %d], partition %v", a.vmin, a.vmax, a.part)
	}
}

// Beyond its leaf capacity a member sends a leaf up, marked full; seeds,
// archives and the top of the tree take every leaf. A joiner not known
// reachable is not redirected to a holder it reported full, and a holder
// it could not dial is reported and dialed back.
// Reference: DESIGN.md, real computers (leaves).
func TestAdmissionsLeafCapacityAndReports(t *testing.T) {
	a, _, h := newFakeAdmissions(1)
	h.up = &link{peer: "up"}
	a.joinFor(h, admitA, true, nil, nil)
	a.joinFor(h, admitE, false, nil, nil)
	_, got := a.joinFor(h, admitF, false, nil, nil)
	expect(t, "F over capacity", got, "send {F} redirect to up full=true, close {F}: no room for another leaf")
	h.anyLeaf = true
	_, got = a.joinFor(h, admitF, false, nil, nil)
	expect(t, "F to a seed", got, "send {F} accept leaf=true path=[root {me}], route {F}, dial back {F}")

	_, got = a.joinFor(h, admitA2, false, nil, []ServantID{admitA})
	expect(t, "A2, A full", got, "send {A2} accept leaf=true path=[root {me}], route {A2}, dial back {A2}")
	_, got = a.joinFor(h, admitA2, true, []ServantID{admitA}, nil)
	expect(t, "A2 cannot dial A", got, "close {A2}: replaced by a new link from the same servant, route all, "+
		"{A2} cannot dial {A}, send {A2} accept leaf=true path=[root {me}], route {A2}, dial back {A2}")
}

// A leaf a dial-back reached is promoted to its empty slot, or sent to
// the member holding it, unless it could not dial that member lately; a
// member a dial-back did not reach is demoted to a leaf, and a leaf kept
// out of its slot takes the slot once it is free. A verdict that confirms
// a place is only told.
// Reference: DESIGN.md, real computers (leaves); dialback.go.
func TestAdmissionsVerdicts(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	e, _ := a.joinFor(h, admitE, false, nil, nil)
	a.promote(h, e)
	expect(t, "E promoted", h.took(), "send {E} reachable=true leaf=false, send {E} siblings [{E}]")
	expect(t, "note", h.notes[0], "{E} is reachable: promoted to slot 4")

	a.joinFor(h, admitA, true, nil, nil)
	a2, _ := a.joinFor(h, admitA2, false, []ServantID{admitA}, nil)
	a2.reach = ReachReachable
	a.promote(h, a2)
	expect(t, "A2 avoids A", h.took(), "send {A2} reachable=true leaf=true")

	a.demote(h, (*downs).inSlot(2))
	expect(t, "A demoted", h.took(), "send {A} reachable=false leaf=true, send {E} siblings [{E}], "+
		"send {A2} reachable=true leaf=false, send {A2} siblings [{A2} {E}], send {E} siblings [{A2} {E}]")
	expect(t, "downs", peersOf(*downs), "leaf {A}, {A2}@2, {E}@4")

	h.now = h.now.Add(time.Hour)
	(*downs)[0].reach = ReachReachable
	a.placeReached(h, (*downs)[0])
	expect(t, "A promoted again", h.took(), "send {A} reachable=true leaf=true, send {A} redirect to {A2} full=false, "+
		"close {A}: reachable: moved to the holder of its slot, {A2}, route all")
}

// When our up-servant finds us undialable we become a leaf: every
// down-servant is sent up to it and the subtree range is forgotten.
// Reference: DESIGN.md, real computers (leaves).
func TestAdmissionsBecomeLeaf(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	h.up = &link{peer: "up"}
	a.joinFor(h, admitA, true, nil, nil)
	a.joinFor(h, admitE, false, nil, nil)
	a.becomeLeaf(h)
	expect(t, "leaf", h.took(), "send {E} redirect to up full=false, close {E}: this servant became a leaf, "+
		"send {A} redirect to up full=false, close {A}: this servant became a leaf, route all")
	if !a.leaf || len(*downs) != 0 || a.vmin != a.value || a.vmax != a.value || !slices.Equal(h.notes, []string{"leaf now: moving 2 down-servants to up"}) {
		t.Fatalf("leaf %v, downs %s, range [%d, %d], notes %q", a.leaf, peersOf(*downs), a.vmin, a.vmax, h.notes)
	}
}

// A reachable member and an unreachable leaf keep their places and are
// told the verdict.
func TestAdmissionsConfirmingVerdictsAreTold(t *testing.T) {
	a, downs, h := newFakeAdmissions(4)
	m, _ := a.joinFor(h, admitA, true, nil, nil)
	e, _ := a.joinFor(h, admitE, false, nil, nil)
	m.reach, e.reach = ReachReachable, ReachUnreachable
	a.placeReached(h, m)
	a.placeReached(h, e)
	expect(t, "told", h.took(), "send {A} reachable=true leaf=false, send {E} reachable=false leaf=true")
	expect(t, "downs", peersOf(*downs), "leaf {E}, {A}@2")
}

// A census query finds its way by the partitions: to the servant itself
// when it is a neighbour, to the member whose slot holds its ID, up when
// our partition does not hold it, and nowhere inside our partition but
// outside every member's slot; never back where it came from.
func TestAdmissionsTowardServant(t *testing.T) {
	a, _, h := newFakeAdmissions(4)
	up := &link{peer: "up"}
	A, _ := a.joinFor(h, admitA, true, nil, nil)
	E, _ := a.joinFor(h, admitE, false, nil, nil)
	for _, c := range []struct {
		id         ServantID
		from, want *link
	}{
		{admitE, nil, E},
		{admitA2, nil, A},
		{admitA2, A, nil},
		{admitF, nil, nil},
		{"10.9.9.9:7400", nil, up},
		{"10.9.9.9:7400", up, nil},
		{"up", nil, up},
	} {
		if got := a.towardServant(c.id, up, c.from); got != c.want {
			t.Errorf("toward %s from %v: %v, want %v", c.id, c.from, got, c.want)
		}
	}
}
