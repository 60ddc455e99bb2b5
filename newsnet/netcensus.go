package newsnet

import (
	"cmp"
	"slices"
	"time"
)

// The network census (issue 30): what the network looks like, aggregated up
// the tree. Every servant reports a summary of its subtree (itself plus
// what each down-servant and leaf reported) up its tree link, in the reach
// report frames it sends anyway (reach.go), so it costs no frame of its
// own: at most one per link and ReportPeriod, and only when it changed. The
// vertex's summary is the whole network's; it travels back down in the
// same frames at most once a networkCensusPeriod, so every servant (an
// admin's among them) knows the network's figures, with the time the vertex
// made them.
//
// A summary is bounded whatever the subtree's size: counts, maxima and
// top-k lists (releases, the servants with the most lost items). Merging is
// by link and state-based like the reach totals: a new summary from a link
// replaces its old one, and a link that goes down takes its subtree's
// figures with it. So a servant that lies can change only the figures of
// its own subtree: its up-servant adds up every other link's summary
// itself.

// NetCensus summarizes the servants of a subtree (or of the network).
type NetCensus struct {
	Servants uint64
	// Seeds, Archives and Leaves count the servants in the seed list, those
	// that keep every category (archives), and those others cannot dial.
	Seeds, Archives, Leaves uint64
	// Desktops and Headless count the servants by their host's kind
	// (Config.Kind); servants of a host that does not say count in
	// neither.
	Desktops, Headless uint64
	// Releases counts the servants by release, most first, at most
	// maxCensusReleases ("other" holds the rest; "" the unknown).
	Releases []NameCount
	// Lost is the sum of the servants' lost counters, LostServants how many
	// have one above 0, and WorstLost the censusWorst with the most.
	Lost, LostServants uint64
	WorstLost          []ServantCount
	// Depth is the levels of the subtree (1: the servant alone);
	// MostDowns and MostLeaves the most any one servant holds.
	Depth, MostDowns, MostLeaves uint64
	// MinVersion and MaxVersion are the wire versions the servants speak
	// at most (their ProtocolVersion): the oldest and the newest build.
	MinVersion, MaxVersion uint64
	// SeedsOnline are the seeds in the tree (at most censusSeeds, in byte
	// order), and SeedLeaves the leaves they hold between them: the seed
	// list's health, for admins.
	SeedsOnline []ServantID
	SeedLeaves  uint64
	// Refused are the peers servants of the subtree refuse now for
	// misconduct (conduct.go: floods, forged items, silence), with how
	// many servants refuse each, most first, at most censusWorst: the
	// misbehaving relays, for admins.
	Refused []ServantCount
	// Parts are the partitions just below the subtree's top servant, one
	// per down-servant (leaves count in the top's own figures), largest
	// first, at most maxCensusParts: the map of the tree, for admins. In
	// a subtree's census they are one level deep; in the network's census
	// (the vertex's), each holds its own parts one level further down.
	// From wire version censusPartsSince on.
	Parts []PartCensus
}

// PartCensus summarizes one partition of the tree (JP4353827B2): the
// subtree of the down-servant Root, whose IDs lie in [Lo, Hi].
type PartCensus struct {
	Root                   ServantID
	Lo, Hi                 uint64
	Servants, Leaves       uint64
	Lost, LostServants     uint64
	Depth                  uint64
	MinVersion, MaxVersion uint64
	// Parts: the partitions below it, in the network's census only.
	Parts []PartCensus
}

// NameCount is one entry of a census list.
type NameCount struct {
	Name  string
	Count uint64
}

// ServantCount names a servant with a count.
type ServantCount struct {
	ID    ServantID
	Count uint64
}

// NetworkCensus is the whole network's census as this servant last heard
// it from the vertex (or made it, being the vertex), and when the vertex
// made it. At is zero before any came.
type NetworkCensus struct {
	NetCensus
	At time.Time
}

const (
	maxCensusReleases = 16
	censusWorst       = 20
	censusSeeds       = 32
	// maxCensusParts bounds the parts of a census and the parts of each
	// part: a network census maps at most maxCensusParts × (1 +
	// maxCensusParts) partitions, some 20 KiB, whatever the fanout.
	maxCensusParts = 32
	// censusPartsSince is the first wire version whose censuses carry
	// parts.
	censusPartsSince = 7
	// networkCensusPeriod: the whole network's census goes down a link at
	// most this often.
	networkCensusPeriod = time.Minute
	// netCensusSince is the first wire version whose reach reports carry
	// censuses.
	netCensusSince = 6
	// otherRelease collects the releases beyond maxCensusReleases.
	otherRelease = "other"
)

