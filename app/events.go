package app

import (
	"fmt"
	"github.com/google/uuid"
	"slices"
	"sync"
)

// eventBuffer is the capacity of the Events channel.
const eventBuffer = 64

// maxEventItems bounds the item IDs one coalesced event carries in Items,
// and in Urgent; beyond it Items is dropped and the UI re-reads everything
// it shows, while Urgent keeps its first maxEventItems.
const maxEventItems = 1000

// eventHub hands events to the UI without ever blocking the producer:
// emit merges the event into at most one pending event per kind, and one
// goroutine moves pending events to the channel as the UI drains it.
type eventHub struct {
	mu      sync.Mutex
	pending []Event // at most one per kind, in order of first emission
	closed  bool

	wake chan struct{} // capacity 1
	stop chan struct{}
	done chan struct{}
	out  chan Event

	tap func(Event) // Options.OnEvent, or nil
}

// newEventHub starts a hub; tap, if not nil, hears each event as it is
// emitted (Options.OnEvent).
func newEventHub(tap func(Event)) *eventHub {
	h := &eventHub{
		tap:  tap,
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
		out:  make(chan Event, eventBuffer),
	}
	go h.run()
	return h
}

// emit queues e, merging it into a pending event of the same kind. Events
// of different kinds stay apart, so that what happened to items (arrived,
// published, read, retracted) is never lost in a merge.
func (h *eventHub) emit(e Event) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	if i := slices.IndexFunc(h.pending, func(p Event) bool { return p.Kind == e.Kind }); i >= 0 {
		h.pending[i] = merge(h.pending[i], e)
	} else {
		h.pending = append(h.pending, clip(e))
	}
	if h.tap != nil {
		// Under mu: in the order of the hub. Whole, unlike what Events
		// delivers: the tap hears of every item.
		e.Categories, e.Items, e.Urgent = slices.Clone(e.Categories), slices.Clone(e.Items), slices.Clone(e.Urgent)
		h.tap(e)
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// merge combines two events of one kind. Items or Categories nil mean
// "any" and stay so; Urgent collects the urgent items up to the bound.
func merge(p, e Event) Event {
	if !p.Kind.AboutItems() {
		return p
	}
	if p.Categories != nil && e.Categories != nil {
		for _, c := range e.Categories {
			if !slices.Contains(p.Categories, c) {
				p.Categories = append(p.Categories, c)
			}
		}
	} else {
		p.Categories = nil
	}
	if p.Items != nil && e.Items != nil && len(p.Items)+len(e.Items) <= maxEventItems {
		p.Items = append(p.Items, e.Items...)
	} else {
		p.Items = nil
	}
	if room := maxEventItems - len(p.Urgent); room > 0 {
		p.Urgent = append(p.Urgent, e.Urgent[:min(room, len(e.Urgent))]...)
	}
	return p
}

// clip copies the slices of a new pending event, which merge appends to.
func clip(e Event) Event {
	e.Categories = slices.Clone(e.Categories)
	if len(e.Items) > maxEventItems {
		e.Items = nil
	}
	e.Items = slices.Clone(e.Items)
	e.Urgent = slices.Clone(e.Urgent[:min(maxEventItems, len(e.Urgent))])
	return e
}

func (h *eventHub) run() {
	defer close(h.done)
	for {
		select {
		case <-h.wake:
		case <-h.stop:
			return
		}
		for {
			h.mu.Lock()
			if len(h.pending) == 0 {
				h.mu.Unlock()
				break
			}
			e := h.pending[0]
			h.pending = h.pending[1:]
			h.mu.Unlock()
			select {
			case h.out <- e:
			case <-h.stop:
				return
			}
		}
	}
}

// close stops the hub and closes the channel.
func (h *eventHub) close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	close(h.stop)
	<-h.done
	close(h.out)
}

// EventKind says what changed, and for items what happened to them, so
// that the UI can refresh what it shows and decide whom to tell without
// guessing: only ItemsArrived is news for a notification.
type EventKind int

func (k EventKind) String() string {
	if k >= 0 && int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// AboutItems reports whether events of kind k are about items, and so
// carry Categories and Items.
func (k EventKind) AboutItems() bool {
	switch k {
	case ItemsChanged, ItemsArrived, ItemsPublished, ReadStateChanged, ItemsRetracted:
		return true
	}
	return false
}

// Event tells the UI that something it shows has changed. Events of one
// kind may be coalesced, never events of different kinds: an arrival is
// never folded into a read-state change. The UI re-reads what it needs.
type Event struct {
	Kind EventKind
	// Categories are the categories of the items concerned; nil: any.
	Categories []string
	// Items are the items concerned; nil: too many to name (or, for
	// ItemsChanged and MarkAllRead's ReadStateChanged, not known), so the
	// UI re-reads everything it shows.
	Items []uuid.UUID
	// Urgent names the urgent items among them (ItemsArrived,
	// ItemsPublished), also when Items is nil; at most maxEventItems.
	Urgent []uuid.UUID
}

const (
	// ItemsChanged: items changed in a way that is nobody's news (expired
	// items were purged). Items nil: anything shown may have changed.
	ItemsChanged EventKind = iota
	// StatusChanged: the servant's place in the tree changed.
	StatusChanged
	// CatalogChanged: the category catalog or the subscriptions changed.
	CatalogChanged
	// ItemsArrived: items from the network were stored and are listed,
	// unread: someone else's publications, never this installation's own
	// and never one retracted before it came. Urgent names the urgent
	// ones. A notification is about these and nothing else.
	ItemsArrived
	// ItemsPublished: this installation published items (Publish); they
	// are stored, listed, read, and in My posts. Urgent names the urgent
	// ones.
	ItemsPublished
	// ReadStateChanged: items were marked read or unread (MarkRead,
	// MarkUnread, MarkAllRead), acknowledged (Acknowledge), or kept or
	// let go (Keep). Items nil: any of Categories (nil: of any category)
	// may have changed.
	ReadStateChanged
	// ItemsRetracted: a retraction hid items (here or from the network):
	// out of every list, search and count; My posts shows one's own as
	// retracted.
	ItemsRetracted
	// ReachChanged: the network reported new reach totals of own
	// publications (Items; App.Reach).
	ReachChanged
	// InvitationsChanged: this servant decided a redemption of one of its
	// invitations, so their uses may have changed (App.Invitations).
	InvitationsChanged
	// ReportsChanged: a publisher's report of a must-read post reached
	// this admin's servant (App.NetworkReports).
	ReportsChanged
)

var eventKindNames = [...]string{
	ItemsChanged:     "ItemsChanged",
	StatusChanged:    "StatusChanged",
	CatalogChanged:   "CatalogChanged",
	ItemsArrived:     "ItemsArrived",
	ItemsPublished:   "ItemsPublished",
	ReadStateChanged: "ReadStateChanged",
	ItemsRetracted:   "ItemsRetracted",
	ReachChanged:     "ReachChanged",

	InvitationsChanged: "InvitationsChanged",
	ReportsChanged:     "ReportsChanged",
}
