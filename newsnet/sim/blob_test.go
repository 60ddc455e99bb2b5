package sim

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Attachments over the tree (issue 29): a 5 MB picture in one category
// reaches every subscriber whole and verified; chunks go only toward
// subscribers; in a calm network each link carries each chunk once.

type chunkHop struct {
	from, to newsnet.ServantID
	index    uint32
}

// blobNetwork is 200 servants of which about one in five subscribes to
// "photos"; the first publishes.
func blobNetwork(t *testing.T, seed uint64) (*Network, []newsnet.ServantID, map[newsnet.ServantID]bool) {
	t.Helper()
	n := New(seed)
	n.Bandwidth = 8 << 20 // 8 MB/s a direction: the picture takes time on every link
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 200 {
		ids = append(ids, randomID(r, used))
	}
	subscribed := map[newsnet.ServantID]bool{}
	for i, id := range ids {
		var subs []string
		if i > 0 && r.IntN(5) == 0 {
			subs = []string{"photos"}
			subscribed[id] = true
		}
		n.Add(id, ids[:2], subs...)
		if i%50 == 49 {
			n.RunFor(200 * time.Millisecond)
		}
	}
	if !n.RunUntil(10*time.Minute, n.Settled) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	return n, ids, subscribed
}

func picture(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestBlobReachesEverySubscriberOnce(t *testing.T) {
	n, ids, subscribed := blobNetwork(t, 21)
	hops := map[chunkHop]int{}
	received := map[newsnet.ServantID]int{}
	forwarded := map[newsnet.ServantID]int{}
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if c, ok := m.(*newsnet.BlobChunk); ok {
			hops[chunkHop{from, to, c.Index}]++
			received[to]++
			forwarded[from]++
		}
		return true
	}
	data := picture(1, 5<<20+12345)
	_, ref := n.PublishBlob(ids[0], "photos", data)
	n.RunUntil(5*time.Minute, func() bool {
		for id := range subscribed {
			if n.Node(id).Blobs.Whole(ref.Hash) == nil {
				return false
			}
		}
		return true
	})
	for id := range subscribed {
		if got := n.Node(id).Blobs.Whole(ref.Hash); !bytes.Equal(got, data) {
			t.Errorf("subscriber %s holds %d of %d chunks", id, n.Node(id).Blobs.Chunks(ref.Hash), newsnet.BlobChunkCount(ref.Size))
		}
	}
	for hop, times := range hops {
		if times > 1 {
			t.Errorf("chunk %d crossed %s→%s %d times, want once", hop.index, hop.from, hop.to, times)
		}
	}
	// A servant that subscribes to nothing receives chunks only to pass
	// them on: no chunk ends at a non-subscriber.
	relays := 0
	for _, id := range ids[1:] {
		if !subscribed[id] && received[id] > 0 {
			relays++
			if forwarded[id] < received[id] {
				t.Errorf("non-subscriber %s received %d chunks and passed on only %d", id, received[id], forwarded[id])
			}
		}
	}
	// The publisher sends the picture once per link with subscribers
	// behind it: at most (fanout + 1) copies.
	chunks := newsnet.BlobChunkCount(ref.Size)
	if sent := forwarded[ids[0]]; sent > (n.Base.Fanout+1)*chunks {
		t.Errorf("the publisher sent %d chunks, more than (fanout+1) × %d", sent, chunks)
	}
	t.Logf("%d subscribers, %d relays that subscribe to nothing, publisher sent %d copies' worth", len(subscribed), relays, forwarded[ids[0]]/chunks)
	for _, nd := range n.Alive() {
		if nd.BlobsLost != 0 {
			t.Errorf("%s counted %d blobs lost in a calm network", nd.ID, nd.BlobsLost)
		}
	}
}

