package main

import (
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// The node's link records are classified: too slow (the core's no-progress
// close, the runtime's hard cap, a write that timed out), the far end of a
// close (not counted twice), and everything else by reason; nothing is
// counted while counting is off.
func TestLinkLogClassifies(t *testing.T) {
	h := &linkLog{}
	log := slog.New(h)
	log.Debug("closing link", "link", 1, "reason", "heartbeat timeout") // off: ignored
	h.count(true)
	log.Debug("closing link", "link", 1, "peer", "127.0.0.1:1", "reason", "peer too slow: nothing written for 4s with 1048576 bytes queued")
	log.Error("closing link: send queue over its hard cap (the core's flow control failed)", "peer", "x", "link", 2, "cap", 1)
	log.Debug("link lost", "link", 3, "peer", "x", "reason", "write: write tcp 127.0.0.1:1->127.0.0.2:2: i/o timeout")
	log.Debug("link lost", "link", 4, "peer", "x", "reason", "closed by peer")
	log.Debug("link lost", "link", 5, "peer", "x", "reason", "read: connection reset by peer")
	log.Debug("closing link", "link", 6, "peer", "x", "reason", "heartbeat timeout")
	log.Info("vertex: no seed before x answered")
	tooSlow, other := h.result()
	h.count(false)
	log.Debug("closing link", "link", 7, "reason", "peer too slow")
	if tooSlow != 3 || len(other) != 1 || other["heartbeat timeout"] != 1 {
		t.Fatalf("too slow %d, other %v; want 3, map[heartbeat timeout:1]", tooSlow, other)
	}
	if again, _ := h.result(); again != 3 {
		t.Fatalf("counted while off: %d", again)
	}
}

// A run is tallied per servant and item: a second copy is a duplicate, a
// category the servant does not take is unwanted, and the run is done at
// the last wanted first delivery.
func TestStressTrackerCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	plan := newStressPlan(r, 3)
	plan.cats = []string{"it", "hr", "it"}
	tr := &stressTracker{plan: plan, done: make(chan struct{})}
	it := &nodeTally{subs: newsnet.NewCategorySet("it"), got: make([]uint8, 3)}
	tr.nodes = []*nodeTally{it}
	tr.want = 2
	now := time.Now()
	for k := range 3 {
		tr.publishedAt(k, now)
	}
	msg := func(k int) *newsnet.Multicast {
		return &newsnet.Multicast{ID: plan.ids[k], Category: plan.cats[k], Count: uint64(k + 1)}
	}
	tr.deliver(it, msg(0), now.Add(time.Millisecond))
	tr.deliver(it, msg(0), now.Add(2*time.Millisecond))
	tr.deliver(it, msg(1), now.Add(3*time.Millisecond))
	select {
	case <-tr.done:
		t.Fatal("done before the last wanted delivery")
	default:
	}
	tr.deliver(it, msg(2), now.Add(4*time.Millisecond))
	<-tr.done
	delivered, dups, unwanted, outOfOrder, lat := tr.results()
	if delivered != 2 || dups != 1 || unwanted != 1 || outOfOrder != 0 || len(lat) != 2 || lat[1] != 4*time.Millisecond {
		t.Fatalf("delivered %d dups %d unwanted %d out of order %d lat %v", delivered, dups, unwanted, outOfOrder, lat)
	}
}
