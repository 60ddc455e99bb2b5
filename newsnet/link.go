package newsnet

import (
	"cmp"
	"net/netip"
	"slices"
	"time"
)

// The servant's links: their kinds and state, and what happens when one
// comes up, is closed or is lost.

type linkKind int

const (
	linkJoining       linkKind = iota // outbound, join request sent, awaiting answer
	linkAccepted                      // inbound, awaiting join request
	linkUp                            // established uplink
	linkDown                          // established downlink
	linkDirectDialing                 // outbound direct link, dialed (direct.go)
	linkDirect                        // established direct link: not a tree link
	linkOpinion                       // outbound, asking a seed for a second opinion (opinion.go)
	linkDialBack                      // outbound, dialing a servant back (dialback.go)
)

type link struct {
	id    LinkID
	kind  linkKind
	peer  ServantID // known for outbound links and after a join request
	value uint64    // IDValue(peer)
	slot  int       // for downlinks: leafSlot for a leaf
	leaf  bool      // a downlink to a leaf (leaf.go)
	// probeAt: when we next dial the peer of this downlink back;
	// reportedAt: when we last did so because a joiner could not dial it;
	// avoid: the joiner's Avoid list, not a place for it until avoidUntil
	// (leaf.go).
	probeAt, reportedAt time.Time
	avoid               []ServantID
	avoidUntil          time.Time
	reach               Reach // what our last dial-back to the peer found
	// version is the link's wire version, release the peer's release.
	version uint16
	release string
	// remote: the peer's address as its inbound connection showed it
	// (LinkUp.Remote), invalid when the host did not say.
	remote   netip.Addr
	received CategorySet
	sent     CategorySet
	// infoSent and infoKnown: routing information went out on this link at
	// least once / came in at least once. Until the peer's has arrived we do
	// not know what lies beyond, so publications and the outbox are sent
	// there rather than wrongly suppressed.
	infoSent, infoKnown bool
	opened              time.Time
	idleAt              time.Time // last Ping received: nothing else was queued toward us
	lastRecv            time.Time
	lastSend            time.Time

	// flow is the link's flow control (flow.go): what is queued in the
	// host, and what waits here until it drains.
	flow linkFlow

	// requests: answering the peer's requests within its budgets
	// (requests.go).
	requests linkRequests

	// sources is the link's reverse-path list (reverse.go): the sources
	// whose traffic arrived over it, with when it last did.
	sources map[string]arrivalStamps
	// except holds a tree link's exceptions per source, and direct a
	// direct link's state (direct.go).
	except exceptions
	direct *directLink
}

// linkUp handles a new connection: an accepted one waits for a join request;
// a dialed one is the connector's attempt and sends its request.
func (s *Servant) linkUp(e LinkUp) {
	if e.Inbound {
		if _, dup := s.links[e.Link]; dup || e.Link&dialedLinkBit != 0 {
			s.out = append(s.out, Close{Link: e.Link, Reason: "bad link id"})
			return
		}
		s.links[e.Link] = &link{id: e.Link, kind: linkAccepted, opened: s.now, lastRecv: s.now, lastSend: s.now,
			version: cmp.Or(e.Version, ProtocolVersion), release: e.Release, remote: e.Remote.Unmap().WithZone("")}
		return
	}
	l := s.links[e.Link]
	if l != nil {
		l.version, l.release = cmp.Or(e.Version, ProtocolVersion), e.Release
	}
	if l != nil && l.kind == linkDirectDialing {
		s.direct.dialed(s, l)
		return
	}
	if l != nil && l.kind == linkDialBack {
		s.dialback.up(s, l)
		return
	}
	if l != nil && l.kind == linkOpinion {
		s.opinion.linkUp(s, l)
		return
	}
	if l == nil || l.kind != linkJoining {
		// An attempt we gave up on meanwhile.
		s.out = append(s.out, Close{Link: e.Link, Reason: "join attempt abandoned"})
		return
	}
	l.lastRecv, l.lastSend = s.now, s.now
	s.send(l, &JoinRequest{From: s.id, Reach: s.dialback.self, Avoid: slices.Clone(s.connector.avoid), Full: slices.Clone(s.connector.full)})
}

// linkLost handles a connection that closed under us.
func (s *Servant) linkLost(l *link, reason string) {
	delete(s.links, l.id)
	switch l.kind {
	case linkJoining:
		s.connector.attemptFailed(s, l, reason)
	case linkAccepted:
		// A joiner gave up before asking: nothing to undo.
	case linkUp:
		s.note("uplink to %s lost: %s", l.peer, reason)
		s.becomeDetached()
		s.connector.recoverUplink(s, s.siblings)
	case linkDown:
		s.note("downlink to %s lost: %s", l.peer, reason)
		s.adm.removeDown(s, l)
	case linkDirectDialing, linkDirect:
		s.direct.lost(s, l, reason)
	case linkDialBack:
		s.dialback.failed(s, l, reason)
	case linkOpinion:
		s.opinion.asking = 0
	}
}

// linkLostAfterClose runs the loss processing for a tree link the core itself
// closed (a protocol violation or a timeout).
func (s *Servant) linkLostAfterClose(l *link) {
	switch l.kind {
	case linkUp:
		s.becomeDetached()
		s.connector.recoverUplink(s, s.siblings)
	case linkDown:
		s.adm.removeDown(s, l)
	case linkJoining:
		s.connector.attemptFailed(s, l, "closed")
	case linkDirectDialing, linkDirect:
		s.direct.lost(s, l, "closed")
	}
}
