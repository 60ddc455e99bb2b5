package newsnet

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"maps"
	"slices"
	"time"
)

// Blob transfers (issue 29): an item's pictures and files travel the tree
// as blobs, beside the item and behind it. Transfers are pulled, hop by hop:
// a servant that wants a blob asks the neighbour toward the item's source
// for the chunks it lacks (BlobWant); a neighbour that holds them sends
// them, and one that does not remembers who asked, asks in turn toward the
// source, and passes each chunk on as soon as it arrived and was checked.
// So a blob crosses each link at most once whatever the number of askers
// behind it, crosses only links with a subscriber behind them, and reaches
// the last subscriber after about one blob's time plus a chunk's time per
// hop, not one blob's time per hop.
//
// A subscriber asks when an item is delivered to it, for the blobs the host
// marks eager (pictures, small files: BlobRef.Eager), and for the others
// when the host asks (FetchBlob: a reader opened the attachment). Chunks
// are checked against the chunk list, and the list against the manifest's
// root; a chunk that fails is dropped and asked for again. A transfer that
// makes no progress for BlobConfig.Timeout asks again, after two tries by
// another path; after BlobConfig.Attempts it is given up: the asking
// servant counts the blob lost (BlobLost) and the servants that asked it
// are told (BlobNone).
//
// Chunks yield to everything else on a link: one goes out only while the
// link's queue in the host holds less than BlobConfig.Window bytes and no
// items wait (blobHost.chunkRoom), so an urgent item waits behind at most
// that much.
//
// The core holds no blob bytes beyond a bounded set of chunks just
// received (freshChunks): the host stores each chunk (StoreBlobChunk) and
// the core reads it back when a link has room (BlobConfig.Store).

// blobHost is what the transfers need of the servant. *Servant implements
// it; the sub-machine's tests use a small fake.
type blobHost interface {
	clock() time.Time
	note(format string, args ...any)
	send(l *link, m Message)
	act(a Action)
	// linkByID is the open link with this ID, nil once it closed.
	linkByID(id LinkID) *link
	// chunkRoom reports whether l may take a chunk frame now.
	chunkRoom(l *link) bool
	// misbehaved counts a spoiled chunk or list against the link it came
	// over (conduct.go): the peer checked it before passing it on, so it
	// spoiled it.
	misbehaved(l *link, reason string, points float64)
	// blobPath is the tree link to ask for a blob of source's items: the
	// reverse path, else the other tree links, the uplink first; never
	// one that avoid refuses, nor one of a peer too old to carry blobs.
	// Nil when there is none.
	blobPath(source string, avoid func(*link) bool) *link
}

// blobTransfers is the sub-machine: every blob being got here or passed
// through, by hash.
type blobTransfers struct {
	cfg      *BlobConfig
	xfers    map[[32]byte]*blobTransfer
	fresh    freshChunks
	lost     uint64
	counters BlobCounters
}

// blobTransfer is one blob on its way: what is here, who wants it, where
// it was asked for.
type blobTransfer struct {
	ref    BlobRef
	source string
	n      int        // chunks
	list   [][32]byte // nil until the list arrived or was found stored
	have   chunkSet
	// local: wanted here; done: BlobDone was said.
	local, done bool
	down        map[LinkID]*blobDemand
	// up is the link asked, asked what was asked of it and not arrived,
	// headAsked whether the list was; due when to ask again, attempts how
	// often it was asked in vain, and tried the links asked in vain
	// (twice without progress, or answered BlobNone), which the next
	// path avoids while there is another.
	up        LinkID
	asked     chunkSet
	headAsked bool
	due       time.Time
	attempts  int
	tried     []LinkID
}

// blobDemand is what a neighbour asked of a blob and was not sent yet.
type blobDemand struct {
	head bool
	want chunkSet
}

func newBlobTransfers(cfg *BlobConfig) *blobTransfers {
	def := DefaultBlobConfig()
	cfg.Window = cmp.Or(cfg.Window, def.Window)
	cfg.Timeout = cmp.Or(cfg.Timeout, def.Timeout)
	cfg.Attempts = cmp.Or(cfg.Attempts, def.Attempts)
	cfg.MaxTransfers = cmp.Or(cfg.MaxTransfers, def.MaxTransfers)
	return &blobTransfers{cfg: cfg, xfers: map[[32]byte]*blobTransfer{},
		lost: cfg.Lost, fresh: freshChunks{limit: max(cfg.Window, BlobChunkSize) * 16}}
}

