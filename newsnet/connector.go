package newsnet

import (
	"slices"
	"time"
)

// connector is the connector processing of JP4353827B2 (Fig. 3): try the
// targets in order, follow redirects, fall back to the next target, and back
// off with jitter when every target failed.
type connector struct {
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
func (s *Servant) seedTargets() []ServantID {
	if i := s.seedIndex(); i >= 0 {
		return s.cfg.Seeds[:i]
	}
	return s.cfg.Seeds
}

// seedIndex is our position in the seed list, or -1. The list may name us
// by another spelling (a host name for our IP); such an alias is learnt when
// a dial to it reaches ourselves (see handleJoin).
func (s *Servant) seedIndex() int {
	return slices.IndexFunc(s.cfg.Seeds, func(seed ServantID) bool {
		return seed == s.id || s.aliases[seed]
	})
}

// isSeed reports whether this servant is in the seed list.
func (s *Servant) isSeed() bool { return s.seedIndex() >= 0 }

// learnAlias records that target, which we are dialing, is ourselves, and
// drops the targets a seed must not join (itself and the seeds after it).
func (s *Servant) learnAlias(target ServantID) {
	if s.aliases == nil {
		s.aliases = make(map[ServantID]bool)
	}
	s.aliases[target] = true
	s.note("%s is this servant", target)
	s.dropForbiddenTargets()
}

// forbiddenTarget reports whether a seed must not join t: t is a seed
// that is not before it in the list (itself included).
func (s *Servant) forbiddenTarget(t ServantID) bool {
	return s.isSeed() && slices.Contains(s.cfg.Seeds, t) && !slices.Contains(s.seedTargets(), t)
}

// dropForbiddenTargets drops from the round in progress the targets a
// seed must not join.
func (s *Servant) dropForbiddenTargets() {
	s.connector.targets = slices.DeleteFunc(s.connector.targets, s.forbiddenTarget)
}

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
	if s.started {
		s.reconsiderSeeds()
	}
}

// reconsiderSeeds applies the seed rules to a running servant whose seed
// list changed. Nothing that the rules allow to stay is torn down:
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
func (s *Servant) reconsiderSeeds() {
	c := &s.connector
	s.dropForbiddenTargets()
	if c.attempt != nil && s.forbiddenTarget(c.attempt.peer) {
		s.closeLink(c.attempt, "no longer a join target")
		s.tryNextTarget()
	}
	switch {
	case s.up != nil:
		if len(s.rootPath) > 0 && slices.Contains(s.seedTargets(), s.rootPath[0]) {
			s.lastSeedRoot = s.now
			return
		}
		if s.isSeed() {
			s.note("tree root %v is not a seed before this one: reconnecting", s.rootPath)
			s.closeLink(s.up, "root is not an earlier seed")
			s.becomeDetached()
			s.startConnector(nil)
		}
	case s.vertex:
		if c.attempt == nil && len(s.seedTargets()) > 0 {
			s.probeSeeds()
		}
	case c.attempt == nil:
		// Backing off after a failed round: try the new list now.
		c.rounds = 0
		s.startConnector(nil)
	}
}

// probeSeeds lets the vertex try the seeds before it; it stays the vertex
// until one accepts it.
func (s *Servant) probeSeeds() {
	c := &s.connector
	s.nextProbe = s.now.Add(s.cfg.SeedProbeInterval)
	c.active = true
	c.targets = s.joinTargets(nil)
	s.tryNextTarget()
}

// startConnector begins connector processing with first, then the seeds.
// Any attempt in progress is abandoned.
func (s *Servant) startConnector(first []ServantID) {
	if s.up != nil {
		panic("newsnet: connector started while attached")
	}
	if s.connector.attempt != nil {
		s.closeLink(s.connector.attempt, "join attempt superseded")
	}
	c := s.connector
	s.connector = connector{active: true, rounds: c.rounds, avoid: c.avoid, full: c.full}
	s.connector.targets = s.joinTargets(first)
	s.tryNextTarget()
}

