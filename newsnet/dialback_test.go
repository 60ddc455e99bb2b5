package newsnet

// Dial-backs (dialback.go) on their own, through a fake of the servant.
// leaf_test.go tests them through a whole servant, the simulator across
// networks with undialable members.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fakeDialBackHost has down-servants by peer and lists what it is asked.
type fakeDialBackHost struct {
	now    time.Time
	next   LinkID
	links  map[LinkID]*link
	downs  []*link
	events []string // "dial t", "close t: reason", "send t Type", "t reachable", "t unreachable"
	notes  []string
}

func newFakeDialBacks() (*dialBacks, *fakeDialBackHost) {
	cfg := &Config{JoinTimeout: 5 * time.Second, ReachProbeInterval: 10 * time.Minute, Rand: rand.New(rand.NewPCG(3, 4))}
	b := newDialBacks(cfg, "me")
	return &b, &fakeDialBackHost{now: time.Unix(1_700_000_000, 0), links: map[LinkID]*link{}}
}

func (h *fakeDialBackHost) clock() time.Time { return h.now }
func (h *fakeDialBackHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeDialBackHost) linkByID(id LinkID) *link { return h.links[id] }
func (h *fakeDialBackHost) downLinks() []*link       { return h.downs }
func (h *fakeDialBackHost) placeReached(d *link) {
	h.events = append(h.events, map[Reach]string{ReachReachable: string(d.peer) + " reachable", ReachUnreachable: string(d.peer) + " unreachable"}[d.reach])
}
func (h *fakeDialBackHost) send(l *link, m Message) {
	h.events = append(h.events, fmt.Sprintf("send %s %T", l.peer, m))
}
func (h *fakeDialBackHost) closeLink(l *link, reason string) {
	delete(h.links, l.id)
	h.events = append(h.events, fmt.Sprintf("close %s: %s", l.peer, reason))
}
func (h *fakeDialBackHost) dial(t ServantID, kind linkKind) *link {
	h.next++
	l := &link{id: h.next, kind: kind, peer: t, opened: h.now}
	h.links[l.id] = l
	h.events = append(h.events, "dial "+string(t))
	return l
}
func (h *fakeDialBackHost) down(peer ServantID, leaf bool) *link {
	d := &link{id: LinkID(100 + len(h.downs)), kind: linkDown, peer: peer, leaf: leaf}
	h.downs = append(h.downs, d)
	return d
}

func (h *fakeDialBackHost) took() string {
	s := strings.Join(h.events, ", ")
	h.events = nil
	return s
}

// probeOf is the probe link to target.
func (b *dialBacks) probeOf(target ServantID) LinkID {
	for id, p := range b.probes {
		if p.target == target {
			return id
		}
	}
	return 0
}

// The probe asks with a nonce; a reply with the nonce from the servant
// dialed makes it reachable; a reply from another servant makes it
// unreachable. Each verdict is applied (admissions promote the leaf and
// demote the member) and schedules the next probe ReachProbeInterval
// ±50% on.
// Reference: DESIGN.md, leaves and dial-backs.
func TestDialBacksVerdicts(t *testing.T) {
	b, h := newFakeDialBacks()
	leaf, member := h.down("leaf", true), h.down("member", false)
	b.dialBack(h, "leaf")
	b.dialBack(h, "leaf") // under way already
	b.dialBack(h, "member")
	pl, pm := h.links[b.probeOf("leaf")], h.links[b.probeOf("member")]
	b.up(h, pl)
	b.up(h, pm)
	if got := h.took(); got != "dial leaf, dial member, send leaf *newsnet.DialBack, send member *newsnet.DialBack" {
		t.Fatalf("asked %q", got)
	}
	b.answered(h, pl, &DialBackReply{Nonce: b.probes[pl.id].nonce, From: "leaf"})
	b.answered(h, pm, &DialBackReply{Nonce: b.probes[pm.id].nonce, From: "someone-else"})
	if got := h.took(); got != "close leaf: dial-back done, leaf reachable, close member: dial-back done, member unreachable" {
		t.Fatalf("did %q", got)
	}
	if leaf.reach != ReachReachable || member.reach != ReachUnreachable || len(b.probes) != 0 {
		t.Fatalf("reach %v %v, probes %d", leaf.reach, member.reach, len(b.probes))
	}
	for _, d := range h.downs {
		if wait := d.probeAt.Sub(h.now); wait < 5*time.Minute || wait > 15*time.Minute {
			t.Fatalf("%s probed again in %v", d.peer, wait)
		}
	}
}

