package sim

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Issue 11, defect 7: servants of several address families in one network.
// IPv4 servants of four subnets, IPv6 servants of three /64s (two of them in
// one /48) and servants advertising host names join in a random order. The
// network must form one tree in which every IPv4 subnet and every IPv6 /64
// lies in the subtree of one of its own servants, as the subnets of an
// IPv4-only network do, and each family lies in the subtree of one of its
// servants (no family is scattered through another's subtrees).

var (
	familyV4Subnets = []string{"10.1.1", "10.1.2", "10.2.5", "192.168.7"}
	familyV6Subnets = []string{"2001:db8:1:1", "2001:db8:1:2", "fd00:0:0:9"}
	familyNames     = []string{"news.example.com", "seed.example.org"}
)

// familyIDs returns the servants of the mixed network (IPv4 only when
// mixed is false), six per subnet, in a shuffled order.
func familyIDs(r *rand.Rand, mixed bool) []newsnet.ServantID {
	var ids []newsnet.ServantID
	for _, sub := range familyV4Subnets {
		for i := range 6 {
			ids = append(ids, newsnet.ServantID(fmt.Sprintf("%s.%d:%d", sub, 10+7*i, 7400+i%2)))
		}
	}
	if mixed {
		for _, sub := range familyV6Subnets {
			for i := range 6 {
				ids = append(ids, newsnet.ServantID(fmt.Sprintf("[%s::%x]:%d", sub, 0x10+i*0x1111, 7400+i%2)))
			}
		}
		for _, name := range familyNames {
			ids = append(ids, newsnet.ServantID(name+":7400"))
		}
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// familyGroup names a servant's subnet (the /24 of an IPv4 address, the /64
// of an IPv6 one) and its family; host names are a family of their own and
// no subnet.
func familyGroup(id newsnet.ServantID) (subnet, family string) {
	host, _, _ := net.SplitHostPort(string(id))
	addr, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return "", "name"
	case addr.Is4():
		p, _ := addr.Prefix(24)
		return p.String(), "ipv4"
	default:
		p, _ := addr.Prefix(64)
		return p.String(), "ipv6"
	}
}

// apart returns, for each group of servants (by key), a description of the
// group when no servant of it is an ancestor (or itself) of every other:
// the group is spread over several subtrees.
func apart(sts []newsnet.Status, key func(newsnet.ServantID) string) []string {
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, s := range sts {
		up[s.ID] = s.Up
	}
	groups := map[string][]newsnet.ServantID{}
	for _, s := range sts {
		if k := key(s.ID); k != "" {
			groups[k] = append(groups[k], s.ID)
		}
	}
	var out []string
	for k, members := range groups {
		// The servant of the group closest to the vertex on each member's
		// path; together they must be one.
		tops := map[newsnet.ServantID]bool{}
		for _, m := range members {
			top := m
			for id := up[m]; id != ""; id = up[id] {
				if key(id) == k {
					top = id
				}
			}
			tops[top] = true
		}
		if len(tops) > 1 {
			var ts []string
			for id := range tops {
				ts = append(ts, fmt.Sprintf("%s (up %s)", id, up[id]))
			}
			slices.Sort(ts)
			out = append(out, fmt.Sprintf("%s in %d subtrees: %v", k, len(tops), ts))
		}
	}
	slices.Sort(out)
	return out
}

func subnetOf(id newsnet.ServantID) string { s, _ := familyGroup(id); return s }
func familyOf(id newsnet.ServantID) string { _, f := familyGroup(id); return f }

// buildFamilyNetwork joins the servants one by one through the first two
// of them as seeds and waits for one tree.
func buildFamilyNetwork(t *testing.T, seed uint64, fanout int, mixed bool) *Network {
	t.Helper()
	n := New(seed)
	checkEveryStep(t, n)
	n.Base.Fanout = fanout
	n.WireCheck = true
	ids := familyIDs(n.Rand(), mixed)
	seeds := ids[:2]
	for _, id := range ids {
		n.Add(id, seeds)
		n.RunFor(50 * time.Millisecond)
	}
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("seed %d fanout %d: no single tree: %v; routing: %v", seed, fanout, n.CheckTree(), n.CheckRouting())
	}
	return n
}

