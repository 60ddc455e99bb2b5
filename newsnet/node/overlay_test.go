package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// overlayCore is the timer set of the 50-node test. Joins, redirects and
// recovery after a close need no timer, so only the partition interval is
// short (settling waits on it); the failure detectors are generous, because
// a loaded 2-core machine running the race detector can stall a process for
// seconds and a false "peer dead" causes churn the test would then wait out.
func overlayCore(seeds ...newsnet.ServantID) newsnet.Config {
	c := newsnet.DefaultConfig("")
	c.Seeds = seeds
	c.TickInterval = 25 * time.Millisecond
	c.HeartbeatInterval = 500 * time.Millisecond
	c.LinkTimeout = 5 * time.Second
	c.JoinTimeout = 2 * time.Second
	c.PartitionInterval = 250 * time.Millisecond
	c.RootSilence = 5 * time.Second
	c.SeedProbeInterval = 500 * time.Millisecond
	c.BackoffMin = 50 * time.Millisecond
	c.BackoffMax = time.Second
	return c
}

// overlayNode is one servant of the test overlay with what it subscribed to
// and what it was delivered.
type overlayNode struct {
	*Node
	subs newsnet.CategorySet
	got  deliveries
	dead bool
}

// TestTCPOverlay50 runs 50 servants on loopback: they form one tree, routing
// sets converge, every item reaches exactly its subscribers once; then five
// servants with children are shut down, the tree re-forms around them and
// delivery is exact again.
func TestTCPOverlay50(t *testing.T) { testTCPOverlay50(t, nil) }

// TestTCPOverlay50Secure is TestTCPOverlay50 with every link over TLS 1.3
// and the network-secret proof: security must not change the overlay.
func TestTCPOverlay50Secure(t *testing.T) {
	secret := []byte("overlay test network secret")
	testTCPOverlay50(t, func() *Security { return newSecurity(t, newSecretList(secret)) })
}

