package newsnet

import (
	"fmt"
	"slices"
	"time"
)

// core is what the sub-machines see of their servant: the configuration,
// the clock, the counters, the link table with the tree links and the
// root path, the reverse-path lists, the relay cache, our subscriptions,
// the edge book, the peers refused for their conduct, our own stream's
// count, when we first attached, and the actions going out. Their host interfaces (flowHost, sequencerHost, reachHost,
// blobHost, …) are met by its methods, promoted through Servant, so a
// sub-machine's test fakes these few and nothing of the servant's
// behaviour. What the servant decides (the tree, routing, recovery) stays
// on Servant.
type core struct {
	cfg Config
	id  ServantID
	now time.Time // the time of the current step

	links    map[LinkID]*link
	nextDial LinkID  // the last dialed link's number
	vertex   bool    // no uplink and no seed before us answers: the root
	up       *link   // nil when not attached
	downs    downSet // leaves, then members by slot (downs.go)
	// rootPath runs from the vertex down to our up-servant, as the last
	// partition message (or accept) from above told it.
	rootPath []ServantID

	// arrivals is the clock of the links' reverse-path lists (reverse.go).
	arrivals uint64

	out      []Action
	counters Counters
	verifier verifier // Config.Verify and what it refused (verifier.go)

	// What the sub-machines read and the servant changes: our own
	// subscriptions (routing's self set, Servant.setSelf), the latest
	// header of each stream (edge.go), and the peers whose joins we
	// refuse for their conduct (conduct.go).
	self    CategorySet
	edges   leadingEdges
	conduct conduct

	// cache keeps the items we passed on lately (relaycache.go): the
	// relay answers requests from it, flow control sends again from it.
	cache relayCache

	// ownCount is the count of our latest publication; catch-up asks
	// for our own stream from the next one.
	ownCount uint64
	// firstAttached is when we first attached in this run: items
	// published since are owed to us (owed.go).
	firstAttached time.Time
}

// clock is the time of the current step (for the sub-machines).
func (c *core) clock() time.Time { return c.now }

// config is the configuration the servant runs with.
func (c *core) config() *Config { return &c.cfg }

// tally is the servant's counters, for the sub-machines to count in.
func (c *core) tally() *Counters { return &c.counters }

// note records a protocol decision for the host's log.
func (c *core) note(format string, args ...any) {
	c.out = append(c.out, Note{Text: fmt.Sprintf(format, args...)})
}

// verify returns why m, which came from peer, is rejected (verifier),
// "" when it is not.
func (c *core) verify(peer ServantID, m *Multicast) string { return c.verifier.check(c, peer, m) }

// subscriptions are our own subscriptions (the self set).
func (c *core) subscriptions() CategorySet { return c.self }

// keepsArchive reports whether we keep every category in a store: an
// archive, which answers catch-ups.
func (c *core) keepsArchive() bool { return c.self.Has(AllCategories) && c.cfg.Archive != nil }

// latestEdges is the edge book, for flow control and opinions.
func (c *core) latestEdges() leadingEdges { return c.edges }

// banned reports whether we refuse t's joins for its conduct
// (connectorHost's: we do not join t either).
func (c *core) banned(t ServantID) bool {
	_, banned := c.conduct.bannedUntil(t, c.now)
	return banned
}

// act queues an action for the host.
func (c *core) act(a Action) { c.out = append(c.out, a) }

// send queues m for link l, unless the peer speaks a wire version older
// than m, and counts it by kind.
func (c *core) send(l *link, m Message) {
	if n, ok := m.(newer); ok && n.since() > l.version && l.version != 0 {
		// The peer speaks an older version that has no such frame.
		c.counters.TooNew++
		return
	}
	switch m.(type) {
	case *Multicast:
		c.counters.MulticastFrames++
	case *Ping, *PartitionInfo:
		c.counters.PeriodicFrames++
	case *Recover, *Recovered, *CatchUp, *CatchUpDone:
		c.counters.RecoveryFrames++
	case *LatestHeader:
		c.counters.EdgeFrames++
	case *DirectRequest, *DirectAnswer, *DirectHello, *DirectCover:
		c.counters.DirectFrames++
	case *ReachReport:
		c.counters.ReportFrames++
	default:
		c.counters.ControlFrames++
	}
	l.lastSend = c.now
	l.flow.sent(SizeOf(m), c.now)
	c.out = append(c.out, Send{Link: l.id, Msg: m})
}

// holds reports whether l is still one of our links.
func (c *core) holds(l *link) bool { return c.links[l.id] == l }

// linkByID returns the link of id, nil when there is none.
func (c *core) linkByID(id LinkID) *link { return c.links[id] }

// dial opens an outbound link of kind to t: the host is asked to dial it.
func (c *core) dial(t ServantID, kind linkKind) *link {
	return c.dialWithin(t, kind, 0)
}

