package node

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// gatedKeeper is a memKeeper whose writes wait until the test opens the
// gate: a disk that is slow to sync.
type gatedKeeper struct {
	*memKeeper
	gate    chan struct{}
	mu      sync.Mutex
	batches [][]int // the chunk indexes of each KeepBlobChunks
}

func (k *gatedKeeper) KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error {
	<-k.gate
	return k.memKeeper.KeepBlobHead(ref, chunks)
}

func (k *gatedKeeper) KeepBlobChunks(hash [32]byte, chunks []BlobChunkData) error {
	<-k.gate
	var idx []int
	for _, c := range chunks {
		idx = append(idx, c.Index)
		k.memKeeper.KeepBlobChunk(hash, c.Index, c.Data)
	}
	k.mu.Lock()
	k.batches = append(k.batches, idx)
	k.mu.Unlock()
	return nil
}

// The blob writer takes the chunks' writes off the loop: while the disk
// has not stored them, the core reads them from the writer (so a relay
// passes them on at once), BlobDone waits until every chunk before it is
// stored, chunks of one blob that queued up are stored in one batch, and
// close stores what is queued before the writer ends.
func TestBlobWriter(t *testing.T) {
	data := randomBytes(9, 3*newsnet.BlobChunkSize+5)
	src := newMemKeeper()
	ref := src.put(data)
	list, _ := src.BlobChunks(ref.Hash)
	k := &gatedKeeper{memKeeper: newMemKeeper(), gate: make(chan struct{})}
	done := make(chan newsnet.Action, 4)
	w := newBlobWriter(k, func(a newsnet.Action) { done <- a }, slog.New(slog.DiscardHandler))
	// Queued before the writer runs, so that they make one batch.
	w.push(newsnet.StoreBlobHead{Ref: ref, Chunks: list})
	for i := range list {
		w.push(newsnet.StoreBlobChunk{Hash: ref.Hash, Index: i, Data: src.BlobChunk(ref.Hash, i)})
	}
	w.push(newsnet.BlobDone{Hash: ref.Hash})
	ended := make(chan struct{})
	go func() {
		w.run()
		close(ended)
	}()
	gotList, have := w.BlobChunks(ref.Hash)
	if len(gotList) != len(list) || len(have) != len(list) {
		t.Fatalf("before the disk stored anything: list of %d, have %v", len(gotList), have)
	}
	for i := range list {
		if !have[i] || !bytes.Equal(w.BlobChunk(ref.Hash, i), src.BlobChunk(ref.Hash, i)) {
			t.Fatalf("chunk %d not served from the queue (have %v)", i, have)
		}
	}
	select {
	case a := <-done:
		t.Fatalf("%T said before the chunks were stored", a)
	case <-time.After(50 * time.Millisecond):
	}
	close(k.gate)
	select {
	case a := <-done:
		if d, ok := a.(newsnet.BlobDone); !ok || d.Hash != ref.Hash {
			t.Fatalf("got %#v, want BlobDone", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no BlobDone after the disk caught up")
	}
	if !bytes.Equal(k.whole(ref.Hash), data) {
		t.Fatal("the store does not hold the blob whole after BlobDone")
	}
	k.mu.Lock()
	batches := len(k.batches)
	k.mu.Unlock()
	if batches != 1 {
		t.Errorf("the %d chunks queued together were stored in %d batches, want 1", len(list), batches)
	}
	// Once stored, the core reads the store; the queue holds nothing.
	w.mu.Lock()
	queued, bytesQueued := len(w.chunks)+len(w.heads), w.bytes
	w.mu.Unlock()
	if queued != 0 || bytesQueued != 0 {
		t.Errorf("after the writes: %d entries, %d bytes still counted queued", queued, bytesQueued)
	}
	// Close stores what is queued, then ends.
	other := randomBytes(10, 100)
	oref := src.put(other)
	olist, _ := src.BlobChunks(oref.Hash)
	w.push(newsnet.StoreBlobHead{Ref: oref, Chunks: olist})
	w.push(newsnet.StoreBlobChunk{Hash: oref.Hash, Index: 0, Data: other})
	w.close()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not end after close")
	}
	if !bytes.Equal(k.whole(oref.Hash), other) {
		t.Error("a chunk queued before close was not stored")
	}
}
