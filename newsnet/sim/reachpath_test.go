package sim

import (
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A relay names a publisher it does not lead to in the census of its
// reports, and swallows every report of that publisher's items that comes
// its way: a modified servant trying to draw another publisher's reach
// reports to itself (issue 32, C). Reports travel along the reverse path
// of the publisher's own items, so its neighbours never send them its
// way: the publisher's report misses at most the relay's own subtree.
func TestReachNotDivertedByCensusClaim(t *testing.T) {
	for _, seed := range scenarioSeeds(4) {
		runReachDiversion(t, seed)
	}
}

func runReachDiversion(t *testing.T, seed uint64) {
	n, ids := reachNetwork(t, seed, 60)
	publisher := ids[3]
	// The relay: a servant with down-servants, neither above nor below the
	// publisher, so that its neighbours have their own ways to it.
	var relay newsnet.ServantID
	for _, id := range ids[4:] {
		if st := n.Node(id).Servant.Status(); len(st.Downs) > 0 &&
			!slices.Contains(n.subtree(id), publisher) && !slices.Contains(n.subtree(publisher), id) {
			relay = id
			break
		}
	}
	if relay == "" {
		t.Skipf("seed %d: no relay apart from the publisher", seed)
	}
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		rr, ok := m.(*newsnet.ReachReport)
		if !ok || from != relay {
			return true
		}
		lie := *rr
		lie.Sources = slices.DeleteFunc(slices.Clone(rr.Sources), func(sr newsnet.SourceReach) bool {
			return sr.Source == string(publisher)
		})
		if lie.HasCensus {
			lie.Publishers = append(slices.Clone(rr.Publishers), string(publisher))
			slices.Sort(lie.Publishers)
			lie.Publishers = slices.Compact(lie.Publishers)
		}
		if lie.HasCensus || len(lie.Sources) > 0 {
			n.Inject(from, to, &lie)
		}
		return false
	}
	// The relay's neighbours learn its claim before the items come.
	n.Subscribe(relay, "lies/"+string(relay))
	n.RunFor(3 * n.Base.ReportPeriod)

	id := n.Publish(publisher, "company")
	n.RunFor(10 * n.Base.ReportPeriod)
	hidden := uint64(0)
	for _, sid := range n.subtree(relay) {
		if n.Node(sid).Delivered[id] > 0 {
			hidden++
		}
	}
	want := n.TrueReach(publisher, id, "company")
	got, _ := n.Node(publisher).Servant.Reach(id)
	if got.Delivered+hidden < want.Delivered {
		t.Errorf("seed %d: the publisher counts %d stored copies, want at least %d (%d, less %d below the lying relay)",
			seed, got.Delivered, want.Delivered-hidden, want.Delivered, hidden)
	}
	t.Logf("seed %d: delivered %d of %d, %d below the lying relay", seed, got.Delivered, want.Delivered, hidden)
	if v := n.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}

// subtree lists id and the servants below it in the tree now.
func (n *Network) subtree(id newsnet.ServantID) []newsnet.ServantID {
	out := []newsnet.ServantID{id}
	for i := 0; i < len(out); i++ {
		if nd := n.Node(out[i]); nd != nil && nd.Servant != nil {
			out = append(out, nd.Servant.Status().Downs...)
		}
	}
	return out
}

// A publisher moves in the tree (its up-servant crashes) and publishes
// nothing more; readers then open its earlier item. Their reports still
// find it: the census names it on its new path, newer than the reverse
// path its last item left.
func TestReachFollowsMovedPublisher(t *testing.T) {
	for _, seed := range scenarioSeeds(4) {
		n, ids := reachNetwork(t, seed, 60)
		var publisher newsnet.ServantID
		for _, id := range ids[2:] {
			st := n.Node(id).Servant.Status()
			if st.Up != "" && st.Up != ids[0] && st.Up != ids[1] {
				publisher = id
				break
			}
		}
		if publisher == "" {
			t.Skipf("seed %d: no publisher below a relay", seed)
		}
		id := n.Publish(publisher, "company")
		n.RunUntil(20*n.Base.ReportPeriod, func() bool { return n.CheckReach(publisher, id, "company") == nil })
		if err := n.CheckReach(publisher, id, "company"); err != nil {
			t.Fatalf("seed %d: before the move: %v", seed, err)
		}
		old := n.Node(publisher).Servant.Status().Up
		n.Crash(old)
		n.RunFor(n.Base.LinkTimeout + 5*time.Second)
		n.RunUntil(5*time.Minute, n.Settled)
		for _, sid := range ids {
			if sid != old {
				n.Read(sid, id)
			}
		}
		n.RunUntil(20*n.Base.ReportPeriod, func() bool { return n.CheckReach(publisher, id, "company") == nil })
		if err := n.CheckReach(publisher, id, "company"); err != nil {
			t.Errorf("seed %d: after the publisher moved from %s to %s: %v", seed, old, n.Node(publisher).Servant.Status().Up, err)
		}
	}
}

// More readers have a must-read item unconfirmed than a report's list can
// name: the list stops at ReachIdentities, and the publisher still learns
// exactly how many are pending, also as some confirm.
func TestReachPendingCountBeyondTheList(t *testing.T) {
	n := New(5)
	n.Base.ReachIdentities = 4
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 40 {
		ids = append(ids, randomID(r, used))
	}
	for _, id := range ids {
		n.Add(id, ids[:2], "company")
	}
	if !n.RunUntil(2*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	pub := ids[0]
	item := n.Publish(pub, "company")
	n.RunFor(5 * time.Second)
	for _, id := range ids[1:] {
		n.MustRead(id, item, []byte("reader "+string(id)))
	}
	check := func(stage string, pending uint64) {
		t.Helper()
		ok := func() bool {
			got, _ := n.Node(pub).Servant.Reach(item)
			return got.PendingCount == pending
		}
		n.RunUntil(20*n.Base.ReportPeriod, ok)
		got, _ := n.Node(pub).Servant.Reach(item)
		if want := n.TrueReach(pub, item, "company"); got.PendingCount != pending || want.PendingCount != pending {
			t.Errorf("%s: pending %d, truth %d, want %d", stage, got.PendingCount, want.PendingCount, pending)
		}
		if len(got.Pending) != min(4, int(pending)) {
			t.Errorf("%s: %d pending listed, want %d", stage, len(got.Pending), min(4, int(pending)))
		}
	}
	check("all told", uint64(len(ids)-1))
	for _, id := range ids[1:11] {
		n.Acknowledge(id, item, []byte("ack "+string(id)))
	}
	check("ten confirmed", uint64(len(ids)-11))
}
