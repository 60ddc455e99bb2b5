package newsnet_test

// Rules of dial-backs and leaves (dialback.go, leaf.go), one servant at a
// time: who takes a slot, who becomes a leaf, what a report of an
// undialable servant may and may not do.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// joiner opens an inbound link to the harness's servant and sends req.
func (h *harness) joiner(link newsnet.LinkID, req *newsnet.JoinRequest) []newsnet.Action {
	h.step(newsnet.LinkUp{Link: link, Inbound: true})
	return h.step(newsnet.Received{Link: link, Msg: req})
}

// dialBacks returns the dial-backs among acts, by the address dialed.
func dialBacks(acts []newsnet.Action) map[newsnet.ServantID]newsnet.LinkID {
	out := map[newsnet.ServantID]newsnet.LinkID{}
	for _, a := range acts {
		if d, ok := a.(newsnet.Dial); ok {
			out[d.Addr] = d.Link
		}
	}
	return out
}

// advanceAlive is advance, with a Ping arriving every second on each of
// links, so that they outlive the heartbeat timeout.
func (h *harness) advanceAlive(d time.Duration, links ...newsnet.LinkID) {
	for end := h.now.Add(d); h.now.Before(end); {
		h.advance(time.Second)
		for _, l := range links {
			h.step(newsnet.Received{Link: l, Msg: &newsnet.Ping{}})
		}
	}
}

// answerDialBack connects dial-back link l and answers its DialBack as
// the servant from would: reachable when from is the servant dialed.
func (h *harness) answerDialBack(l newsnet.LinkID, from newsnet.ServantID) []newsnet.Action {
	acts := h.step(newsnet.LinkUp{Link: l})
	q := sentOn[*newsnet.DialBack](acts, l)
	if q == nil {
		h.t.Fatalf("no DialBack sent on dial-back link %d: %v", l, acts)
	}
	return h.step(newsnet.Received{Link: l, Msg: &newsnet.DialBackReply{Nonce: q.Nonce, From: from}})
}

// A joiner that a dial-back has not reached yet is taken as a leaf and
// dialed back at once; when the dial-back reaches it, it is promoted to
// its slot and told so.
func TestUnknownJoinerIsLeafUntilDialedBack(t *testing.T) {
	h := newHarness(t, "10.0.0.1:7400")
	h.step(newsnet.Start{})
	const in = newsnet.LinkID(1)
	acts := h.joiner(in, &newsnet.JoinRequest{From: "10.0.0.2:7400"})
	if acc := sentOn[*newsnet.JoinAccept](acts, in); acc == nil || !acc.Leaf {
		t.Fatalf("unknown joiner: accept %+v, want a leaf's", acc)
	}
	st := h.s.Status()
	if !slices.Equal(st.Leaves, []newsnet.ServantID{"10.0.0.2:7400"}) || len(st.Downs) != 0 {
		t.Fatalf("leaves %v downs %v, want the joiner as a leaf", st.Leaves, st.Downs)
	}
	db, ok := dialBacks(acts)["10.0.0.2:7400"]
	if !ok {
		t.Fatalf("joiner not dialed back: %v", acts)
	}
	acts = h.answerDialBack(db, "10.0.0.2:7400")
	if r := sentOn[*newsnet.Reachability](acts, in); r == nil || !r.Reachable || r.Leaf || r.Addr != "10.0.0.2:7400" {
		t.Fatalf("verdict %+v, want reachable and promoted", r)
	}
	if !closed(acts, db) {
		t.Errorf("dial-back link left open")
	}
	st = h.s.Status()
	if !slices.Equal(st.Downs, []newsnet.ServantID{"10.0.0.2:7400"}) || len(st.Leaves) != 0 {
		t.Fatalf("after the dial-back: leaves %v downs %v, want the joiner in a slot", st.Leaves, st.Downs)
	}
	if s := sentOn[*newsnet.Siblings](acts, in); s == nil {
		t.Errorf("promoted member got no sibling list")
	}
}

