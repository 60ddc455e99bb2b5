package newsnet

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
)

// ReachReport carries reach reports over one tree link (reach.go): what the
// sender's side of the link adds up to, as state, not as increments, so a
// duplicate, a repeat after a re-formed tree or a lost predecessor never
// counts twice. Each report replaces the previous one from the same link
// for the items (and the census) it carries.
//
// Census and Publishers, when HasCensus is set, describe the sender's side:
// per category, the servants there whose subscriptions reach it through
// that category, and the sources publishing there, the reports' way to
// them (reach_census.go). Sources holds item totals, which travel only
// toward each item's publisher.
type ReachReport struct {
	HasCensus  bool
	Census     []CategoryCount // ascending by category, no zero counts
	Publishers []string        // ascending, not empty
	Sources    []SourceReach   // ascending by source, then category
	// Subtree is the sender's subtree census, up the tree; Network the
	// whole network's, down the tree, made by the vertex at NetworkAt (Unix
	// nanoseconds). From wire version netCensusSince on (netcensus.go).
	Subtree, Network *NetCensus
	NetworkAt        int64
}

// CategoryCount is one census entry.
type CategoryCount struct {
	Category string
	Count    uint64
}

// SourceReach holds the item totals of one publisher in one category. The
// category tells a relay that tracks the items from reports alone which of
// its links lead to subscribers, and so which reports to wait for.
type SourceReach struct {
	Source   string
	Category string      // empty when the sender does not know it
	Items    []ItemReach // ascending by ID
}

// ItemReach is one item's totals on the sender's side of a link.
//
// Pending and Acks are for must-read items only: the identity blobs of the
// servants that stored it and have not acknowledged it, and the
// acknowledgement blobs of those that have. Both are opaque to the overlay
// (the application signs and verifies them), sorted and duplicate-free, and
// bounded by Config.ReachIdentities: beyond it the counts stay exact and the
// lists name the first ones in byte order only.
//
// Subscribers counts, for an item with an audience, the servants on the
// sender's side that learned it, are inside its audience and subscribe to
// its category now; zero for an item without one, whose subscribers the
// census counts (reach_census.go).
type ItemReach struct {
	ID                                         [16]byte
	Subscribers, Delivered, Read, Acknowledged uint64
	Pending, Acks                              [][]byte
	// PendingCount is how many servants on the sender's side hold the
	// must-read item with an identity and have not acknowledged it: exact
	// where the Pending list stops at ReachIdentities. Sent from wire
	// version reachPendingSince on; a peer of an older version reports
	// only its list, and counts as len(Pending) (pendingOf).
	PendingCount uint64
}

// reachPendingSince is the first wire version whose ItemReach carries
// PendingCount.
const reachPendingSince = 6

// pendingOf is r's pending count, from its list where an older peer sent
// no count.
func pendingOf(r *ItemReach) uint64 { return max(r.PendingCount, uint64(len(r.Pending))) }

// Limits of a well-formed ReachReport, checked by the decoder before
// allocating. MaxReachIdentities × MaxIdentityBytes × 2 lists keeps one
// item with full lists well inside MaxFrameBytes.
const (
	MaxReachItems      = 4096 // items in one report, over all sources
	MaxReachIdentities = 256  // entries of one Pending or Acks list
	MaxIdentityBytes   = 256  // one identity or acknowledgement blob
	MaxReachPublishers = 512  // sources in one report's Publishers
)

var (
	errUnsortedReach = errors.New("reach report entries not strictly ascending")
	errZeroCensus    = errors.New("census count of zero")
	errEmptyBlob     = errors.New("empty identity blob")
	errStrayCensus   = errors.New("census entries without the census flag")
)

