package newsnet_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// reachNet builds a quiet network of size servants numbered from 10.0.0.1
// (the vertex, which subscribes to nothing) on, every one subscribed to
// "company", every third to "hr" as well.
func reachNet(t *testing.T, size int, tune func(*newsnet.Config)) (*sim.Network, []newsnet.ServantID) {
	t.Helper()
	n := sim.New(3)
	n.WireCheck = true
	if tune != nil {
		tune(&n.Base)
	}
	var ids []newsnet.ServantID
	for i := range size {
		ids = append(ids, newsnet.ServantID(fmt.Sprintf("10.0.%d.%d:7400", i/200, 1+i%200)))
	}
	for i, id := range ids {
		subs := []string{"company"}
		switch {
		case i == 0:
			subs = nil
		case i%3 == 0:
			subs = append(subs, "hr")
		}
		n.Add(id, ids[:2], subs...)
	}
	if !n.RunUntil(5*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	n.RunFor(3 * n.Base.ReportPeriod) // the census settles
	return n, ids
}

func reachRight(n *sim.Network, from newsnet.ServantID, ids [][16]byte, cat string) func() bool {
	return func() bool {
		for _, id := range ids {
			if n.CheckReach(from, id, cat) != nil {
				return false
			}
		}
		return true
	}
}

// TestReachOneReportPerItem: a relay waits for the reports of the links it
// forwarded an item on before it reports the item itself, so in a quiet
// network every servant sends one report frame for an item: the report
// frames per item do not grow with the subtree below a relay.
func TestReachOneReportPerItem(t *testing.T) {
	n, ids := reachNet(t, 300, nil)
	itemFrames := map[newsnet.ServantID]int{}
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.ReachReport); ok && len(r.Sources) > 0 {
				itemFrames[id]++
			}
		}
	}
	item := n.Publish(ids[0], "company")
	if !n.RunUntil(time.Minute, reachRight(n, ids[0], [][16]byte{item}, "company")) {
		t.Fatal(n.CheckReach(ids[0], item, "company"))
	}
	n.RunFor(2 * n.Base.ReportPeriod)
	for _, id := range ids[1:] {
		if itemFrames[id] != 1 {
			t.Errorf("%s sent %d report frames for one item, want 1", id, itemFrames[id])
		}
	}
}

