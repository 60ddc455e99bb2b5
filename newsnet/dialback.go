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
//
// dialBacks is the sub-machine: the probes under way, the last verdict
// about us, and when each down-servant is dialed back next (link.probeAt,
// link.reportedAt). It reaches the servant through dialBackHost; what a
// verdict does to a down-servant's place is admissions' (placeReached,
// leaf.go). dialback_test.go drives it through a fake.
type dialBacks struct {
	cfg *Config   // the servant's: JoinTimeout, ReachProbeInterval, Rand
	id  ServantID // ours: the answer to a dial-back

	self Reach     // the last verdict about us
	addr ServantID // the address it was about
	at   time.Time // when it came

	probes map[LinkID]*dialBackProbe // outstanding probes, by probe link
}

// dialBackHost is what dial-backs need of the servant. *Servant
// implements it.
type dialBackHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	closeLink(l *link, reason string)
	// dial opens an outbound link of kind to t.
	dial(t ServantID, kind linkKind) *link
	linkByID(id LinkID) *link
	// downLinks are our downlinks, leaves first (downSet).
	downLinks() []*link
	// placeReached applies the verdict in d.reach to d's place and tells
	// d (admissions.placeReached, leaf.go).
	placeReached(d *link)
}

var _ dialBackHost = (*Servant)(nil)

func newDialBacks(cfg *Config, id ServantID) dialBacks {
	return dialBacks{cfg: cfg, id: id}
}

// dialBackProbe is one outstanding dial-back.
type dialBackProbe struct {
	target ServantID
	nonce  uint64
}

// verifySpacing is how often at most a member reported undialable by
// joiners is dialed back.
func (b *dialBacks) verifySpacing() time.Duration { return 10 * b.cfg.JoinTimeout }

// maxDialBacks bounds the dial-backs under way at once. A joiner names the
// address to dial itself, so a member joining with made-up addresses must
// not make a servant dial without limit; beyond the bound a down-servant is
// dialed back a join timeout later.
const maxDialBacks = 256

// dialBack dials target back, unless a dial-back to it is under way.
func (b *dialBacks) dialBack(h dialBackHost, target ServantID) {
	for _, p := range b.probes {
		if p.target == target {
			return
		}
	}
	if len(b.probes) >= maxDialBacks {
		if d := downSet(h.downLinks()).byPeer(target); d != nil {
			d.probeAt = h.clock().Add(b.cfg.JoinTimeout)
		}
		return
	}
	if b.probes == nil {
		b.probes = map[LinkID]*dialBackProbe{}
	}
	l := h.dial(target, linkDialBack)
	b.probes[l.id] = &dialBackProbe{target: target, nonce: b.cfg.Rand.Uint64()}
}

// undialable takes a joiner's report that it could not dial member target:
// target is dialed back, at most once per verifySpacing for such reports.
func (b *dialBacks) undialable(h dialBackHost, joiner, target ServantID) {
	now := h.clock()
	if d := downSet(h.downLinks()).byPeer(target); d != nil && !d.leaf && (d.reportedAt.IsZero() || now.Sub(d.reportedAt) >= b.verifySpacing()) {
		h.note("%s could not dial %s: dialing it back", joiner, target)
		d.reportedAt = now
		b.dialBack(h, target)
	}
}

// up sends the probe's question once the host connected it.
func (b *dialBacks) up(h dialBackHost, l *link) {
	p := b.probes[l.id]
	if p == nil {
		h.closeLink(l, "dial-back abandoned")
		return
	}
	l.lastRecv, l.lastSend = h.clock(), h.clock()
	h.send(l, &DialBack{Nonce: p.nonce})
}

// answer is the probed side: say who we are. The prober closes the link;
// if it does not, the accepted link times out like any link that never
// asked to join.
func (b *dialBacks) answer(h dialBackHost, l *link, m *DialBack) {
	h.send(l, &DialBackReply{Nonce: m.Nonce, From: b.id})
}

// answered is the prober's side of a reply.
func (b *dialBacks) answered(h dialBackHost, l *link, m *DialBackReply) {
	p := b.probes[l.id]
	if p == nil {
		return
	}
	h.closeLink(l, "dial-back done")
	delete(b.probes, l.id)
	ok := m.Nonce == p.nonce && m.From == p.target
	if !ok {
		h.note("dial-back to %s reached %s instead", p.target, m.From)
	}
	b.done(h, p.target, ok)
}

// failed ends a probe whose link closed or timed out unanswered.
func (b *dialBacks) failed(h dialBackHost, l *link, reason string) {
	p := b.probes[l.id]
	if p == nil {
		return
	}
	delete(b.probes, l.id)
	h.note("dial-back to %s failed: %s", p.target, reason)
	b.done(h, p.target, false)
}

// tick times out silent probes and starts the periodic ones.
func (b *dialBacks) tick(h dialBackHost) {
	now := h.clock()
	for _, id := range slices.Sorted(maps.Keys(b.probes)) {
		if l := h.linkByID(id); l != nil && now.Sub(l.opened) >= b.cfg.JoinTimeout {
			h.closeLink(l, "dial-back timed out")
			b.failed(h, l, "no answer within the join timeout")
		}
	}
	for _, d := range h.downLinks() {
		if !d.probeAt.IsZero() && !now.Before(d.probeAt) {
			d.probeAt = time.Time{}
			b.dialBack(h, d.peer)
		}
	}
}

// nextProbeAt is when a servant dialed back at now is dialed back again:
// ReachProbeInterval jittered by ±50 %, so that the downs of one servant,
// which often joined together, spread out.
func (b *dialBacks) nextProbeAt(now time.Time) time.Time {
	d := b.cfg.ReachProbeInterval
	return now.Add(d/2 + time.Duration(b.cfg.Rand.Int64N(int64(d)+1)))
}

// done records a verdict about target, if it is still one of our
// down-servants or leaves, and has it applied.
func (b *dialBacks) done(h dialBackHost, target ServantID, reachable bool) {
	d := downSet(h.downLinks()).byPeer(target)
	if d == nil {
		return
	}
	d.probeAt = b.nextProbeAt(h.clock())
	d.reach = ReachUnreachable
	if reachable {
		d.reach = ReachReachable
	}
	h.placeReached(d)
}

// verdict records our up-servant's verdict about us, reachable or not,
// and reports whether it changed.
func (b *dialBacks) verdict(m *Reachability, now time.Time) (changed bool) {
	r := ReachUnreachable
	if m.Reachable {
		r = ReachReachable
	}
	changed = r != b.self
	b.self, b.addr, b.at = r, m.Addr, now
	return changed
}

// receiveReachability takes our up-servant's verdict about us, and the
// place it gives us.
func (s *Servant) receiveReachability(m *Reachability) {
	if m.Addr != s.id {
		return // about an address we no longer have
	}
	if s.dialback.verdict(m, s.now) {
		if m.Reachable {
			s.note("reachable: %s dialed this servant back at %s", s.up.peer, s.id)
		} else {
			s.note("others cannot dial this servant at %s: it receives news as a leaf", s.id)
		}
	}
	switch {
	case m.Leaf && !s.adm.leaf:
		s.adm.becomeLeaf(s)
	case !m.Leaf && s.adm.leaf:
		s.adm.leaf = false
		s.note("promoted by %s: this servant holds a slot again", s.up.peer)
	}
}
