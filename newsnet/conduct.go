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

// conduct is the servant's account of its peers' conduct: points per
// peer that decay, bans, and counts per reason. It decides; the servant
// notes and closes (Servant.misbehaved).
type conduct struct {
	peers  map[ServantID]*peerConduct
	banned map[ServantID]time.Time // until when joins are refused
	counts map[string]uint64       // misconduct per reason
}

type peerConduct struct {
	points float64
	at     time.Time // when points were last brought up to date
	noted  time.Time // the last note to the host about this peer
}

// misbehaved counts points (most offences one) against l's peer for
// reason, and closes the link and bans the peer when its points pass the
// limit.
func (s *Servant) misbehaved(l *link, reason string, points float64) {
	switch s.conduct.record(l.peer, reason, points, s.now) {
	case conductNote:
		s.note("%s exceeds its budget (%s): its requests wait or are refused", l.peer, reason)
	case conductBan:
		s.note("%s kept exceeding its budgets (%s): link closed, its joins refused for %v", l.peer, reason, banDuration)
		if s.links[l.id] == l {
			s.closeLink(l, fmt.Sprintf("misbehaving (%s): refused for %v", reason, banDuration))
			s.linkLostAfterClose(l)
		}
	}
}

// conductVerdict is what record decided.
type conductVerdict int

const (
	conductCounted conductVerdict = iota // counted, nothing to say
	conductNote                          // counted: tell the host (at most once per conductNoteGap)
	conductBan                           // past the limit: banned for banDuration
)

// record counts points against peer for reason at now ("" counts the
// reason only), and says what follows.
func (c *conduct) record(peer ServantID, reason string, points float64, now time.Time) conductVerdict {
	if c.counts == nil {
		c.counts = map[string]uint64{}
		c.peers = map[ServantID]*peerConduct{}
		c.banned = map[ServantID]time.Time{}
	}
	c.counts[reason]++
	if peer == "" {
		return conductCounted
	}
	p := c.peers[peer]
	if p == nil {
		p = &peerConduct{at: now}
		c.peers[peer] = p
	}
	p.points = decayed(p.points, now.Sub(p.at)) + points
	p.at = now
	if p.points < conductLimit {
		if now.Sub(p.noted) >= conductNoteGap {
			p.noted = now
			return conductNote
		}
		return conductCounted
	}
	delete(c.peers, peer)
	c.banned[peer] = now.Add(banDuration)
	return conductBan
}

// decayed is points after d of halving every conductHalfLife.
func decayed(points float64, d time.Duration) float64 {
	if d <= 0 {
		return points
	}
	return points * math.Exp2(-d.Seconds()/conductHalfLife.Seconds())
}

// bannedUntil reports until when id's joins are refused at now, if they
// are.
func (c *conduct) bannedUntil(id ServantID, now time.Time) (time.Time, bool) {
	until, ok := c.banned[id]
	if !ok || !now.Before(until) {
		return time.Time{}, false
	}
	return until, true
}

// bannedAt lists the peers banned at now, in byte order.
func (c *conduct) bannedAt(now time.Time) []ServantID {
	var out []ServantID
	for id, until := range c.banned {
		if now.Before(until) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// tick forgets bans that ran out and scores that decayed away.
func (c *conduct) tick(now time.Time) {
	for id, until := range c.banned {
		if !now.Before(until) {
			delete(c.banned, id)
		}
	}
	for id, p := range c.peers {
		if decayed(p.points, now.Sub(p.at)) < 0.5 && now.Sub(p.noted) >= conductNoteGap {
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

func (c *conduct) status(now time.Time) Misconduct {
	return Misconduct{Counts: maps.Clone(c.counts), Banned: c.bannedAt(now)}
}
