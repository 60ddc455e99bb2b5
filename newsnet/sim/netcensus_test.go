package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// censusTruth is the network census as the simulator knows it.
func censusTruth(n *Network) newsnet.NetCensus {
	var c newsnet.NetCensus
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		up[nd.ID] = st.Up
		c.Servants++
		if st.Leaf {
			c.Leaves++
		}
		if newsnet.NewCategorySet(nd.Subscriptions...).Has(newsnet.AllCategories) {
			c.Archives++
		}
		c.MostDowns = max(c.MostDowns, uint64(len(st.Downs)))
		c.MostLeaves = max(c.MostLeaves, uint64(len(st.Leaves)))
		if st.Counters.Lost > 0 {
			c.Lost += st.Counters.Lost
			c.LostServants++
		}
	}
	for id := range up {
		d := uint64(1)
		for x := up[id]; x != ""; x = up[x] {
			d++
		}
		c.Depth = max(c.Depth, d)
	}
	return c
}

// categoryTruth counts the live servants per category as the subscriber
// census does: once per category, less those covered by another of the
// same servant's ("*" covers every one).
func categoryTruth(n *Network) map[string]uint64 {
	out := map[string]uint64{}
	for _, nd := range n.Alive() {
		subs := newsnet.NewCategorySet(nd.Subscriptions...)
		for _, c := range subs {
			covered := false
			for _, o := range subs {
				if o != c && (o == newsnet.AllCategories || strings.HasPrefix(c, o+"/")) {
					covered = true
				}
			}
			if !covered {
				out[c]++
			}
		}
	}
	return out
}

// vertexCensus is the census the vertex holds of the whole network.
func vertexCensus(n *Network) (newsnet.NetworkCensus, bool) {
	for _, nd := range n.Alive() {
		if nd.Servant.Role() == newsnet.RoleVertex {
			_, network := nd.Servant.Census()
			return network, true
		}
	}
	return newsnet.NetworkCensus{}, false
}

// censusMatches compares the figures the simulator can check.
func censusMatches(got, want newsnet.NetCensus) error {
	type fig struct {
		name      string
		got, want uint64
	}
	for _, f := range []fig{{"servants", got.Servants, want.Servants}, {"leaves", got.Leaves, want.Leaves},
		{"archives", got.Archives, want.Archives}, {"depth", got.Depth, want.Depth},
		{"most downs", got.MostDowns, want.MostDowns}, {"most leaves", got.MostLeaves, want.MostLeaves},
		{"lost", got.Lost, want.Lost}, {"servants with lost", got.LostServants, want.LostServants}} {
		if f.got != f.want {
			return fmt.Errorf("%s: census %d, truth %d", f.name, f.got, f.want)
		}
	}
	return nil
}

// partsMatch checks the map in the vertex's census against the tree: a
// part per down-servant of the vertex, and one per down-servant of each of
// those, each with the servants and the depth of its subtree, its root's
// ID inside its range.
func partsMatch(n *Network, c newsnet.NetCensus) error {
	return partsMatchBelow(n, c, "")
}

// partsMatchBelow is partsMatch for the census of top's subtree ("": the
// vertex's).
func partsMatchBelow(n *Network, c newsnet.NetCensus, top newsnet.ServantID) error {
	up := map[newsnet.ServantID]newsnet.ServantID{}
	downs := map[newsnet.ServantID][]newsnet.ServantID{}
	var vertex newsnet.ServantID
	for _, nd := range n.Alive() {
		st := nd.Servant.Status()
		up[nd.ID], downs[nd.ID] = st.Up, st.Downs
		if nd.Servant.Role() == newsnet.RoleVertex {
			vertex = nd.ID
		}
	}
	if top != "" {
		vertex = top
	}
	subtree := func(root newsnet.ServantID) (size, depth uint64) {
		for id := range up {
			d := uint64(1)
			for x := id; x != ""; x = up[x] {
				if x == root {
					size++
					depth = max(depth, d)
					break
				}
				d++
			}
		}
		return size, depth
	}
	var check func(parts []newsnet.PartCensus, parent newsnet.ServantID, nested bool) error
	check = func(parts []newsnet.PartCensus, parent newsnet.ServantID, nested bool) error {
		want := slices.Sorted(slices.Values(downs[parent]))
		var got []newsnet.ServantID
		for _, p := range parts {
			got = append(got, p.Root)
			size, depth := subtree(p.Root)
			if v := newsnet.IDValue(p.Root); p.Servants != size || p.Depth != depth || v < p.Lo || v > p.Hi {
				return fmt.Errorf("part of %s: %d servants, depth %d, range [%d, %d]; truth %d, %d, its value %d", p.Root, p.Servants, p.Depth, p.Lo, p.Hi, size, depth, v)
			}
			if nested {
				if err := check(p.Parts, p.Root, false); err != nil {
					return err
				}
			} else if len(p.Parts) > 0 {
				return fmt.Errorf("part of %s: nested deeper than two levels", p.Root)
			}
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			return fmt.Errorf("parts below %s: %v, its downs %v", parent, got, want)
		}
		return nil
	}
	return check(c.Parts, vertex, true)
}