// netCensus is the census sub-machine: what we reported up and down each
// link, each downlink's subtree, and the network's census as the vertex
// made it. The servant describes itself (ownCensusEntry) and lends the
// tree through netCensusHost; the partition's slots are read from
// admissions (partitionPlaces).
type netCensus struct {
	cfg    *Config         // the servant's
	places partitionPlaces // the servant's admissions

	network  NetworkCensus // the whole network, from the vertex
	subtree  NetCensus     // our subtree, as last built
	builtAt  time.Time     // when subtree was built: at most once a ReportPeriod
	upSent   *NetCensus    // what we last reported up
	upSentTo LinkID
	downSent map[LinkID]censusSent
	// subtrees: each downlink's subtree census, as last reported.
	subtrees map[LinkID]*NetCensus
	queries  censusQueries // netcensus_query.go
}

// censusSent is the network census last sent down a link: the vertex's
// time of it, and when it went.
type censusSent struct{ at, when time.Time }

// ownCensusEntry is this servant alone.
func (s *Servant) ownCensusEntry() NetCensus {
	c := NetCensus{Servants: 1, Depth: 1, MinVersion: ProtocolVersion, MaxVersion: ProtocolVersion,
		Releases: []NameCount{{Name: s.cfg.Release, Count: 1}}}
	if s.connector.isSeed() {
		c.Seeds = 1
		c.SeedsOnline = []ServantID{s.id}
	}
	if s.keepsArchive() {
		c.Archives = 1
	}
	if s.adm.leaf {
		c.Leaves = 1
	}
	switch s.cfg.Kind {
	case KindDesktop:
		c.Desktops = 1
	case KindHeadless:
		c.Headless = 1
	}
	if s.counters.Lost > 0 {
		c.Lost, c.LostServants = s.counters.Lost, 1
		c.WorstLost = []ServantCount{{ID: s.id, Count: s.counters.Lost}}
	}
	for _, id := range s.conduct.bannedAt(s.now) {
		c.Refused = append(c.Refused, ServantCount{ID: id, Count: 1})
	}
	c.Refused = mergeCounts(c.Refused, nil)
	for _, l := range s.treeLinks() {
		switch {
		case l == s.up:
		case l.leaf:
			c.MostLeaves++
			if s.connector.isSeed() {
				c.SeedLeaves++
			}
		default:
			c.MostDowns++
		}
	}
	return c
}

// Host kinds (Config.Kind).
const (
	KindDesktop  = "desktop"
	KindHeadless = "headless"
)

// gather is our own entry merged with every downlink's report.
func (n *netCensus) gather(h netCensusHost) NetCensus {
	c := h.ownCensusEntry()
	for _, l := range h.treeLinks() {
		if l == h.upLink() {
			continue
		}
		if sub := n.subtrees[l.id]; sub != nil {
			c.merge(sub)
			if !l.leaf {
				lo, hi := n.places.slotRange(l.slot)
				c.Parts = append(c.Parts, partOf(l.peer, lo, hi, sub))
			}
		}
	}
	c.Parts = largestParts(c.Parts)
	return c
}

// partOf summarizes sub, the census of the subtree of root in [lo, hi].
func partOf(root ServantID, lo, hi uint64, sub *NetCensus) PartCensus {
	return PartCensus{Root: root, Lo: lo, Hi: hi, Servants: sub.Servants, Leaves: sub.Leaves, Lost: sub.Lost,
		LostServants: sub.LostServants, Depth: sub.Depth, MinVersion: sub.MinVersion, MaxVersion: sub.MaxVersion}
}

// largestParts sorts parts by size, largest first (ties by ID range), and
// keeps at most maxCensusParts.
func largestParts(ps []PartCensus) []PartCensus {
	slices.SortFunc(ps, func(x, y PartCensus) int {
		return cmp.Or(cmp.Compare(y.Servants, x.Servants), cmp.Compare(x.Lo, y.Lo))
	})
	return ps[:min(len(ps), maxCensusParts):min(len(ps), maxCensusParts)]
}

// nested is the vertex's census with each part's own parts, as its
// down-servants reported them: two levels of the map.
func (n *netCensus) nested(h netCensusHost, c NetCensus) NetCensus {
	c = cloneCensus(&c)
	for i := range c.Parts {
		for _, l := range h.treeLinks() {
			if sub := n.subtrees[l.id]; l.peer == c.Parts[i].Root && sub != nil {
				c.Parts[i].Parts = slices.Clone(sub.Parts)
				for j := range c.Parts[i].Parts {
					c.Parts[i].Parts[j].Parts = nil
				}
			}
		}
	}
	return c
}