func (m *ReachReport) marshal(e *encoder) {
	e.flag(m.HasCensus)
	if len(m.Census) > 0 && !m.HasCensus {
		e.fail(errStrayCensus)
		return
	}
	if len(m.Census) > MaxCategories {
		e.fail(fmt.Errorf("census: %w: %d > %d", errTooMany, len(m.Census), MaxCategories))
		return
	}
	e.uvarint(uint64(len(m.Census)))
	for i, c := range m.Census {
		switch {
		case c.Category == "":
			e.fail(fmt.Errorf("census: %w", errEmptyCategory))
		case c.Count == 0:
			e.fail(fmt.Errorf("census %q: %w", c.Category, errZeroCensus))
		case i > 0 && c.Category <= m.Census[i-1].Category:
			e.fail(fmt.Errorf("census: %w", errUnsortedReach))
		}
		e.string("census category", c.Category, MaxCategoryBytes)
		e.uvarint(c.Count)
	}
	if len(m.Publishers) > 0 && !m.HasCensus {
		e.fail(errStrayCensus)
		return
	}
	if len(m.Publishers) > MaxReachPublishers {
		e.fail(fmt.Errorf("publishers: %w: %d > %d", errTooMany, len(m.Publishers), MaxReachPublishers))
		return
	}
	e.uvarint(uint64(len(m.Publishers)))
	for i, p := range m.Publishers {
		if p == "" || i > 0 && p <= m.Publishers[i-1] {
			e.fail(fmt.Errorf("publishers: %w", errUnsortedReach))
		}
		e.string("publisher", p, MaxIDBytes)
	}
	items := 0
	for _, sr := range m.Sources {
		items += len(sr.Items)
	}
	if len(m.Sources) > MaxReachItems || items > MaxReachItems {
		e.fail(fmt.Errorf("reach items: %w: %d > %d", errTooMany, items, MaxReachItems))
		return
	}
	e.uvarint(uint64(len(m.Sources)))
	for i, sr := range m.Sources {
		if i > 0 && !sourceReachLess(&m.Sources[i-1], &sr) {
			e.fail(fmt.Errorf("reach sources: %w", errUnsortedReach))
		}
		e.string("reach source", sr.Source, MaxIDBytes)
		e.string("reach category", sr.Category, MaxCategoryBytes)
		e.uvarint(uint64(len(sr.Items)))
		for j, it := range sr.Items {
			if j > 0 && bytes.Compare(it.ID[:], sr.Items[j-1].ID[:]) <= 0 {
				e.fail(fmt.Errorf("reach items: %w", errUnsortedReach))
			}
			e.raw16(it.ID)
			e.uvarint(it.Subscribers)
			e.uvarint(it.Delivered)
			e.uvarint(it.Read)
			e.uvarint(it.Acknowledged)
			e.blobs("pending", it.Pending)
			e.blobs("acks", it.Acks)
			if e.version >= reachPendingSince {
				e.uvarint(it.PendingCount)
			}
		}
	}
	if e.version >= netCensusSince {
		e.netCensus(m.Subtree)
		e.netCensus(m.Network)
		if m.Network != nil {
			e.uvarint(uint64(m.NetworkAt))
		}
	}
}

