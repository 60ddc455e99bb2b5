package node

import (
	"log/slog"
	"sync"

	"newsdesk/newsnet"
)

// Attachments' bytes (newsnet/blobs.go): the core decides what to ask for
// and what to pass on; the node keeps what arrives in the host's store and
// tells the host when a blob is whole or lost.

// BlobKeeper is the host's store of blobs as the node needs it: the core
// reads it (newsnet.BlobStore, on the node's loop) and the node writes the
// chunk lists and chunks the core checked, on a goroutine of its own (the
// blob writer), one write at a time and in the order the core asked: a
// list before its chunks. A read may run while a write does.
type BlobKeeper interface {
	newsnet.BlobStore
	KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error
	KeepBlobChunk(hash [32]byte, index int, data []byte) error
}

// BlobBatchKeeper is a BlobKeeper that can store several chunks of one blob
// at once, made durable together (one sync for all, not one per chunk).
// The blob writer uses it for the chunks of a blob that queued up while it
// wrote the ones before. A chunk that fails fails the rest of its batch.
type BlobBatchKeeper interface {
	BlobKeeper
	KeepBlobChunks(hash [32]byte, chunks []BlobChunkData) error
}

// BlobChunkData is one chunk of a blob, for KeepBlobChunks.
type BlobChunkData struct {
	Index int
	Data  []byte
}

// FetchBlob asks the servant to get a blob whole here (an attachment a
// reader opened, or one found incomplete after a restart); source is the
// item's. The host hears of the result through Config.OnBlob.
func (n *Node) FetchBlob(ref newsnet.BlobRef, source string) error {
	return n.do(func(*newsnet.Servant) {
		n.step(newsnet.FetchBlob{Ref: ref, Source: source})
	})
}

// keepBlob carries out the core's blob actions: through the blob writer
// when there is a store, so that the loop never waits for a chunk's sync;
// else at once (BlobDone and the like to onBlob). A write that fails (a
// full disk) is logged: the chunk is missing here, and a neighbour that
// asks for it, or this servant's next FetchBlob, gets it again.
func (n *Node) keepBlob(a newsnet.Action) {
	if l, ok := a.(newsnet.BlobLost); ok {
		n.log.Warn("attachment lost", "blob", l.Hash, "total", l.Total)
	}
	if n.blobWriter != nil {
		n.blobWriter.push(a)
		return
	}
	if err := KeepBlob(n.blobs, n.onBlob, a); err != nil {
		n.log.Warn("keeping an attachment's chunk failed", "err", err)
	}
}

// KeepBlob carries out one of the core's blob actions for a host: the
// chunk lists and chunks into keeper, BlobDone, BlobLost and BlobProgress
// to onBlob
// (either may be nil). The simulated runtime (simnode) shares it.
func KeepBlob(keeper BlobKeeper, onBlob func(newsnet.Action), a newsnet.Action) error {
	switch a := a.(type) {
	case newsnet.StoreBlobHead:
		if keeper != nil {
			return keeper.KeepBlobHead(a.Ref, a.Chunks)
		}
	case newsnet.StoreBlobChunk:
		if keeper != nil {
			return keeper.KeepBlobChunk(a.Hash, a.Index, a.Data)
		}
	case newsnet.BlobDone, newsnet.BlobLost, newsnet.BlobProgress:
		if onBlob != nil {
			onBlob(a)
		}
	}
	return nil
}

// blobWriterBytes bounds the chunk bytes queued for the blob writer: as
// many as the core keeps of the chunks it just received (4 MiB), so that a
// burst of chunks off the network waits in memory for the disk, not on
// the loop. Beyond, the loop waits for the disk, as it did when it wrote
// them itself.
const blobWriterBytes = 4 << 20

// blobWriter writes the core's chunk lists and chunks to the host's store
// off the node's loop (about two syncs a chunk: the chunk's bytes, then
// its record), in the order the core asked for them, and tells the host
// of BlobDone, BlobLost and BlobProgress in that order too: only once the
// chunks before are stored, so a blob said done is durable, and a crash
// leaves a blob whole or absent as before (the store's guarantee).
//
// Until a chunk is written, the core reads it here (BlobStore): to the
// core a chunk is stored the moment it asked, as before. So a relay passes
// chunks on without waiting for the disk; what it passes was checked
// against its hash either way.
type blobWriter struct {
	keeper BlobKeeper
	onBlob func(newsnet.Action)
	log    *slog.Logger

	mu     sync.Mutex
	wake   sync.Cond // the queue changed: the writer waits for work, the loop for room
	queue  []queuedBlob
	seq    uint64 // numbers the queued actions
	bytes  int    // chunk bytes queued or being written
	closed bool
	// What is queued or being written, for the core's reads, with the
	// number of the action that writes it (the latest, if asked twice).
	chunks map[chunkKey]queuedBlob
	heads  map[[32]byte]queuedBlob
}