// The network census (issue 30): with servants joining, crashing and
// leaving, the vertex's census matches the truth within a few report
// periods of the network settling, and every servant hears it.
func TestNetworkCensusFollowsTheNetwork(t *testing.T) {
	size := 1000
	if testing.Short() {
		size = 200
	}
	n, ids := reachNetwork(t, 7, size)
	agree := func() bool {
		c, ok := vertexCensus(n)
		return ok && censusMatches(c.NetCensus, censusTruth(n)) == nil && partsMatch(n, c.NetCensus) == nil
	}
	check := func(stage string) {
		t.Helper()
		n.RunUntil(10*n.Base.ReportPeriod, agree)
		c, ok := vertexCensus(n)
		if !ok {
			t.Fatalf("%s: no vertex", stage)
		}
		if err := censusMatches(c.NetCensus, censusTruth(n)); err != nil {
			t.Errorf("%s: %v", stage, err)
		}
		if err := partsMatch(n, c.NetCensus); err != nil {
			t.Errorf("%s: the map: %v", stage, err)
		}
		if c.Seeds != 2 || c.MinVersion != newsnet.ProtocolVersion || c.MaxVersion != newsnet.ProtocolVersion {
			t.Errorf("%s: seeds %d, versions %d–%d", stage, c.Seeds, c.MinVersion, c.MaxVersion)
		}
		for _, nd := range n.Alive() {
			if nd.Servant.Role() != newsnet.RoleVertex {
				continue
			}
			if got, want := nd.Servant.Status().Subscribers, categoryTruth(n); !maps.Equal(got, want) {
				t.Errorf("%s: subscribers per category %v, truth %v", stage, got, want)
			}
		}
		seeds := slices.Sorted(slices.Values(ids[:2]))
		if !slices.Equal(c.SeedsOnline, seeds) {
			t.Errorf("%s: seeds online %v, want %v", stage, c.SeedsOnline, seeds)
		}
		var seedLeaves uint64
		for _, id := range seeds {
			seedLeaves += uint64(len(n.Node(id).Servant.Status().Leaves))
		}
		if c.SeedLeaves != seedLeaves {
			t.Errorf("%s: %d leaves on seeds, truth %d", stage, c.SeedLeaves, seedLeaves)
		}
	}
	check("settled")
	if c, ok := vertexCensus(n); ok {
		t.Logf("settled: %+v", c)
	}
	r := n.Rand()
	for i := range size / 20 {
		victim := ids[2+r.IntN(len(ids)-2)]
		if i%2 == 0 {
			n.Crash(victim)
		} else {
			n.Close(victim)
		}
	}
	n.RunFor(n.Base.LinkTimeout + 5*time.Second)
	if !n.RunUntil(10*time.Minute, n.Settled) {
		t.Fatalf("no convergence after the churn: %v", n.CheckTree())
	}
	check("after a twentieth left")
	// Every servant hears the vertex's census within two periods.
	n.RunFor(2*time.Minute + 2*n.Base.ReportPeriod)
	want, _ := vertexCensus(n)
	stale := 0
	for _, nd := range n.Alive() {
		if _, network := nd.Servant.Census(); network.Servants != want.Servants {
			stale++
		}
	}
	if stale > 0 {
		t.Errorf("%d servants do not hold the network's census of %d servants", stale, want.Servants)
	}
}

