package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"newsdesk/newsnet"
)

// Addr returns the servant ID: the address other servants dial.
func (n *Node) Addr() newsnet.ServantID { return n.id }

// Status returns a snapshot of the servant. After shutdown it returns the
// last snapshot taken (role "stopped").
func (n *Node) Status() newsnet.Status {
	var st newsnet.Status
	if err := n.do(func(s *newsnet.Servant) { st = s.Status() }); err != nil {
		n.finalMu.Lock()
		defer n.finalMu.Unlock()
		return n.final
	}
	return st
}

// Publish sends m to every subscriber of m.Category and returns the
// core's report of it (newsnet.Published): the communication count it was
// given and the tree links it went out on. Links 0 means no subscriber is
// reachable and nothing was sent; Queued, that the servant is not attached
// and keeps m in its outbox until it is (a second report, through
// Config.OnPublished, says when it goes out). The node does not deliver m
// to itself. m must not be modified afterwards: the core keeps it to answer
// retransmission requests.
//
// Back-pressure: while the servant is backlogged (some link has fallen far
// behind, see newsnet.Servant.Backlogged), Publish waits until the backlog
// clears, then publishes; calls that wait go out in the order they came.
// The wait is bounded by ctx: when it ends first, m is not published and
// Publish returns ctx.Err(). The loop never waits on a publisher; a
// waiting call is parked off it.
func (n *Node) Publish(ctx context.Context, m *newsnet.Multicast) (newsnet.Published, error) {
	ps, err := n.PublishBatch(ctx, []*newsnet.Multicast{m})
	if err != nil {
		return newsnet.Published{}, err
	}
	return ps[0], nil
}

// PublishBatch publishes ms in order, as Publish does each, handing them to
// the loop at once: a publisher that has many ready (the app's pipeline
// stores them in batches) waits for one round trip to the loop instead of
// one per message. It returns the core's report of each.
//
// The messages are checked first; one that fails publishes none. When ctx
// ends while some wait for a backlog to clear, the ones published so far
// are a prefix: reports holds theirs, and err is ctx.Err(). The same holds
// for ErrClosed when the node shuts down meanwhile.
func (n *Node) PublishBatch(ctx context.Context, ms []*newsnet.Multicast) (reports []newsnet.Published, err error) {
	for _, m := range ms {
		if m == nil {
			return nil, errors.New("node: publish: nil message")
		}
		if err := newsnet.ValidCategory(m.Category); err != nil {
			return nil, fmt.Errorf("node: publish: %w", err)
		}
		// Checked here, on the caller's goroutine, so a message that no
		// link could carry is refused instead of being dropped by every link.
		if err := newsnet.CheckFrame(m); err != nil {
			return nil, fmt.Errorf("node: publish: %w", err)
		}
	}
	ps := make([]*parkedPublish, len(ms))
	for i, m := range ms {
		ps[i] = &parkedPublish{m: m, done: make(chan struct{})}
	}
	err = n.doContext(ctx, func(*newsnet.Servant) {
		for _, p := range ps {
			if len(n.parked) > 0 || n.backlogged(n.servant) {
				n.parked = append(n.parked, p)
				continue
			}
			p.state.Store(parkTaken)
			n.publish(p)
		}
	})
	if err != nil {
		return nil, err
	}
	reports = make([]newsnet.Published, 0, len(ps))
	for i, p := range ps {
		select {
		case <-p.done:
		case <-ctx.Done():
			// Give up on the rest from the last one back: the loop takes
			// parked calls oldest first, so those it took already are a
			// prefix, and they are waited for.
			published := len(ps)
			for j := len(ps) - 1; j >= i; j-- {
				if ps[j].state.CompareAndSwap(parkWaiting, parkCancelled) {
					published = j
				}
			}
			for _, q := range ps[i:published] {
				<-q.done
				reports = append(reports, q.report)
			}
			return reports, ctx.Err()
		}
		if p.err != nil {
			return reports, p.err // shut down while parked: the rest were not published either
		}
		reports = append(reports, p.report)
	}
	return reports, nil
}