// TestReachSurvivesPublisherRestart: the publisher crashes (the vertex: the
// tree re-forms without it, then again under it) and boots afresh with
// only its host's list of its publications (Config.Reach); the servants
// re-report over the new links and its totals are right again, reads made
// while it was away included.
func TestReachSurvivesPublisherRestart(t *testing.T) {
	n, ids := reachNet(t, 120, nil)
	pub := ids[0]
	var items [][16]byte
	for range 3 {
		items = append(items, n.Publish(pub, "hr"))
	}
	n.RunFor(time.Second)
	for i, id := range ids {
		if i%2 == 0 {
			n.Read(id, items[0])
		}
	}
	if !n.RunUntil(time.Minute, reachRight(n, pub, items, "hr")) {
		t.Fatal(n.CheckReach(pub, items[0], "hr"))
	}
	n.Crash(pub)
	n.RunFor(10 * time.Second)
	for i, id := range ids {
		if i%5 == 0 {
			n.Read(id, items[1])
		}
	}
	n.Restart(pub)
	if !n.RunUntil(2*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	if !n.RunUntil(time.Minute, reachRight(n, pub, items, "hr")) {
		for _, it := range items {
			t.Error(n.CheckReach(pub, it, "hr"))
		}
	}
}

// TestReachTreeReformed: relays lose their uplinks and rejoin elsewhere
// with their subtrees; the links that went down take their totals with
// them and the subtrees re-report over their new paths, so nothing is
// counted twice or lost once the tree is quiet again.
func TestReachTreeReformed(t *testing.T) {
	n, ids := reachNet(t, 200, nil)
	pub := ids[0]
	items := [][16]byte{n.Publish(pub, "company"), n.Publish(pub, "company")}
	n.RunFor(time.Second)
	for i, id := range ids {
		if i%3 == 1 {
			n.Read(id, items[i%2])
		}
	}
	if !n.RunUntil(time.Minute, reachRight(n, pub, items, "company")) {
		t.Fatal(n.CheckReach(pub, items[0], "company"))
	}
	cut := 0
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		if st.Up != "" && len(st.Links) > 1 && cut < 5 {
			n.CutLink(nd.ID, st.Up)
			cut++
		}
	}
	if cut == 0 {
		t.Fatal("no relay to cut")
	}
	n.RunFor(time.Second)
	if !n.RunUntil(2*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	if !n.RunUntil(time.Minute, reachRight(n, pub, items, "company")) {
		for _, it := range items {
			t.Error(n.CheckReach(pub, it, "company"))
		}
	}
}

// TestReachIdentitiesBounded: beyond Config.ReachIdentities the pending and
// acknowledgement lists name that many, sorted, of the readers of their
// kind (the current reach window, reach_window.go); the counts stay
// exact, so the publisher knows how many it cannot name yet.
func TestReachIdentitiesBounded(t *testing.T) {
	n, ids := reachNet(t, 60, func(c *newsnet.Config) { c.ReachIdentities = 4 })
	pub := ids[0]
	item := n.Publish(pub, "company")
	n.RunFor(time.Second)
	pending, acked := map[string]bool{}, map[string]bool{}
	for i, id := range ids[1:] {
		n.MustRead(id, item, []byte(fmt.Sprintf("reader %03d", i)))
		if i%2 == 0 {
			n.Acknowledge(id, item, []byte(fmt.Sprintf("ack %03d", i)))
			acked[fmt.Sprintf("ack %03d", i)] = true
		} else {
			pending[fmt.Sprintf("reader %03d", i)] = true
		}
	}
	n.RunFor(10 * n.Base.ReportPeriod)
	got, _ := n.Node(pub).Servant.Reach(item)
	if got.Delivered != 59 || got.Acknowledged != 30 || got.Read != 30 || got.PendingCount != 29 {
		t.Errorf("delivered %d acknowledged %d read %d pending %d, want 59, 30, 30, 29", got.Delivered, got.Acknowledged, got.Read, got.PendingCount)
	}
	for _, l := range []struct {
		name  string
		blobs [][]byte
		kind  map[string]bool
	}{{"pending", got.Pending, pending}, {"acks", got.Acks, acked}} {
		if len(l.blobs) != 4 || !slices.IsSortedFunc(l.blobs, bytes.Compare) {
			t.Errorf("%s %s: want 4, sorted", l.name, l.blobs)
		}
		for _, b := range l.blobs {
			if !l.kind[string(b)] {
				t.Errorf("%s names %q", l.name, b)
			}
		}
	}
}

// TestReachAudienceSubscribersPerItem: an item with an audience reports as
// subscribers the servants subscribed to its category and inside its
// audience (the check that decides delivery), counted per item and merged
// up the tree like deliveries, not the category's census; a publisher
// inside does not count itself, as the census does not. Report frames
// carry a subscriber count for audience items only.
func TestReachAudienceSubscribersPerItem(t *testing.T) {
	n, ids := reachNet(t, 200, nil)
	var withSubscribers []string
	n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
		if s, ok := a.(newsnet.Send); ok {
			if r, ok := s.Msg.(*newsnet.ReachReport); ok {
				for _, sr := range r.Sources {
					for _, it := range sr.Items {
						if it.Subscribers > 0 {
							withSubscribers = append(withSubscribers, fmt.Sprintf("%x", it.ID[:1]))
						}
					}
				}
			}
		}
	}
	// Servant i is 10.0.0.(i+1) and subscribes to "hr" when i is a
	// non-zero multiple of 3.
	block := []netip.Prefix{netip.MustParsePrefix("10.0.0.64/26")} // servants 63…126: 22 of them in "hr"
	small := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/29")}  // servants 0…6: 3 and 6
	everyone, inBlock, fromInside := [16]byte{0xe0}, [16]byte{0xe1}, [16]byte{0xe2}
	n.PublishMsg(ids[0], &newsnet.Multicast{ID: everyone, Category: "hr", Payload: []byte("all")})
	n.PublishMsg(ids[0], &newsnet.Multicast{ID: inBlock, Category: "hr", Payload: []byte("block"), Audience: block})
	n.PublishMsg(ids[3], &newsnet.Multicast{ID: fromInside, Category: "hr", Payload: []byte("small"), Audience: small})
	n.RunFor(10 * n.Base.ReportPeriod)
	for _, c := range []struct {
		from      newsnet.ServantID
		item      [16]byte
		want      uint64
		delivered uint64
	}{
		{ids[0], everyone, 66, 66},
		{ids[0], inBlock, 22, 22},
		{ids[3], fromInside, 1, 1}, // servant 6; servant 3 publishes
	} {
		got, ok := n.Node(c.from).Servant.Reach(c.item)
		if !ok || got.Subscribers != c.want || got.Delivered != c.delivered {
			t.Errorf("item %x: subscribers %d, delivered %d (tracked %v), want %d and %d",
				c.item[:1], got.Subscribers, got.Delivered, ok, c.want, c.delivered)
		}
		if err := n.CheckReach(c.from, c.item, "hr"); err != nil {
			t.Error(err)
		}
	}
	if !slices.Contains(withSubscribers, "e1") {
		t.Error("no report carried subscribers for the audience item")
	}
	if slices.Contains(withSubscribers, "e0") {
		t.Error("a report carried subscribers for the item without an audience: the census counts those")
	}
	// A subscriber inside leaves "hr": the count follows at once.
	n.Subscribe(ids[66], "company")
	n.RunFor(10 * n.Base.ReportPeriod)
	if got, _ := n.Node(ids[0]).Servant.Reach(inBlock); got.Subscribers != 21 || got.Delivered != 22 {
		t.Errorf("after one left: subscribers %d, delivered %d, want 21 and 22", got.Subscribers, got.Delivered)
	}
}