// transfer finds or starts the transfer of ref; nil when ref contradicts a
// running one, or MaxTransfers run.
func (b *blobTransfers) transfer(ref BlobRef, source string) *blobTransfer {
	if t := b.xfers[ref.Hash]; t != nil {
		if t.ref.Root != ref.Root || t.ref.Size != ref.Size {
			return nil
		}
		t.ref.Eager = t.ref.Eager || ref.Eager
		return t
	}
	n := BlobChunkCount(ref.Size)
	if n == 0 || n > MaxBlobChunks || len(b.xfers) >= b.cfg.MaxTransfers {
		return nil
	}
	t := &blobTransfer{ref: ref, source: source, n: n, have: make(chunkSet, (n+7)/8),
		asked: make(chunkSet, (n+7)/8), down: map[LinkID]*blobDemand{}}
	if b.cfg.Store != nil {
		if list, have := b.cfg.Store.BlobChunks(ref.Hash); len(list) == n && BlobRoot(list) == ref.Root {
			t.list = list
			for i, ok := range have {
				if ok && i < n {
					t.have.add(i)
				}
			}
		}
	}
	b.xfers[ref.Hash] = t
	return t
}

// fetch gets a blob whole here.
func (b *blobTransfers) fetch(host blobHost, ref BlobRef, source string) {
	t := b.transfer(ref, source)
	if t == nil {
		return
	}
	t.local = true
	if t.whole() {
		b.settle(host, t)
		return
	}
	b.request(host, t)
}

// want takes a neighbour's BlobWant: it sends what is here and asks on for
// the rest.
func (b *blobTransfers) want(host blobHost, from *link, w *BlobWant) {
	var t *blobTransfer
	if b.xfers[w.Hash] != nil || b.asking(from.id) < max(1, b.cfg.MaxTransfers/8) {
		t = b.transfer(BlobRef{Hash: w.Hash, Root: w.Root, Size: w.Size}, w.Source)
	}
	if t == nil {
		b.counters.Busy++
		host.send(from, &BlobNone{Hash: w.Hash})
		return
	}
	d := t.down[from.id]
	if d == nil {
		d = &blobDemand{want: make(chunkSet, len(t.have))}
		t.down[from.id] = d
	}
	d.head = d.head || w.Head
	if len(w.Missing) == 0 {
		d.want.union(allChunks(t.n), t.n)
	} else {
		d.want.union(chunkSet(w.Missing), t.n)
	}
	b.pump(host, from)
	if b.xfers[w.Hash] == t {
		b.request(host, t)
	}
}

// asking counts the transfers a link waits on: one neighbour may hold
// at most an eighth of MaxTransfers, so that wants for blobs nobody has
// cannot crowd out the others'.
func (b *blobTransfers) asking(id LinkID) int {
	n := 0
	for _, t := range b.xfers {
		if t.down[id] != nil {
			n++
		}
	}
	return n
}

// need is what t lacks of what is wanted of it: the chunks, and whether
// the list.
func (t *blobTransfer) need() (chunks chunkSet, head bool) {
	wanted := make(chunkSet, len(t.have))
	if t.local {
		wanted.union(allChunks(t.n), t.n)
	}
	for _, d := range t.down {
		wanted.union(d.want, t.n)
		head = head || d.head
	}
	chunks = wanted.minus(t.have, t.n)
	return chunks, t.list == nil && (head || !chunks.empty())
}

func (t *blobTransfer) whole() bool { return t.list != nil && t.have.len() == t.n }

// request asks upstream for what t needs and has not asked for yet.
func (b *blobTransfers) request(host blobHost, t *blobTransfer) {
	chunks, head := t.need()
	ask := chunks.minus(t.asked, t.n)
	head = head && !t.headAsked
	if ask.empty() && !head {
		return
	}
	up := host.linkByID(t.up)
	if up == nil {
		t.asked = make(chunkSet, len(t.have))
		t.headAsked = false
		ask = chunks
		head = t.list == nil
		up = b.path(host, t)
		if up == nil {
			// Nowhere to ask now: try again when it is due, backing off
			// as after a want in vain. Not only when due lies in the
			// past: retry runs at the tick that reached due, so due is
			// now, and a due left as it is would make the next tick
			// count another attempt (six attempts in 15 s, not two
			// minutes, for a servant rejoining or behind an older relay).
			if !t.due.After(host.clock()) {
				t.due = host.clock().Add(b.cfg.Timeout << min(t.attempts, 3))
			}
			return
		}
		t.up = up.id
	}
	w := &BlobWant{Hash: t.ref.Hash, Root: t.ref.Root, Size: t.ref.Size, Source: t.source, Head: head}
	if ask.len() < t.n {
		w.Missing = ask
	}
	host.send(up, w)
	t.asked.union(ask, t.n)
	t.headAsked = t.headAsked || head
	if !t.due.After(host.clock()) {
		// Not later when more is asked of the same peer: only progress
		// (a chunk) puts the next attempt off.
		t.due = host.clock().Add(b.cfg.Timeout << min(t.attempts, 3))
	}
}

