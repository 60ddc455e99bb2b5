package newsnet_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// Issue 11, defect 5, in the core: the routing information a relay sends
// is the union of its subtree's subscriptions. Two servants below it with
// 3,000 categories each (each set well within a frame) made a union of
// 6,000 that no RoutingInfo can carry (MaxCategories is 4,096): the frame
// was dropped as unencodable, so the up-servant kept routing by what it
// heard before and the subtree's new subscriptions received nothing. The
// union now goes up coarser: it encodes, and it matches every category
// either servant subscribes to (a truncated set would cut some off).
// Reference: JP4353827B2, Fig. 7 (S501-S507).
func TestRelayRoutingUnionFitsOneFrame(t *testing.T) {
	h := newHarness(t, "10.0.0.3:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	subs := map[newsnet.LinkID][]string{}
	for i, joiner := range []newsnet.ServantID{"10.0.0.3:7401", "10.0.0.3:7417"} {
		link := newsnet.LinkID(1001 + i)
		h.step(newsnet.LinkUp{Link: link, Inbound: true})
		if acts := h.step(newsnet.Received{Link: link, Msg: &newsnet.JoinRequest{From: joiner}}); sentOn[*newsnet.JoinAccept](acts, link) == nil {
			t.Fatalf("join of %s: %v", joiner, acts)
		}
		for j := range 3000 {
			// Distinct top levels: only AllCategories covers both sets.
			subs[link] = append(subs[link], fmt.Sprintf("team%d-%04d", i, j))
		}
	}
	var last *newsnet.RoutingInfo
	for link, cats := range subs {
		acts := h.step(newsnet.Received{Link: link, Msg: &newsnet.RoutingInfo{Categories: newsnet.NewCategorySet(cats...)}})
		if ri := sentOn[*newsnet.RoutingInfo](acts, up); ri != nil {
			last = ri
		}
	}
	if last == nil {
		t.Fatal("no routing information went up")
	}
	if _, err := newsnet.AppendFrame(nil, last); err != nil {
		t.Fatalf("the routing information sent up (%d categories) cannot be encoded: %v", len(last.Categories), err)
	}
	for _, cats := range subs {
		for _, c := range cats {
			if !last.Categories.Matches(c) {
				t.Fatalf("the routing information sent up (%d categories) does not match %q", len(last.Categories), c)
			}
		}
	}
	// What each downlink hears of the rest of the tree is the other's set:
	// that fits, and goes as it is.
	st := h.s.Status()
	for _, l := range st.Links {
		if l.Up {
			if !l.Sent.Equal(last.Categories) {
				t.Errorf("status shows %d categories sent up, the frame had %d", len(l.Sent), len(last.Categories))
			}
			continue
		}
		if len(l.Sent) != 3000 {
			t.Errorf("sent to %s: %d categories, want the other downlink's 3000", l.Peer, len(l.Sent))
		}
	}
}

// A catch-up request names the requester's subscriptions and every source
// it follows. With many of both (here 4,000 categories, within
// CheckSubscriptions, and 4,096 followed sources) the request did not fit
// one frame and was dropped as unencodable, three times, and the catch-up
// was given up. The sources that do not fit are left out (the archive
// sends their items since the request's time instead), and a relay that
// passes the request on, with its longer trail, leaves out more if it
// must.
func TestCatchUpRequestFitsOneFrame(t *testing.T) {
	cfg := newsnet.DefaultConfig("10.0.0.3:7400")
	cfg.Seeds = []newsnet.ServantID{"10.0.0.1:7400"}
	cfg.Rand = rand.New(rand.NewPCG(7, 7))
	cfg.Expected = map[string]uint64{}
	for i := range newsnet.MaxSources {
		cfg.Expected[fmt.Sprintf("01a2332e-af3d-7e8a-8c73-%012x", i)] = 1<<40 + uint64(i)
	}
	s, err := newsnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: sim.Epoch}
	h.step(newsnet.Tick{Now: h.now})
	var subs []string
	for i := range 4000 {
		subs = append(subs, fmt.Sprintf("department-%04d/team-%09d", i, i))
	}
	if err := newsnet.CheckSubscriptions(subs); err != nil {
		t.Fatalf("the subscriptions are beyond what hosts allow: %v", err)
	}
	h.step(newsnet.SetSubscriptions{Categories: subs})
	dial := find[newsnet.Dial](h.step(newsnet.Start{}))
	h.step(newsnet.LinkUp{Link: dial.Link})
	acts := h.step(newsnet.Received{Link: dial.Link, Msg: &newsnet.JoinAccept{Lo: 0, Hi: 1<<48 - 1, Path: []newsnet.ServantID{"10.0.0.1:7400"}}})
	// The new subscriptions' history first, then the followed sources
	// (the harness answers each page at once).
	var req *newsnet.CatchUp
	for _, a := range acts {
		if snd, ok := a.(newsnet.Send); ok && snd.Link == dial.Link {
			if c, ok := snd.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
				if _, err := newsnet.AppendFrame(nil, c); err != nil {
					t.Fatalf("catch-up request of %d categories and %d sources: %v", len(c.Categories), len(c.Known), err)
				}
				if req == nil || len(c.Known) > len(req.Known) {
					req = c
				}
			}
		}
	}
	if req == nil || len(req.Categories) != len(subs) || len(req.Known) < newsnet.MaxSources/2 {
		t.Fatalf("no catch-up request of the followed sources with every subscription: %+v", req)
	}

	// Passed on by a relay: one more servant on the trail.
	relay := newHarness(t, "10.0.0.2:7400", "10.0.0.1:7400")
	relayUp := relay.attach("10.0.0.1:7400")
	relay.step(newsnet.LinkUp{Link: 1001, Inbound: true})
	relay.step(newsnet.Received{Link: 1001, Msg: &newsnet.JoinRequest{From: "10.0.0.3:7400"}})
	acts = relay.step(newsnet.Received{Link: 1001, Msg: req})
	fwd := sentOn[*newsnet.CatchUp](acts, relayUp)
	if fwd == nil || len(fwd.Trail) != 2 {
		t.Fatalf("the relay did not pass the request on: %v", acts)
	}
	if _, err := newsnet.AppendFrame(nil, fwd); err != nil {
		t.Fatalf("the request passed on (%d sources): %v", len(fwd.Known), err)
	}
}
