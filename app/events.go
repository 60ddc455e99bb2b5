package app

import (
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
}

func newEventHub() *eventHub {
	h := &eventHub{
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