// A dial-back that goes unanswered leaves the joiner a leaf and tells it.
// A dial-back answered by another servant counts as unanswered.
func TestUnansweredDialBackKeepsLeaf(t *testing.T) {
	h := newHarness(t, "10.0.0.1:7400")
	h.step(newsnet.Start{})
	acts := h.joiner(1, &newsnet.JoinRequest{From: "10.0.0.2:7400"})
	db := dialBacks(acts)["10.0.0.2:7400"]
	acts = h.advance(newsnet.DefaultConfig("x").JoinTimeout + 200*time.Millisecond)
	if r := sentOn[*newsnet.Reachability](acts, 1); r == nil || r.Reachable || !r.Leaf {
		t.Fatalf("verdict %+v, want unreachable, leaf", r)
	}
	if !closed(acts, db) {
		t.Errorf("timed-out dial-back link left open")
	}

	acts = h.joiner(2, &newsnet.JoinRequest{From: "10.0.0.3:7400"})
	acts = h.answerDialBack(dialBacks(acts)["10.0.0.3:7400"], "10.0.0.9:7400")
	if r := sentOn[*newsnet.Reachability](acts, 2); r == nil || r.Reachable {
		t.Fatalf("verdict %+v after the wrong servant answered, want unreachable", r)
	}
	if st := h.s.Status(); len(st.Downs) != 0 || len(st.Leaves) != 2 {
		t.Fatalf("downs %v leaves %v, want two leaves", st.Downs, st.Leaves)
	}
}

