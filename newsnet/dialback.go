package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Dial-backs: reachability is measured, never assumed.
//
// Most employees' laptops cannot be dialled: a firewall blocks the port, a
// NAT router or the VPN stands in the way. A servant that others cannot
// dial must not hold a slot: every later joiner of its slot would be
// redirected to it and fail. So an up-servant dials every servant that
// joins it back at its advertised address (its ID) and tells it what it
// found:
//
//   - The probe is an ordinary link (the host's TLS and membership proof
//     included) whose first frame is a DialBack with a random nonce. The
//     servant reached answers a DialBackReply with the nonce and its own
//     ID, which must be the one dialed. No answer within JoinTimeout, a
//     refused dial or a wrong ID: unreachable.
//   - The verdict goes to the probed servant in a Reachability frame, with
//     its place: a reachable leaf is promoted to a slot, an unreachable
//     member is demoted to a leaf (leaf.go).
//   - Every down-servant and leaf is dialed back again every
//     ReachProbeInterval (jittered), so a firewall opened or closed while
//     running is noticed; and a member that a joiner reports it could not
//     dial is dialed back at once (at most once per verifySpacing for
//     such reports): a member's report alone never demotes anyone.
//
// The servant keeps the last verdict about itself: it claims it in its next
// JoinRequest, so that a servant known reachable takes a slot at once.
type dialBackState struct {
	self Reach     // the last verdict about us
	addr ServantID // the address it was about
	at   time.Time // when it came

	probes map[LinkID]*dialBackProbe // outstanding probes, by probe link
}

// dialBackProbe is one outstanding dial-back.
type dialBackProbe struct {
	target ServantID
	nonce  uint64
}

// verifySpacing is how often at most a member reported undialable by
// joiners is dialed back.
func (s *Servant) verifySpacing() time.Duration { return 10 * s.cfg.JoinTimeout }

// maxDialBacks bounds the dial-backs under way at once. A joiner names the
// address to dial itself, so a member joining with made-up addresses must
// not make a servant dial without limit; beyond the bound a down-servant is
// dialed back a join timeout later.
const maxDialBacks = 256

// dialBack dials target back, unless a dial-back to it is under way.
func (s *Servant) dialBack(target ServantID) {
	for _, p := range s.dialback.probes {
		if p.target == target {
			return
		}
	}
	if len(s.dialback.probes) >= maxDialBacks {
		if d := s.downByPeer(target); d != nil {
			d.probeAt = s.now.Add(s.cfg.JoinTimeout)
		}
		return
	}
	if s.dialback.probes == nil {
		s.dialback.probes = map[LinkID]*dialBackProbe{}
	}
	s.nextDial++
	l := &link{id: s.nextDial | dialedLinkBit, kind: linkDialBack, peer: target, value: IDValue(target), opened: s.now}
	s.links[l.id] = l
	s.dialback.probes[l.id] = &dialBackProbe{target: target, nonce: s.cfg.Rand.Uint64()}
	s.out = append(s.out, Dial{Link: l.id, Addr: target})
}

// dialBackUp sends the probe's question once the host connected it.
func (s *Servant) dialBackUp(l *link) {
	p := s.dialback.probes[l.id]
	if p == nil {
		s.closeLink(l, "dial-back abandoned")
		return
	}
	l.lastRecv, l.lastSend = s.now, s.now
	s.send(l, &DialBack{Nonce: p.nonce})
}

// answerDialBack is the probed side: say who we are. The prober closes
// the link; if it does not, the accepted link times out like any link
// that never asked to join.
func (s *Servant) answerDialBack(l *link, m *DialBack) {
	s.send(l, &DialBackReply{Nonce: m.Nonce, From: s.id})
}

// dialBackAnswered is the prober's side of a reply.
func (s *Servant) dialBackAnswered(l *link, m *DialBackReply) {
	p := s.dialback.probes[l.id]
	if p == nil {
		return
	}
	s.closeLink(l, "dial-back done")
	delete(s.dialback.probes, l.id)
	ok := m.Nonce == p.nonce && m.From == p.target
	if !ok {
		s.note("dial-back to %s reached %s instead", p.target, m.From)
	}
	s.dialBackDone(p.target, ok)
}

// dialBackFailed ends a probe whose link closed or timed out unanswered.
func (s *Servant) dialBackFailed(l *link, reason string) {
	p := s.dialback.probes[l.id]
	if p == nil {
		return
	}
	delete(s.dialback.probes, l.id)
	s.note("dial-back to %s failed: %s", p.target, reason)
	s.dialBackDone(p.target, false)
}

// tickDialBack times out silent probes and starts the periodic ones.
func (s *Servant) tickDialBack() {
	for _, id := range slices.Sorted(maps.Keys(s.dialback.probes)) {
		if l := s.links[id]; l != nil && s.now.Sub(l.opened) >= s.cfg.JoinTimeout {
			s.closeLink(l, "dial-back timed out")
			s.dialBackFailed(l, "no answer within the join timeout")
		}
	}
	for _, d := range s.downs {
		if !d.probeAt.IsZero() && !s.now.Before(d.probeAt) {
			d.probeAt = time.Time{}
			s.dialBack(d.peer)
		}
	}
}

// nextProbeAt is when a servant dialed back now is dialed back again:
// ReachProbeInterval jittered by ±50 %, so that the downs of one servant,
// which often joined together, spread out.
func (s *Servant) nextProbeAt() time.Time {
	d := s.cfg.ReachProbeInterval
	return s.now.Add(d/2 + time.Duration(s.cfg.Rand.Int64N(int64(d)+1)))
}

// dialBackDone applies a verdict about target, if it is still one of our
// down-servants or leaves: promote, demote, or just tell it.
func (s *Servant) dialBackDone(target ServantID, reachable bool) {
	d := s.downByPeer(target)
	if d == nil {
		return
	}
	d.probeAt = s.nextProbeAt()
	d.reach = ReachUnreachable
	if reachable {
		d.reach = ReachReachable
	}
	switch {
	case reachable && d.leaf:
		s.promote(d)
	case !reachable && !d.leaf:
		s.demote(d)
	default:
		s.send(d, &Reachability{Addr: target, Reachable: reachable, Leaf: d.leaf})
	}
}

// receiveReachability takes our up-servant's verdict about us.
func (s *Servant) receiveReachability(m *Reachability) {
	if m.Addr != s.id {
		return // about an address we no longer have
	}
	r := ReachUnreachable
	if m.Reachable {
		r = ReachReachable
	}
	if r != s.dialback.self {
		if r == ReachReachable {
			s.note("reachable: %s dialed this servant back at %s", s.up.peer, s.id)
		} else {
			s.note("others cannot dial this servant at %s: it receives news as a leaf", s.id)
		}
	}
	s.dialback.self, s.dialback.addr, s.dialback.at = r, m.Addr, s.now
	switch {
	case m.Leaf && !s.leaf:
		s.becomeLeaf()
	case !m.Leaf && s.leaf:
		s.leaf = false
		s.note("promoted by %s: this servant holds a slot again", s.up.peer)
	}
}
