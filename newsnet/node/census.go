package node

import (
	"context"
	"errors"

	"newsdesk/newsnet"
)

// QueryCensus asks target, the servant at the top of a partition of the
// tree, for its subtree's census (newsnet/netcensus_query.go) and waits
// for the answer, at most the core's query timeout or until ctx ends.
func (n *Node) QueryCensus(ctx context.Context, target newsnet.ServantID) (newsnet.NetworkCensus, error) {
	ch := make(chan newsnet.CensusAnswered, 1)
	err := n.do(func(*newsnet.Servant) {
		n.censusQuery++
		if n.censusWait == nil {
			n.censusWait = map[uint64]chan newsnet.CensusAnswered{}
		}
		n.censusWait[n.censusQuery] = ch
		n.step(newsnet.QueryCensus{ID: n.censusQuery, Target: target})
	})
	if err != nil {
		return newsnet.NetworkCensus{}, err
	}
	select {
	case a := <-ch:
		if a.Err != "" {
			return newsnet.NetworkCensus{}, errors.New(a.Err)
		}
		return a.Census, nil
	case <-ctx.Done():
		return newsnet.NetworkCensus{}, ctx.Err() // the core's answer or timeout still frees the entry
	}
}

// censusAnswered hands an answer to the QueryCensus that waits for it.
func (n *Node) censusAnswered(a newsnet.CensusAnswered) {
	if ch := n.censusWait[a.ID]; ch != nil {
		delete(n.censusWait, a.ID)
		ch <- a
	}
}
