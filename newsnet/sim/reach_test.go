package sim

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// reachNetwork builds n servants in a settled network whose first seed,
// the vertex, publishes.
func reachNetwork(t *testing.T, seed uint64, size int) (*Network, []newsnet.ServantID) {
	t.Helper()
	n := New(seed)
	n.WireCheck = true
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range size {
		ids = append(ids, randomID(r, used))
	}
	seeds := ids[:2]
	for i, id := range ids {
		subs := randomSubs(r)
		if i == 0 {
			subs = nil
		}
		n.Add(id, seeds, subs...)
		if i%50 == 49 {
			n.RunFor(200 * time.Millisecond)
		}
	}
	if !n.RunUntil(10*time.Minute, n.Settled) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	return n, ids
}

// TestReachSmall: in a quiet network, the publisher's report of each item
// equals the truth: subscribers, stored copies, readers, acknowledgements
// and the pending list.
func TestReachSmall(t *testing.T) {
	n, ids := reachNetwork(t, 1, 40)
	pub := ids[0]
	type published struct {
		id  [16]byte
		cat string
	}
	var items []published
	for i, cat := range []string{"company", "hr", "sales/emea"} {
		id := n.Publish(pub, cat)
		items = append(items, published{id, cat})
		n.RunFor(time.Second)
		for j, sid := range ids {
			if j%3 == i {
				n.Read(sid, id)
			}
			if j%4 == 0 {
				n.MustRead(sid, id, []byte("reader "+string(sid)))
			}
			if j%8 == 0 {
				n.Acknowledge(sid, id, []byte("ack "+string(sid)))
			}
		}
	}
	n.RunFor(30 * time.Second)
	for _, it := range items {
		if err := n.CheckReach(pub, it.id, it.cat); err != nil {
			t.Error(err)
		}
		got, _ := n.Node(pub).Servant.Reach(it.id)
		t.Logf("%s: %s", it.cat, briefReach(got))
	}
	if v := n.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}

// reachItem is one publication a reach test follows.
type reachItem struct {
	from newsnet.ServantID
	id   [16]byte
	cat  string
}

// readSome makes a random third of the holders of it read it, a fifth of
// them be told it is must-read, and half of those acknowledge it.
func readSome(n *Network, r *rand.Rand, ids []newsnet.ServantID, it reachItem) {
	for _, id := range ids {
		switch k := r.IntN(30); {
		case k < 10:
			n.Read(id, it.id)
		case k < 16:
			n.MustRead(id, it.id, []byte("reader "+string(id)))
			if k < 13 {
				n.Acknowledge(id, it.id, []byte("ack "+string(id)))
			}
		}
	}
}

// reportWatch counts, per servant, the reach reports it receives in each
// ReportPeriod, and checks that no step sends an item on a link after a
// report on it: reports never go ahead of items.
type reportWatch struct {
	period   time.Duration
	start    time.Time
	received map[newsnet.ServantID]map[int64]int // per period index
	lastAt   map[newsnet.ServantID]time.Time
	reported map[newsnet.LinkID]bool // links given a report at lastAt
	errs     []string
}

func watchReports(n *Network) *reportWatch {
	w := &reportWatch{period: n.Base.ReportPeriod, start: n.Now(),
		received: map[newsnet.ServantID]map[int64]int{}, lastAt: map[newsnet.ServantID]time.Time{}}
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if _, ok := m.(*newsnet.ReachReport); ok {
			if w.received[to] == nil {
				w.received[to] = map[int64]int{}
			}
			w.received[to][int64(n.Now().Sub(w.start)/w.period)]++
		}
		return true
	}
	reported := map[newsnet.ServantID]map[newsnet.LinkID]bool{}
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		s, ok := a.(newsnet.Send)
		if !ok {
			return
		}
		if !w.lastAt[id].Equal(at) {
			w.lastAt[id], reported[id] = at, map[newsnet.LinkID]bool{}
		}
		switch s.Msg.(type) {
		case *newsnet.ReachReport:
			reported[id][s.Link] = true
		case *newsnet.Multicast, *newsnet.Recovered:
			if reported[id][s.Link] && len(w.errs) < 10 {
				w.errs = append(w.errs, fmt.Sprintf("%s at %v: an item after a reach report on link %d", id, at.Sub(w.start), s.Link))
			}
		}
	}
	return w
}

// newStep tells w that id's next actions are a step of their own, though
// they may come at the virtual instant of its last one (a publication at
// the time of a tick that sent reports): w tells steps apart by their time
// otherwise.
func (w *reportWatch) newStep(id newsnet.ServantID) { delete(w.lastAt, id) }

// most returns the most reports id received in one period since from.
func (w *reportWatch) most(id newsnet.ServantID, from time.Time) int {
	most := 0
	first := int64(from.Sub(w.start) / w.period)
	for p, k := range w.received[id] {
		if p >= first {
			most = max(most, k)
		}
	}
	return most
}

