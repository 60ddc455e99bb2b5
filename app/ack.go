package app

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/storage"
)

// Acknowledgements of must-read items (news.Item.MustRead): the reader
// confirms "I have read this", the store keeps when (storage/acks.go), and
// the item counts as read. Reporting the confirmation to the publisher is a
// reporter's business (reach reports, issue 15): it registers with
// OnAcknowledge for new ones and reads Acknowledgements after a restart,
// so none is lost between the two.

// ErrNotMustRead: Acknowledge of an item that asks for no confirmation.
var ErrNotMustRead = storage.ErrNotMustRead

// Acknowledgement is a reader's confirmation of a must-read item here.
type Acknowledgement struct {
	ItemID   uuid.UUID
	Source   uuid.UUID // the item's publisher, whom a report goes to
	Category string
	At       time.Time
}

// ackHooks are the functions OnAcknowledge registered.
type ackHooks struct {
	mu    sync.Mutex
	hooks []func(Acknowledgement)
}

// OnAcknowledge registers f, called once for each new acknowledgement after
// it is stored, on the goroutine that called Acknowledge: f must not block
// (hand the work to a goroutine of one's own) and must not call back into
// Acknowledge. A repeated confirmation of the same item calls nothing.
func (a *App) OnAcknowledge(f func(Acknowledgement)) {
	a.acks.mu.Lock()
	defer a.acks.mu.Unlock()
	a.acks.hooks = append(a.acks.hooks, f)
}

// Acknowledge records the reader's confirmation of the must-read item id,
// marks it read, and returns when it was confirmed: the first
// confirmation's time, also when it is confirmed again. An item that is not
// here (or not for the UI: retracted, expired, of a system group) is
// ErrNotFound; one that is not must-read, ErrNotMustRead. A new
// confirmation is announced with ReadStateChanged and handed to the
// OnAcknowledge hooks.
func (a *App) Acknowledge(id uuid.UUID) (time.Time, error) {
	e, err := a.Item(id)
	if err != nil {
		return time.Time{}, err
	}
	if e.Retracted != nil {
		return time.Time{}, fmt.Errorf("%w: item %s is retracted", ErrNotFound, id)
	}
	at, added, err := a.store.Acknowledge(id, a.now())
	if err != nil || !added {
		return at, err
	}
	it := e.Item
	a.events.emit(Event{Kind: ReadStateChanged, Categories: []string{it.Category}, Items: []uuid.UUID{id}})
	ack := Acknowledgement{ItemID: id, Source: it.Source, Category: it.Category, At: at}
	a.acks.mu.Lock()
	hooks := a.acks.hooks
	a.acks.mu.Unlock()
	for _, f := range hooks {
		f(ack)
	}
	return at, nil
}

// Acknowledgements returns every acknowledgement kept here of an item
// still stored, oldest item first: what a reporter sends after a restart.
func (a *App) Acknowledgements() ([]Acknowledgement, error) {
	acks, err := a.store.Acknowledgements()
	if err != nil {
		return nil, err
	}
	out := make([]Acknowledgement, 0, len(acks))
	for _, ack := range acks {
		e, err := a.store.Get(ack.ItemID)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue // purged meanwhile
		case err != nil:
			return nil, err
		case network.IsSystemItem(e.Item):
			continue
		}
		out = append(out, Acknowledgement{ItemID: ack.ItemID, Source: e.Item.Source, Category: e.Item.Category, At: ack.At})
	}
	return out, nil
}