// merge adds o, a disjoint subtree, to c.
func (c *NetCensus) merge(o *NetCensus) {
	if o.Servants == 0 {
		return
	}
	if c.Servants == 0 {
		c.MinVersion, c.MaxVersion = o.MinVersion, o.MaxVersion
	} else {
		c.MinVersion, c.MaxVersion = min(c.MinVersion, o.MinVersion), max(c.MaxVersion, o.MaxVersion)
	}
	c.Servants += o.Servants
	c.Seeds += o.Seeds
	c.Archives += o.Archives
	c.Leaves += o.Leaves
	c.Desktops += o.Desktops
	c.Headless += o.Headless
	c.Lost += o.Lost
	c.LostServants += o.LostServants
	c.Depth = max(c.Depth, o.Depth+1)
	c.MostDowns = max(c.MostDowns, o.MostDowns)
	c.MostLeaves = max(c.MostLeaves, o.MostLeaves)
	c.Releases = mergeReleases(c.Releases, o.Releases)
	c.WorstLost = mergeWorst(c.WorstLost, o.WorstLost)
	c.Refused = mergeCounts(c.Refused, o.Refused)
	c.SeedLeaves += o.SeedLeaves
	c.SeedsOnline = slices.Compact(slices.Sorted(slices.Values(slices.Concat(c.SeedsOnline, o.SeedsOnline))))
	c.SeedsOnline = c.SeedsOnline[:min(len(c.SeedsOnline), censusSeeds):min(len(c.SeedsOnline), censusSeeds)]
}

// mergeReleases adds two release lists, keeping the most common
// maxCensusReleases−1 by name and folding the rest into "other".
func mergeReleases(a, b []NameCount) []NameCount {
	counts := map[string]uint64{}
	for _, l := range [][]NameCount{a, b} {
		for _, nc := range l {
			counts[nc.Name] += nc.Count
		}
	}
	out := make([]NameCount, 0, len(counts))
	for name, n := range counts {
		out = append(out, NameCount{name, n})
	}
	slices.SortFunc(out, func(x, y NameCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Name, y.Name))
	})
	if len(out) > maxCensusReleases {
		var other uint64
		kept := out[:0]
		for i, nc := range out {
			if i < maxCensusReleases-1 && nc.Name != otherRelease {
				kept = append(kept, nc)
			} else {
				other += nc.Count
			}
		}
		out = append(kept, NameCount{otherRelease, other})
	}
	return out
}

// mergeWorst keeps the censusWorst servants with the most, ties by ID.
func mergeWorst(a, b []ServantCount) []ServantCount {
	out := slices.Concat(a, b)
	slices.SortFunc(out, func(x, y ServantCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.ID, y.ID))
	})
	out = slices.CompactFunc(out, func(x, y ServantCount) bool { return x.ID == y.ID })
	return out[:min(len(out), censusWorst):min(len(out), censusWorst)]
}

// mergeCounts adds the counts of two lists by servant and keeps the
// censusWorst highest, ties by ID.
func mergeCounts(a, b []ServantCount) []ServantCount {
	sum := map[ServantID]uint64{}
	for _, l := range [][]ServantCount{a, b} {
		for _, sc := range l {
			sum[sc.ID] += sc.Count
		}
	}
	out := make([]ServantCount, 0, len(sum))
	for id, n := range sum {
		out = append(out, ServantCount{ID: id, Count: n})
	}
	slices.SortFunc(out, func(x, y ServantCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.ID, y.ID))
	})
	return out[:min(len(out), censusWorst):min(len(out), censusWorst)]
}

// equal reports whether c and o hold the same figures.
func (c *NetCensus) equal(o *NetCensus) bool {
	return c.Servants == o.Servants && c.Seeds == o.Seeds && c.Archives == o.Archives && c.Leaves == o.Leaves &&
		c.Desktops == o.Desktops && c.Headless == o.Headless && c.Lost == o.Lost && c.LostServants == o.LostServants &&
		c.Depth == o.Depth && c.MostDowns == o.MostDowns && c.MostLeaves == o.MostLeaves &&
		c.MinVersion == o.MinVersion && c.MaxVersion == o.MaxVersion &&
		slices.Equal(c.Releases, o.Releases) && slices.Equal(c.WorstLost, o.WorstLost) &&
		c.SeedLeaves == o.SeedLeaves && slices.Equal(c.SeedsOnline, o.SeedsOnline) && slices.Equal(c.Refused, o.Refused) &&
		slices.EqualFunc(c.Parts, o.Parts, PartCensus.equal)
}

