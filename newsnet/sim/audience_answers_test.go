package sim

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Servants outside an audience ask for its item as a modified servant
// would: an ordinary member with a retransmission request for the item's
// count, plain and as a search, and an archive outside (it follows every
// category and keeps a store) with a catch-up and the same requests. No
// answer carries the item to them: the holders (the publisher's own store
// among them) answer "not for you", the first range for a category, and
// the honest outside archive takes that as a foreign count rather than
// asking again. Everyone inside still holds the item.
func TestAudienceAnswersNotForOutsiders(t *testing.T) {
	for _, seed := range scenarioSeeds(3) {
		runAudienceAnswers(t, seed)
	}
}

func runAudienceAnswers(t *testing.T, seed uint64) {
	n, ids := buildAudienceNetwork(t, seed)
	office := netip.MustParsePrefix("10.1.4.0/24")
	archive := newsnet.ServantID("10.2.5.200:7400")
	n.Add(archive, ids[:2], newsnet.AllCategories)
	if !n.RunUntil(5*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence with the archive: %v", seed, n.CheckTree())
	}
	var publisher, member newsnet.ServantID
	for _, id := range ids {
		switch {
		case publisher == "" && office.Contains(addrOf(id)):
			publisher = id
		case member == "" && !office.Contains(addrOf(id)):
			member = id
		}
	}
	outside := []newsnet.ServantID{member, archive}
	item := [16]byte{0xa5, byte(seed)}
	var leaked []string
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if r, ok := m.(*newsnet.Recovered); ok && r.Msg != nil && r.Msg.ID == item && (to == member || to == archive) {
			leaked = append(leaked, fmt.Sprintf("%s→%s", from, to))
		}
		return true
	}
	// An item for everyone first: every servant has heard of the publisher.
	n.PublishMsg(publisher, &newsnet.Multicast{ID: [16]byte{0xa4, byte(seed)}, Category: "news", Payload: []byte("for all")})
	n.RunFor(5 * time.Second)
	pub := n.PublishReport(publisher, &newsnet.Multicast{ID: item, Category: "news", Payload: []byte("office only"), Audience: []netip.Prefix{office}})
	if pub.Count == 0 {
		t.Fatalf("seed %d: not published: %+v", seed, pub)
	}
	n.RunFor(5 * time.Second)
	ask := func() {
		for _, id := range outside {
			st := n.Node(id).Servant.Status()
			for _, l := range st.Links {
				trail := []newsnet.ServantID{id}
				n.Inject(id, l.Peer, &newsnet.Recover{Source: string(publisher), Counts: []uint64{pub.Count}, Trail: trail})
				n.Inject(id, l.Peer, &newsnet.Recover{Source: string(publisher), Counts: []uint64{pub.Count}, Search: true, Trail: trail})
				n.Inject(id, l.Peer, &newsnet.CatchUp{Categories: newsnet.NewCategorySet(newsnet.AllCategories), Trail: trail})
			}
		}
	}
	ask()
	n.RunFor(10 * time.Second)
	// The same again once the network holds it everywhere it may.
	ask()
	n.RunFor(time.Minute)
	if len(leaked) > 0 {
		t.Errorf("seed %d: the office item was an answer to servants outside: %v", seed, leaked)
	}
	for _, id := range outside {
		if got := n.Node(id).Delivered[item]; got != 0 {
			t.Errorf("seed %d: %s outside the office delivered the office item %d times", seed, id, got)
		}
		if c := n.Node(id).Servant.Status().Counters; c.Lost != 0 {
			t.Errorf("seed %d: %s outside counts %d lost", seed, id, c.Lost)
		}
	}
	for _, id := range ids {
		if id != publisher && office.Contains(addrOf(id)) && n.Node(id).Delivered[item] != 1 {
			t.Errorf("seed %d: %s inside delivered the office item %d times", seed, id, n.Node(id).Delivered[item])
		}
	}
	if v := n.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}