func (s *Servant) joinTargets(first []ServantID) []ServantID {
	ts := make([]ServantID, 0, len(first)+len(s.cfg.Seeds))
	for _, t := range append(slices.Clone(first), s.seedTargets()...) {
		if t != s.id && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// tryNextTarget dials the next target, or ends the round when none is left.
func (s *Servant) tryNextTarget() {
	c := &s.connector
	c.attempt = nil
	if len(c.targets) == 0 {
		s.roundFailed()
		return
	}
	t := c.targets[0]
	c.targets = c.targets[1:]
	if _, banned := s.conduct.bannedUntil(t, s.now); banned {
		s.tryNextTarget() // it forged what it passed on (conduct.go)
		return
	}
	c.redirects = 0
	c.redirector = ""
	s.dial(t)
}

func (s *Servant) dial(t ServantID) {
	s.nextDial++
	l := &link{id: s.nextDial | dialedLinkBit, kind: linkJoining, peer: t, value: IDValue(t), opened: s.now}
	s.links[l.id] = l
	s.connector.attempt = l
	s.out = append(s.out, Dial{Link: l.id, Addr: t})
}

// roundFailed: no target accepted us. A seed whose predecessors are all gone
// is the vertex; anyone else waits and tries the seeds again.
func (s *Servant) roundFailed() {
	c := &s.connector
	if s.isSeed() || len(s.cfg.Seeds) == 0 {
		s.becomeVertex()
		return
	}
	c.rounds++
	c.retryAt = s.now.Add(s.backoff(c.rounds))
}

// backoff is BackoffMin·2^(rounds-1) capped at BackoffMax, jittered ±50%.
func (s *Servant) backoff(rounds int) time.Duration {
	d := s.cfg.BackoffMin
	for i := 1; i < rounds && d < s.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, s.cfg.BackoffMax)
	return d/2 + time.Duration(s.cfg.Rand.Int64N(int64(d)+1))
}

// tickConnector times out a silent attempt, starts a backed-off round, and
// lets a vertex that is not the first seed probe the seeds before it.
func (s *Servant) tickConnector() {
	c := &s.connector
	switch {
	case c.attempt != nil:
		if s.now.Sub(c.attempt.opened) >= s.cfg.JoinTimeout {
			l := c.attempt
			s.closeLink(l, "join timed out")
			c.deadEnd(s, l, "join timed out")
		}
	case c.active && !s.vertex && !s.now.Before(c.retryAt):
		s.startConnector(nil)
	case s.vertex && len(s.seedTargets()) > 0 && !s.now.Before(s.nextProbe):
		s.probeSeeds()
	}
}

func (c *connector) attemptFailed(s *Servant, l *link, reason string) {
	if c.attempt != l {
		return
	}
	c.deadEnd(s, l, reason)
}

// deadEnd handles an attempt that got no answer. A target from the list
// is simply passed over. A target we were redirected to is avoided from
// now on, and we go back to the servant that sent us there, which places
// us elsewhere and checks the target (leaf.go): so one servant that cannot
// be dialed never keeps the joiners of its slot out.
func (c *connector) deadEnd(s *Servant, l *link, reason string) {
	if c.redirector == "" || c.redirector == s.id || c.redirects >= s.cfg.MaxRedirects {
		s.tryNextTarget()
		return
	}
	s.note("cannot dial %s (%s), where %s sent us: telling %s", l.peer, reason, c.redirector, c.redirector)
	c.avoid = remember(c.avoid, l.peer)
	back, redirects := c.redirector, c.redirects+1
	s.dial(back)
	c.redirects, c.redirector = redirects, ""
}

func (c *connector) redirected(s *Servant, l *link, m *JoinRedirect) {
	if c.attempt != l {
		s.closeLink(l, "stale join attempt")
		return
	}
	s.closeLink(l, "redirected")
	c.redirects++
	if m.Full {
		c.full = remember(c.full, l.peer)
	}
	to := m.To
	if to == s.id || to == l.peer || c.redirects > s.cfg.MaxRedirects {
		s.tryNextTarget()
		return
	}
	redirects := c.redirects
	if _, banned := s.conduct.bannedUntil(to, s.now); banned {
		// Sent to a servant we left for forging what it passed on: back
		// to the redirector, which places us elsewhere, as for a servant
		// we cannot dial.
		s.note("%s sent us to %s, which we left for misconduct: asking %s to place us elsewhere", l.peer, to, l.peer)
		c.avoid = remember(c.avoid, to)
		s.dial(l.peer)
		c.redirects = redirects
		return
	}
	s.dial(to)
	c.redirects, c.redirector = redirects, l.peer
}

func (c *connector) refused(s *Servant, l *link, reason string) {
	s.note("join refused by %s: %s", l.peer, reason)
	s.closeLink(l, "refused")
	if c.attempt == l {
		s.tryNextTarget()
	}
}

func (c *connector) accepted(s *Servant, l *link, acc *JoinAccept) {
	if c.attempt != l || s.up != nil {
		s.closeLink(l, "stale join attempt")
		return
	}
	if slices.Contains(acc.Path, s.id) {
		// The listener is in our own subtree: joining it would make a cycle.
		s.closeLink(l, "listener is in our subtree")
		s.tryNextTarget()
		return
	}
	if len(acc.Path) == 0 {
		s.closeLink(l, "malformed join accept")
		s.tryNextTarget()
		return
	}
	// The path ends with the listener's own ID, which may be spelled
	// differently from the address we dialed (a host name for an IP).
	l.peer = acc.Path[len(acc.Path)-1]
	l.value = IDValue(l.peer)
	s.becomeAttached(l, acc)
}

// recoverUplink is uplink-loss processing (Fig. 5): the first servant of the
// sibling list reconnects through the seeds; the others try the siblings
// before them, then the seeds. Trying only earlier siblings means two
// siblings never join each other at once.
func (s *Servant) recoverUplink() {
	i := slices.Index(s.siblings, s.id)
	if i <= 0 {
		s.startConnector(nil)
		return
	}
	s.startConnector(s.siblings[:i])
}
