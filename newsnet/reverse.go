package newsnet

// The reverse-path mechanism of JP5458944B2 (the "event reverse path
// determination mechanism" 1314 kept in the connection node information of
// every link, steps S71, S79, S159): each tree link keeps the list of the
// sources whose items arrived over it. A request that must travel toward a
// publisher (a retransmission request, a direct-delivery request, a
// direct-delivery cover, direct.go) asks the lists which link leads there.
//
// The patent allows a list or a Bloom filter. This is a list: a Bloom
// filter cannot forget, and a source's items move to another link whenever
// the tree re-forms, so its false positives would grow with every change
// and send requests down branches where the source is not. The list keeps,
// per source, when its items last arrived (a servant-wide stamp), so of
// two links that both carried a source the more recent one wins; a link's
// list dies with the link. It is bounded by maxLinkSources per link, the
// source seen longest ago forgotten first; a forgotten source falls back
// to the last arrival link (sourceState.arrival) and then the uplink (requestRelay.towardSource), as
// before the lists existed.

// maxLinkSources bounds the sources one link remembers: a few hundred KiB
// per link at worst, far above the publishers of one network.
const maxLinkSources = 4096

// arrivalStamps are when a source's traffic last arrived over one link:
// any (items, edges, repair answers) and original (items and edges only).
// A repair answer comes from whichever servant held the item, which need
// not lie toward the source, so reach reports, which must reach the
// source itself, follow the originals (reachReports.toward).
type arrivalStamps struct{ any, original uint64 }

// noteArrival records that an item or an edge of source (original), or a
// repair answer (not original), arrived over tree link l, and reports
// whether the source's originals now come over another link than before
// (the reach reports follow them: reachReports.pathMoved).
func (c *core) noteArrival(l *link, source string, original bool) (moved bool) {
	if source == "" || source == c.cfg.Source || !l.tree() {
		return false
	}
	var before *link
	if original {
		before = c.listedToward(source, nil, true)
	}
	c.arrivals++
	if _, ok := l.sources[source]; !ok && len(l.sources) >= maxLinkSources {
		oldest, at := "", uint64(0)
		for src, stamp := range l.sources {
			if oldest == "" || stamp.any < at || stamp.any == at && src < oldest {
				oldest, at = src, stamp.any
			}
		}
		delete(l.sources, oldest)
	}
	if l.sources == nil {
		l.sources = map[string]arrivalStamps{}
	}
	stamp := l.sources[source]
	stamp.any = c.arrivals
	if original {
		stamp.original = c.arrivals
	}
	l.sources[source] = stamp
	return original && before != l
}

// arrivalStamp is the next stamp of the reverse-path lists' clock, which
// also dates the publishers a census names (reachReports.toward).
func (c *core) arrivalStamp() uint64 {
	c.arrivals++
	return c.arrivals
}

// listedToward returns, of the tree links (but except) whose list holds
// source, the one it arrived on most recently, counting only items and
// edges when original; nil when none does.
func (c *core) listedToward(source string, except *link, original bool) *link {
	l, _ := c.lastArrivalLink(source, except, original)
	return l
}

// lastArrivalLink is listedToward with the arrival stamp of the link.
func (c *core) lastArrivalLink(source string, except *link, original bool) (*link, uint64) {
	var best *link
	var at uint64
	for _, l := range c.treeLinks() {
		if l == except {
			continue
		}
		stamp, ok := l.sources[source]
		when := stamp.any
		if original {
			when = stamp.original
		}
		if ok && when > at {
			best, at = l, when
		}
	}
	return best, at
}

// tree reports whether l is an established tree link.
func (l *link) tree() bool { return l.kind == linkUp || l.kind == linkDown }

// backAlong is the tree link to the hop before us on trail, which ends
// with us: where an answer retracing it goes next. Nil when that hop is no
// longer a neighbour (the path broke).
func backAlong(tree []*link, trail []ServantID) *link {
	if len(trail) < 2 {
		return nil
	}
	back := trail[len(trail)-2]
	for _, l := range tree {
		if l.peer == back {
			return l
		}
	}
	return nil
}