// A leaf refuses joiners: nobody can dial it, and a down-servant under it
// would be cut off with it.
func TestLeafTakesNoDownServants(t *testing.T) {
	h := newHarness(t, "10.0.0.2:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	h.step(newsnet.Received{Link: up, Msg: &newsnet.Reachability{Addr: "10.0.0.2:7400", Leaf: true}})
	if st := h.s.Status(); !st.Leaf || st.Reach != newsnet.ReachUnreachable || st.ReachAddr != "10.0.0.2:7400" {
		t.Fatalf("status leaf %v reach %v at %q, want an unreachable leaf", st.Leaf, st.Reach, st.ReachAddr)
	}
	acts := h.joiner(1, &newsnet.JoinRequest{From: "10.0.0.3:7400", Reach: newsnet.ReachReachable})
	if r := sentOn[*newsnet.JoinRefuse](acts, 1); r == nil {
		t.Fatalf("a leaf accepted a joiner: %v", acts)
	}
}

// A member demoted to a leaf sends its down-servants to its up-servant.
func TestDemotedMemberSendsDownsUp(t *testing.T) {
	h := newHarness(t, "10.0.0.2:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	acts := h.joiner(1, &newsnet.JoinRequest{From: "10.0.0.3:7400", Reach: newsnet.ReachReachable})
	if acc := sentOn[*newsnet.JoinAccept](acts, 1); acc == nil || acc.Leaf {
		t.Fatalf("a joiner known reachable was not given a slot: %v", acts)
	}
	acts = h.step(newsnet.Received{Link: up, Msg: &newsnet.Reachability{Addr: "10.0.0.2:7400", Leaf: true}})
	if r := sentOn[*newsnet.JoinRedirect](acts, 1); r == nil || r.To != "10.0.0.1:7400" {
		t.Fatalf("down-servant not sent to the up-servant: %v", acts)
	}
	if st := h.s.Status(); len(st.Downs)+len(st.Leaves) != 0 {
		t.Errorf("a leaf kept down-servants %v %v", st.Downs, st.Leaves)
	}
}

// A servant that is not a seed takes at most LeafCapacity leaves and sends
// the next one up, marked Full; the joiner avoids it from then on.
func TestFullServantSendsLeafUp(t *testing.T) {
	h := newHarnessWith(t, "10.0.0.2:7400", func(c *newsnet.Config) { c.LeafCapacity = 1 }, "10.0.0.1:7400")
	h.attach("10.0.0.1:7400")
	h.joiner(1, &newsnet.JoinRequest{From: "10.0.0.3:7400"})
	acts := h.joiner(2, &newsnet.JoinRequest{From: "10.0.0.4:7400"})
	if r := sentOn[*newsnet.JoinRedirect](acts, 2); r == nil || r.To != "10.0.0.1:7400" || !r.Full {
		t.Fatalf("second leaf: %v, want a Full redirect to the up-servant", acts)
	}

	// A seed, and an archive, take every leaf.
	for name, set := range map[string]func(*newsnet.Config){
		"seed": func(c *newsnet.Config) {
			c.LeafCapacity, c.Seeds = 1, []newsnet.ServantID{"10.0.0.1:7400", "10.0.0.2:7400"}
		},
		"archive": func(c *newsnet.Config) { c.LeafCapacity, c.Subscriptions = 1, []string{newsnet.AllCategories} },
	} {
		h := newHarnessWith(t, "10.0.0.2:7400", set, "10.0.0.1:7400")
		h.attach("10.0.0.1:7400")
		for i := range 3 {
			acts := h.joiner(newsnet.LinkID(i+1), &newsnet.JoinRequest{From: newsnet.ServantID(fmt.Sprintf("10.0.0.%d:7400", 3+i))})
			if acc := sentOn[*newsnet.JoinAccept](acts, newsnet.LinkID(i+1)); acc == nil || !acc.Leaf {
				t.Fatalf("%s: leaf %d not taken: %v", name, i+1, acts)
			}
		}
	}
}

// A joiner that cannot dial the servant it was redirected to goes back to
// the one that sent it, naming the dead end; the listener then dials the
// dead end back itself, and takes the joiner as a leaf meanwhile.
func TestDeadEndReportedToRedirector(t *testing.T) {
	h := newHarness(t, "10.0.5.2:7400", "10.0.0.1:7400")
	acts := h.step(newsnet.Start{})
	d := find[newsnet.Dial](acts)
	h.step(newsnet.LinkUp{Link: d.Link})
	acts = h.step(newsnet.Received{Link: d.Link, Msg: &newsnet.JoinRedirect{To: "10.0.5.1:7400"}})
	d2 := find[newsnet.Dial](acts)
	if d2 == nil || d2.Addr != "10.0.5.1:7400" {
		t.Fatalf("redirect not followed: %v", acts)
	}
	acts = h.advance(newsnet.DefaultConfig("x").JoinTimeout + 200*time.Millisecond)
	back := find[newsnet.Dial](acts)
	if back == nil || back.Addr != "10.0.0.1:7400" {
		t.Fatalf("after the dead end: %v, want a dial back to the redirecting servant", acts)
	}
	acts = h.step(newsnet.LinkUp{Link: back.Link})
	req := sentOn[*newsnet.JoinRequest](acts, back.Link)
	if req == nil || !slices.Equal(req.Avoid, []newsnet.ServantID{"10.0.5.1:7400"}) {
		t.Fatalf("join request %+v, want the dead end in Avoid", req)
	}

	// The listener's side of it.
	l := newHarness(t, "10.0.0.1:7400")
	l.step(newsnet.Start{})
	acts = l.joiner(1, &newsnet.JoinRequest{From: "10.0.5.1:7400", Reach: newsnet.ReachReachable})
	l.answerDialBack(dialBacks(acts)["10.0.5.1:7400"], "10.0.5.1:7400")
	l.advanceAlive(time.Minute, 1) // past the spacing of verifications
	acts = l.joiner(2, &newsnet.JoinRequest{From: "10.0.5.2:7400", Reach: newsnet.ReachReachable, Avoid: req.Avoid})
	if acc := sentOn[*newsnet.JoinAccept](acts, 2); acc == nil || !acc.Leaf {
		t.Fatalf("joiner reporting a dead end: %v, want it accepted as a leaf", acts)
	}
	if _, ok := dialBacks(acts)["10.0.5.1:7400"]; !ok {
		t.Fatalf("the dead end was not dialed back: %v", acts)
	}
}

// A member's report alone never demotes anyone: a hostile member that
// names every servant as undialable gets them dialed back (once per
// spacing), and those that answer keep their slots. Its own join works.
func TestHostileReportsDemoteNobody(t *testing.T) {
	h := newHarness(t, "10.0.0.1:7400")
	h.step(newsnet.Start{})
	members := []newsnet.ServantID{"10.0.1.1:7400", "10.0.2.1:7400", "10.0.3.1:7400"}
	for i, m := range members {
		acts := h.joiner(newsnet.LinkID(i+1), &newsnet.JoinRequest{From: m, Reach: newsnet.ReachReachable})
		h.answerDialBack(dialBacks(acts)[m], m)
	}
	h.advanceAlive(time.Minute, 1, 2, 3)
	acts := h.joiner(10, &newsnet.JoinRequest{From: "10.0.9.9:7400", Avoid: members})
	if acc := sentOn[*newsnet.JoinAccept](acts, 10); acc == nil {
		t.Fatalf("the reporting joiner was not accepted: %v", acts)
	}
	dbs := dialBacks(acts)
	for _, m := range members {
		db, ok := dbs[m]
		if !ok {
			t.Fatalf("reported %s not dialed back: %v", m, acts)
		}
		h.answerDialBack(db, m)
	}
	if st := h.s.Status(); !slices.Equal(st.Downs, members) {
		t.Fatalf("downs %v after the reports, want %v", st.Downs, members)
	}
	// Reported again at once: not dialed back again.
	acts = h.joiner(11, &newsnet.JoinRequest{From: "10.0.9.8:7400", Avoid: members})
	for _, m := range members {
		if _, ok := dialBacks(acts)[m]; ok {
			t.Errorf("%s dialed back again within the spacing", m)
		}
	}
}

// The probed side answers a DialBack with its own ID and the nonce.
func TestDialBackAnswered(t *testing.T) {
	h := newHarness(t, "10.0.0.7:7400")
	h.step(newsnet.Start{})
	h.step(newsnet.LinkUp{Link: 1, Inbound: true})
	acts := h.step(newsnet.Received{Link: 1, Msg: &newsnet.DialBack{Nonce: 42}})
	if r := sentOn[*newsnet.DialBackReply](acts, 1); r == nil || r.Nonce != 42 || r.From != "10.0.0.7:7400" {
		t.Fatalf("reply %+v, want nonce 42 from 10.0.0.7:7400", r)
	}
}

// Dial-backs under way are bounded: a member joining with many made-up
// addresses does not make the servant dial without limit. The joiners
// beyond the bound are dialed back later, as the first ones finish.
func TestDialBacksBounded(t *testing.T) {
	h := newHarness(t, "10.0.0.1:7400")
	h.step(newsnet.Start{})
	dials := 0
	for i := range 300 {
		acts := h.joiner(newsnet.LinkID(i+1), &newsnet.JoinRequest{From: newsnet.ServantID(fmt.Sprintf("10.9.%d.%d:7400", i/200, 1+i%200))})
		dials += len(dialBacks(acts))
	}
	if dials != 256 {
		t.Errorf("%d dial-backs under way for 300 joiners, want the bound 256", dials)
	}
	// The unanswered ones time out; the rest go out then.
	acts := h.advance(newsnet.DefaultConfig("x").JoinTimeout + 200*time.Millisecond)
	if n := len(dialBacks(acts)); n != 44 {
		t.Errorf("%d dial-backs after the first ones timed out, want the other 44", n)
	}
}
