package newsnet

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// Peer conduct. Budgets (requests.go, reach.go) keep what a peer can make
// this servant hold bounded; a peer that keeps running into them is
// misbehaving, since honest servants keep well inside them. Each time
// counts a point against the peer's servant ID; points halve every
// conductHalfLife, so a burst now and then is forgiven, as GossipSub's peer
// scores decay. Past conductLimit the link is closed and the peer's joins
// are refused for banDuration. Each reason is counted (Status.Misconduct),
// and the host hears at most one note per peer per minute.

// Reasons for misconduct points.
const (
	reasonRequests = "requests" // retransmission or catch-up requests beyond their budget
	reasonReach    = "reach"    // reach reports beyond their rate or size
	reasonForged   = "forged"   // items that failed verification for a reason no honest servant passes on
	reasonSilent   = "silent"   // an up-servant that passed on nothing a seed knew existed (opinion.go)
)

// forgedPoints is what one forged item counts: four in a few minutes close
// the link. One is a fluke of a broken disk perhaps; a relay that tampers
// with what it passes on does it to every item.
const forgedPoints = conductLimit / 4

// MisconductReasons lists the reasons peers are counted for.
func MisconductReasons() []string {
	return []string{reasonRequests, reasonReach, reasonForged, reasonSilent}
}

const (
	conductHalfLife = time.Minute
	conductLimit    = 32.0
	banDuration     = 10 * time.Minute
	conductNoteGap  = time.Minute
)

// conductState is the servant's account of its peers' conduct.
type conductState struct {
	peers  map[ServantID]*peerConduct
	banned map[ServantID]time.Time // until when joins are refused
	counts map[string]uint64       // misconduct per reason
}

type peerConduct struct {
	points float64
	at     time.Time // when points were last brought up to date
	noted  time.Time // the last note to the host about this peer
}

// misbehaved counts one point against l's peer for reason, and closes the
// link and bans the peer when its points pass the limit.
func (s *Servant) misbehaved(l *link, reason string) { s.misbehavedBy(l, reason, 1) }

// misbehavedBy is misbehaved for points points.
func (s *Servant) misbehavedBy(l *link, reason string, points float64) {
	c := &s.conduct
	if c.counts == nil {
		c.counts = map[string]uint64{}
		c.peers = map[ServantID]*peerConduct{}
		c.banned = map[ServantID]time.Time{}
	}
	c.counts[reason]++
	if l.peer == "" {
		return
	}
	p := c.peers[l.peer]
	if p == nil {
		p = &peerConduct{at: s.now}
		c.peers[l.peer] = p
	}
	p.points = decayed(p.points, s.now.Sub(p.at)) + points
	p.at = s.now
	if p.points < conductLimit {
		if s.now.Sub(p.noted) >= conductNoteGap {
			p.noted = s.now
			s.note("%s exceeds its budget (%s): its requests wait or are refused", l.peer, reason)
		}
		return
	}
	delete(c.peers, l.peer)
	c.banned[l.peer] = s.now.Add(banDuration)
	s.note("%s kept exceeding its budgets (%s): link closed, its joins refused for %v", l.peer, reason, banDuration)
	if s.links[l.id] == l {
		s.closeLink(l, fmt.Sprintf("misbehaving (%s): refused for %v", reason, banDuration))
		s.linkLostAfterClose(l)
	}
}

// decayed is points after d of halving every conductHalfLife.
func decayed(points float64, d time.Duration) float64 {
	if d <= 0 {
		return points
	}
	return points * math.Exp2(-d.Seconds()/conductHalfLife.Seconds())
}

// bannedUntil reports until when id's joins are refused, if they are.
func (s *Servant) bannedUntil(id ServantID) (time.Time, bool) {
	until, ok := s.conduct.banned[id]
	if !ok || !s.now.Before(until) {
		return time.Time{}, false
	}
	return until, true
}

// tickConduct forgets bans that ran out and scores that decayed away.
func (s *Servant) tickConduct() {
	c := &s.conduct
	for id, until := range c.banned {
		if !s.now.Before(until) {
			delete(c.banned, id)
		}
	}
	for id, p := range c.peers {
		if decayed(p.points, s.now.Sub(p.at)) < 0.5 && s.now.Sub(p.noted) >= conductNoteGap {
			delete(c.peers, id)
		}
	}
}

// Misconduct is the status of peers' conduct: counts per reason, and the
// servants whose joins are refused now.
type Misconduct struct {
	Counts map[string]uint64 `json:"counts,omitempty"`
	Banned []ServantID       `json:"banned,omitempty"`
}

func (s *Servant) misconductStatus() Misconduct {
	m := Misconduct{Counts: maps.Clone(s.conduct.counts)}
	for id, until := range s.conduct.banned {
		if s.now.Before(until) {
			m.Banned = append(m.Banned, id)
		}
	}
	slices.Sort(m.Banned)
	return m
}
