package sim

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A simulated signature: the payload is a digest of the fields a
// publisher signs.
func testSign(m *newsnet.Multicast) []byte {
	h := sha256.Sum256(fmt.Appendf(nil, "%x|%s|%s", m.ID, m.Category, m.Source))
	return h[:]
}

func testVerify(m *newsnet.Multicast) string {
	if !bytes.Equal(m.Payload, testSign(m)) {
		return "badSignature"
	}
	return ""
}

// A relay tampers with every item it passes down (it flips the urgent bit,
// say). Its down-servants reject each copy as forged, as before; now they
// also hold it against the relay, leave it within a few items, join the
// tree elsewhere and recover what it spoiled: every subscriber below it
// holds every item once, in source order, and the relay is counted and
// refused by those it served.
func TestTamperingRelayIsLeft(t *testing.T) {
	for _, seed := range scenarioSeeds(3) {
		runTamperingRelay(t, seed)
	}
}

func runTamperingRelay(t *testing.T, seed uint64) {
	n := New(seed)
	checkEveryStep(t, n)
	n.Base.Verify = testVerify
	n.Base.ForgedReasons = []string{"badSignature"}
	n.Base.Fanout = 4
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 60 {
		ids = append(ids, randomID(r, used))
	}
	for i, id := range ids {
		subs := []string{"news"}
		if i == 0 {
			subs = []string{newsnet.AllCategories}
		}
		n.Add(id, ids[:2], subs...)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	publisher := ids[2]
	// The relay: a servant with down-servants, away from the publisher.
	var relay newsnet.ServantID
	var below []newsnet.ServantID
	for _, id := range ids[3:] {
		if st := n.Node(id).Servant.Status(); len(st.Downs) >= 2 {
			relay, below = id, st.Downs
			break
		}
	}
	if relay == "" {
		t.Skipf("seed %d: no relay with two down-servants", seed)
	}
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		mc, ok := m.(*newsnet.Multicast)
		if !ok || from != relay {
			return true
		}
		bad := *mc
		bad.Payload = []byte("tampered")
		n.Inject(from, to, &bad)
		return false
	}
	var order [][16]byte
	for range 40 {
		m := &newsnet.Multicast{ID: n.ItemID(), Category: "news", Source: string(publisher)}
		m.Payload = testSign(m)
		n.PublishMsg(publisher, m)
		order = append(order, m.ID)
		n.RunFor(500 * time.Millisecond)
	}
	if !n.RunUntil(5*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence after the stream: %v", seed, n.CheckTree())
	}
	n.RunFor(2 * time.Minute)
	for _, id := range below {
		st := n.Node(id).Servant.Status()
		if st.Up == relay {
			t.Errorf("seed %d: %s is still below the tampering relay", seed, id)
		}
		if st.Counters.Forged == 0 || st.Misconduct.Counts["forged"] == 0 {
			t.Errorf("seed %d: %s counted no forged items: %+v", seed, id, st.Misconduct)
		}
	}
	for _, nd := range n.Alive() {
		if nd.ID == relay || nd.ID == publisher {
			continue
		}
		for _, id := range order {
			if got := nd.Delivered[id]; got != 1 {
				t.Errorf("seed %d: %s (below the relay: %v) holds item %x %d times", seed, nd.ID, slices.Contains(below, nd.ID), id[:3], got)
				break
			}
		}
		if counts := nd.Order[string(publisher)]; !slices.IsSorted(counts) {
			t.Errorf("seed %d: %s delivered out of order: %v", seed, nd.ID, counts)
		}
	}
}

// A relay passes on nothing to its down-servants: no item, no edge, no
// answer, while it keeps the links alive with heartbeats (issue 32, E).
// Nothing below it sees a gap. Their second opinion does: a seed knows the
// stream has moved on while nothing of it came from their up-servant, so
// within minutes they leave the relay, join elsewhere and recover what it
// swallowed, every subscriber holding every item once, in order.
func TestSilentRelayIsLeft(t *testing.T) {
	for _, seed := range scenarioSeeds(2) {
		runSilentRelay(t, seed)
	}
}

func runSilentRelay(t *testing.T, seed uint64) {
	n := New(seed)
	checkEveryStep(t, n)
	n.Base.Fanout = 4
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 60 {
		ids = append(ids, randomID(r, used))
	}
	for i, id := range ids {
		subs := []string{"news"}
		if i == 0 {
			subs = []string{newsnet.AllCategories}
		}
		n.Add(id, ids[:2], subs...)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	publisher := ids[2]
	var relay newsnet.ServantID
	var below []newsnet.ServantID
	for _, id := range ids[3:] {
		if st := n.Node(id).Servant.Status(); len(st.Downs) >= 2 && !slices.Contains(n.subtree(id), publisher) {
			relay, below = id, st.Downs
			break
		}
	}
	if relay == "" {
		t.Skipf("seed %d: no relay with two down-servants apart from the publisher", seed)
	}
	// Before the relay goes silent, its subtree has heard of the publisher.
	var order [][16]byte
	publish := func() {
		order = append(order, n.Publish(publisher, "news"))
		n.RunFor(500 * time.Millisecond)
	}
	publish()
	n.RunFor(5 * time.Second)
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if from != relay || !slices.Contains(n.Node(relay).Servant.Status().Downs, to) {
			return true
		}
		switch m.(type) {
		case *newsnet.Multicast, *newsnet.LatestHeader, *newsnet.Recovered, *newsnet.CatchUpDone:
			return false
		}
		return true
	}
	for range 20 {
		publish()
	}
	// The relay is reported: the network's census names it among the
	// servants refused for misconduct, while the refusals last.
	start := n.Now()
	reported := n.RunUntil(15*time.Minute, func() bool {
		c, ok := vertexCensus(n)
		return ok && slices.ContainsFunc(c.Refused, func(r newsnet.ServantCount) bool { return r.ID == relay })
	})
	if !reported {
		t.Errorf("seed %d: the census never named the silent relay %s among the refused", seed, relay)
	}
	n.RunFor(15*time.Minute - n.Now().Sub(start))
	for _, id := range below {
		st := n.Node(id).Servant.Status()
		if st.Up == relay {
			t.Errorf("seed %d: %s is still below the silent relay", seed, id)
		}
		if st.Counters.SilentUps == 0 || st.Misconduct.Counts["silent"] == 0 {
			t.Errorf("seed %d: %s never found its up-servant silent: %+v", seed, id, st.Misconduct)
		}
	}
	for _, nd := range n.Alive() {
		if nd.ID == relay || nd.ID == publisher {
			continue
		}
		for _, id := range order {
			if got := nd.Delivered[id]; got != 1 {
				t.Errorf("seed %d: %s (below the relay: %v) holds item %x %d times", seed, nd.ID, slices.Contains(below, nd.ID), id[:3], got)
				break
			}
		}
		if counts := nd.Order[string(publisher)]; !slices.IsSorted(counts) {
			t.Errorf("seed %d: %s delivered out of order: %v", seed, nd.ID, counts)
		}
		if c := nd.Servant.Status().Counters; c.Lost != 0 {
			t.Errorf("seed %d: %s counts %d lost", seed, nd.ID, c.Lost)
		}
	}
	if v := n.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}