// publishReached publishes an item in cat from from and returns its ID;
// with audience set, for the servants of one of randomID's three /16s.
func publishReached(n *Network, from newsnet.ServantID, cat string, audience bool) [16]byte {
	if !audience {
		return n.Publish(from, cat)
	}
	r := n.Rand()
	var id [16]byte
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	aud := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(r.IntN(3)), 0, 0}), 16)
	n.PublishMsg(from, &newsnet.Multicast{ID: id, Category: cat, Audience: []netip.Prefix{aud}})
	return id
}

// TestReachUnderFaults: 1,000 servants (200 with -short); two publishers,
// one the vertex and one deep in the tree, publish while tree links break,
// servants crash, vanish and restart, pairs are cut off and subscriptions
// change, and readers open and acknowledge items throughout. Once the
// network is quiet again, every item's report at its publisher equals the
// truth; every publisher received at most Fanout report frames per period
// in the quiet phase (at most one per tree link), and no servant ever sent
// an item on a link after a report in the same step.
func TestReachUnderFaults(t *testing.T) {
	size, faults := 1000, 120
	if testing.Short() {
		size, faults = 200, 40
	}
	for _, seed := range scenarioSeeds(1) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { reachUnderFaults(t, seed, size, faults, false) })
	}
}

// TestReachAudienceUnderFaults is TestReachUnderFaults (200 servants)
// with every item for the servants of one of the network's three /16s:
// once quiet, each item's subscribers at its publisher are the online
// subscribers inside its audience that hold it, counted per item.
func TestReachAudienceUnderFaults(t *testing.T) {
	for _, seed := range scenarioSeeds(2) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { reachUnderFaults(t, seed, 200, 40, true) })
	}
}

func reachUnderFaults(t *testing.T, seed uint64, size, faults int, audience bool) {
	n, ids := reachNetwork(t, seed, size)
	checkEveryStep(t, n)
	defer func() {
		if t.Failed() {
			t.Logf("replay: go test ./newsnet/sim -run '%s$' -sim.seed %d", strings.Split(t.Name(), "/")[0], seed)
		}
	}()
	r := n.Rand()
	w := watchReports(n)
	pubs := []newsnet.ServantID{ids[0], ids[size/2]}
	victims := ids[2:] // the seeds stay up
	var items []reachItem
	var down []newsnet.ServantID
	for i := range faults {
		if i%3 == 0 {
			from := pubs[r.IntN(2)]
			cat := testCategories[r.IntN(len(testCategories))]
			w.newStep(from)
			items = append(items, reachItem{from, publishReached(n, from, cat, audience), cat})
		}
		n.RunFor(300 * time.Millisecond)
		if len(items) > 0 {
			readSome(n, r, ids[r.IntN(size):][:min(20, size/10)], items[r.IntN(len(items))])
		}
		id := victims[r.IntN(len(victims))]
		if id == pubs[1] {
			continue
		}
		nd := n.Node(id)
		switch k := r.IntN(10); {
		case !nd.Alive:
			n.Restart(id)
		case k < 2:
			n.Crash(id)
			down = append(down, id)
		case k < 3:
			n.Vanish(id)
			down = append(down, id)
		case k < 6:
			if st := nd.Servant.Status(); st.Up != "" {
				n.CutLink(id, st.Up)
			}
		case k < 8:
			if st := nd.Servant.Status(); st.Up != "" {
				n.Cut(id, st.Up)
			}
		default:
			n.Subscribe(id, randomSubs(r)...)
		}
	}
	n.HealAll()
	for _, id := range down {
		n.Restart(id)
	}
	n.RunFor(n.Base.LinkTimeout + 5*time.Second)
	if !n.RunUntil(10*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	// Reads after the faults, then time for the reports to settle: a few
	// periods per level of the tree.
	for _, it := range items[:len(items)/2] {
		readSome(n, r, ids, it)
	}
	quiet := n.Now()
	allRight := func() bool {
		for _, it := range items {
			if n.CheckReach(it.from, it.id, it.cat) != nil {
				return false
			}
		}
		return true
	}
	// The bound is generous: each level of the tree may hold a change for
	// up to one period.
	n.RunUntil(20*n.Base.ReportPeriod, allRight)
	t.Logf("reports right %v after the last reads", n.Now().Sub(quiet))
	bad := 0
	for _, it := range items {
		if err := n.CheckReach(it.from, it.id, it.cat); err != nil {
			bad++
			if bad <= 5 {
				t.Error(err)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d items reported wrongly", bad, len(items))
	}
	for _, p := range pubs {
		most := w.most(p, quiet)
		t.Logf("%s: at most %d report frames per period once quiet (%d overall), %d tree links", p, most, w.most(p, w.start), len(n.Node(p).Servant.Status().Links))
		if most > n.Base.Fanout+1 {
			t.Errorf("%s received %d report frames in one period, more than fanout+1 = %d", p, most, n.Base.Fanout+1)
		}
	}
	for _, e := range w.errs {
		t.Error(e)
	}
	t.Logf("%d items, %d report frames, %d multicast frames", len(items), n.Stats["ReachReport"], n.Stats["Multicast"])
}