func (p PartCensus) equal(o PartCensus) bool {
	return p.Root == o.Root && p.Lo == o.Lo && p.Hi == o.Hi && p.Servants == o.Servants && p.Leaves == o.Leaves &&
		p.Lost == o.Lost && p.LostServants == o.LostServants && p.Depth == o.Depth &&
		p.MinVersion == o.MinVersion && p.MaxVersion == o.MaxVersion && slices.EqualFunc(p.Parts, o.Parts, PartCensus.equal)
}

// receive takes the censuses of a reach report from tree link l:
// a down-servant's subtree, or the whole network from the up-servant.
func (n *netCensus) receive(h netCensusHost, l *link, m *ReachReport) {
	if m.Subtree != nil && l != h.upLink() {
		if n.subtrees == nil {
			n.subtrees = map[LinkID]*NetCensus{}
		}
		n.subtrees[l.id] = n.plausible(h, l, m.Subtree)
	}
	if m.Network != nil && l == h.upLink() {
		n.network = NetworkCensus{NetCensus: *m.Network, At: time.Unix(0, m.NetworkAt)}
	}
}

// plausible is c, a downlink's subtree census, cut to what its
// subtree can hold: the servants it names with lost items lie in the
// link's slot range (or are the down-servant itself), and nothing lies
// beyond a leaf. So a servant that lies can make up figures for its own
// subtree only, never name a servant elsewhere.
func (n *netCensus) plausible(h netCensusHost, l *link, c *NetCensus) *NetCensus {
	out := cloneCensus(c)
	inside := func(id ServantID) bool { return id == l.peer }
	if !l.leaf {
		lo, hi := n.places.slotRange(l.slot)
		inside = func(id ServantID) bool {
			v := IDValue(id)
			return id == l.peer || lo <= v && v <= hi
		}
	}
	out.WorstLost = slices.DeleteFunc(out.WorstLost, func(w ServantCount) bool { return !inside(w.ID) })
	out.SeedsOnline = slices.DeleteFunc(out.SeedsOnline, func(id ServantID) bool { return !inside(id) })
	for i := range out.Refused {
		// A subtree has no more servants to refuse a peer than it has.
		out.Refused[i].Count = min(out.Refused[i].Count, out.Servants)
	}
	if l.leaf {
		one := func(v uint64) uint64 { return min(v, 1) }
		out.Servants, out.Depth, out.MostDowns, out.MostLeaves = 1, 1, 0, 0
		out.Seeds, out.Archives, out.Leaves = one(out.Seeds), one(out.Archives), one(out.Leaves)
		out.Desktops, out.Headless, out.LostServants = one(out.Desktops), one(out.Headless), one(out.LostServants)
		if len(out.Releases) > 0 {
			out.Releases = []NameCount{{Name: out.Releases[0].Name, Count: 1}}
		}
		out.SeedLeaves = 0 // a leaf holds no leaves
		for i := range out.Refused {
			out.Refused[i].Count = min(out.Refused[i].Count, 1)
		}
	}
	out.Parts = plausibleParts(out.Parts, l, n.places, out.Servants)
	return &out
}

// plausibleParts keeps of ps, a down-servant's parts, those that lie in its
// slot range, each no larger than the subtree, one level deep: nothing for
// a leaf.
func plausibleParts(ps []PartCensus, l *link, places partitionPlaces, servants uint64) []PartCensus {
	if l.leaf {
		return nil
	}
	lo, hi := places.slotRange(l.slot)
	var out []PartCensus
	for _, p := range ps {
		if v := IDValue(p.Root); p.Lo < lo || p.Hi > hi || p.Lo > p.Hi || v < p.Lo || v > p.Hi {
			continue
		}
		p.Servants, p.Leaves = min(p.Servants, servants), min(p.Leaves, servants)
		p.LostServants = min(p.LostServants, p.Servants)
		p.Parts = nil
		out = append(out, p)
	}
	return largestParts(out)
}

