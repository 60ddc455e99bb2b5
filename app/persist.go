package app

import (
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// persister stores what the servant reports, off the node's loop goroutine:
// delivered items (through the store's group-commit ingest), per-source
// progress and the total of items lost. The loop only appends to a queue,
// which is unbounded so that the loop never waits on the disk; one
// goroutine drains it, a batch at a time: the progress of a batch is queued
// for the store only once its items are committed, so a stored count never
// runs ahead of the stored items.
type persister struct {
	a *App

	mu     sync.Mutex
	ops    []persistOp
	closed bool

	counts <-chan error // the per-source counts written last (run goroutine only)

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

	lost uint64 // the running total of a Lost report (when > 0)

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

func (p *persister) lost(total uint64) {
	p.push(persistOp{lost: total})
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
			p.awaitCounts()
			return
		}
		for ops := p.take(); len(ops) > 0; ops = p.take() {
			p.process(ops)
		}
	}
}

// awaitCounts waits until the per-source counts written last are durable.
func (p *persister) awaitCounts() {
	if p.counts == nil {
		return
	}
	if err := <-p.counts; err != nil {
		p.a.log.Error("storing sources' counts failed", "err", err)
	}
	p.counts = nil
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
		lost     uint64
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
		case op.lost > 0:
			lost = max(lost, op.lost)
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

	// The counts go into the store's next group commit, behind this
	// batch's items, so a stored count never runs ahead of the stored
	// items; nobody waits for them but a barrier.
	p.awaitCounts()
	counts := make(map[uuid.UUID]uint64, len(progress))
	for src, next := range progress {
		if f, ok := failed[src]; ok && f > 0 && f < next {
			next = f // not stored: ask again after a restart
		}
		id, err := uuid.Parse(src)
		if err != nil || id == a.source || next == 0 {
			continue // not an installation ID (an old servant's address): nothing to keep
		}
		counts[id] = next - 1
	}
	if len(counts) > 0 {
		p.counts = a.store.IngestSourceCounts(counts)
	}
	if len(barriers) > 0 {
		p.awaitCounts()
	}
	if lost > a.lost.Load() {
		if err := a.store.SetLostTotal(lost); err != nil {
			a.log.Error("storing the total of lost items failed", "err", err)
		}
		a.lost.Store(lost)
		a.events.emit(Event{Kind: StatusChanged})
	}
	for _, b := range barriers {
		close(b)
	}
}
