package node

import (
	"context"
	"errors"
	"fmt"
	"slices"

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

// Publish sends m to every subscriber of m.Category and returns the number
// of tree links it went out on: 0 means no subscriber is reachable and
// nothing was sent. The node does not deliver m to itself. m must not be
// modified afterwards; the writers of several links may still be encoding it.
func (n *Node) Publish(ctx context.Context, m *newsnet.Multicast) (links int, err error) {
	if m == nil {
		return 0, errors.New("node: publish: nil message")
	}
	if err := checkCategory(m.Category); err != nil {
		return 0, fmt.Errorf("node: publish: %w", err)
	}
	// Encode once here, on the caller's goroutine, so a message that no link
	// could carry is refused instead of being dropped by every writer.
	if _, err := newsnet.AppendFrame(nil, m); err != nil {
		return 0, fmt.Errorf("node: publish: %w", err)
	}
	err = n.doContext(ctx, func(*newsnet.Servant) {
		n.publishing[m.ID] = &links
		n.step(newsnet.Publish{Msg: m})
		delete(n.publishing, m.ID)
	})
	return links, err
}

// SetSubscriptions replaces the set of categories delivered to this node.
func (n *Node) SetSubscriptions(categories []string) error {
	for _, c := range categories {
		if err := checkCategory(c); err != nil {
			return fmt.Errorf("node: subscriptions: %w", err)
		}
	}
	cats := slices.Clone(categories)
	return n.do(func(*newsnet.Servant) { n.step(newsnet.SetSubscriptions{Categories: cats}) })
}

// Subscribe adds one category to the subscriptions.
func (n *Node) Subscribe(category string) error {
	if err := checkCategory(category); err != nil {
		return fmt.Errorf("node: subscribe: %w", err)
	}
	return n.do(func(*newsnet.Servant) { n.step(newsnet.Subscribe{Category: category}) })
}

// Unsubscribe removes one category from the subscriptions.
func (n *Node) Unsubscribe(category string) error {
	return n.do(func(*newsnet.Servant) { n.step(newsnet.Unsubscribe{Category: category}) })
}

// checkCategory refuses categories the wire cannot carry in a routing set.
// The core accepts any string, but an empty or oversized one would make
// every routing frame unencodable.
func checkCategory(c string) error {
	switch {
	case c == "":
		return errors.New("empty category")
	case len(c) > newsnet.MaxCategoryBytes:
		return fmt.Errorf("category longer than %d bytes", newsnet.MaxCategoryBytes)
	}
	return nil
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
