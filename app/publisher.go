package app

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
	"newsdesk/trust"
)

// The publishing pipeline. Concurrent publications (the control API's
// clients, the desktop app, announcements) go through two goroutines:
//
//	callers ─► committer ─► sender ─► servant (node.PublishBatch)
//
// The committer takes every publication waiting (up to maxPublishBatch),
// numbers them with the next communication counts (it is the only one that
// hands counts out), signs them (in parallel), and stores the batch in one
// transaction of the store's group commit (storage.PublishOwn): the items,
// marked read; an outbox entry each; the source's count and own-last
// advanced. The callers learn "stored and numbered" here. A crash before
// that commit leaves none of the batch and no count taken; after it, every
// count has its item, and the outbox hands whatever had not gone out to the
// next start.
//
// The sender hands the stored publications to the servant in count order,
// all that wait in one node.PublishBatch, and tells each caller what became
// of it. A
// servant whose tree is backlogged makes node.Publish wait; the committer
// goes on storing meanwhile (up to maxUnsentBytes), and a caller whose
// publication waits longer than publishWait is answered Queued. Outbox
// entries of publications that went out are removed in the next batch's
// transaction (or on their own when no batch comes).
//
// Node restarts: a batch is stored under pubMu and stamped with the node
// generation of the time; a start (also under pubMu) loads the outbox into
// the new servant and advances the generation. The sender hands a
// publication only to the node of its own generation, so every count
// reaches a servant once, in order: from the sender or from the outbox.

const (
	// maxPublishBatch bounds the publications one transaction stores.
	maxPublishBatch = 256

	// parallelSignMin is the batch size from which signing is spread over
	// the processors.
	parallelSignMin = 16
)

// Bounds of the pipeline; variables so that tests can make them small.
var (
	// maxUnsentBytes bounds the stored publications (payload bytes) that
	// wait for the servant to take them. Beyond it the committer stores
	// nothing more until the servant catches up, and callers wait.
	maxUnsentBytes = 32 << 20

	// publishWait is how long a caller waits for the servant to take its
	// stored publication before it is answered Queued.
	publishWait = 3 * time.Second

	// publishBusyWait is how long a caller waits for the committer to take
	// its publication before it gives up with ErrBusy (nothing stored).
	publishBusyWait = 10 * time.Second
)

// pubReq is one publication on its way through the pipeline.
type pubReq struct {
	it     *news.Item
	stored chan error   // (1) nil once stored and numbered
	out    chan Outcome // (1) what the servant did with it

	// Set by the committer.
	m   *newsnet.Multicast
	gen uint64 // the node generation it was stored under
}

// publisher is the pipeline's state.
type publisher struct {
	a *App

	mu       sync.Mutex
	waiting  []*pubReq // submitted, not taken by the committer
	unsent   []*pubReq // stored, not yet handed to the servant, in count order
	unsentSz int       // payload bytes of unsent
	// sentThrough is the count up to which the servant reported our
	// publications gone out, while their outbox entries are not removed
	// yet (0: none to remove). The servant sends them in count order.
	sentThrough uint64
	stopping    bool

	// stored is the last count stored (p.last, for the node's goroutine):
	// a report beyond it is not of a publication of the pipeline.
	stored atomic.Uint64

	last      uint64 // the last count handed out (committer only)
	lastKnown bool

	drain bool // the committer has stopped: the sender ends once unsent is empty

	commitWake    chan struct{} // (1) work for the committer
	sendWake      chan struct{} // (1) work for the sender
	committerDone chan struct{}
	senderDone    chan struct{}
}

func newPublisher(a *App) *publisher {
	p := &publisher{
		a:             a,
		commitWake:    make(chan struct{}, 1),
		sendWake:      make(chan struct{}, 1),
		committerDone: make(chan struct{}),
		senderDone:    make(chan struct{}),
	}
	go p.committer()
	go p.sender()
	return p
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// submit queues a publication for the committer.
func (p *publisher) submit(r *pubReq) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return ErrClosed
	}
	p.waiting = append(p.waiting, r)
	wake(p.commitWake)
	return nil
}