// A servant that lies about its subtree changes only that subtree's
// figures: the vertex counts everyone else as they are.
func TestNetworkCensusLiarChangesOnlyItsSubtree(t *testing.T) {
	n, ids := reachNetwork(t, 8, 120)
	var liar newsnet.ServantID
	for _, id := range ids[2:] {
		if st := n.Node(id).Servant.Status(); len(st.Downs) > 0 && st.Up != "" {
			liar = id
			break
		}
	}
	const claimed = 500
	var elsewhere newsnet.ServantID
	for _, id := range ids[2:] {
		if !slices.Contains(n.subtree(liar), id) && id != n.Node(liar).Servant.Status().Up {
			elsewhere = id
			break
		}
	}
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		rr, ok := m.(*newsnet.ReachReport)
		if !ok || from != liar || rr.Subtree == nil {
			return true
		}
		lie := *rr
		sub := *rr.Subtree
		sub.Servants, sub.Lost, sub.LostServants = claimed, 1000, 5
		// It also names a servant elsewhere as the worst off.
		sub.WorstLost = append(slices.Clone(sub.WorstLost), newsnet.ServantCount{ID: elsewhere, Count: 999})
		lie.Subtree = &sub
		n.Inject(from, to, &lie)
		return false
	}
	n.Subscribe(liar, "lies") // makes it report again
	truth := censusTruth(n)
	real := uint64(len(n.subtree(liar)))
	want := truth.Servants - real + claimed
	n.RunUntil(20*n.Base.ReportPeriod, func() bool { c, _ := vertexCensus(n); return c.Servants == want })
	c, _ := vertexCensus(n)
	if slices.ContainsFunc(c.WorstLost, func(w newsnet.ServantCount) bool { return w.ID == elsewhere }) {
		t.Errorf("the liar named %s, outside its subtree, among the worst off: %+v", elsewhere, c.WorstLost)
	}
	if c.Servants != want || c.Lost != truth.Lost+1000 || c.LostServants != truth.LostServants+5 {
		t.Errorf("vertex counts %d servants, lost %d on %d; want %d (%d less the liar's %d, plus its claim of %d), lost %d on %d",
			c.Servants, c.Lost, c.LostServants, want, truth.Servants, real, claimed, truth.Lost+1000, truth.LostServants+5)
	}
}

// A census query (issue 30): a servant deep in the tree asks the servant
// at the top of a partition of another branch for its census, which
// counts that partition's servants and maps two levels below it; a query
// for a servant that is not there comes back as unanswered.
func TestCensusQueryReachesAPartition(t *testing.T) {
	n, ids := reachNetwork(t, 11, 300)
	n.RunFor(5 * n.Base.ReportPeriod)
	var vertex newsnet.ServantID
	for _, nd := range n.Alive() {
		if nd.Servant.Role() == newsnet.RoleVertex {
			vertex = nd.ID
		}
	}
	// The asker: a servant at depth 3 or more; the target: a down-servant
	// of the vertex on another branch.
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, nd := range n.Alive() {
		up[nd.ID] = nd.Servant.Status().Up
	}
	topOf := func(id newsnet.ServantID) newsnet.ServantID {
		for up[id] != vertex && up[id] != "" {
			id = up[id]
		}
		return id
	}
	var asker, target newsnet.ServantID
	for _, id := range ids {
		if d := depthOf(up, id); d >= 3 && asker == "" {
			asker = id
		}
	}
	for _, d := range n.Node(vertex).Servant.Status().Downs {
		if d != topOf(asker) {
			target = d
			break
		}
	}
	if asker == "" || target == "" {
		t.Fatalf("no asker (%q) or target (%q) in the tree", asker, target)
	}
	n.QueryCensus(asker, target, 1)
	n.QueryCensus(asker, "10.99.0.1:7400", 2)
	n.RunFor(15 * time.Second)
	got := n.Node(asker).Census
	if len(got) != 2 {
		t.Fatalf("%d answers, want 2: %+v", len(got), got)
	}
	slices.SortFunc(got, func(a, b newsnet.CensusAnswered) int { return int(a.ID) - int(b.ID) })
	size := uint64(0)
	for id := range up {
		for x := id; x != ""; x = up[x] {
			if x == target {
				size++
				break
			}
		}
	}
	if a := got[0]; a.Err != "" || a.Target != target || a.Census.Servants != size || a.Census.At.IsZero() {
		t.Errorf("answer %+v: want %s's %d servants", a, target, size)
	}
	if err := partsMatchBelow(n, got[0].Census.NetCensus, target); err != nil {
		t.Errorf("the answer's map: %v", err)
	}
	if got[1].Err == "" {
		t.Errorf("a query for a servant not in the tree was answered: %+v", got[1])
	}
}

func depthOf(up map[newsnet.ServantID]newsnet.ServantID, id newsnet.ServantID) int {
	d := 1
	for x := up[id]; x != ""; x = up[x] {
		d++
	}
	return d
}
