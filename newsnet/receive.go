package newsnet

import (
	"fmt"
	"slices"
)

// receive hands a frame that arrived over l to what handles its kind,
// for the link kinds that may carry it; anything else closes the link.
func (s *Servant) receive(l *link, m Message) {
	switch m := m.(type) {
	case *Ping:
		l.idleAt = s.now
	case *JoinRequest:
		if l.kind == linkAccepted {
			s.handleJoin(l, m)
		}
	case *JoinAccept:
		if l.kind == linkJoining {
			s.connector.accepted(s, l, m)
		}
	case *JoinRedirect:
		switch l.kind {
		case linkJoining:
			s.connector.redirected(s, l, m)
		case linkUp:
			// Our slot was merged into another's; rejoin under its holder.
			s.note("moved by %s to %s", l.peer, m.To)
			s.closeLink(l, "redirected by up-servant")
			s.becomeDetached()
			s.connector.start(s, []ServantID{m.To})
		}
	case *JoinRefuse:
		switch l.kind {
		case linkJoining:
			s.connector.refused(s, l, m.Reason)
		case linkDirect:
			s.closeLink(l, "refused: "+m.Reason)
			s.direct.lost(s, l, "refused: "+m.Reason)
		}
	case *DialBack:
		if l.kind == linkAccepted {
			s.dialback.answer(s, l, m)
		}
	case *DialBackReply:
		if l.kind == linkDialBack {
			s.dialback.answered(s, l, m)
		}
	case *Reachability:
		if l.kind == linkUp {
			s.receiveReachability(m)
		}
	case *StreamQuery:
		if l.kind == linkAccepted {
			s.opinion.answer(s, l, m)
		}
	case *StreamHeads:
		if l.kind == linkOpinion {
			s.opinion.take(s, l, m)
		}
	case *Siblings:
		if l.kind == linkUp {
			s.siblings = slices.Clone(m.IDs)
		}
	case *PartitionInfo:
		if l.kind == linkUp {
			s.lastRootHeard = s.now
			s.optimize(Partition{Lo: m.Lo, Hi: m.Hi}, m.Path)
		}
	case *Reset:
		if l.kind == linkUp {
			// S421: reconnect through the seeds. The up-servant closes the link;
			// closing it here first keeps uplink-loss processing from running.
			// The root of the tree we were in comes first: a seed below the
			// vertex (a joiner told of a servant mid-tree) would admit us
			// again outside its slot and reset us again, for ever, where the
			// root places us by our value (TestResetJoinerRejoinsThroughTheRoot).
			s.note("reset by %s", l.peer)
			var first []ServantID
			if len(s.rootPath) > 0 && s.rootPath[0] != l.peer {
				first = []ServantID{s.rootPath[0]}
			}
			s.closeLink(l, "reset by up-servant")
			s.becomeDetached()
			s.connector.start(s, first)
		}
	case *RoutingInfo:
		if l.kind == linkUp || l.kind == linkDown {
			s.receiveRouteInfo(l, m)
		}
	case *Multicast:
		switch {
		case l.kind == linkUp || l.kind == linkDown:
			s.route(l, m)
		case l.kind == linkDirect && !l.direct.publisher:
			s.routeDirect(l, m)
		}
	case *Recover:
		if l.kind == linkUp || l.kind == linkDown {
			l.requests.take(s, l, m)
		}
	case *Recovered:
		if l.kind == linkUp || l.kind == linkDown {
			s.handleRecovered(l, m)
		}
	case *CatchUp:
		switch {
		case l.kind == linkDown:
			s.catchUp.answer(s, l, m)
		case l.kind == linkUp && len(m.Trail) == 0:
			s.catchUp.hinted(s)
		}
	case *CatchUpDone:
		if (l.kind == linkUp || l.kind == linkDown) && s.repairs.retrace(s, m.Trail, m) {
			s.catchUp.done(s, m)
		}
	case *LatestHeader:
		if l.kind == linkUp || l.kind == linkDown || l.kind == linkDirect && !l.direct.publisher && m.Source == l.direct.source {
			s.receiveEdge(l, m)
		}
	case *DirectRequest:
		if l.tree() {
			s.direct.request(s, l, m)
		}
	case *DirectAnswer:
		if l.tree() {
			s.direct.answered(s, m)
		}
	case *DirectHello:
		if l.kind == linkAccepted {
			s.direct.hello(s, l, m)
		}
	case *DirectCover:
		if l.tree() {
			s.direct.cover(s, l, m)
		}
	case *BlobWant:
		if l.tree() {
			s.blobs.want(s, l, m)
		}
	case *BlobHead:
		if l.tree() {
			s.blobs.head(s, l, m)
		}
	case *BlobChunk:
		if l.tree() {
			s.blobs.chunk(s, l, m)
		}
	case *BlobNone:
		if l.tree() {
			s.blobs.none(s, l, m)
		}
	case *CensusQuery:
		if l.tree() {
			s.netCensus.route(s, l, m)
		}
	case *CensusAnswer:
		if l.tree() {
			s.netCensus.answered(s, m)
		}
	case *ReachReport:
		if l.tree() {
			if s.reach.receive(s, l, m) {
				s.netCensus.receive(s, l, m)
			}
		}
	default:
		s.closeLink(l, fmt.Sprintf("unexpected message %T", m))
		if l.kind == linkUp || l.kind == linkDown || l.kind == linkDirect {
			s.linkLostAfterClose(l)
		}
	}
}