// built is our subtree's census, built again at most once a
// ReportPeriod: it is looked at on every tick.
func (n *netCensus) built(h netCensusHost) *NetCensus {
	if n.builtAt.IsZero() || h.clock().Sub(n.builtAt) >= n.cfg.ReportPeriod {
		n.subtree, n.builtAt = n.gather(h), h.clock()
		if h.Role() == RoleVertex {
			if network := n.nested(h, n.subtree); n.network.At.IsZero() || !n.network.equal(&network) {
				n.network = NetworkCensus{NetCensus: network, At: h.clock()}
			}
		}
	}
	return &n.subtree
}

// dueOn returns what census tree link l is due: our subtree's when
// l is the uplink and it changed since we last reported it, the network's
// when l is a downlink and a newer one has not gone there within a
// networkCensusPeriod. Both nil when nothing is due, or l's peer speaks a
// version without censuses.
func (n *netCensus) dueOn(h netCensusHost, l *link) (subtree, network *NetCensus) {
	if l.version != 0 && l.version < netCensusSince {
		return nil, nil
	}
	if l == h.upLink() {
		if c := n.built(h); n.upSent == nil || n.upSentTo != l.id || !n.upSent.equal(c) {
			return c, nil
		}
		return nil, nil
	}
	n.built(h)
	if n.network.At.IsZero() {
		return nil, nil
	}
	if sent, ok := n.downSent[l.id]; ok && (sent.at.Equal(n.network.At) || h.clock().Sub(sent.when) < networkCensusPeriod) {
		return nil, nil
	}
	return nil, &n.network.NetCensus
}

// add puts into m, about to go over l, the censuses l is due
// (dueOn), and notes them sent.
func (n *netCensus) add(h netCensusHost, l *link, m *ReachReport, subtree, network *NetCensus) {
	if subtree != nil {
		c := cloneCensus(subtree)
		m.Subtree = &c
		n.upSent, n.upSentTo = &c, l.id
	}
	if network != nil {
		c := cloneCensus(network)
		m.Network, m.NetworkAt = &c, n.network.At.UnixNano()
		if n.downSent == nil {
			n.downSent = map[LinkID]censusSent{}
		}
		n.downSent[l.id] = censusSent{at: n.network.At, when: h.clock()}
	}
}

// tick forgets what it holds of links that are gone, and builds
// our subtree's census when it is due.
func (n *netCensus) tick(h netCensusHost) {
	for id := range n.downSent {
		if h.linkByID(id) == nil {
			delete(n.downSent, id)
		}
	}
	for id := range n.subtrees {
		if l := h.linkByID(id); l == nil || !l.tree() {
			delete(n.subtrees, id)
		}
	}
	n.built(h)
	n.expireQueries(h)
}

func cloneCensus(c *NetCensus) NetCensus {
	o := *c
	o.Releases, o.WorstLost, o.SeedsOnline = slices.Clone(c.Releases), slices.Clone(c.WorstLost), slices.Clone(c.SeedsOnline)
	o.Refused = slices.Clone(c.Refused)
	o.Parts = cloneParts(c.Parts)
	return o
}

// Census returns our subtree's census and the network's as last heard.
func (s *Servant) Census() (subtree NetCensus, network NetworkCensus) {
	network = s.netCensus.network
	network.NetCensus = cloneCensus(&network.NetCensus)
	return s.netCensus.gather(s), network
}

// netCensusHost is what the census needs of the servant. *Servant
// implements it.
type netCensusHost interface {
	clock() time.Time
	Role() Role
	upLink() *link
	treeLinks() []*link
	linkByID(id LinkID) *link
	// ownCensusEntry is this servant alone.
	ownCensusEntry() NetCensus
	send(l *link, m Message)
	act(a Action)
}

var _ netCensusHost = (*Servant)(nil)

// partitionPlaces is what the census reads of the tree's partition
// (admissions meet it).
type partitionPlaces interface {
	// slotRange is the range of IDs below our downlink in slot.
	slotRange(slot int) (lo, hi uint64)
	// towardServant is the tree link toward a servant by the partitions,
	// with up our uplink.
	towardServant(id ServantID, up, from *link) *link
}

var _ partitionPlaces = (*admissions)(nil)

// What the servant lends the census alone (netCensusHost), and what the
// reach reports that carry it ask of it (reachHost).

func (s *Servant) netCensusFor(l *link) (subtree, network *NetCensus) { return s.netCensus.dueOn(s, l) }
func (s *Servant) addNetCensus(l *link, m *ReachReport, subtree, network *NetCensus) {
	s.netCensus.add(s, l, m, subtree, network)
}

func cloneParts(ps []PartCensus) []PartCensus {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Parts = cloneParts(out[i].Parts)
	}
	return out
}
