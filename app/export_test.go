package app

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Hooks for the tests outside the package (package app_test:
// publishload_test.go, which runs `newsdesk serve` through package cli,
// and the UI's contract, contract_test.go).

// Store returns the application's store: the contract's items "received
// before" go straight into it, as its servant stores what arrives.
func (a *App) Store() *storage.Store { return a.store }

// UseSerialPublishing makes this process's Apps publish as they did before
// the publishing pipeline (publishSerial) until restore is called.
func UseSerialPublishing() (restore func()) {
	publishVia = publishSerial
	return func() { publishVia = nil }
}

// CommitAtOnce makes this process's Apps commit delivered items at once,
// as they did before the pipeline (no ingest interval), until restore is
// called.
func CommitAtOnce() (restore func()) {
	ingestInterval = 0
	return func() { ingestInterval = defaultIngestInterval }
}

// publishSerial is how publications were made before the pipeline
// (publisher.go), kept to measure against: one at a time under pubMu, the
// count taken in a transaction of its own, then the item stored, then
// marked read, then handed to the servant.
func publishSerial(a *App, it *news.Item) (PublishResult, error) {
	a.pubMu.Lock()
	defer a.pubMu.Unlock()
	n := a.currentNode()
	count, err := a.store.NextSourceCount(a.source)
	if err != nil {
		return PublishResult{}, err
	}
	it.SourceCount = count
	a.pub.stored.Store(max(a.pub.stored.Load(), count)) // its report removes its outbox entry
	if err := trust.SignItem(a.identity, it); err != nil {
		return PublishResult{}, err
	}
	it.Received = time.Now()
	m, err := multicastOf(it)
	if err != nil {
		return PublishResult{}, err
	}
	if err := a.store.Put(context.Background(), it); err != nil {
		return PublishResult{}, err
	}
	if _, err := a.store.MarkRead(it.ID); err != nil {
		return PublishResult{}, err
	}
	a.events.emit(Event{Kind: ItemsPublished, Categories: []string{it.Category}, Items: []uuid.UUID{it.ID}})
	if n == nil {
		return PublishResult{}, errors.New("serial publishing: not started")
	}
	reports, err := n.PublishBatch(context.Background(), []*newsnet.Multicast{m})
	var pub newsnet.Published
	if err == nil {
		pub = reports[0]
	}
	switch {
	case err != nil:
		return PublishResult{}, err
	case pub.Queued:
		if _, err := a.store.OutboxPush(it); err != nil {
			return PublishResult{}, err
		}
		return PublishResult{ID: it.ID, Outcome: Queued}, nil
	case pub.Links == 0:
		return PublishResult{ID: it.ID, Outcome: Suppressed}, nil
	}
	return PublishResult{ID: it.ID, Outcome: Delivered}, nil
}
