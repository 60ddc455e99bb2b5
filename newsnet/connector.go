package newsnet

import (
	"slices"
	"time"
)

// connector is the connector processing of JP4353827B2 (Fig. 3): try the
// targets in order, follow redirects, fall back to the next target, and back
// off with jitter when every target failed. It also holds the seed rules
// (which seeds this servant may join, under which names the list names it)
// and the vertex's probes of the seeds before it.
//
// It owns its state and reaches the servant only through connectorHost, as
// raft's Progress tracker is stepped by raft and reports back (STYLE.md);
// connector_test.go drives it through a fake.
type connector struct {
	cfg *Config   // the servant's: Seeds, MaxRedirects, JoinTimeout, backoff
	id  ServantID // ours
	// aliases: other spellings of our ID in the seed list (learnAlias).
	aliases map[ServantID]bool
	// nextProbe: when a vertex that is not the first seed probes the seeds
	// before it.
	nextProbe time.Time

	// The join search, from start to stop.
	active    bool
	targets   []ServantID // still to try, in order
	attempt   *link       // the outstanding join attempt, if any
	redirects int         // redirects followed from the current target
	// redirector sent the current attempt to its target ("" for a target
	// of the list): when the target cannot be dialed, we go back to it.
	redirector ServantID
	// avoid: servants we could not dial after a redirect; full: those
	// that had no room for us as a leaf; both since we started looking
	// (JoinRequest.Avoid and Full).
	avoid, full []ServantID
	retryAt     time.Time // when a backed-off connector starts a new round
	rounds      int       // consecutive failed rounds, for the backoff
	// unanswered counts the attempts in a row that connected and then
	// timed out without an answer, until we are attached again: each
	// doubles the next attempt's time (attemptTimeout).
	unanswered int
}

// joinTimeoutDoublings caps attemptTimeout at 8 join timeouts (24 s at the
// default).
const joinTimeoutDoublings = 3

// connectorHost is what the connector needs of the servant: how the tree is
// joined and left. *Servant implements it.
type connectorHost interface {
	clock() time.Time
	note(format string, args ...any)
	// upLink is our uplink, nil when we are not attached.
	upLink() *link
	isVertex() bool
	// dialWithin opens an outbound link of kind to t (linkJoining: a
	// join attempt, which sends its join request once up), giving the
	// host within to connect and greet.
	dialWithin(t ServantID, kind linkKind, within time.Duration) *link
	closeLink(l *link, reason string)
	// banned reports whether we refuse t's joins (conduct.go): we do not
	// join t either.
	banned(t ServantID) bool
	becomeVertex()
	becomeAttached(l *link, acc *JoinAccept)
}

var _ connectorHost = (*Servant)(nil)

func newConnector(cfg *Config, id ServantID) connector {
	return connector{cfg: cfg, id: id}
}

func (c *connector) stop() {
	c.active = false
	c.targets = nil
	c.attempt = nil
	c.redirects = 0
	c.redirector = ""
	c.rounds = 0
	c.avoid, c.full = nil, nil
}

// remember adds t to list, dropping the oldest entry beyond MaxAvoid.
func remember(list []ServantID, t ServantID) []ServantID {
	if slices.Contains(list, t) {
		return list
	}
	if len(list) == MaxAvoid {
		list = slices.Delete(list, 0, 1)
	}
	return append(list, t)
}

// seedTargets is the part of the seed list this servant may join: the seeds
// before it when it is a seed itself, every seed otherwise.
func (c *connector) seedTargets() []ServantID {
	if i := c.seedIndex(); i >= 0 {
		return c.cfg.Seeds[:i]
	}
	return c.cfg.Seeds
}

// seedIndex is our position in the seed list, or -1. The list may name us
// by another spelling (a host name for our IP); such an alias is learnt when
// a dial to it reaches ourselves (see handleJoin).
func (c *connector) seedIndex() int {
	return slices.IndexFunc(c.cfg.Seeds, func(seed ServantID) bool {
		return seed == c.id || c.aliases[seed]
	})
}