// dialWithin dials t giving the host within to connect and greet (0: the
// join timeout).
func (c *core) dialWithin(t ServantID, kind linkKind, within time.Duration) *link {
	c.nextDial++
	l := &link{id: c.nextDial | dialedLinkBit, kind: kind, peer: t, value: IDValue(t), opened: c.now}
	c.links[l.id] = l
	c.out = append(c.out, Dial{Link: l.id, Addr: t, Direct: kind == linkDirectDialing, Within: within})
	return l
}

// dialDirect dials peer for direct link d (direct.go).
func (c *core) dialDirect(peer ServantID, d *directLink) *link {
	l := c.dial(peer, linkDirectDialing)
	l.direct = d
	return l
}

// closeLink forgets l and asks the host to close it. It does not run the
// loss processing of its kind: callers decide what a deliberate close means.
func (c *core) closeLink(l *link, reason string) {
	delete(c.links, l.id)
	c.out = append(c.out, Close{Link: l.id, Reason: reason})
}

// sortedLinks returns every link, tree or not, by ID: a fixed order keeps
// the servant deterministic.
func (c *core) sortedLinks() []*link {
	ls := make([]*link, 0, len(c.links))
	for _, l := range c.links {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b *link) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	return ls
}

// upLink is the uplink, nil when not attached.
func (c *core) upLink() *link { return c.up }

// downLinks are the downlinks: leaves, then members by slot.
func (c *core) downLinks() []*link { return c.downs }

// pathDown is the path a down-servant is told: from the vertex down to
// us.
func (c *core) pathDown() []ServantID { return slices.Concat(c.rootPath, []ServantID{c.id}) }

// refuse answers a joiner no and closes its link.
func (c *core) refuse(l *link, reason string) {
	c.send(l, &JoinRefuse{Reason: reason})
	c.closeLink(l, "join refused: "+reason)
}

// isVertex reports whether this servant is the root of the tree.
func (c *core) isVertex() bool { return c.vertex }

// detached reports whether this servant is looking for the tree (or not
// started yet): it has no uplink and is not the vertex.
func (c *core) detached() bool { return c.up == nil && !c.vertex }

// treeLinks returns the established links: the uplink first, then the
// downlinks in slot order. Iterating in a fixed order keeps the servant
// deterministic.
func (c *core) treeLinks() []*link {
	ls := make([]*link, 0, len(c.downs)+1)
	if c.up != nil {
		ls = append(ls, c.up)
	}
	return append(ls, c.downs...)
}

// isTree reports whether ids are the tree links, in treeLinks order,
// without allocating.
func (c *core) isTree(ids []LinkID) bool {
	i := 0
	if c.up != nil {
		if len(ids) == 0 || ids[0] != c.up.id {
			return false
		}
		i = 1
	}
	if len(ids) != i+len(c.downs) {
		return false
	}
	for j, l := range c.downs {
		if ids[i+j] != l.id {
			return false
		}
	}
	return true
}

// reportRoom is reachHost's: reports go out only when items need not wait.
func (c *core) reportRoom(l *link) bool { return l.flow.reportRoom(&c.cfg) }

// chunkRoom is blobHost's: chunks go out only when items need not wait.
func (c *core) chunkRoom(l *link) bool { return l.flow.chunkRoom(&c.cfg) }

// checkCategory reports whether c can be a multicast ID, noting why not.
// Hosts validate categories first; this keeps a bad one from making every
// routing frame of the servant unencodable.
func (c *core) checkCategory(category string) bool {
	if err := ValidCategory(category); err != nil {
		c.note("ignored: %v", err)
		return false
	}
	return true
}

// wants reports whether a message of the category must cross link l: its
// received set holds it, or the peer has not told us yet what it holds.
func (c *core) wants(l *link, category string) bool {
	return c.cfg.Flood || !l.infoKnown || l.received.Matches(category)
}

// fromBelow reports whether a source's items arrive over one of our
// downlinks, or last did over a link that is gone and was not our
// uplink: a subtree that re-formed (its up-servant reset it) may have
// taken the source with it, and the tree above must still learn of the
// items that were lost with the old uplink.
func (c *core) fromBelow(st *sourceState) bool {
	if st == nil {
		return false
	}
	l := c.links[st.arrival]
	if l == nil {
		return st.arrival != 0 && !st.viaUp
	}
	return l.kind == linkDown
}

// ownNext is the count our next publication takes (catchUpHost).
func (c *core) ownNext() uint64 { return c.ownCount + 1 }

// owedSince is when items started being owed to us: when we first
// attached, or now if we never did.
func (c *core) owedSince() time.Time {
	if c.firstAttached.IsZero() {
		return c.now
	}
	return c.firstAttached
}