func (m *ReachReport) unmarshal(d *decoder) {
	m.HasCensus = d.flag("hasCensus")
	if n := d.count("census", MaxCategories); n > 0 {
		if !m.HasCensus {
			d.fail(errStrayCensus)
			return
		}
		m.Census = make([]CategoryCount, n)
		for i := range m.Census {
			c := CategoryCount{Category: d.string("census category", MaxCategoryBytes), Count: d.uvarint("census count")}
			switch {
			case d.err != nil:
			case c.Category == "":
				d.fail(fmt.Errorf("census: %w", errEmptyCategory))
			case c.Count == 0:
				d.fail(fmt.Errorf("census %q: %w", c.Category, errZeroCensus))
			case i > 0 && c.Category <= m.Census[i-1].Category:
				d.fail(fmt.Errorf("census: %w", errUnsortedReach))
			}
			if d.err != nil {
				m.Census = nil
				return
			}
			m.Census[i] = c
		}
	}
	m.Publishers = decodeStrings[string](d, "publishers", MaxReachPublishers, MaxIDBytes)
	for i, p := range m.Publishers {
		if d.err == nil && (p == "" || i > 0 && p <= m.Publishers[i-1]) {
			d.fail(fmt.Errorf("publishers: %w", errUnsortedReach))
		}
	}
	if d.err == nil && len(m.Publishers) > 0 && !m.HasCensus {
		d.fail(errStrayCensus)
	}
	if d.err != nil {
		m.Census, m.Publishers = nil, nil
		return
	}
	n := d.count("reach sources", MaxReachItems)
	if n == 0 {
		m.unmarshalNetCensus(d)
		return
	}
	m.Sources = make([]SourceReach, n)
	items := 0
	for i := range m.Sources {
		sr := &m.Sources[i]
		sr.Source = d.string("reach source", MaxIDBytes)
		sr.Category = d.string("reach category", MaxCategoryBytes)
		if d.err == nil && i > 0 && !sourceReachLess(&m.Sources[i-1], sr) {
			d.fail(fmt.Errorf("reach sources: %w", errUnsortedReach))
		}
		k := d.count("reach items", MaxReachItems-items)
		items += k
		if k > 0 {
			sr.Items = make([]ItemReach, k)
		}
		for j := range sr.Items {
			it := &sr.Items[j]
			it.ID = d.raw16("reach id")
			if d.err == nil && j > 0 && bytes.Compare(it.ID[:], sr.Items[j-1].ID[:]) <= 0 {
				d.fail(fmt.Errorf("reach items: %w", errUnsortedReach))
			}
			it.Subscribers = d.uvarint("subscribers")
			it.Delivered = d.uvarint("delivered")
			it.Read = d.uvarint("read")
			it.Acknowledged = d.uvarint("acknowledged")
			it.Pending = d.blobs("pending")
			it.Acks = d.blobs("acks")
			if d.version >= reachPendingSince {
				it.PendingCount = d.uvarint("pending count")
			}
		}
		if d.err != nil {
			m.Census, m.Publishers, m.Sources = nil, nil, nil
			return
		}
	}
	m.unmarshalNetCensus(d)
}

// unmarshalNetCensus reads the censuses of a report of version
// netCensusSince or later.
func (m *ReachReport) unmarshalNetCensus(d *decoder) {
	if d.version < netCensusSince || d.err != nil {
		return
	}
	m.Subtree = d.netCensus()
	m.Network = d.netCensus()
	if m.Network != nil {
		m.NetworkAt = int64(d.uvarint("network at"))
	}
	if d.err != nil {
		m.Subtree, m.Network = nil, nil
	}
}

// sourceReachLess orders a report's groups: by source, then category.
func sourceReachLess(a, b *SourceReach) bool {
	return a.Source < b.Source || a.Source == b.Source && a.Category < b.Category
}

// blobs encodes a sorted, duplicate-free list of non-empty identity blobs.
func (e *encoder) blobs(field string, bs [][]byte) {
	if len(bs) > MaxReachIdentities {
		e.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, len(bs), MaxReachIdentities))
		return
	}
	e.uvarint(uint64(len(bs)))
	for i, b := range bs {
		switch {
		case len(b) == 0:
			e.fail(fmt.Errorf("%s: %w", field, errEmptyBlob))
		case len(b) > MaxIdentityBytes:
			e.fail(fmt.Errorf("%s: %w: %d bytes > %d", field, errTooLong, len(b), MaxIdentityBytes))
		case i > 0 && bytes.Compare(b, bs[i-1]) <= 0:
			e.fail(fmt.Errorf("%s: %w", field, errUnsortedReach))
		}
		e.bytes(field, b)
	}
}

func (d *decoder) blobs(field string) [][]byte {
	n := d.count(field, MaxReachIdentities)
	if n == 0 {
		return nil
	}
	bs := make([][]byte, n)
	for i := range bs {
		b := d.span(field, MaxIdentityBytes)
		switch {
		case d.err != nil:
		case len(b) == 0:
			d.fail(fmt.Errorf("%s: %w", field, errEmptyBlob))
		case i > 0 && bytes.Compare(b, bs[i-1]) <= 0:
			d.fail(fmt.Errorf("%s: %w", field, errUnsortedReach))
		}
		if d.err != nil {
			return nil
		}
		bs[i] = append([]byte(nil), b...)
	}
	return bs
}