func logTree(t *testing.T, n *Network) {
	t.Helper()
	depth := DepthsOf(n.Statuses())
	for _, s := range n.Statuses() {
		t.Logf("  %-26s depth %d up %-26s partition %v", s.ID, depth[s.ID], s.Up, s.Partition)
	}
}

// Subnets are checked where N is a power of two, so that a /24 and a /64
// are aligned blocks of slots; with N = 10 a subnet may straddle two slots
// in an IPv4-only network too, and only the families are checked.
// Reference: issue 11, defect 7.
func TestMixedFamiliesKeepLocality(t *testing.T) {
	for _, fanout := range []int{16, 4, 2, 10} {
		aligned := fanout != 10
		for seed := uint64(1); seed <= 6; seed++ {
			var bad []string
			if aligned {
				// The IPv4 servants alone: their subnets stay together.
				base := buildFamilyNetwork(t, seed, fanout, false)
				if bad = apart(base.Statuses(), subnetOf); len(bad) > 0 {
					logTree(t, base)
					t.Fatalf("seed %d fanout %d, IPv4 only: %v", seed, fanout, bad)
				}
			}
			// The same with IPv6 servants and host names among them.
			n := buildFamilyNetwork(t, seed, fanout, true)
			if aligned {
				bad = apart(n.Statuses(), subnetOf)
			}
			bad = append(bad, apart(n.Statuses(), familyOf)...)
			if len(bad) > 0 {
				logTree(t, n)
				t.Fatalf("seed %d fanout %d, mixed families: %v", seed, fanout, bad)
			}
		}
	}
}

// After the head of each family and of an IPv6 /64 crashes, the mixed
// network heals into one tree that keeps the subnets and families together.
// Reference: issue 11, defect 7; JP4353827B2, Fig. 5 (uplink recovery).
func TestMixedFamiliesRecoverLocality(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		n := buildFamilyNetwork(t, seed, 16, true)
		sts := n.Statuses()
		var vertex newsnet.ServantID
		for _, s := range sts {
			if s.Up == "" {
				vertex = s.ID
			}
		}
		// The highest servant of each family and of each IPv6 /64 other
		// than the vertex and the seeds.
		victims := map[string]newsnet.ServantID{}
		depth := DepthsOf(sts)
		for _, s := range sts {
			if s.ID == vertex || slices.Contains(n.Node(s.ID).Seeds, s.ID) {
				continue
			}
			for _, k := range []string{familyOf(s.ID), subnetOf(s.ID)} {
				if k == "" || familyOf(s.ID) == "ipv4" && k != "ipv4" {
					continue
				}
				if v, ok := victims[k]; !ok || depth[s.ID] < depth[v] || depth[s.ID] == depth[v] && s.ID < v {
					victims[k] = s.ID
				}
			}
		}
		crashed := map[newsnet.ServantID]bool{}
		for _, id := range victims {
			if !crashed[id] {
				crashed[id] = true
				n.Crash(id)
			}
		}
		if !n.RunUntil(2*time.Minute, n.Converged) {
			t.Fatalf("seed %d: no single tree after crashing %v: %v; routing: %v", seed, crashed, n.CheckTree(), n.CheckRouting())
		}
		// Tree optimization settles subtrees that stuck out.
		n.RunFor(10 * n.Base.PartitionInterval)
		if err := n.CheckTree(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		bad := apart(n.Statuses(), subnetOf)
		bad = append(bad, apart(n.Statuses(), familyOf)...)
		if len(bad) > 0 {
			logTree(t, n)
			t.Fatalf("seed %d, after crashing %v: %v", seed, crashed, bad)
		}
	}
}
