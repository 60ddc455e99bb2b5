package node

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// freezer stops a node's loop while frozen, as SIGSTOP stops a laptop's
// process: the observe hook, called on the loop after every step, waits.
// No event is handled, no heartbeat or item goes out; its readers fill the
// loop's queue and then the socket buffers. Writes already queued still go
// out. Status and the other calls that go through the loop wait too, so a
// test does not ask a frozen node anything.
type freezer struct {
	mu   sync.Mutex
	thaw chan struct{} // nil when not frozen
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.thaw = make(chan struct{})
	f.mu.Unlock()
}

func (f *freezer) wake() {
	f.mu.Lock()
	close(f.thaw)
	f.thaw = nil
	f.mu.Unlock()
}

func (f *freezer) observe(newsnet.Event, []newsnet.Action) {
	f.mu.Lock()
	thaw := f.thaw
	f.mu.Unlock()
	if thaw != nil {
		<-thaw
	}
}

// The black-box case of issue 23 as a test. A seed and 16 members in three
// subnets (127.0.1.x, 127.0.2.x, 127.0.3.x), all subscribed to "it", no
// archive. The member that holds 127.0.2.x's slot, with the rest of its
// subnet below it, freezes as a laptop whose lid closed; a member that
// never published sends 400 items meanwhile; 8 s later the frozen member
// wakes. Every member, the frozen subnet included, then holds all 400
// items exactly once and in order, and nothing is counted lost: the
// servants that first meet the new source above count 1 find the counts
// owed to them (before, they held none of the 400 and counted nothing).
func TestTCPNewSourceBehindFrozenRelay(t *testing.T) {
	const items = 400
	log := newTestLog(t)
	links := newLinkWatch()
	seed := startNode(t, Config{Listen: "127.0.0.1:0", Protocol: overlayCore(), Logger: log, observe: links.hook("seed")})

	const source = "newsroom-pc"
	store := newOwnStore(source)
	var members []*stressServant
	var publisher *Node
	var frozen *freezer
	var relay *stressServant
	for subnet := 1; subnet <= 3; subnet++ {
		for host := 1; host <= 5+subnet/3; host++ {
			core := overlayCore(seed.Addr())
			core.Subscriptions = []string{"it"}
			sv := &stressServant{subs: newsnet.NewCategorySet("it"), got: &deliveryLog{}}
			cfg := Config{Listen: fmt.Sprintf("127.0.%d.%d:0", subnet, host), Protocol: core, Logger: log, OnDeliver: sv.got.add}
			name := fmt.Sprintf("member %d.%d", subnet, host)
			switch {
			case subnet == 2 && host == 1:
				frozen = &freezer{}
				cfg.observe = observers(frozen.observe, links.hook(name))
				relay = sv
			case subnet == 3 && host == 2:
				cfg.Protocol.Source = source
				cfg.Protocol.Archive = store
				cfg.OnPublished = store.published
				cfg.observe = observers(store.observe, links.hook(name))
			default:
				cfg.observe = links.hook(name)
			}
			sv.Node = startNode(t, cfg)
			if subnet == 3 && host == 2 {
				publisher = sv.Node
			}
			members = append(members, sv)
			if host == 1 {
				// The first of a subnet takes its slot; the others go below it.
				waitFor(t, 30*time.Second, name+" attached", func() error {
					if st := sv.Status(); st.Up == "" {
						return fmt.Errorf("%s is %s", sv.Addr(), st.Role)
					}
					return nil
				})
			}
		}
	}
	nodes := []*overlayNode{{Node: seed}}
	for _, sv := range members {
		nodes = append(nodes, &overlayNode{Node: sv.Node, subs: sv.subs})
	}
	waitFor(t, 30*time.Second, "one tree with converged routing", func() error { return checkOverlay(nodes) })
	waitFor(t, 30*time.Second, "the catch-ups after joining over", func() error {
		for _, sv := range members {
			if sv.Status().CatchingUp {
				return fmt.Errorf("%s is catching up", sv.Addr())
			}
		}
		return nil
	})
	var below []string
	for _, sv := range members {
		if st := sv.Status(); st.Up == relay.Addr() {
			below = append(below, string(sv.Addr()))
		}
	}
	if len(below) == 0 {
		t.Fatalf("nobody is attached below %s: the test would test nothing", relay.Addr())
	}
	t.Logf("freezing %s, with %s below it", relay.Addr(), strings.Join(below, ", "))

	frozen.freeze()
	frozenAt := time.Now()
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var published []stressItem
	for range items {
		m := newMsg("it")
		m.Source = source
		store.remember(m)
		if _, err := publisher.Publish(ctx, m); err != nil {
			t.Fatalf("publish: %v", err)
		}
		published = append(published, stressItem{m.ID, "it"})
	}
	time.Sleep(time.Until(frozenAt.Add(8 * time.Second)))
	frozen.wake()
	woke := time.Now()

	var subscribers []*stressServant
	for _, sv := range members {
		if sv.Node != publisher {
			subscribers = append(subscribers, sv)
		}
	}
	net := &stressNet{t: t, pub: publisher, store: store, servers: subscribers, links: links, cats: []string{"it"}, items: published}
	net.waitComplete(subscribers, stressDeadline, "every member holds the 400 items")
	t.Logf("every member held the %d items %v after the wake-up", items, time.Since(woke).Round(time.Millisecond))
	settle()
	net.check()
	var probes uint64
	for _, sv := range subscribers {
		probes += sv.Status().Counters.AskedOwed
	}
	t.Logf("probes for owed counts: %d; links down: %s", probes, links.summary())
}
