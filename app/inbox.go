package app

import (
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
)

// inbox stores what the servant reports, off the node's loop goroutine:
// delivered items (through the store's group-commit ingest), per-source
// progress and the total of items lost. The loop only appends to a queue,
// which is unbounded so that the loop never waits on the disk; one
// goroutine drains it, a batch at a time: the progress of a batch is queued
// for the store only once its items are committed, so a stored count never
// runs ahead of the stored items.
type inbox struct {
	a *App

	mu     sync.Mutex
	ops    []inboxOp
	closed bool

	counts <-chan error // the per-source counts written last (run goroutine only)

	// held: delivered items the store refused, stored again every
	// unstoredRetry (run goroutine only); restarting is set while the
	// servant restarts to fetch what held let go.
	held       unstored
	restarting bool

	wake chan struct{} // capacity 1: "the queue is not empty"
	stop chan struct{} // closed by close: drain and exit
	done chan struct{} // closed when the goroutine has exited
}

// inboxOp is one report; exactly one of its groups is set.
type inboxOp struct {
	msg *newsnet.Multicast // delivered, at
	at  time.Time

	source string // progress: the next expected count of source
	next   uint64

	lost uint64 // the running total of a Lost report (when > 0)

	reach *reachReport // a reach report of an own publication (reach.go)

	barrier chan struct{} // closed once everything before it is stored

	restarted bool // the servant started again from the store (after held let items go)
}

// unstoredRetry is how often items the store refused are offered again.
const unstoredRetry = 2 * time.Second

func newInbox(a *App) *inbox {
	p := &inbox{
		a:    a,
		held: unstored{limit: a.opts.unstoredLimit},
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.run()
	return p
}

func (p *inbox) push(op inboxOp) bool {
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

func (p *inbox) deliver(m *newsnet.Multicast, at time.Time) {
	p.push(inboxOp{msg: m, at: at})
}

func (p *inbox) progress(source string, next uint64) {
	p.push(inboxOp{source: source, next: next})
}

func (p *inbox) lost(total uint64) {
	p.push(inboxOp{lost: total})
}

func (p *inbox) reach(u newsnet.ReachUpdated, at time.Time) {
	p.push(inboxOp{reach: &reachReport{u, at}})
}

// flush waits until everything queued before it is stored.
func (p *inbox) flush() {
	b := make(chan struct{})
	if !p.push(inboxOp{barrier: b}) {
		return
	}
	select {
	case <-b:
	case <-p.done:
	}
}

// close stores what is queued and stops the goroutine.
func (p *inbox) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.stop)
	}
	p.mu.Unlock()
	<-p.done
}

func (p *inbox) take() []inboxOp {
	p.mu.Lock()
	defer p.mu.Unlock()
	ops := p.ops
	p.ops = nil
	return ops
}