// parkedPublish is one Publish call, possibly held back while the servant
// is backlogged. state decides, once, whether the loop publishes it or
// the caller gives up on it.
type parkedPublish struct {
	m      *newsnet.Multicast
	state  atomic.Int32  // parkWaiting, then parkTaken or parkCancelled
	done   chan struct{} // closed when taken and carried out
	report newsnet.Published
	err    error
}

const (
	parkWaiting int32 = iota
	parkTaken
	parkCancelled
)

// publish steps a taken publication; the core's Published action for it,
// which the step carries out, is its report (act). Loop only.
func (n *Node) publish(p *parkedPublish) {
	n.publishing = p
	n.step(newsnet.Publish{Msg: p.m})
	n.publishing = nil
	close(p.done)
}

// releaseParked publishes parked calls, oldest first, while the servant is
// not backlogged. Loop only.
func (n *Node) releaseParked() {
	for len(n.parked) > 0 && !n.backlogged(n.servant) {
		p := n.parked[0]
		n.parked[0] = nil
		n.parked = n.parked[1:]
		if p.state.CompareAndSwap(parkWaiting, parkTaken) {
			n.publish(p)
		}
	}
	if len(n.parked) == 0 {
		n.parked = nil
	}
}

// pruneParked forgets parked calls whose callers gave up. Loop only.
func (n *Node) pruneParked() {
	n.parked = slices.DeleteFunc(n.parked, func(p *parkedPublish) bool {
		return p.state.Load() == parkCancelled
	})
	if len(n.parked) == 0 {
		n.parked = nil
	}
}

// failParked ends every parked call with err: the node is shutting down.
// Loop only.
func (n *Node) failParked(err error) {
	for _, p := range n.parked {
		if p.state.CompareAndSwap(parkWaiting, parkTaken) {
			p.err = err
			close(p.done)
		}
	}
	n.parked = nil
}

// SetSubscriptions replaces the set of categories delivered to this node.
// A set beyond newsnet.CheckSubscriptions' limits is refused: a catch-up
// request could not name it.
func (n *Node) SetSubscriptions(categories []string) error {
	if err := newsnet.CheckSubscriptions(categories); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	cats := slices.Clone(categories)
	return n.do(func(*newsnet.Servant) { n.step(newsnet.SetSubscriptions{Categories: cats}) })
}

// Subscribe adds one category to the subscriptions.
func (n *Node) Subscribe(category string) error {
	if err := newsnet.ValidCategory(category); err != nil {
		return fmt.Errorf("node: subscribe: %w", err)
	}
	return n.do(func(*newsnet.Servant) { n.step(newsnet.Subscribe{Category: category}) })
}

// Unsubscribe removes one category from the subscriptions.
func (n *Node) Unsubscribe(category string) error {
	return n.do(func(*newsnet.Servant) { n.step(newsnet.Unsubscribe{Category: category}) })
}

// SetSeeds replaces the seed list of the running servant, without a
// restart (newsnet.SetSeeds): the connector uses it from its next round,
// and the servant re-evaluates its place by the seed rules. A list with
// an invalid servant ID is refused.
func (n *Node) SetSeeds(seeds []newsnet.ServantID) error {
	for _, s := range seeds {
		if _, err := newsnet.ParseServantID(string(s)); err != nil {
			return fmt.Errorf("node: seed list: %w", err)
		}
	}
	list := slices.Clone(seeds)
	return n.do(func(*newsnet.Servant) { n.step(newsnet.SetSeeds{Seeds: list}) })
}

// do runs f on the loop goroutine and waits for it. f may read the servant
// and feed it events through n.step; it must not block.
func (n *Node) do(f func(*newsnet.Servant)) error {
	return n.doContext(context.Background(), f)
}

// doContext is do that gives up waiting for the loop when ctx ends. Once the
// loop has taken f, f runs to completion and doContext waits for it.
func (n *Node) doContext(ctx context.Context, f func(*newsnet.Servant)) error {
	r := request{f: f, done: make(chan struct{})}
	select {
	case n.requests <- r:
	case <-n.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	<-r.done
	return nil
}