type queuedBlob struct {
	a   newsnet.Action
	seq uint64
}

type chunkKey struct {
	hash  [32]byte
	index int
}

var _ newsnet.BlobStore = (*blobWriter)(nil)

func newBlobWriter(keeper BlobKeeper, onBlob func(newsnet.Action), log *slog.Logger) *blobWriter {
	w := &blobWriter{keeper: keeper, onBlob: onBlob, log: log,
		chunks: map[chunkKey]queuedBlob{}, heads: map[[32]byte]queuedBlob{}}
	w.wake.L = &w.mu
	return w
}

// push queues one of the core's blob actions. Loop only. It waits only
// while blobWriterBytes are queued: the disk is behind the network.
func (w *blobWriter) push(a newsnet.Action) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	q := queuedBlob{a, w.seq}
	switch a := a.(type) {
	case newsnet.StoreBlobChunk:
		for w.bytes >= blobWriterBytes && !w.closed {
			w.wake.Wait()
		}
		w.chunks[chunkKey{a.Hash, a.Index}] = q
		w.bytes += len(a.Data)
	case newsnet.StoreBlobHead:
		w.heads[a.Ref.Hash] = q
	}
	w.queue = append(w.queue, q)
	w.wake.Broadcast()
}

// close lets the writer finish what is queued and end.
func (w *blobWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.wake.Broadcast()
	w.mu.Unlock()
}

// run writes what is queued, taking all of it at once so that the chunks
// of one blob that queued up meanwhile are made durable together, until
// close and the queue is empty.
func (w *blobWriter) run() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed {
			w.wake.Wait()
		}
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		if len(batch) == 0 {
			return // closed and drained
		}
		w.write(batch)
		w.mu.Lock()
		for _, q := range batch {
			switch a := q.a.(type) {
			case newsnet.StoreBlobChunk:
				k := chunkKey{a.Hash, a.Index}
				if w.chunks[k].seq == q.seq {
					delete(w.chunks, k)
				}
				w.bytes -= len(a.Data)
			case newsnet.StoreBlobHead:
				if w.heads[a.Ref.Hash].seq == q.seq {
					delete(w.heads, a.Ref.Hash)
				}
			}
		}
		w.wake.Broadcast()
		w.mu.Unlock()
	}
}

// write carries out batch in order, the chunks of one blob that follow
// each other in one KeepBlobChunks where the keeper has it.
func (w *blobWriter) write(batch []queuedBlob) {
	batcher, _ := w.keeper.(BlobBatchKeeper)
	for i := 0; i < len(batch); i++ {
		c, ok := batch[i].a.(newsnet.StoreBlobChunk)
		if !ok || batcher == nil {
			w.keep(batch[i].a)
			continue
		}
		run := []BlobChunkData{{Index: c.Index, Data: c.Data}}
		for i+1 < len(batch) {
			next, ok := batch[i+1].a.(newsnet.StoreBlobChunk)
			if !ok || next.Hash != c.Hash {
				break
			}
			run = append(run, BlobChunkData{Index: next.Index, Data: next.Data})
			i++
		}
		if err := batcher.KeepBlobChunks(c.Hash, run); err != nil {
			w.log.Warn("keeping an attachment's chunks failed", "err", err, "chunks", len(run))
		}
	}
}

func (w *blobWriter) keep(a newsnet.Action) {
	if err := KeepBlob(w.keeper, w.onBlob, a); err != nil {
		w.log.Warn("keeping an attachment's chunk failed", "err", err)
	}
}

// BlobChunks implements newsnet.BlobStore: the store's, with what is
// queued for it. What is queued is read first: a chunk written meanwhile
// is in the store by the time the store is read.
func (w *blobWriter) BlobChunks(hash [32]byte) ([][32]byte, []bool) {
	w.mu.Lock()
	var head [][32]byte
	if q, ok := w.heads[hash]; ok {
		head = q.a.(newsnet.StoreBlobHead).Chunks
	}
	var queued []int
	for k := range w.chunks {
		if k.hash == hash {
			queued = append(queued, k.index)
		}
	}
	w.mu.Unlock()
	list, have := w.keeper.BlobChunks(hash)
	if list == nil {
		if head == nil {
			return nil, nil
		}
		list, have = head, make([]bool, len(head))
	}
	for _, i := range queued {
		if i < len(have) {
			have[i] = true
		}
	}
	return list, have
}

// BlobChunk implements newsnet.BlobStore: a chunk still queued, else the
// store's.
func (w *blobWriter) BlobChunk(hash [32]byte, index int) []byte {
	w.mu.Lock()
	q, ok := w.chunks[chunkKey{hash, index}]
	w.mu.Unlock()
	if ok {
		return q.a.(newsnet.StoreBlobChunk).Data
	}
	return w.keeper.BlobChunk(hash, index)
}
