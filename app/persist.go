package app

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
)

// persister stores what the servant reports, off the node's loop goroutine:
// delivered items (through the store's group-commit ingest), per-source
// progress and outbox removals. The loop only appends to a queue, which is
// unbounded so that the loop never waits on the disk; one goroutine drains
// it, a batch at a time: the items of a batch are committed before the
// progress of the same batch is written, so a stored count never runs ahead
// of the stored items.
type persister struct {
	a *App

	mu     sync.Mutex
	ops    []persistOp
	closed bool

	wake chan struct{} // capacity 1: "the queue is not empty"
	stop chan struct{} // closed by close: drain and exit
	done chan struct{} // closed when the goroutine has exited
}

// persistOp is one report; exactly one of its groups is set.
type persistOp struct {
	msg *newsnet.Multicast // delivered, at
	at  time.Time

	source string // progress: the next expected count of source
	next   uint64

	sent *newsnet.Published // a queued publication went out

	barrier chan struct{} // closed once everything before it is stored
}

func newPersister(a *App) *persister {
	p := &persister{
		a:    a,
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.run()
	return p
}

func (p *persister) push(op persistOp) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	p.ops = append(p.ops, op)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

func (p *persister) deliver(m *newsnet.Multicast, at time.Time) {
	p.push(persistOp{msg: m, at: at})
}

func (p *persister) progress(source string, next uint64) {
	p.push(persistOp{source: source, next: next})
}

func (p *persister) sent(pub newsnet.Published) {
	p.push(persistOp{sent: &pub})
}

// flush waits until everything queued before it is stored.
func (p *persister) flush() {
	b := make(chan struct{})
	if !p.push(persistOp{barrier: b}) {
		return
	}
	select {
	case <-b:
	case <-p.done:
	}
}

// close stores what is queued and stops the goroutine.
func (p *persister) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.stop)
	}
	p.mu.Unlock()
	<-p.done
}

func (p *persister) take() []persistOp {
	p.mu.Lock()
	defer p.mu.Unlock()
	ops := p.ops
	p.ops = nil
	return ops
}

func (p *persister) run() {
	defer close(p.done)
	for {
		select {
		case <-p.wake:
		case <-p.stop:
			for ops := p.take(); len(ops) > 0; ops = p.take() {
				p.process(ops)
			}
			return
		}
		for ops := p.take(); len(ops) > 0; ops = p.take() {
			p.process(ops)
		}
	}
}

// process stores one batch.
func (p *persister) process(ops []persistOp) {
	a := p.a
	type ingesting struct {
		it   *news.Item
		done <-chan error
	}
	var (
		items    []ingesting
		progress = map[string]uint64{}
		sent     []*newsnet.Published
		barriers []chan struct{}
	)
	for _, op := range ops {
		switch {
		case op.msg != nil:
			it, err := itemOf(op.msg)
			if err != nil {
				a.log.Warn("dropping undecodable item", "source", op.msg.Source, "count", op.msg.Count,
					"category", op.msg.Category, "err", err)
				continue
			}
			it.Received = op.at
			items = append(items, ingesting{it, a.store.Ingest(it)})
		case op.source != "":
			progress[op.source] = max(progress[op.source], op.next)
		case op.sent != nil:
			sent = append(sent, op.sent)
		case op.barrier != nil:
			barriers = append(barriers, op.barrier)
		}
	}

	ev := Event{Kind: ItemsChanged}
	failed := map[string]uint64{} // per source, the lowest count that could not be stored
	for _, in := range items {
		if err := <-in.done; err != nil {
			a.log.Error("storing a delivered item failed", "id", in.it.ID, "source", in.it.Source,
				"count", in.it.SourceCount, "err", err)
			src := in.it.Source.String()
			if f, ok := failed[src]; !ok || in.it.SourceCount < f {
				failed[src] = in.it.SourceCount
			}
			continue
		}
		switch in.it.Category {
		case NetworkCategory:
			a.receiveDefinition(in.it)
			continue
		case RetractionCategory:
			a.receiveRetraction(in.it)
			continue
		}
		if a.retractionsArrived(in.it.ID) {
			continue // retracted before it came: nobody is told of it
		}
		if !slices.Contains(ev.Categories, in.it.Category) {
			ev.Categories = append(ev.Categories, in.it.Category)
		}
		ev.Urgent = ev.Urgent || in.it.Urgent
		ev.Items = append(ev.Items, in.it.ID)
	}
	if len(ev.Items) > 0 {
		a.events.emit(ev)
	}

	for src, next := range progress {
		if f, ok := failed[src]; ok && f > 0 && f < next {
			next = f // not stored: ask again after a restart
		}
		id, err := uuid.Parse(src)
		if err != nil || id == a.source || next == 0 {
			continue // not an installation ID (an old servant's address): nothing to keep
		}
		if err := a.store.SetSourceCount(id, next-1); err != nil {
			a.log.Error("storing a source's count failed", "source", src, "err", err)
		}
	}
	for _, pub := range sent {
		a.outboxSent(pub.ID)
	}
	for _, b := range barriers {
		close(b)
	}
}

// outboxSent removes a publication that went out from the store's outbox.
// The report can come before the publisher has pushed it (the servant
// attached right after the publication was queued); the publisher then
// finds it in sentEarly and does not push it.
func (a *App) outboxSent(id [16]byte) {
	a.obMu.Lock()
	defer a.obMu.Unlock()
	seq, ok := a.outbox[id]
	if !ok {
		a.sentEarly[id] = true
		return
	}
	delete(a.outbox, id)
	if err := a.store.OutboxRemove(seq); err != nil && !errors.Is(err, storage.ErrNotFound) {
		a.log.Error("removing a sent item from the outbox failed", "id", uuid.UUID(id), "err", err)
		return
	}
	a.log.Info("queued item sent", "id", uuid.UUID(id))
}
