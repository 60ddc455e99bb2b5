package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// memKeeper is a host's blob store in memory.
type memKeeper struct {
	mu     sync.Mutex
	lists  map[[32]byte][][32]byte
	chunks map[[32]byte]map[int][]byte
}

func newMemKeeper() *memKeeper {
	return &memKeeper{lists: map[[32]byte][][32]byte{}, chunks: map[[32]byte]map[int][]byte{}}
}

func (k *memKeeper) BlobChunks(hash [32]byte) ([][32]byte, []bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	list := k.lists[hash]
	have := make([]bool, len(list))
	for i := range list {
		_, have[i] = k.chunks[hash][i]
	}
	return list, have
}

func (k *memKeeper) BlobChunk(hash [32]byte, i int) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.chunks[hash][i]
}

func (k *memKeeper) KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lists[ref.Hash] = chunks
	return nil
}

func (k *memKeeper) KeepBlobChunk(hash [32]byte, i int, data []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.chunks[hash] == nil {
		k.chunks[hash] = map[int][]byte{}
	}
	k.chunks[hash][i] = data
	return nil
}

// put keeps data whole, as the publisher's store does; it returns its
// reference.
func (k *memKeeper) put(data []byte) newsnet.BlobRef {
	var list [][32]byte
	for off := 0; off < len(data); off += newsnet.BlobChunkSize {
		chunk := data[off:min(len(data), off+newsnet.BlobChunkSize)]
		list = append(list, sha256.Sum256(chunk))
		k.KeepBlobChunk(sha256.Sum256(data), len(list)-1, chunk)
	}
	ref := newsnet.BlobRef{Hash: sha256.Sum256(data), Root: newsnet.BlobRoot(list), Size: uint64(len(data)), Eager: true}
	k.KeepBlobHead(ref, list)
	return ref
}

func (k *memKeeper) whole(hash [32]byte) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []byte
	for i := range k.lists[hash] {
		c, ok := k.chunks[hash][i]
		if !ok {
			return nil
		}
		out = append(out, c...)
	}
	return out
}

// Over TCP: a picture attached to an item reaches every subscriber whole,
// each told once that it is done.
func TestBlobOverTCP(t *testing.T) {
	log := newTestLog(t)
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3<<20+99)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	var mu sync.Mutex
	attached := map[[16]byte][]newsnet.BlobRef{}
	refs := func(m *newsnet.Multicast) []newsnet.BlobRef {
		mu.Lock()
		defer mu.Unlock()
		return attached[m.ID]
	}
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := fastCore(seeds...)
		c.Blob.Refs = refs
		return c
	}
	pubKeeper := newMemKeeper()
	pub := startNode(t, Config{Protocol: core(), Logger: log, Blobs: pubKeeper})
	type sub struct {
		n    *Node
		keep *memKeeper
		done chan [32]byte
	}
	var subs []sub
	for range 5 {
		s := sub{keep: newMemKeeper(), done: make(chan [32]byte, 4)}
		c := core(pub.Addr())
		c.Subscriptions = []string{"photos"}
		s.n = startNode(t, Config{Protocol: c, Logger: log, Blobs: s.keep, OnBlob: func(a newsnet.Action) {
			if d, ok := a.(newsnet.BlobDone); ok {
				s.done <- d.Hash
			}
		}})
		subs = append(subs, s)
	}
	waitFor(t, 10*time.Second, "a tree with the subscriptions known", func() error {
		if got := len(pub.Status().Downs); got == 0 {
			return fmt.Errorf("the publisher has no downlinks yet")
		}
		for _, s := range subs {
			if s.n.Status().Up == "" {
				return fmt.Errorf("%s is not attached", s.n.Addr())
			}
		}
		return nil
	})
	ref := pubKeeper.put(data)
	m := newMsg("photos")
	mu.Lock()
	attached[m.ID] = []newsnet.BlobRef{ref}
	mu.Unlock()
	waitFor(t, 10*time.Second, "the item routed to every subscriber", func() error {
		if p, err := pub.Publish(context.Background(), m); err != nil || p.Links == 0 {
			return fmt.Errorf("published to %d links: %v", p.Links, err)
		}
		return nil
	})
	for _, s := range subs {
		select {
		case h := <-s.done:
			if h != ref.Hash {
				t.Errorf("%s said done for another blob", s.n.Addr())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s did not get the picture", s.n.Addr())
		}
		if got := s.keep.whole(ref.Hash); !bytes.Equal(got, data) {
			t.Errorf("%s holds %d bytes, want the %d of the picture", s.n.Addr(), len(got), len(data))
		}
	}
}