// isSeed reports whether this servant is in the seed list.
func (c *connector) isSeed() bool { return c.seedIndex() >= 0 }

// learnAlias records that target, which we are dialing, is ourselves, and
// drops the targets a seed must not join (itself and the seeds after it).
func (c *connector) learnAlias(h connectorHost, target ServantID) {
	if c.aliases == nil {
		c.aliases = make(map[ServantID]bool)
	}
	c.aliases[target] = true
	h.note("%s is this servant", target)
	c.dropForbiddenTargets()
}

// forbiddenTarget reports whether a seed must not join t: t is a seed
// that is not before it in the list (itself included).
func (c *connector) forbiddenTarget(t ServantID) bool {
	return c.isSeed() && slices.Contains(c.cfg.Seeds, t) && !slices.Contains(c.seedTargets(), t)
}

// dropForbiddenTargets drops from the round in progress the targets a
// seed must not join.
func (c *connector) dropForbiddenTargets() {
	c.targets = slices.DeleteFunc(c.targets, c.forbiddenTarget)
}

// seedsChanged applies the seed rules to the search when the seed list
// changed (Servant.setSeeds): the round in progress drops the
// targets a seed must not join, abandoning such an attempt; a vertex
// probes the seeds before it now; a connector backing off starts a new
// round at once. An attached servant is the servant's to reconsider.
func (c *connector) seedsChanged(h connectorHost) {
	c.dropForbiddenTargets()
	if c.attempt != nil && c.forbiddenTarget(c.attempt.peer) {
		h.closeLink(c.attempt, "no longer a join target")
		c.tryNextTarget(h)
	}
	switch {
	case h.upLink() != nil:
	case h.isVertex():
		if c.attempt == nil && len(c.seedTargets()) > 0 {
			c.probeSeeds(h)
		}
	case c.attempt == nil:
		// Backing off after a failed round: try the new list now.
		c.rounds = 0
		c.start(h, nil)
	}
}

// becameVertex schedules the vertex's next probe of the seeds before it.
func (c *connector) becameVertex(now time.Time) {
	c.stop()
	c.nextProbe = now.Add(c.cfg.SeedProbeInterval)
}

// probeSeeds lets the vertex try the seeds before it; it stays the vertex
// until one accepts it.
func (c *connector) probeSeeds(h connectorHost) {
	c.nextProbe = h.clock().Add(c.cfg.SeedProbeInterval)
	c.active = true
	c.targets = c.joinTargets(nil)
	c.tryNextTarget(h)
}

// start begins connector processing with first, then the seeds. Any
// attempt in progress is abandoned; what the search learnt of servants to
// avoid, and its failed rounds, are kept.
func (c *connector) start(h connectorHost, first []ServantID) {
	if h.upLink() != nil {
		panic("newsnet: connector started while attached")
	}
	if c.attempt != nil {
		h.closeLink(c.attempt, "join attempt superseded")
	}
	c.active = true
	c.attempt, c.redirects, c.redirector, c.retryAt = nil, 0, "", time.Time{}
	c.targets = c.joinTargets(first)
	c.tryNextTarget(h)
}

// recoverUplink is uplink-loss processing (Fig. 5): the first servant of the
// sibling list reconnects through the seeds; the others try the siblings
// before them, then the seeds. Trying only earlier siblings means two
// siblings never join each other at once.
func (c *connector) recoverUplink(h connectorHost, siblings []ServantID) {
	i := slices.Index(siblings, c.id)
	if i <= 0 {
		c.start(h, nil)
		return
	}
	c.start(h, siblings[:i])
}