func (p *inbox) run() {
	defer close(p.done)
	for {
		var retry <-chan time.Time
		if p.held.pending() {
			retry = time.After(unstoredRetry)
		}
		select {
		case <-p.wake:
		case <-retry:
			p.storeHeld()
			continue
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
func (p *inbox) awaitCounts() {
	if p.counts == nil {
		return
	}
	if err := <-p.counts; err != nil {
		p.a.log.Error("storing sources' counts failed", "err", err)
	}
	p.counts = nil
}

// process stores one batch.
func (p *inbox) process(ops []inboxOp) {
	a := p.a
	type ingesting struct {
		it   *news.Item
		size int
		done <-chan error
	}
	var (
		items    []ingesting
		progress = map[string]uint64{}
		lost     uint64
		barriers []chan struct{}
		reach    []reachReport
	)
	for _, op := range ops {
		switch {
		case op.msg != nil:
			// The servant checked the message against its item's header, the
			// signature over its bytes and the audience (network.Keeper.Verify,
			// newsnet's delivery rules): the item is decoded once, here, and
			// stored as the bytes that arrived.
			e, err := news.Decode(op.msg.Payload)
			if err != nil {
				a.log.Warn("dropping undecodable item", "source", op.msg.Source, "count", op.msg.Count,
					"category", op.msg.Category, "err", err)
				continue
			}
			items = append(items, ingesting{e.Item, len(op.msg.Payload), a.store.IngestEncoded(e, op.at)})
		case op.source != "":
			progress[op.source] = max(progress[op.source], op.next)
		case op.lost > 0:
			lost = max(lost, op.lost)
		case op.reach != nil:
			reach = append(reach, *op.reach)
		case op.barrier != nil:
			barriers = append(barriers, op.barrier)
		case op.restarted:
			p.restarting = false
			p.held.fetched() // the servant asks for them now
		}
	}

	ev := Event{Kind: ItemsArrived}
	var mustRead []*news.Item
	for _, in := range items {
		if err := <-in.done; err != nil {
			a.log.Error("storing a delivered item failed; keeping it to store again", "id", in.it.ID, "source", in.it.Source,
				"count", in.it.SourceCount, "err", err)
			p.held.hold(in.it, in.size, err)
			continue
		}
		if p.announce(in.it, &ev) && in.it.MustRead {
			mustRead = append(mustRead, in.it)
		}
	}
	if len(ev.Items) > 0 {
		a.events.emit(ev)
	}
	a.tellStored(mustRead)
	p.showHeld()
	if len(reach) > 0 {
		a.storeReach(reach)
	}

	// The counts go into the store's next group commit, behind this
	// batch's items, so a stored count never runs ahead of the stored
	// items; nobody waits for them but a barrier.
	p.awaitCounts()
	counts := make(map[uuid.UUID]uint64, len(progress))
	for src, next := range progress {
		if f, ok := p.held.floor(src); ok && f > 0 && f < next {
			next = f // not stored yet: a restart asks again
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

// announce does what follows storing a delivered item: a definition or a
// retraction takes effect; an ordinary item joins ev, the ItemsArrived of
// its batch (unless a retraction came first: nobody hears of it). The
// servant never delivers this installation's own items, so an arrival is
// always someone else's. It reports whether it joined ev.
func (p *inbox) announce(it *news.Item, ev *Event) bool {
	a := p.a
	switch it.Category {
	case network.NetworkCategory:
		a.net.ReceiveDefinition(it)
		return false
	case network.RetractionCategory:
		a.net.ReceiveRetraction(it)
		return false
	case network.ReportsCategory:
		if _, err := a.store.MarkRead(it.ID); err != nil {
			a.log.Warn("marking a reach report read failed", "err", err)
		}
		a.events.emit(Event{Kind: ReportsChanged})
		return false
	}
	if a.net.RetractionsArrived(it.ID) {
		return false // retracted before it came: nobody is told of it
	}
	if !slices.Contains(ev.Categories, it.Category) {
		ev.Categories = append(ev.Categories, it.Category)
	}
	if it.Urgent {
		ev.Urgent = append(ev.Urgent, it.ID)
	}
	ev.Items = append(ev.Items, it.ID)
	return true
}

// storeHeld offers the held items to the store again, in arrival order.
// Once all are stored and some had to be let go, the servant restarts from
// the store, whose counts stayed below them, so it asks for them again.
func (p *inbox) storeHeld() {
	a := p.a
	held := p.held.take()
	dones := make([]<-chan error, len(held))
	for i, h := range held {
		dones[i] = a.store.Ingest(h.it)
	}
	ev := Event{Kind: ItemsArrived}
	var mustRead []*news.Item
	for i, h := range held {
		if err := <-dones[i]; err != nil {
			p.held.hold(h.it, h.size, err)
			continue
		}
		if p.announce(h.it, &ev) && h.it.MustRead {
			mustRead = append(mustRead, h.it)
		}
	}
	if len(ev.Items) > 0 {
		a.log.Info("stored items that had waited for the store", "items", len(ev.Items))
		a.events.emit(ev)
	}
	a.tellStored(mustRead)
	if len(p.held.items) == 0 && len(p.held.dropped) > 0 && !p.restarting {
		p.restarting = true
		a.log.Warn("the store takes items again; restarting the servant to fetch those it could not keep")
		go func() {
			if err := a.restart(); err != nil {
				a.log.Error("restarting the servant failed", "err", err)
			}
			p.push(inboxOp{restarted: true})
		}()
	}
	p.showHeld()
}

// showHeld publishes what waits to be stored to the status, and tells the
// UI when that changed.
func (p *inbox) showHeld() {
	next := storeTrouble{Problem: p.held.problem(), Unstored: p.held.waiting()}
	if prev := p.a.storeTrouble.Load(); *prev != next {
		p.a.storeTrouble.Store(&next)
		p.a.events.emit(Event{Kind: StatusChanged})
	}
}

// storeTrouble is what keeps delivered items from being stored, for the
// status: Problem is "" when nothing waits.
type storeTrouble struct {
	Problem  string
	Unstored int // items waiting to be stored
}
