package node

import (
	"bytes"
	"context"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
)

// diskKeeper keeps blobs in a storage.Store, as the application does
// (app.blobKeeper): every chunk synced to its file, then its record
// committed.
type diskKeeper struct{ s *storage.Store }

func (k diskKeeper) BlobChunks(hash [32]byte) ([][32]byte, []bool) { return k.s.ChunksHeld(hash) }

func (k diskKeeper) BlobChunk(hash [32]byte, i int) []byte {
	b, err := k.s.BlobChunk(hash, i)
	if err != nil {
		return nil
	}
	return b
}

func (k diskKeeper) KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error {
	return k.s.BeginBlob(news.Attachment{Hash: ref.Hash, Root: ref.Root, Size: int64(ref.Size)}, chunks)
}

func (k diskKeeper) KeepBlobChunk(hash [32]byte, i int, data []byte) error {
	_, err := k.s.PutBlobChunk(hash, i, data)
	return err
}

func (k diskKeeper) KeepBlobChunks(hash [32]byte, chunks []BlobChunkData) error {
	at := make([]storage.BlobChunkAt, len(chunks))
	for i, c := range chunks {
		at[i] = storage.BlobChunkAt{Index: c.Index, Data: c.Data}
	}
	_, err := k.s.PutBlobChunks(hash, at)
	return err
}

func (k diskKeeper) whole(hash [32]byte) []byte {
	f, err := k.s.OpenBlob(hash)
	if err != nil {
		return nil
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil
	}
	return b.Bytes()
}

// BenchmarkBlobToDisk: a 5 MB picture to 8 subscribers on loopback that
// keep it in a real store (fsync on), in a tree of fanout 2 so that most
// are relays too; and an item published just after it, which must not
// wait for the chunks' writes. It reports the time to the last complete
// copy and the slowest subscriber's delay of the item, with the chunks
// written on the node's loop (as before the blob writer) and by the blob
// writer, in the same run.
//
//	go test ./newsnet/node/ -run '^$' -bench BlobToDisk -benchtime 3x -count 3
func BenchmarkBlobToDisk(b *testing.B) {
	b.Run("loop", func(b *testing.B) { benchBlobToDisk(b, true) })
	b.Run("writer", func(b *testing.B) { benchBlobToDisk(b, false) })
}

func benchBlobToDisk(b *testing.B, onLoop bool) {
	const size = 5 << 20
	var refs itemBlobs
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := overlayCore(seeds...)
		c.Fanout = 2
		c.Blob.Refs = refs.refs
		return c
	}
	start := func(cfg Config) *Node {
		cfg.Listen = "127.0.0.1:0"
		n, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close() })
		return n
	}
	pubKeep := newMemKeeper()
	pub := start(Config{Protocol: core(), Blobs: pubKeep})
	nodes := []*overlayNode{{Node: pub}}
	type sub struct {
		n    *Node
		keep diskKeeper
		got  *deliveries
	}
	var subs []sub
	done := make(chan [32]byte, 64)
	for range 8 {
		st, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		s := sub{keep: diskKeeper{st}, got: &deliveries{}}
		c := core(pub.Addr())
		c.Subscriptions = []string{"photos", "news"}
		s.n = start(Config{Protocol: c, Blobs: s.keep, blobsOnLoop: onLoop, OnDeliver: s.got.add, OnBlob: func(a newsnet.Action) {
			if d, ok := a.(newsnet.BlobDone); ok {
				done <- d.Hash
			}
		}})
		subs = append(subs, s)
		nodes = append(nodes, &overlayNode{Node: s.n, subs: newsnet.CategorySet{"news", "photos"}})
	}
	deadline := time.Now().Add(time.Minute)
	for err := checkOverlay(nodes); err != nil; err = checkOverlay(nodes) {
		if time.Now().After(deadline) {
			b.Fatalf("no converged tree: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var toLast, itemLate time.Duration
	b.ResetTimer()
	for i := range b.N {
		data := randomBytes(uint64(100+i), size)
		ref := pubKeep.put(data)
		m := newMsg("photos")
		refs.attach(m, ref)
		t0 := time.Now()
		if _, err := pub.Publish(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		// The item right behind the picture: by the time it is sent, the
		// subscribers' loops are busy with its chunks.
		time.Sleep(50 * time.Millisecond)
		urgent := newMsg("news")
		t1 := time.Now()
		if _, err := pub.Publish(context.Background(), urgent); err != nil {
			b.Fatal(err)
		}
		var slowest time.Duration
		for _, s := range subs {
			for s.got.count(urgent.ID) == 0 {
				if time.Since(t1) > time.Minute {
					b.Fatal("the item did not arrive in a minute")
				}
				time.Sleep(time.Millisecond)
			}
			slowest = max(slowest, time.Since(t1))
		}
		itemLate += slowest
		for range subs {
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				b.Fatal("not every subscriber got the picture in 2 minutes")
			}
		}
		toLast += time.Since(t0)
		for _, s := range subs {
			if !bytes.Equal(s.keep.whole(ref.Hash), data) {
				b.Fatalf("%s holds another picture", s.n.Addr())
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(toLast.Seconds()/n, "s-to-last")
	b.ReportMetric(float64(itemLate.Milliseconds())/n, "item-ms")
}