func (c *connector) joinTargets(first []ServantID) []ServantID {
	ts := make([]ServantID, 0, len(first)+len(c.cfg.Seeds))
	for _, t := range append(slices.Clone(first), c.seedTargets()...) {
		if t != c.id && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// tryNextTarget dials the next target, or ends the round when none is left.
func (c *connector) tryNextTarget(h connectorHost) {
	c.attempt = nil
	if len(c.targets) == 0 {
		c.roundFailed(h)
		return
	}
	t := c.targets[0]
	c.targets = c.targets[1:]
	if h.banned(t) {
		c.tryNextTarget(h) // it forged what it passed on (conduct.go)
		return
	}
	c.redirects = 0
	c.redirector = ""
	c.attempt = c.dialJoin(h, t)
}

// dialJoin starts a join attempt to t.
func (c *connector) dialJoin(h connectorHost, t ServantID) *link {
	return h.dialWithin(t, linkJoining, c.attemptTimeout())
}

// attemptTimeout is how long a join attempt may go unanswered: the join
// timeout, doubled for each attempt in a row that connected and got no
// answer in time. A servant that is busy (a vertex sending a burst, a
// seed on a starved machine, a far office behind a slow VPN) answers
// later than the join timeout; with a fixed timeout every joiner would
// give up on it just before the answer, and try again, forever, each
// attempt adding to the listener's work. A target that does not take the
// connection at all does not lengthen the time.
func (c *connector) attemptTimeout() time.Duration {
	return c.cfg.JoinTimeout << min(c.unanswered, joinTimeoutDoublings)
}

// roundFailed: no target accepted us. A seed whose predecessors are all gone
// is the vertex; anyone else waits and tries the seeds again.
func (c *connector) roundFailed(h connectorHost) {
	if c.isSeed() || len(c.cfg.Seeds) == 0 {
		h.becomeVertex()
		return
	}
	c.rounds++
	c.retryAt = h.clock().Add(c.backoff(c.rounds))
}

// backoff is BackoffMin·2^(rounds-1) capped at BackoffMax, jittered ±50%.
func (c *connector) backoff(rounds int) time.Duration {
	d := c.cfg.BackoffMin
	for i := 1; i < rounds && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.cfg.BackoffMax)
	return d/2 + time.Duration(c.cfg.Rand.Int64N(int64(d)+1))
}

// tick times out a silent attempt, starts a backed-off round, and lets a
// vertex that is not the first seed probe the seeds before it.
func (c *connector) tick(h connectorHost) {
	now := h.clock()
	switch {
	case c.attempt != nil:
		if now.Sub(c.attempt.opened) >= c.attemptTimeout() {
			l := c.attempt
			if !l.lastSend.IsZero() { // connected, join request sent
				c.unanswered++
			}
			h.closeLink(l, "join timed out")
			c.deadEnd(h, l, "join timed out")
		}
	case c.active && !h.isVertex() && !now.Before(c.retryAt):
		c.start(h, nil)
	case h.isVertex() && len(c.seedTargets()) > 0 && !now.Before(c.nextProbe):
		c.probeSeeds(h)
	}
}

func (c *connector) attemptFailed(h connectorHost, l *link, reason string) {
	if c.attempt != l {
		return
	}
	c.deadEnd(h, l, reason)
}

// deadEnd handles an attempt that got no answer. A target from the list
// is simply passed over. A target we were redirected to is avoided from
// now on, and we go back to the servant that sent us there, which places
// us elsewhere and checks the target (leaf.go): so one servant that cannot
// be dialed never keeps the joiners of its slot out.
func (c *connector) deadEnd(h connectorHost, l *link, reason string) {
	if c.redirector == "" || c.redirector == c.id || c.redirects >= c.cfg.MaxRedirects {
		c.tryNextTarget(h)
		return
	}
	h.note("cannot dial %s (%s), where %s sent us: telling %s", l.peer, reason, c.redirector, c.redirector)
	c.avoid = remember(c.avoid, l.peer)
	back, redirects := c.redirector, c.redirects+1
	c.attempt = c.dialJoin(h, back)
	c.redirects, c.redirector = redirects, ""
}

func (c *connector) redirected(h connectorHost, l *link, m *JoinRedirect) {
	if c.attempt != l {
		h.closeLink(l, "stale join attempt")
		return
	}
	h.closeLink(l, "redirected")
	c.redirects++
	if m.Full {
		c.full = remember(c.full, l.peer)
	}
	to := m.To
	if to == c.id || to == l.peer || c.redirects > c.cfg.MaxRedirects {
		c.tryNextTarget(h)
		return
	}
	redirects := c.redirects
	if h.banned(to) {
		// Sent to a servant we left for forging what it passed on: back
		// to the redirector, which places us elsewhere, as for a servant
		// we cannot dial.
		h.note("%s sent us to %s, which we left for misconduct: asking %s to place us elsewhere", l.peer, to, l.peer)
		c.avoid = remember(c.avoid, to)
		c.attempt = c.dialJoin(h, l.peer)
		c.redirects = redirects
		return
	}
	c.attempt = c.dialJoin(h, to)
	c.redirects, c.redirector = redirects, l.peer
}

func (c *connector) refused(h connectorHost, l *link, reason string) {
	h.note("join refused by %s: %s", l.peer, reason)
	h.closeLink(l, "refused")
	if c.attempt == l {
		c.tryNextTarget(h)
	}
}

func (c *connector) accepted(h connectorHost, l *link, acc *JoinAccept) {
	if c.attempt != l || h.upLink() != nil {
		h.closeLink(l, "stale join attempt")
		return
	}
	if slices.Contains(acc.Path, c.id) {
		// The listener is in our own subtree: joining it would make a cycle.
		h.closeLink(l, "listener is in our subtree")
		c.tryNextTarget(h)
		return
	}
	if len(acc.Path) == 0 {
		h.closeLink(l, "malformed join accept")
		c.tryNextTarget(h)
		return
	}
	// The path ends with the listener's own ID, which may be spelled
	// differently from the address we dialed (a host name for an IP).
	l.peer = acc.Path[len(acc.Path)-1]
	l.value = IDValue(l.peer)
	c.unanswered = 0
	h.becomeAttached(l, acc)
}

// The servant's side of the seed list and the join search.

// setSeeds replaces the seed list of the servant (the SetSeeds event)
// and, once it is running, reconsiders its place by the seed rules.
func (s *Servant) setSeeds(seeds []ServantID) {
	for _, id := range seeds {
		if _, err := ParseServantID(string(id)); err != nil {
			s.note("new seed list ignored: %v", err)
			return
		}
	}
	if slices.Equal(seeds, s.cfg.Seeds) {
		return
	}
	s.cfg.Seeds = slices.Clone(seeds)
	s.note("seed list is now %v", s.cfg.Seeds)
	if !s.started {
		return
	}
	// A running servant reconsiders its place by the seed rules. Nothing
	// that the rules allow to stay is torn down:
	//
	//   - The round in progress drops the targets a seed must not join (the
	//     seeds not before it), abandoning such an attempt; the next round
	//     takes its targets from the new list.
	//   - Connecting and backing off: a new round starts at once, so a list
	//     without reachable predecessors makes a seed the vertex now, as at
	//     start.
	//   - The vertex with seeds before it (it is not the first seed, or not a
	//     seed at all) probes them now, and rejoins under one that answers.
	//   - Attached: a seed whose tree's root is not a seed before it leaves
	//     and reconnects through the seeds before it (becoming the vertex when
	//     none answers), since the first reachable seed must be the vertex;
	//     anyone else keeps its place.
	//
	// The connector applies all but the last (connector.seedsChanged).
	s.connector.seedsChanged(s)
	if s.up == nil {
		return
	}
	if len(s.rootPath) > 0 && slices.Contains(s.connector.seedTargets(), s.rootPath[0]) {
		s.lastSeedRoot = s.now
		return
	}
	if s.connector.isSeed() {
		s.note("tree root %v is not a seed before this one: reconnecting", s.rootPath)
		s.closeLink(s.up, "root is not an earlier seed")
		s.becomeDetached()
		s.connector.start(s, nil)
	}
}