// reachReportSize is SizeOf for a ReachReport: exact but for the uvarints,
// counted at their usual few bytes.
func reachReportSize(m *ReachReport) int {
	n := 2
	for _, c := range m.Census {
		n += len(c.Category) + 4
	}
	for _, p := range m.Publishers {
		n += len(p) + 1
	}
	for _, sr := range m.Sources {
		n += len(sr.Source) + len(sr.Category) + 3
		for _, it := range sr.Items {
			n += itemReachSize(&it)
		}
	}
	n += 2 + netCensusSize(m.Subtree) + netCensusSize(m.Network)
	if m.Network != nil {
		n += uvarintLen(uint64(m.NetworkAt))
	}
	return n
}

// netCensusSize is the encoded size of an optional census, its presence
// flag counted by the caller.
func netCensusSize(c *NetCensus) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, v := range []uint64{c.Servants, c.Seeds, c.Archives, c.Leaves, c.Desktops, c.Headless, c.Lost, c.LostServants,
		c.Depth, c.MostDowns, c.MostLeaves, c.MinVersion, c.MaxVersion, uint64(len(c.Releases)), uint64(len(c.WorstLost))} {
		n += uvarintLen(v)
	}
	for _, r := range c.Releases {
		n += uvarintLen(uint64(len(r.Name))) + len(r.Name) + uvarintLen(r.Count)
	}
	for _, w := range c.WorstLost {
		n += uvarintLen(uint64(len(w.ID))) + len(w.ID) + uvarintLen(w.Count)
	}
	n += uvarintLen(uint64(len(c.SeedsOnline))) + uvarintLen(c.SeedLeaves) + uvarintLen(uint64(len(c.Refused)))
	for _, r := range c.Refused {
		n += uvarintLen(uint64(len(r.ID))) + len(r.ID) + uvarintLen(r.Count)
	}
	for _, id := range c.SeedsOnline {
		n += uvarintLen(uint64(len(id))) + len(id)
	}
	return n + censusPartsSize(c.Parts, 2)
}

// censusPartsSize is the encoded size of a list of parts nested at most
// levels deep (at any version: SizeOf only needs to be close).
func censusPartsSize(ps []PartCensus, levels int) int {
	n := uvarintLen(uint64(len(ps)))
	for _, p := range ps {
		n += uvarintLen(uint64(len(p.Root))) + len(p.Root)
		if levels > 1 {
			n += censusPartsSize(p.Parts, levels-1)
		}
		for _, v := range []uint64{p.Lo, p.Hi, p.Servants, p.Leaves, p.Lost, p.LostServants, p.Depth, p.MinVersion, p.MaxVersion} {
			n += uvarintLen(v)
		}
	}
	return n
}

// uvarintLen is the encoded length of v.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func itemReachSize(it *ItemReach) int {
	n := 16 + 5*2 + 2
	for _, b := range it.Pending {
		n += len(b) + 2
	}
	for _, b := range it.Acks {
		n += len(b) + 2
	}
	return n
}