// withdraw takes back a publication the committer has not taken yet and
// reports whether it did.
func (p *publisher) withdraw(r *pubReq) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.waiting, r)
	if i < 0 {
		return false
	}
	p.waiting = slices.Delete(p.waiting, i, i+1)
	return true
}

// wentOut records that the servant reported the publication with this
// count gone out, so that the outbox entries up to it are removed: the
// servant sends our publications in count order (from its own outbox
// first). It runs on the node's loop goroutine: it never blocks.
func (p *publisher) wentOut(count uint64) {
	if count == 0 || count > p.stored.Load() {
		return // not one of ours (a test pushing through the node)
	}
	p.mu.Lock()
	p.sentThrough = max(p.sentThrough, count)
	p.mu.Unlock()
	wake(p.commitWake)
}

// takeSent returns the count up to which outbox entries are to be
// removed, and putBackSent returns it when their removal failed.
func (p *publisher) takeSent() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sentThrough
	p.sentThrough = 0
	return s
}

func (p *publisher) putBackSent(s uint64) {
	p.mu.Lock()
	p.sentThrough = max(p.sentThrough, s)
	p.mu.Unlock()
}

// flushSent removes the outbox entries of publications that went out, at
// once. A node stop calls it (with pubMu held) before the next start loads
// the outbox, so that nothing is sent twice.
func (p *publisher) flushSent() {
	sent := p.takeSent()
	if sent == 0 {
		return
	}
	if _, err := p.a.store.PublishOwn(storage.OwnBatch{Source: p.a.source, SentThrough: sent}); err != nil {
		p.a.log.Error("removing sent items from the outbox failed", "through", sent, "err", err)
		p.putBackSent(sent)
	}
}

// close stops the pipeline: publications not taken yet fail with
// ErrClosed, stored ones that the servant has not taken are answered Queued
// (they wait in the outbox for the next start), and pending outbox
// removals are written. The node is stopped already.
func (p *publisher) close() {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	wake(p.commitWake)
	<-p.committerDone
	p.mu.Lock()
	p.drain = true
	p.mu.Unlock()
	wake(p.sendWake)
	<-p.senderDone
}

// committer numbers, signs and stores batches of publications.
func (p *publisher) committer() {
	defer close(p.committerDone)
	for {
		p.mu.Lock()
		var batch []*pubReq
		if p.unsentSz < maxUnsentBytes || p.stopping {
			n := min(len(p.waiting), maxPublishBatch)
			batch = slices.Clone(p.waiting[:n])
			p.waiting = slices.Delete(p.waiting, 0, n)
		}
		sent, stopping := p.sentThrough > 0, p.stopping
		p.mu.Unlock()
		switch {
		case stopping:
			for _, r := range batch {
				r.stored <- ErrClosed
			}
			p.mu.Lock()
			rest := p.waiting
			p.waiting = nil
			p.mu.Unlock()
			for _, r := range rest {
				r.stored <- ErrClosed
			}
			if len(batch)+len(rest) == 0 {
				p.flushSent()
				return
			}
		case len(batch) > 0:
			p.commit(batch)
		case sent:
			p.commitSent()
		default:
			<-p.commitWake
		}
	}
}

// commitSent removes the outbox entries of publications that went out, in
// a transaction of their own, under pubMu (like every store of the
// pipeline, so that a start sees them gone or not as a whole).
func (p *publisher) commitSent() {
	p.a.pubMu.Lock()
	defer p.a.pubMu.Unlock()
	p.flushSent()
}