// The same with faults: relays crash mid-transfer, links are cut, a
// subscriber's incoming link stalls. Every live subscriber still ends with
// the picture whole, and none counts it lost.
func TestBlobSurvivesFaults(t *testing.T) {
	n, ids, subscribed := blobNetwork(t, 22)
	r := n.Rand()
	data := picture(2, 2<<20+777) // smaller: the faults are the point
	_, ref := n.PublishBlob(ids[0], "photos", data)
	n.RunFor(300 * time.Millisecond) // mid-transfer
	crashed := map[newsnet.ServantID]bool{}
	for _, id := range ids[2:] {
		nd := n.Node(id)
		if crashed[id] || nd.Blobs.Chunks(ref.Hash) == 0 || subscribed[id] {
			continue
		}
		// A relay in the middle of passing the picture on.
		n.Crash(id)
		crashed[id] = true
		if len(crashed) == 3 {
			break
		}
	}
	var subs []newsnet.ServantID
	for _, id := range ids {
		if subscribed[id] {
			subs = append(subs, id)
		}
	}
	stalled := subs[r.IntN(len(subs))]
	if up := n.Node(stalled).Servant.Status().Up; up != "" {
		n.Stall(up, stalled, 3*time.Second)
	}
	for range 3 {
		a := ids[2+r.IntN(len(ids)-2)]
		if up := n.Node(a).Servant.Status().Up; up != "" && !crashed[a] {
			n.CutLink(a, up)
		}
	}
	if len(crashed) == 0 {
		t.Fatal("no relay was passing the picture on 300 ms after it was published")
	}
	n.RunFor(2 * time.Second)
	for id := range crashed {
		n.Restart(id)
	}
	ok := n.RunUntil(10*time.Minute, func() bool {
		for _, id := range subs {
			if n.Node(id).Alive && n.Node(id).Blobs.Whole(ref.Hash) == nil {
				return false
			}
		}
		return true
	})
	if !ok {
		for _, id := range subs {
			if nd := n.Node(id); nd.Alive && nd.Blobs.Whole(ref.Hash) == nil {
				t.Errorf("subscriber %s holds %d of %d chunks after the faults", id, nd.Blobs.Chunks(ref.Hash), newsnet.BlobChunkCount(ref.Size))
			}
		}
	}
	for _, id := range subs {
		if n.Node(id).BlobsLost != 0 {
			t.Errorf("%s counted the picture lost", id)
		}
	}
	t.Logf("crashed %d relays mid-transfer, stalled %s; all %d subscribers whole at %v", len(crashed), stalled, len(subs), n.Now().Sub(Epoch))
}

// An urgent item published while a 20 MB attachment is on its way to the
// same subscribers arrives about as fast as on an idle tree: at most the
// chunks a link may hold (BlobConfig.Window) plus the one being sent lie
// ahead of it on each hop.
func TestItemOvertakesBlob(t *testing.T) {
	n := New(31)
	n.Bandwidth = 8 << 20
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	var ids []newsnet.ServantID
	for range 40 {
		ids = append(ids, randomID(r, used))
	}
	for i, id := range ids {
		var subs []string
		if i > 0 {
			subs = []string{"photos", "news"}
		}
		n.Add(id, ids[:2], subs...)
	}
	if !n.RunUntil(10*time.Minute, n.Settled) {
		t.Fatalf("no convergence: %v", n.CheckTree())
	}
	delivered := map[[16]byte]map[newsnet.ServantID]time.Time{}
	n.Trace = func(at time.Time, id newsnet.ServantID, a newsnet.Action) {
		if d, ok := a.(newsnet.Deliver); ok {
			if delivered[d.Msg.ID] == nil {
				delivered[d.Msg.ID] = map[newsnet.ServantID]time.Time{}
			}
			delivered[d.Msg.ID][id] = at
		}
	}
	latency := func(item [16]byte, at time.Time) map[newsnet.ServantID]time.Duration {
		out := map[newsnet.ServantID]time.Duration{}
		for id, t := range delivered[item] {
			out[id] = t.Sub(at)
		}
		return out
	}
	at := n.Now()
	first := n.Publish(ids[0], "news")
	n.RunFor(time.Second)
	idle := latency(first, at)

	_, ref := n.PublishBlob(ids[0], "photos", picture(3, 20<<20))
	n.RunFor(500 * time.Millisecond) // the picture is on its way
	at = n.Now()
	urgent := n.Publish(ids[0], "news")
	n.RunFor(2 * time.Second)
	busy := latency(urgent, at)
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, nd := range n.Alive() {
		up[nd.ID] = nd.Servant.Status().Up
	}
	ahead := time.Duration(float64(n.Base.Blob.Window+2*newsnet.BlobChunkSize) / float64(n.Bandwidth) * float64(time.Second))
	arriving := 0
	for _, id := range ids[1:] {
		if n.Node(id).Blobs.Whole(ref.Hash) == nil {
			arriving++
		}
		hops := time.Duration(depthOf(up, id))
		if busy[id] == 0 || busy[id] > idle[id]+hops*(ahead+2*n.Jitter) {
			t.Errorf("%s (%d hops): the item took %v with the picture on its way, %v on an idle tree", id, hops, busy[id], idle[id])
		}
	}
	if arriving == 0 {
		t.Fatal("the picture had arrived everywhere before the item was published: nothing was overtaken")
	}
	t.Logf("item latency with a 20 MB picture on its way: %d subscribers still receiving it", arriving)
}