// Every verdict about a down-servant is recorded and applied, confirming
// its place or not (admissions_test.go tests what it does there); a
// verdict about a servant no longer below us is dropped.
func TestDialBacksVerdictsAreApplied(t *testing.T) {
	b, h := newFakeDialBacks()
	h.down("member", false)
	h.down("leaf", true)
	b.done(h, "member", true)
	b.done(h, "leaf", false)
	b.done(h, "gone", false)
	if got := h.took(); got != "member reachable, leaf unreachable" {
		t.Fatalf("did %q", got)
	}
}

// A probe without an answer within JoinTimeout is closed and counts as
// unreachable; a down-servant is probed again when its time comes.
func TestDialBacksTick(t *testing.T) {
	b, h := newFakeDialBacks()
	d := h.down("member", false)
	b.dialBack(h, "member")
	h.now = h.now.Add(5*time.Second - 1)
	b.tick(h)
	h.now = h.now.Add(1)
	b.tick(h)
	if got := h.took(); got != "dial member, close member: dial-back timed out, member unreachable" {
		t.Fatalf("did %q", got)
	}
	h.now = d.probeAt
	b.tick(h)
	if got := h.took(); got != "dial member" || !d.probeAt.IsZero() {
		t.Fatalf("did %q, next probe %v", got, d.probeAt)
	}
}

// A member a joiner could not dial is dialed back, at most once per
// verifySpacing for such reports; a leaf is not (it holds no slot).
func TestDialBacksUndialableReports(t *testing.T) {
	b, h := newFakeDialBacks()
	h.down("member", false)
	h.down("leaf", true)
	b.undialable(h, "joiner", "member")
	b.undialable(h, "joiner", "leaf")
	if id := b.probeOf("member"); id != 0 {
		b.failed(h, h.links[id], "refused")
	}
	h.now = h.now.Add(b.verifySpacing() - 1)
	b.undialable(h, "joiner2", "member")
	if got := h.took(); got != "dial member, member unreachable" {
		t.Fatalf("did %q", got)
	}
	h.now = h.now.Add(1)
	b.undialable(h, "joiner2", "member")
	if got := h.took(); got != "dial member" {
		t.Fatalf("did %q after verifySpacing", got)
	}
}

// At most maxDialBacks run at once; a down-servant beyond them is dialed
// back a join timeout later.
func TestDialBacksBoundedUnderWay(t *testing.T) {
	b, h := newFakeDialBacks()
	for i := range maxDialBacks {
		b.dialBack(h, ServantID(fmt.Sprintf("x%d", i)))
	}
	d := h.down("member", false)
	h.events = nil
	b.dialBack(h, "member")
	if got := h.took(); got != "" || !d.probeAt.Equal(h.now.Add(5*time.Second)) {
		t.Fatalf("did %q, next probe %v", got, d.probeAt)
	}
}

// The probed side answers with the nonce and our ID; our up-servant's
// verdict about us is kept, and whether it changed reported.
func TestDialBacksAnswerAndVerdictAboutUs(t *testing.T) {
	b, h := newFakeDialBacks()
	b.answer(h, &link{peer: "prober"}, &DialBack{Nonce: 7})
	if got := h.took(); got != "send prober *newsnet.DialBackReply" {
		t.Fatalf("did %q", got)
	}
	if !b.verdict(&Reachability{Addr: "me", Reachable: true}, h.now) || b.self != ReachReachable || b.addr != "me" {
		t.Fatalf("verdict not taken: %v %q", b.self, b.addr)
	}
	if b.verdict(&Reachability{Addr: "me", Reachable: true}, h.now.Add(time.Second)) || !b.at.Equal(h.now.Add(time.Second)) {
		t.Fatal("the same verdict again reported as a change, or its time not kept")
	}
}
