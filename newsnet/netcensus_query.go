package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Census queries: the network's census maps two levels of the tree; an
// admin who wants to look further asks the servant at the top of a
// partition for its own census, which maps two levels below it, and so on
// down to single servants. The query travels up the tree until a
// servant's partition holds the target's ID, then down toward it, as a
// join does; the answer retraces the query's trail. Nothing is gathered
// on request: the target answers from the census its subtree reports
// anyway, so a query costs a frame per hop each way.
//
// A servant answers at most censusAnswers queries a minute, and the
// asker gives up after censusQueryTimeout: a query is an admin's click,
// never a flood.

// QueryCensus asks for the census of Target's subtree (the host's ID
// names the answer). The answer comes as a CensusAnswered action.
type QueryCensus struct {
	ID     uint64
	Target ServantID
}

// CensusAnswered is the answer to QueryCensus ID: Target's subtree census
// with two levels of its partitions, and when it was made; or Err when no
// answer came within censusQueryTimeout.
type CensusAnswered struct {
	ID     uint64
	Target ServantID
	Census NetworkCensus
	Err    string
}

func (QueryCensus) isEvent()     {}
func (CensusAnswered) isAction() {}

const (
	censusQueryTimeout = 10 * time.Second
	censusAnswers      = 60 // a minute
	maxCensusQueries   = 16 // a servant's own queries under way
)

// censusQueries is the netCensus's query state.
type censusQueries struct {
	asked   map[uint64]censusAsked // our queries under way, by ID
	answers allowance              // the queries we may answer
}

type censusAsked struct {
	target ServantID
	until  time.Time
}

// query sends our query, or answers it at once when we are its target.
func (n *netCensus) query(h netCensusHost, q QueryCensus) {
	if q.Target == n.cfg.ID {
		c := n.nested(h, n.gather(h))
		h.act(CensusAnswered{ID: q.ID, Target: q.Target, Census: NetworkCensus{NetCensus: c, At: h.clock()}})
		return
	}
	next := n.places.towardServant(q.Target, h.upLink(), nil)
	if next == nil || len(n.queries.asked) >= maxCensusQueries {
		h.act(CensusAnswered{ID: q.ID, Target: q.Target, Err: "no way to that servant through the tree now"})
		return
	}
	if n.queries.asked == nil {
		n.queries.asked = map[uint64]censusAsked{}
	}
	n.queries.asked[q.ID] = censusAsked{target: q.Target, until: h.clock().Add(censusQueryTimeout)}
	h.send(next, &CensusQuery{ID: q.ID, Target: q.Target, Trail: []ServantID{n.cfg.ID}})
}

// route passes a query on toward its target, or answers it there.
func (n *netCensus) route(h netCensusHost, from *link, q *CensusQuery) {
	if len(q.Trail) == 0 || len(q.Trail) >= MaxPathLen || slices.Contains(q.Trail, n.cfg.ID) {
		return // malformed, or looping in a re-forming tree: the asker times out
	}
	if q.Target != n.cfg.ID {
		if next := n.places.towardServant(q.Target, h.upLink(), from); next != nil {
			h.send(next, &CensusQuery{ID: q.ID, Target: q.Target, Trail: append(slices.Clone(q.Trail), n.cfg.ID)})
		}
		return
	}
	if !n.queries.answers.take(h.clock(), censusAnswers, censusAnswers/60.0) {
		return
	}
	c := n.nested(h, n.gather(h))
	h.send(from, &CensusAnswer{ID: q.ID, Target: q.Target, Trail: q.Trail, Census: &c, At: h.clock().UnixNano()})
}

// answered passes an answer back along its trail, or takes it when we
// asked.
func (n *netCensus) answered(h netCensusHost, a *CensusAnswer) {
	k := len(a.Trail)
	if k == 0 || a.Trail[k-1] != n.cfg.ID {
		return
	}
	if k > 1 {
		if l := backAlong(h.treeLinks(), a.Trail); l != nil {
			fwd := *a
			fwd.Trail = a.Trail[:k-1]
			h.send(l, &fwd)
		}
		return // without a link back the path broke: the asker times out
	}
	asked, ok := n.queries.asked[a.ID]
	if !ok || asked.target != a.Target || a.Census == nil {
		return
	}
	delete(n.queries.asked, a.ID)
	h.act(CensusAnswered{ID: a.ID, Target: a.Target, Census: NetworkCensus{NetCensus: *a.Census, At: time.Unix(0, a.At)}})
}

// expireQueries gives up on our queries that went unanswered.
func (n *netCensus) expireQueries(h netCensusHost) {
	now := h.clock()
	for _, id := range slices.Sorted(maps.Keys(n.queries.asked)) {
		if q := n.queries.asked[id]; !now.Before(q.until) {
			delete(n.queries.asked, id)
			h.act(CensusAnswered{ID: id, Target: q.target, Err: "no answer from that servant"})
		}
	}
}