// netCensus encodes an optional census: a presence flag, then its fields.
func (e *encoder) netCensus(c *NetCensus) {
	e.flag(c != nil)
	if c == nil {
		return
	}
	for _, v := range []uint64{c.Servants, c.Seeds, c.Archives, c.Leaves, c.Desktops, c.Headless, c.Lost, c.LostServants,
		c.Depth, c.MostDowns, c.MostLeaves, c.MinVersion, c.MaxVersion} {
		e.uvarint(v)
	}
	if len(c.Releases) > maxCensusReleases || len(c.WorstLost) > censusWorst {
		e.fail(fmt.Errorf("census lists: %w", errTooMany))
		return
	}
	e.uvarint(uint64(len(c.Releases)))
	for _, r := range c.Releases {
		e.string("census release", r.Name, MaxReleaseBytes)
		e.uvarint(r.Count)
	}
	e.uvarint(uint64(len(c.WorstLost)))
	for _, w := range c.WorstLost {
		e.id("census servant", w.ID)
		e.uvarint(w.Count)
	}
	e.idsUpTo("census seeds", c.SeedsOnline, censusSeeds)
	e.uvarint(c.SeedLeaves)
	if len(c.Refused) > censusWorst {
		e.fail(fmt.Errorf("census refused: %w", errTooMany))
		return
	}
	e.uvarint(uint64(len(c.Refused)))
	for _, r := range c.Refused {
		e.id("census refused", r.ID)
		e.uvarint(r.Count)
	}
	if e.version >= censusPartsSince {
		e.censusParts(c.Parts, 2)
	}
}

// censusParts encodes a list of parts, nested at most levels deep.
func (e *encoder) censusParts(ps []PartCensus, levels int) {
	if len(ps) > maxCensusParts {
		e.fail(fmt.Errorf("census parts: %w", errTooMany))
		return
	}
	e.uvarint(uint64(len(ps)))
	for _, p := range ps {
		e.id("census part", p.Root)
		for _, v := range []uint64{p.Lo, p.Hi, p.Servants, p.Leaves, p.Lost, p.LostServants, p.Depth, p.MinVersion, p.MaxVersion} {
			e.uvarint(v)
		}
		switch {
		case levels > 1:
			e.censusParts(p.Parts, levels-1)
		case len(p.Parts) > 0:
			e.fail(fmt.Errorf("census parts: nested deeper than the map"))
		}
	}
}

func (d *decoder) netCensus() *NetCensus {
	if !d.flag("census") {
		return nil
	}
	c := &NetCensus{}
	for _, v := range []*uint64{&c.Servants, &c.Seeds, &c.Archives, &c.Leaves, &c.Desktops, &c.Headless, &c.Lost, &c.LostServants,
		&c.Depth, &c.MostDowns, &c.MostLeaves, &c.MinVersion, &c.MaxVersion} {
		*v = d.uvarint("census")
	}
	if n := d.count("census releases", maxCensusReleases); n > 0 {
		c.Releases = make([]NameCount, n)
		for i := range c.Releases {
			c.Releases[i] = NameCount{Name: d.string("census release", MaxReleaseBytes), Count: d.uvarint("census release count")}
		}
	}
	if n := d.count("census servants", censusWorst); n > 0 {
		c.WorstLost = make([]ServantCount, n)
		for i := range c.WorstLost {
			c.WorstLost[i] = ServantCount{ID: d.id("census servant"), Count: d.uvarint("census servant count")}
		}
	}
	c.SeedsOnline = d.idsUpTo("census seeds", censusSeeds)
	c.SeedLeaves = d.uvarint("census seed leaves")
	if n := d.count("census refused", censusWorst); n > 0 {
		c.Refused = make([]ServantCount, n)
		for i := range c.Refused {
			c.Refused[i] = ServantCount{ID: d.id("census refused"), Count: d.uvarint("census refused count")}
		}
	}
	if d.version >= censusPartsSince {
		c.Parts = d.censusParts(2)
	}
	return c
}

func (d *decoder) censusParts(levels int) []PartCensus {
	n := d.count("census parts", maxCensusParts)
	if n == 0 {
		return nil
	}
	ps := make([]PartCensus, n)
	for i := range ps {
		p := &ps[i]
		p.Root = d.id("census part")
		for _, v := range []*uint64{&p.Lo, &p.Hi, &p.Servants, &p.Leaves, &p.Lost, &p.LostServants, &p.Depth, &p.MinVersion, &p.MaxVersion} {
			*v = d.uvarint("census part")
		}
		if levels > 1 {
			p.Parts = d.censusParts(levels - 1)
		}
		if d.err != nil {
			return nil
		}
	}
	return ps
}