// commit numbers, signs and stores one batch, answers its callers
// "stored", and hands it to the sender.
func (p *publisher) commit(batch []*pubReq) {
	a := p.a
	fail := func(rs []*pubReq, err error) {
		for _, r := range rs {
			r.stored <- err
		}
	}
	if !p.lastKnown {
		n, err := a.store.SourceCount(a.source)
		if err != nil {
			fail(batch, err)
			return
		}
		p.last, p.lastKnown = n, true
	}
	batch = p.prepare(batch, p.last)
	if len(batch) == 0 {
		return
	}

	a.pubMu.Lock()
	a.mu.Lock()
	closed, gen := a.closed, a.gen
	a.mu.Unlock()
	if closed {
		a.pubMu.Unlock()
		fail(batch, ErrClosed)
		return
	}
	sent := p.takeSent()
	err := p.store(batch, sent)
	if errors.Is(err, storage.ErrCountConflict) {
		// Counts were taken outside the pipeline (tests do, through the
		// store): number again after the stored count.
		a.log.Warn("own count moved outside the publisher; numbering again", "err", err)
		var n uint64
		if n, err = a.store.SourceCount(a.source); err == nil {
			p.last = n
			if batch = p.prepare(batch, n); len(batch) == 0 {
				a.pubMu.Unlock()
				return
			}
			err = p.store(batch, sent)
		}
	}
	if err != nil {
		a.pubMu.Unlock()
		p.putBackSent(sent)
		p.lastKnown = false // a failed commit may still have happened: read it again
		a.log.Error("storing publications failed", "items", len(batch), "err", err)
		fail(batch, err)
		return
	}
	p.last = batch[len(batch)-1].it.SourceCount
	p.stored.Store(p.last)
	for _, r := range batch {
		r.gen = gen
	}
	a.pubMu.Unlock()

	ev := Event{Kind: ItemsPublished}
	size := 0
	for _, r := range batch {
		size += len(r.m.Payload)
		if network.IsSystemItem(r.it) {
			continue // a definition or retraction: never shown, so nobody is told
		}
		if !slices.Contains(ev.Categories, r.it.Category) {
			ev.Categories = append(ev.Categories, r.it.Category)
		}
		ev.Items = append(ev.Items, r.it.ID)
		if r.it.Urgent {
			ev.Urgent = append(ev.Urgent, r.it.ID)
		}
	}
	if len(ev.Items) > 0 {
		a.events.emit(ev)
	}
	p.mu.Lock()
	p.unsent = append(p.unsent, batch...)
	p.unsentSz += size
	p.mu.Unlock()
	for _, r := range batch {
		r.stored <- nil
	}
	wake(p.sendWake)
}

// store writes a prepared batch, and removes the outbox entries up to
// the count sent.
func (p *publisher) store(batch []*pubReq, sent uint64) error {
	items := make([]*news.Item, len(batch))
	encoded := make([][]byte, len(batch))
	for i, r := range batch {
		items[i] = r.it
		encoded[i] = r.m.Payload // the item's encoding, made once (trust.SignEncoded)
	}
	_, err := p.a.store.PublishOwn(storage.OwnBatch{Source: p.a.source, Items: items, Encoded: encoded, SentThrough: sent})
	return err
}

// prepare numbers the batch after last, signs every item and builds its
// message. A publication that cannot be signed or encoded is answered with
// the error and left out, and the rest numbered again, so the counts stay
// consecutive. It returns what remains.
func (p *publisher) prepare(batch []*pubReq, last uint64) []*pubReq {
	now := p.a.now()
	for {
		for i, r := range batch {
			r.it.SourceCount = last + 1 + uint64(i)
			r.it.Received = now
		}
		errs := p.sign(batch)
		kept := batch[:0:0]
		for i, r := range batch {
			if errs[i] != nil {
				r.stored <- errs[i]
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) == len(batch) {
			return batch
		}
		batch = kept
	}
}

// sign signs the items and encodes their messages, in parallel when there
// are many (a small batch is not worth waking other goroutines for).
func (p *publisher) sign(batch []*pubReq) []error {
	errs := make([]error, len(batch))
	one := func(i int) {
		r := batch[i]
		enc, err := trust.SignEncoded(p.a.identity, r.it)
		if err != nil {
			errs[i] = err
			return
		}
		r.m = multicastWith(r.it, enc)
	}
	workers := min(runtime.GOMAXPROCS(0), len(batch)/parallelSignMin+1)
	if workers <= 1 {
		for i := range batch {
			one(i)
		}
		return errs
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(batch); i += workers {
				one(i)
			}
		})
	}
	wg.Wait()
	return errs
}

