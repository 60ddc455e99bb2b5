package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
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

// itemBlobs names the blobs of test items, as a host reads them from an
// item's manifest (BlobConfig.Refs).
type itemBlobs struct{ byItem sync.Map } // [16]byte → []newsnet.BlobRef

func (b *itemBlobs) attach(m *newsnet.Multicast, refs ...newsnet.BlobRef) { b.byItem.Store(m.ID, refs) }

func (b *itemBlobs) refs(m *newsnet.Multicast) []newsnet.BlobRef {
	v, _ := b.byItem.Load(m.ID)
	refs, _ := v.([]newsnet.BlobRef)
	return refs
}

// randomBytes are size bytes drawn from seed.
func randomBytes(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	return data
}

// Over TCP: a picture attached to an item reaches every subscriber whole,
// each told once that it is done.
func TestBlobOverTCP(t *testing.T) {
	log := newTestLog(t)
	data := randomBytes(1, 3<<20+99)
	var attached itemBlobs
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := fastCore(seeds...)
		c.Blob.Refs = attached.refs
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
	attached.attach(m, ref)
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

// spoilingConn flips the last byte of the first attachment chunk that
// arrives over a connection, as a relay that spoils what it passes on.
type spoilingConn struct {
	net.Conn
	mu      sync.Mutex
	hello   int // bytes of the peer's hello still to skip; -1 before its length is known
	header  []byte
	frameAt int // bytes of the current frame read
	length  int // the current frame's length, type byte included
	kind    byte
	spoiled *atomic.Int32
	done    bool
}

func spoiling(count *atomic.Int32) func(net.Conn) net.Conn {
	return func(c net.Conn) net.Conn { return &spoilingConn{Conn: c, hello: -1, spoiled: count} }
}

func (c *spoilingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < n; i++ {
		b := p[i]
		switch {
		case c.hello != 0:
			// "NDSK", min, max (2 bytes each), the release's length, the release.
			c.header = append(c.header, b)
			if c.hello == -1 && len(c.header) == 9 {
				c.hello = int(b)
				c.header = c.header[:0]
			} else if c.hello > 0 && len(c.header) == c.hello {
				c.hello, c.header = 0, c.header[:0]
			}
		case c.length == 0:
			c.header = append(c.header, b)
			if len(c.header) == 4 {
				c.length = int(binary.BigEndian.Uint32(c.header))
				c.header, c.frameAt = c.header[:0], 0
			}
		default:
			if c.frameAt == 0 {
				c.kind = b
			}
			c.frameAt++
			if c.frameAt == c.length {
				if c.kind == 30 && !c.done { // a BlobChunk: its last byte is data
					p[i] ^= 0xff
					c.done = true
					c.spoiled.Add(1)
				}
				c.length = 0
			}
		}
	}
	return n, err
}

// Over TCP, 30 servants: every subscriber's first chunk arrives spoiled
// and is refused and fetched again, every subscriber ends with the picture
// whole; then the publisher leaves, and a subscriber that joins later
// catches the item up from the archive and gets the picture from the
// nearest holder up the tree (the archive, or a subscriber on the way).
func TestBlobRepairAndArchiveOverTCP(t *testing.T) {
	log := newTestLog(t)
	var attached itemBlobs
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := overlayCore(seeds...)
		c.Blob.Refs = attached.refs
		return c
	}
	archive, archKeep := newMemArchive(), newMemKeeper()
	archCore := core()
	archCore.Subscriptions = []string{newsnet.AllCategories}
	archCore.Archive = archive
	arch := startNode(t, Config{Protocol: archCore, Logger: log, Blobs: archKeep, OnDeliver: archive.put})
	pubKeep := newMemKeeper()
	pub := startNode(t, Config{Protocol: core(arch.Addr()), Logger: log, Blobs: pubKeep})
	nodes := []*overlayNode{{Node: arch, subs: newsnet.CategorySet{newsnet.AllCategories}}, {Node: pub}}
	var spoiled atomic.Int32
	type sub struct {
		n    *Node
		keep *memKeeper
	}
	var subs []sub
	for range 28 {
		s := sub{keep: newMemKeeper()}
		c := core(arch.Addr())
		c.Subscriptions = []string{"photos"}
		s.n = startNode(t, Config{Protocol: c, Logger: log, Blobs: s.keep, wrapDial: spoiling(&spoiled)})
		subs = append(subs, s)
		nodes = append(nodes, &overlayNode{Node: s.n, subs: newsnet.CategorySet{"photos"}})
	}
	waitFor(t, time.Minute, "one tree with converged routing", func() error { return checkOverlay(nodes) })

	data := randomBytes(5, 1<<20+3)
	ref := pubKeep.put(data)
	m := newMsg("photos")
	attached.attach(m, ref)
	if _, err := pub.Publish(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "the picture whole everywhere", func() error {
		for _, s := range append(subs, sub{arch, archKeep}) {
			if !bytes.Equal(s.keep.whole(ref.Hash), data) {
				return fmt.Errorf("%s lacks it", s.n.Addr())
			}
		}
		return nil
	})
	// A spoiled chunk is refused, or dropped unread when it came late
	// (its chunk had arrived meanwhile, its link was closed); none is kept,
	// as the pictures above show.
	var refused, unasked uint64
	for _, s := range subs {
		st := s.n.Status().Blobs
		refused, unasked = refused+st.Refused, unasked+st.Unasked
	}
	if spoiled.Load() == 0 || refused == 0 || refused+unasked < uint64(spoiled.Load()) {
		t.Errorf("%d chunks spoiled on the way, %d refused, %d dropped as unasked", spoiled.Load(), refused, unasked)
	}

	// The publisher leaves; a newcomer catches up from the archive.
	pub.Close()
	lateKeep := newMemKeeper()
	var lateGot deliveries
	lc := core(arch.Addr())
	lc.Subscriptions = []string{"photos"}
	late := startNode(t, Config{Protocol: lc, Logger: log, Blobs: lateKeep, OnDeliver: lateGot.add})
	waitFor(t, time.Minute, "the newcomer to catch the item up", func() error {
		if lateGot.count(m.ID) != 1 {
			return fmt.Errorf("delivered %d times", lateGot.count(m.ID))
		}
		return nil
	})
	waitFor(t, time.Minute, "the newcomer to get the picture from a holder up the tree", func() error {
		if !bytes.Equal(lateKeep.whole(ref.Hash), data) {
			return fmt.Errorf("%s holds %d bytes", late.Addr(), len(lateKeep.whole(ref.Hash)))
		}
		return nil
	})
}
