package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/trust"
)

// Publish publishes a draft as this installation, with the display name of
// the settings as its author. A draft that breaks an item rule returns the
// validation error (naming the field and the rule) and nothing is stored or
// sent.
func (a *App) Publish(d Draft) (PublishResult, error) {
	now := time.Now()
	id, err := news.NewID(now)
	if err != nil {
		return PublishResult{}, err
	}
	it := &news.Item{
		ID:         id,
		Category:   d.Category,
		Title:      d.Title,
		Body:       d.Body,
		Author:     a.settings().DisplayName,
		Source:     a.source,
		Created:    now,
		Urgent:     d.Urgent,
		Supersedes: d.Supersedes,
	}
	if err := it.Validate(); err != nil {
		return PublishResult{}, err
	}
	if err := a.MayPublish(it.Category); err != nil {
		return PublishResult{}, &NotAllowedError{Category: it.Category, Err: err}
	}
	return a.publish(it)
}

// NotAllowedError: the network definition does not let this installation
// publish in the category (it is not a publisher there, or its key is
// revoked). Reason is the trust.Rejection ("untrustedKey",
// "categoryNotAllowed", "revokedKey").
type NotAllowedError struct {
	Category string
	Err      error
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("this installation may not publish in %q: %v (an admin adds its key, shown by `newsdesk key`, to the network's publishers)", e.Category, e.Err)
}

func (e *NotAllowedError) Unwrap() error { return e.Err }

// Reason returns the short reason, a trust.Rejection.
func (e *NotAllowedError) Reason() string { return string(trust.ReasonOf(e.Err)) }

// publish gives a valid item of this installation the next communication
// count, stores it, and sends it:
//
//  1. the count is taken from the store durably first, so that a crash
//     never lets a later publication reuse it;
//  2. the item is stored (listed in My posts, marked read, and available to
//     answer retransmission requests);
//  3. the servant sends it, or queues it when it is not attached to the
//     tree; a queued item goes to the store's outbox until it has gone out.
//
// Publications are serialised, so counts reach the core in order.
func (a *App) publish(it *news.Item) (PublishResult, error) {
	a.pubMu.Lock()
	defer a.pubMu.Unlock()
	a.mu.Lock()
	closed, n := a.closed, a.node
	a.mu.Unlock()
	if closed {
		return PublishResult{}, ErrClosed
	}

	count, err := a.store.NextSourceCount(a.source)
	if err != nil {
		return PublishResult{}, fmt.Errorf("publish: taking the next count: %w", err)
	}
	it.SourceCount = count
	if err := trust.SignItem(a.identity, it); err != nil {
		return PublishResult{}, fmt.Errorf("publish: %w", err)
	}
	it.Received = time.Now()
	m, err := multicastOf(it)
	if err != nil {
		return PublishResult{}, err
	}
	// The item is stored whatever happens next: a count that was taken
	// and never stored would leave a gap no holder can fill.
	if err := a.store.Put(context.Background(), it); err != nil {
		return PublishResult{}, fmt.Errorf("publish: storing the item: %w", err)
	}
	if _, err := a.store.MarkRead(it.ID); err != nil {
		a.log.Warn("marking an own item read failed", "id", it.ID, "err", err)
	}
	a.events.emit(Event{Kind: ItemsChanged, Categories: []string{it.Category}, Items: []uuid.UUID{it.ID}, Urgent: it.Urgent})

	res := PublishResult{ID: it.ID}
	if n == nil {
		// Not started (first run): the servant takes the outbox when it
		// starts.
		res.Outcome = Queued
		return res, a.queue(it)
	}
	pub := new(newsnet.Published)
	a.pubWaitMu.Lock()
	a.pubWait[m.ID] = pub
	a.pubWaitMu.Unlock()
	links, err := n.Publish(context.Background(), m)
	a.pubWaitMu.Lock()
	delete(a.pubWait, m.ID)
	a.pubWaitMu.Unlock()
	switch {
	case errors.Is(err, node.ErrClosed):
		// Stopped meanwhile: the next start sends it.
		res.Outcome = Queued
		return res, a.queue(it)
	case err != nil:
		return PublishResult{}, fmt.Errorf("publish: %w", err)
	}
	if pub.ID == ([16]byte{}) {
		// No report: cannot happen with a node that reports Published.
		pub.Links = links
	}
	if pub.Count != 0 && pub.Count != count {
		a.log.Warn("the servant renumbered a publication", "id", it.ID, "stored", count, "sent", pub.Count)
	}
	switch {
	case pub.Queued:
		res.Outcome = Queued
		if err := a.queue(it); err != nil {
			return PublishResult{}, err
		}
	case pub.Links == 0:
		res.Outcome = Suppressed
	default:
		res.Outcome = Delivered
	}
	a.log.Info("published", "id", it.ID, "category", it.Category, "count", count, "outcome", res.Outcome.String(), "links", pub.Links)
	return res, nil
}

// queue puts a published item into the store's outbox, unless the servant
// reported it sent already.
func (a *App) queue(it *news.Item) error {
	a.obMu.Lock()
	defer a.obMu.Unlock()
	if a.sentEarly[it.ID] {
		delete(a.sentEarly, it.ID)
		return nil
	}
	seq, err := a.store.OutboxPush(it)
	if err != nil {
		return fmt.Errorf("publish: queueing the item: %w", err)
	}
	a.outbox[it.ID] = seq
	return nil
}