// sender hands stored publications to the servant in count order, all
// that are waiting in one hand-off.
func (p *publisher) sender() {
	defer close(p.senderDone)
	for {
		p.mu.Lock()
		batch := p.unsent
		p.unsent = nil
		stopping, drain := p.stopping, p.drain
		p.mu.Unlock()
		if len(batch) == 0 {
			if drain {
				return
			}
			<-p.sendWake
			continue
		}
		outs := make([]Outcome, len(batch))
		for i := range outs {
			outs[i] = Queued
		}
		if !stopping {
			p.handOff(batch, outs)
		}
		size := 0
		for i, r := range batch {
			r.out <- outs[i]
			size += len(r.m.Payload)
		}
		p.mu.Lock()
		p.unsentSz -= size
		p.mu.Unlock()
		wake(p.commitWake)
	}
}

// handOff gives stored publications to the servant of their generation and
// sets what became of each in outs (left Queued for those it did not take).
func (p *publisher) handOff(batch []*pubReq, outs []Outcome) {
	a := p.a
	a.mu.Lock()
	n, gen := a.node, a.gen
	a.mu.Unlock()
	// Those of an older generation went to the servant from the outbox
	// when it started (or will): they stay Queued. The rest are a suffix,
	// since the generation only grows.
	first := len(batch)
	for i, r := range batch {
		if r.gen == gen {
			first = i
			break
		}
	}
	if n == nil || first == len(batch) {
		return
	}
	take := batch[first:]
	ms := make([]*newsnet.Multicast, len(take))
	for i, r := range take {
		ms[i] = r.m
	}
	reports, err := n.PublishBatch(context.Background(), ms)
	switch {
	case errors.Is(err, node.ErrClosed):
		// Stopped meanwhile: the next start sends the rest from the outbox.
	case err != nil:
		// The rest stay in the outbox: the next start sends them, and until
		// then this servant answers retransmission requests for them from
		// the store.
		r := take[len(reports)]
		a.log.Error("handing publications to the servant failed; they stay in the outbox",
			"items", len(take)-len(reports), "first", r.it.ID, "count", r.it.SourceCount, "err", err)
	}
	for i, pub := range reports {
		r := take[i]
		if pub.Count != 0 && pub.Count != r.it.SourceCount {
			a.log.Warn("the servant renumbered a publication", "id", r.it.ID, "stored", r.it.SourceCount, "sent", pub.Count)
		}
		out := Delivered
		switch {
		case pub.Queued:
			out = Queued
		case pub.Links == 0:
			out = Suppressed
		}
		outs[first+i] = out
		a.log.Debug("published", "id", r.it.ID, "category", r.it.Category, "count", r.it.SourceCount, "outcome", out.String(), "links", pub.Links)
	}
	if len(reports) > 0 {
		a.log.Info("published", "items", len(reports), "last", take[len(reports)-1].it.SourceCount)
	}
}

// ownLast returns the counts to pass as Config.OwnLast.
func (a *App) ownLast() (map[string]uint64, error) {
	last, known, err := a.store.OwnLast()
	if err != nil || known {
		return last, err
	}
	// A store from before own-last was kept: rebuild it once.
	if err := a.store.RebuildOwnLast(a.source); err != nil {
		return nil, err
	}
	last, _, err = a.store.OwnLast()
	return last, err
}