// path picks the link to ask for t: never one that asked for it here (it
// looks to this side for the blob), and not one asked in vain while
// another carries blobs; once every link was, the reverse path again.
// Links asked in vain are remembered by ID, not counted: after the tree
// re-formed (a relay slept, a laptop moved), the attempts made meanwhile
// say nothing against the new links, and the uplink, which leads toward
// every source outside this subtree, is the first tried after the
// reverse path.
func (b *blobTransfers) path(host blobHost, t *blobTransfer) *link {
	asker := func(l *link) bool { return t.down[l.id] != nil }
	if l := host.blobPath(t.source, func(l *link) bool { return asker(l) || slices.Contains(t.tried, l.id) }); l != nil {
		return l
	}
	t.tried = t.tried[:0]
	return host.blobPath(t.source, asker)
}

// head takes a blob's chunk list from a neighbour.
func (b *blobTransfers) head(host blobHost, from *link, h *BlobHead) {
	t := b.xfers[h.Hash]
	if t == nil || t.list != nil || t.up != from.id {
		b.counters.Unasked++
		return
	}
	if len(h.Chunks) != t.n || BlobRoot(h.Chunks) != t.ref.Root {
		b.counters.Refused++
		host.note("refused the chunk list of blob %x from link %d: it does not match the manifest", h.Hash[:6], from.id)
		host.misbehaved(from, reasonForged, 1)
		t.headAsked = false
		return
	}
	t.list = h.Chunks
	host.act(StoreBlobHead{Ref: t.ref, Chunks: h.Chunks})
	b.pumpAll(host, t)
}

// chunk takes a chunk from a neighbour: checked, handed to the host,
// passed on to whoever asked for it.
func (b *blobTransfers) chunk(host blobHost, from *link, c *BlobChunk) {
	t := b.xfers[c.Hash]
	i := int(c.Index)
	if t == nil || t.list == nil || i >= t.n || t.have.has(i) {
		b.counters.Unasked++
		return
	}
	size := BlobChunkSize
	if i == t.n-1 {
		size = int(t.ref.Size - uint64(t.n-1)*BlobChunkSize)
	}
	if len(c.Data) != size || sha256.Sum256(c.Data) != t.list[i] {
		b.counters.Refused++
		host.note("refused chunk %d of blob %x from link %d: it does not match its hash", i, c.Hash[:6], from.id)
		host.misbehaved(from, reasonForged, 1)
		t.asked.remove(i)
		b.request(host, t)
		return
	}
	b.counters.ChunksIn++
	b.counters.BytesIn += uint64(len(c.Data))
	t.have.add(i)
	t.asked.remove(i)
	t.attempts = 0
	t.due = host.clock().Add(b.cfg.Timeout)
	host.act(StoreBlobChunk{Hash: c.Hash, Index: i, Data: c.Data})
	if have := t.have.len(); t.local && have%blobProgressEvery == 0 && have < t.n {
		host.act(BlobProgress{Hash: c.Hash, Have: have, Of: t.n})
	}
	b.fresh.put(c.Hash, i, c.Data)
	b.pumpAll(host, t)
	b.settle(host, t)
}

// none takes a neighbour's word that it cannot get the blob.
func (b *blobTransfers) none(host blobHost, from *link, n *BlobNone) {
	t := b.xfers[n.Hash]
	if t == nil || t.up != from.id {
		return
	}
	// Ask again when due, by another path if there is one: the peer may
	// get it later, and asking at once would only repeat.
	t.tried = append(t.tried, t.up)
	t.up = 0
	t.attempts++
	if t.attempts >= b.cfg.Attempts {
		b.giveUp(host, t)
		return
	}
	t.due = host.clock().Add(b.cfg.Timeout << min(t.attempts, 3))
}

// retry asks again by the next path, or gives up after BlobAttempts.
func (b *blobTransfers) retry(host blobHost, t *blobTransfer) {
	t.attempts++
	if t.attempts >= b.cfg.Attempts {
		b.giveUp(host, t)
		return
	}
	if t.attempts >= 2 && t.up != 0 {
		// Twice in vain: search, another link first.
		t.tried = append(t.tried, t.up)
		t.up = 0
	}
	t.asked = make(chunkSet, len(t.have))
	t.headAsked = false
	b.request(host, t)
}