// testTCPOverlay50 runs the 50-servant test; security, if set, gives each
// servant its Config.Security.
func testTCPOverlay50(t *testing.T, security func() *Security) {
	if testing.Short() {
		t.Skip("50 servants on loopback")
	}
	const size = 50
	log := newTestLog(t)
	start := time.Now()

	// Categories: "a", "b", "c" have subscribers (a node may have several),
	// "d" has none. Items in "a/x" go to subscribers of "a".
	subsOf := func(i int) []string {
		var s []string
		if i%3 == 0 {
			s = append(s, "a")
		}
		if i%4 == 1 {
			s = append(s, "b")
		}
		if i%7 == 2 {
			s = append(s, "c")
		}
		return s
	}

	nodes := make([]*overlayNode, size)
	var seeds []newsnet.ServantID
	for i := range nodes {
		on := &overlayNode{subs: newsnet.NewCategorySet(subsOf(i)...)}
		cfg := Config{Protocol: overlayCore(seeds...), Logger: log, OnDeliver: on.got.add}
		if security != nil {
			cfg.Security = security()
		}
		on.Node = startNode(t, cfg)
		if err := on.SetSubscriptions(subsOf(i)); err != nil {
			t.Fatal(err)
		}
		nodes[i] = on
		// Seeds: the first node is the vertex, the second its stand-in.
		// Every later node knows both.
		if i < 2 {
			seeds = append(seeds, on.Addr())
		}
	}

	waitFor(t, 20*time.Second, "one tree with converged routing", func() error { return checkOverlay(nodes) })
	formed := time.Since(start)
	t.Logf("%d servants formed one tree in %v (depth %d)", size, formed.Round(time.Millisecond), treeDepth(nodes))

	publishAndCheck(t, nodes, "before failures")

	// Shut down five servants that have children (never the vertex), so
	// their subtrees must recover through siblings and seeds.
	var victims []*overlayNode
	for _, on := range nodes[1:] {
		if st := on.Status(); len(st.Downs) > 0 && len(victims) < 5 {
			victims = append(victims, on)
		}
	}
	if len(victims) < 3 {
		t.Fatalf("only %d servants have children; the tree is too flat for this test", len(victims))
	}
	killed := time.Now()
	var wg sync.WaitGroup
	for _, on := range victims {
		on.dead = true
		wg.Go(func() { on.Close() })
	}
	wg.Wait()
	waitFor(t, 20*time.Second, "the tree re-formed without the closed servants", func() error { return checkOverlay(nodes) })
	t.Logf("closed %d servants with children; tree re-formed in %v (depth %d)",
		len(victims), time.Since(killed).Round(time.Millisecond), treeDepth(nodes))

	publishAndCheck(t, nodes, "after failures")
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

func alive(nodes []*overlayNode) []*overlayNode {
	var out []*overlayNode
	for _, on := range nodes {
		if !on.dead {
			out = append(out, on)
		}
	}
	return out
}

// checkOverlay checks, from every live servant's Status, that they form one
// tree and that every routing set is what the tree says it must be:
//
//   - exactly one vertex; every other servant attached, its up-servant alive
//     and listing it as a down; following up pointers reaches the vertex
//     without a cycle, along the root path the servant itself reports;
//   - no servant with children has a partition outside its up-servant's
//     (tree optimization would reset it);
//   - on each link, the received set is the union of the subscriptions of
//     every servant beyond that link (JP4353827B2 Fig. 7 at its fixed point).
func checkOverlay(nodes []*overlayNode) error {
	live := alive(nodes)
	st := make(map[newsnet.ServantID]newsnet.Status, len(live))
	self := make(map[newsnet.ServantID]newsnet.CategorySet, len(live))
	for _, on := range live {
		st[on.Addr()] = on.Status()
		self[on.Addr()] = on.subs
	}
	var vertex newsnet.ServantID
	for id, s := range st {
		switch s.Role {
		case newsnet.RoleVertex:
			if vertex != "" {
				return fmt.Errorf("two vertices: %s and %s", vertex, id)
			}
			vertex = id
		case newsnet.RoleAttached:
			up, ok := st[s.Up]
			if !ok {
				return fmt.Errorf("%s is attached to %s, which is not a live servant", id, s.Up)
			}
			if !slices.Contains(up.Downs, id) && !slices.Contains(up.Leaves, id) {
				return fmt.Errorf("%s's up is %s, whose downs %v and leaves %v lack it", id, s.Up, up.Downs, up.Leaves)
			}
			if s.Leaf && s.Reach == newsnet.ReachUnknown {
				return fmt.Errorf("%s is a leaf still waiting for its dial-back (reach %v)", id, s.Reach)
			}
		default:
			return fmt.Errorf("%s is %s", id, s.Role)
		}
		for _, d := range slices.Concat(s.Downs, s.Leaves) {
			if ds, ok := st[d]; !ok || ds.Up != id {
				return fmt.Errorf("%s lists down %s, whose up is %q", id, d, ds.Up)
			}
		}
		if !slices.Equal(s.Subscriptions, self[id]) {
			return fmt.Errorf("%s subscriptions %v, want %v", id, s.Subscriptions, self[id])
		}
	}
	if vertex == "" {
		return errors.New("no vertex")
	}
	for id, s := range st {
		var path []newsnet.ServantID // from the vertex down to id's up
		for at := s.Up; at != ""; at = st[at].Up {
			if slices.Contains(path, at) || at == id {
				return fmt.Errorf("cycle through %s", at)
			}
			path = append(path, at)
		}
		slices.Reverse(path)
		if len(path) > 0 && path[0] != vertex {
			return fmt.Errorf("%s's up pointers end at %s, not the vertex %s", id, path[0], vertex)
		}
		// Settled, not just connected: the partition messages have caught
		// up (root paths are current) and tree optimization has nothing left
		// to reset, so the tree will not change under the publications.
		if !slices.Equal(s.RootPath, path) {
			return fmt.Errorf("%s root path %v, want %v", id, s.RootPath, path)
		}
		if s.Up != "" && len(s.Downs) > 0 && !s.Partition.StrictlyInside(st[s.Up].Partition) {
			return fmt.Errorf("%s partition %v not inside its up's %v: a reset is due", id, s.Partition, st[s.Up].Partition)
		}
	}

	// sub[x] is the union of self over x's subtree.
	sub := make(map[newsnet.ServantID]newsnet.CategorySet, len(st))
	var subtree func(newsnet.ServantID) newsnet.CategorySet
	subtree = func(x newsnet.ServantID) newsnet.CategorySet {
		if s, ok := sub[x]; ok {
			return s
		}
		u := self[x]
		for _, d := range slices.Concat(st[x].Downs, st[x].Leaves) {
			u = u.Union(subtree(d))
		}
		sub[x] = u
		return u
	}
	for id, s := range st {
		for _, l := range s.Links {
			var want newsnet.CategorySet
			if l.Up {
				// Everything outside our subtree: walk up, adding each
				// ancestor and the subtrees of its other children.
				for child, at := id, s.Up; at != ""; child, at = at, st[at].Up {
					want = want.Union(self[at])
					for _, d := range slices.Concat(st[at].Downs, st[at].Leaves) {
						if d != child {
							want = want.Union(subtree(d))
						}
					}
				}
			} else {
				want = subtree(l.Peer)
			}
			if !l.Received.Equal(want) {
				return fmt.Errorf("%s: link to %s received %v, want %v", id, l.Peer, l.Received, want)
			}
		}
	}
	return nil
}

func treeDepth(nodes []*overlayNode) int {
	depth := 0
	for _, on := range alive(nodes) {
		depth = max(depth, len(on.Status().RootPath))
	}
	return depth
}

// publishAndCheck publishes items from several servants in every category
// and checks that each reaches exactly the live subscribers other than its
// publisher, exactly once, and that an item nobody wants is suppressed.
func publishAndCheck(t *testing.T, nodes []*overlayNode, phase string) {
	t.Helper()
	live := alive(nodes)
	type item struct {
		msg  *newsnet.Multicast
		from *overlayNode
		want map[*overlayNode]bool
	}
	var items []item
	cats := []string{"a", "b", "c", "a/x", "d"}
	for k, from := range []*overlayNode{live[0], live[1], live[len(live)/2], live[len(live)-1], live[7], live[13]} {
		for j, cat := range cats {
			if (k+j)%2 == 1 {
				continue // keep the item count moderate; every pair still occurs across phases
			}
			it := item{msg: newMsg(cat), from: from, want: map[*overlayNode]bool{}}
			for _, on := range live {
				if on != from && on.subs.Matches(cat) {
					it.want[on] = true
				}
			}
			p, err := from.Publish(context.Background(), it.msg)
			links := p.Links
			if err != nil {
				t.Fatalf("%s: publish %s from %s: %v", phase, cat, from.Addr(), err)
			}
			if (links == 0) != (len(it.want) == 0) {
				t.Errorf("%s: publish %s from %s went out on %d links, with %d subscribers",
					phase, cat, from.Addr(), links, len(it.want))
			}
			items = append(items, it)
		}
	}
	waitFor(t, 10*time.Second, phase+": every item delivered", func() error {
		for _, it := range items {
			for on := range it.want {
				if on.got.count(it.msg.ID) == 0 {
					return fmt.Errorf("%s item from %s not delivered to %s", it.msg.Category, it.from.Addr(), on.Addr())
				}
			}
		}
		return nil
	})
	// Copies would arrive within a few milliseconds of the originals; give
	// stragglers a moment before checking that nothing extra came.
	time.Sleep(200 * time.Millisecond)
	for _, it := range items {
		for _, on := range nodes {
			want := 0
			if it.want[on] {
				want = 1
			}
			if got := on.got.count(it.msg.ID); got != want {
				t.Errorf("%s: %s item from %s delivered %d times to %s (subscribed %v), want %d",
					phase, it.msg.Category, it.from.Addr(), got, on.Addr(), on.subs, want)
			}
		}
	}
}
