package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"newsdesk/network"
	"newsdesk/newsnet"
)

// ErrNoCensus: the servant has not heard the network's census yet (it is
// not started, or the vertex's census has not come down to it).
var ErrNoCensus = errors.New("the network's census has not reached this servant yet")

// Census is the whole network as the vertex last summed it up
// (newsnet/netcensus.go): the servants online by release, kind and
// reachability, the items lost and where, the shape of the tree.
type Census struct {
	At                                time.Time // when the vertex made it
	Servants, Seeds, Archives, Leaves uint64
	Desktops, Headless                uint64
	Releases                          []ReleaseCount // most first
	Lost, LostServants                uint64
	WorstLost                         []LostServant // the most first, at most 20
	Depth, MostDowns, MostLeaves      uint64
	MinProtocol, MaxProtocol          uint64 // the wire versions of the oldest and newest builds
	// SeedsOnline are the seeds in the tree now, SeedLeaves the leaves
	// they hold between them, and SeedsAway the listed seeds that have not
	// been in the network for a day (as this servant has watched).
	SeedsOnline []string
	SeedLeaves  uint64
	SeedsAway   []SeedAway
	// Subscribers counts the servants per category, most first: each
	// once per category it subscribes to, less those an ancestor of which
	// it also subscribes to ("hr" covers "hr/payroll"; "*" is everything).
	Subscribers []CategoryCount
	// Refused are the servants others refuse now for misconduct (floods,
	// forged items, passing nothing on), with how many refuse each.
	Refused []RefusedServant
	// Parts map the tree: the partitions below the vertex, largest first,
	// each with the partitions below it (two levels; empty while servants
	// of an older release sit at the top of the tree).
	Parts []MapPart
}

// MapPart is the subtree of one servant (Root) and the range of IDs
// its partition holds (JP4353827B2): how many servants it has, how many
// of them are leaves, the items lost in it and on how many servants, how
// deep it goes, and the oldest and newest wire versions in it.
type MapPart struct {
	Root                     string
	Lo, Hi                   uint64
	Servants, Leaves         uint64
	Lost, LostServants       uint64
	Depth                    uint64
	MinProtocol, MaxProtocol uint64
	Parts                    []MapPart // the partitions below it, largest first
}

// RefusedServant is a servant refused by By others for misconduct.
type RefusedServant struct {
	Servant string
	By      uint64
}

// CategoryCount is how many servants subscribe to one category.
type CategoryCount struct {
	Category    string
	Subscribers uint64
}

// ReleaseCount is how many servants run one release ("" unknown, "other"
// the releases beyond the 15 most common).
type ReleaseCount struct {
	Release  string
	Servants uint64
}

// LostServant is a servant with items it gave up on.
type LostServant struct {
	Servant string
	Lost    uint64
}

// NetworkCensus returns the whole network's census as this servant last
// heard it from the vertex. Only admins may read it (ErrNotAdmin): it
// names computers. ErrNoCensus before one has come.
func (a *App) NetworkCensus() (Census, error) {
	if !a.IsAdmin() {
		return Census{}, ErrNotAdmin
	}
	n := a.currentNode()
	if n == nil {
		return Census{}, ErrNoCensus
	}
	st := n.Status()
	c := st.Network
	if c.At.IsZero() {
		return Census{}, ErrNoCensus
	}
	v := censusView(c)
	for cat, k := range st.Subscribers {
		if !network.IsSystemCategory(cat) {
			v.Subscribers = append(v.Subscribers, CategoryCount{Category: cat, Subscribers: k})
		}
	}
	slices.SortFunc(v.Subscribers, func(a, b CategoryCount) int {
		return cmp.Or(cmp.Compare(b.Subscribers, a.Subscribers), cmp.Compare(a.Category, b.Category))
	})
	v.SeedsAway = a.watchSeeds(a.Seeds(), v.SeedsOnline, a.now())
	return v, nil
}

func censusView(c newsnet.NetworkCensus) Census {
	v := Census{At: c.At, Servants: c.Servants, Seeds: c.Seeds, Archives: c.Archives, Leaves: c.Leaves,
		Desktops: c.Desktops, Headless: c.Headless, Lost: c.Lost, LostServants: c.LostServants,
		Depth: c.Depth, MostDowns: c.MostDowns, MostLeaves: c.MostLeaves, MinProtocol: c.MinVersion, MaxProtocol: c.MaxVersion}
	for _, r := range c.Releases {
		v.Releases = append(v.Releases, ReleaseCount{Release: r.Name, Servants: r.Count})
	}
	for _, l := range c.WorstLost {
		v.WorstLost = append(v.WorstLost, LostServant{Servant: string(l.ID), Lost: l.Count})
	}
	for _, s := range c.SeedsOnline {
		v.SeedsOnline = append(v.SeedsOnline, string(s))
	}
	v.SeedLeaves = c.SeedLeaves
	for _, r := range c.Refused {
		v.Refused = append(v.Refused, RefusedServant{Servant: string(r.ID), By: r.Count})
	}
	v.Parts = partitionsView(c.Parts)
	return v
}

func partitionsView(ps []newsnet.PartCensus) []MapPart {
	var out []MapPart
	for _, p := range ps {
		out = append(out, MapPart{Root: string(p.Root), Lo: p.Lo, Hi: p.Hi, Servants: p.Servants, Leaves: p.Leaves,
			Lost: p.Lost, LostServants: p.LostServants, Depth: p.Depth, MinProtocol: p.MinVersion, MaxProtocol: p.MaxVersion,
			Parts: partitionsView(p.Parts)})
	}
	return out
}

// PartitionCensus asks the servant at the top of a partition (root, as
// the map names it) for its census: its computers, and its partitions two
// levels further down. Only admins may (ErrNotAdmin).
func (a *App) PartitionCensus(ctx context.Context, root string) (Census, error) {
	if !a.IsAdmin() {
		return Census{}, ErrNotAdmin
	}
	n := a.currentNode()
	if n == nil {
		return Census{}, ErrNoCensus
	}
	c, err := n.QueryCensus(ctx, newsnet.ServantID(root))
	if err != nil {
		return Census{}, fmt.Errorf("the census of %s: %w", root, err)
	}
	return censusView(c), nil
}

// Addresses describes the IDs a partition holds, for people: an IPv4
// range ("10.1.0.0 – 10.1.255.255") when it lies among IPv4 addresses,
// else "" (IPv6 sites and host names are folded into the ID space: their
// ranges name no addresses).
func (p MapPart) Addresses() string {
	const ipv4Space = 1 << 48
	if p.Hi >= ipv4Space || p.Lo > p.Hi {
		return ""
	}
	ip := func(v uint64) netip.Addr {
		return netip.AddrFrom4([4]byte{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16)})
	}
	return ip(p.Lo).String() + " – " + ip(p.Hi).String()
}

// Holds reports whether servant lies in the partition.
func (p MapPart) Holds(servant string) bool {
	v := newsnet.IDValue(newsnet.ServantID(servant))
	return p.Lo <= v && v <= p.Hi
}

// LostIn lists the servants the census names with lost items that lie in
// p (the census names the 20 with the most, network-wide).
func (c Census) LostIn(p MapPart) []LostServant {
	var out []LostServant
	for _, l := range c.WorstLost {
		if p.Holds(l.Servant) {
			out = append(out, l)
		}
	}
	return out
}
