package newsnet

// tick runs every timer of the servant: heartbeats and link timeouts, join
// timeouts and backoff, partition messages and root silence.
func (s *Servant) tick() {
	s.tickLinks()
	s.connector.tick(s)
	s.dialback.tick(s)
	s.tickTree()
	s.seq.tickRecover(s)
	s.seq.tickOpenings(s)
	s.catchUp.tick(s)
	s.direct.tick(s)
	s.conduct.tick(s.now)
	s.opinion.tick(s)
	s.netCensus.tick(s)
	s.blobs.tick(s)
	s.reach.tick(s) // last: a tick's items go before its reports
}

// tickLinks sends a Ping on every link idle in the send direction and closes
// every link that has been silent for LinkTimeout: the peer vanished without
// closing its socket. An accepted link must ask to join within JoinTimeout.
func (s *Servant) tickLinks() {
	for _, l := range s.sortedLinks() {
		if s.links[l.id] != l {
			continue // closed while handling an earlier link
		}
		switch l.kind {
		case linkJoining, linkDirectDialing, linkDialBack, linkOpinion:
			continue // the connector, the host or tickDialBack times the attempt
		case linkAccepted:
			if s.now.Sub(l.opened) >= s.cfg.JoinTimeout {
				s.closeLink(l, "no join request")
			}
			continue
		}
		if s.now.Sub(l.lastRecv) >= s.cfg.LinkTimeout {
			s.note("link to %s silent for %v", l.peer, s.now.Sub(l.lastRecv))
			s.closeLink(l, "heartbeat timeout")
			s.linkLostAfterClose(l)
			continue
		}
		if stalled, why := l.flow.stalled(&s.cfg, s.now); stalled {
			s.note("link to %s: %s", l.peer, why)
			s.closeLink(l, why)
			s.linkLostAfterClose(l)
			continue
		}
		l.flow.resume(s, l)
		if s.now.Sub(l.lastSend) >= s.cfg.HeartbeatInterval {
			s.send(l, &Ping{})
		}
	}
}