func (b *blobTransfers) giveUp(host blobHost, t *blobTransfer) {
	delete(b.xfers, t.ref.Hash)
	host.note("gave up on blob %x of %s after %d attempts", t.ref.Hash[:6], t.source, t.attempts)
	if t.local && !t.whole() {
		b.lost++
		host.act(BlobLost{Hash: t.ref.Hash, Total: b.lost})
	}
	for _, id := range slices.Sorted(maps.Keys(t.down)) {
		if l := host.linkByID(id); l != nil {
			host.send(l, &BlobNone{Hash: t.ref.Hash})
		}
	}
}

// settle says BlobDone once a blob wanted here is whole, and forgets a
// transfer nobody waits on any more.
func (b *blobTransfers) settle(host blobHost, t *blobTransfer) {
	if t.local && t.whole() && !t.done {
		t.done = true
		host.act(BlobDone{Hash: t.ref.Hash})
	}
	if len(t.down) > 0 || t.local && !t.whole() || b.xfers[t.ref.Hash] != t {
		return
	}
	delete(b.xfers, t.ref.Hash)
	b.fresh.forget(t.ref.Hash)
}

// pumpAll sends what t's askers wait for, as far as their links have room.
func (b *blobTransfers) pumpAll(host blobHost, t *blobTransfer) {
	for _, id := range slices.Sorted(maps.Keys(t.down)) {
		if l := host.linkByID(id); l != nil {
			b.serve(host, l, t)
		}
	}
}

// pump sends l what it waits for, blob by blob in hash order, while it has
// room: called when l asked, and when its queue drained (Written).
func (b *blobTransfers) pump(host blobHost, l *link) {
	if len(b.xfers) == 0 {
		return
	}
	for _, h := range slices.SortedFunc(maps.Keys(b.xfers), func(x, y [32]byte) int { return bytes.Compare(x[:], y[:]) }) {
		t := b.xfers[h]
		if t == nil || t.down[l.id] == nil {
			continue
		}
		if !b.serve(host, l, t) {
			return
		}
	}
}

// serve sends l the list and the chunks of t it asked for and that are
// here, while l has room; false when it ran out of room.
func (b *blobTransfers) serve(host blobHost, l *link, t *blobTransfer) bool {
	d := t.down[l.id]
	if d == nil {
		return true
	}
	if d.head && t.list != nil {
		host.send(l, &BlobHead{Hash: t.ref.Hash, Chunks: t.list})
		d.head = false
	}
	for _, i := range d.want.and(t.have, t.n) {
		if !host.chunkRoom(l) {
			return false
		}
		data := b.fresh.get(t.ref.Hash, i)
		if data == nil && b.cfg.Store != nil {
			data = b.cfg.Store.BlobChunk(t.ref.Hash, i)
		}
		if data == nil {
			// The store lost it (full disk, a purge): get it again.
			t.have.remove(i)
			t.done = false
			b.request(host, t)
			continue
		}
		host.send(l, &BlobChunk{Hash: t.ref.Hash, Index: uint32(i), Data: data})
		d.want.remove(i)
		b.counters.ChunksOut++
		b.counters.BytesOut += uint64(len(data))
	}
	if !d.head && d.want.empty() {
		delete(t.down, l.id)
		b.settle(host, t)
	}
	return true
}

// linkDown forgets what a closed link asked for, and asks again by another
// path what was asked over it.
func (b *blobTransfers) linkDown(host blobHost, id LinkID) {
	for _, h := range slices.SortedFunc(maps.Keys(b.xfers), func(x, y [32]byte) int { return bytes.Compare(x[:], y[:]) }) {
		t := b.xfers[h]
		delete(t.down, id)
		if t.up == id {
			t.up = 0
			if b.request(host, t); b.xfers[h] != t {
				continue
			}
		}
		b.settle(host, t)
	}
}

// tick asks again for transfers that stalled.
func (b *blobTransfers) tick(host blobHost) {
	now := host.clock()
	for _, h := range slices.SortedFunc(maps.Keys(b.xfers), func(x, y [32]byte) int { return bytes.Compare(x[:], y[:]) }) {
		t := b.xfers[h]
		if t == nil {
			continue
		}
		for id := range t.down {
			if host.linkByID(id) == nil {
				delete(t.down, id) // closed: nobody waits there any more
			}
		}
		if t.up != 0 && host.linkByID(t.up) == nil {
			t.up = 0
			b.request(host, t)
		}
		if b.settle(host, t); b.xfers[h] != t || now.Before(t.due) {
			continue
		}
		if chunks, head := t.need(); chunks.empty() && !head {
			continue
		}
		b.retry(host, t)
	}
}
