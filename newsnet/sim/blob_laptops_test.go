package sim

import (
	"bytes"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Issue 29's ugly cases for blobs: laptops that sleep mid-transfer, one
// that moves to another address, an undialable leaf, and a relay of a wire
// version without blob frames.

// blobWorld is a network of size servants in a few subnets, about one in
// three subscribing to "photos"; the first two are the seeds and the first
// publishes.
type blobWorld struct {
	*Network
	ids  []newsnet.ServantID
	subs []newsnet.ServantID // the subscribers, in creation order
}

func newBlobWorld(t *testing.T, seed uint64, size int) *blobWorld {
	t.Helper()
	n := New(seed)
	n.Bandwidth = 8 << 20 // 8 MB/s a direction: a picture takes time on every link
	checkEveryStep(t, n)
	w := &blobWorld{Network: n}
	r := n.Rand()
	used := map[newsnet.ServantID]bool{}
	for range size {
		w.ids = append(w.ids, randomID(r, used))
	}
	for i, id := range w.ids {
		var subs []string
		if i > 0 && r.IntN(3) == 0 {
			subs = []string{"photos"}
			w.subs = append(w.subs, id)
		}
		n.Add(id, w.ids[:2], subs...)
	}
	if !n.RunUntil(5*time.Minute, n.Settled) {
		t.Fatalf("seed %d: no convergence: %v", seed, n.CheckTree())
	}
	return w
}

// whole reports whether every live subscriber holds the blob whole.
func (w *blobWorld) whole(hash [32]byte) bool {
	for _, id := range w.subs {
		if nd := w.Node(id); nd.Alive && nd.Blobs.Whole(hash) == nil {
			return false
		}
	}
	return true
}

// checkWhole fails t for every live subscriber that does not hold data
// whole and verified, or counted a blob lost.
func (w *blobWorld) checkWhole(t *testing.T, ref newsnet.BlobRef, data []byte) {
	t.Helper()
	for _, id := range w.subs {
		nd := w.Node(id)
		if !nd.Alive {
			continue
		}
		if got := nd.Blobs.Whole(ref.Hash); !bytes.Equal(got, data) {
			t.Errorf("subscriber %s holds %d of %d chunks", id, nd.Blobs.Chunks(ref.Hash), newsnet.BlobChunkCount(ref.Size))
		}
	}
	for _, nd := range w.Alive() {
		if nd.BlobsLost != 0 {
			t.Errorf("%s counted %d blobs lost", nd.ID, nd.BlobsLost)
		}
	}
}

// below lists the servants in id's subtree (id excluded).
func (w *blobWorld) below(id newsnet.ServantID) []newsnet.ServantID {
	var out []newsnet.ServantID
	for _, x := range w.ids {
		up := w.Node(x).Servant.Status().Up
		// Bounded: statuses read mid-change may form a loop.
		for hops := 0; up != "" && w.Node(up) != nil && hops < len(w.ids); hops++ {
			if up == id {
				out = append(out, x)
				break
			}
			up = w.Node(up).Servant.Status().Up
		}
	}
	return out
}

// countQueuedToward counts, while servant id is frozen, the chunk frames
// its neighbours send it: they queue in its neighbours' send buffers,
// since it reads nothing.
func (w *blobWorld) countQueuedToward(id newsnet.ServantID) map[newsnet.ServantID]int {
	queued := map[newsnet.ServantID]int{}
	w.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if _, ok := m.(*newsnet.BlobChunk); ok && to == id && w.Frozen(id) {
			queued[from]++
		}
		return true
	}
	return queued
}

// A laptop that moves to another network while a picture arrives: its
// links die with its old address, and its servant starts again under the
// new one with what its host kept (its items, counts, the chunks stored).
// The host asks for the picture again (as the application does after every
// start, app.fetchIncomplete): the chunks it holds stay, and only the
// missing ones cross to it, each once.
func TestBlobLaptopMovesMidTransfer(t *testing.T) {
	n := New(43)
	n.Bandwidth = 8 << 20
	checkEveryStep(t, n)
	seed := newsnet.ServantID("10.0.0.1:7400")
	pub := newsnet.ServantID("10.0.1.1:7400")
	office := newsnet.ServantID("10.1.0.5:7400")
	home := newsnet.ServantID("10.2.0.9:7400")
	peer := newsnet.ServantID("10.1.0.6:7400") // a colleague's desktop, subscribed too
	seeds := []newsnet.ServantID{seed}
	n.Add(seed, seeds)
	n.Add(pub, seeds)
	n.Add(office, seeds, "photos")
	n.Add(peer, seeds, "photos")
	if !n.RunUntil(time.Minute, n.Settled) {
		t.Fatalf("no tree: %v", n.CheckTree())
	}
	data := picture(43, 3<<20+5)
	_, ref := n.PublishBlob(pub, "photos", data)
	chunks := newsnet.BlobChunkCount(ref.Size)
	if !n.RunUntil(10*time.Second, func() bool { return n.Node(office).Blobs.Chunks(ref.Hash) >= chunks/3 }) {
		t.Fatalf("the laptop got %d of %d chunks in 10 s", n.Node(office).Blobs.Chunks(ref.Hash), chunks)
	}
	had := n.Node(office).Blobs.Chunks(ref.Hash)
	if had == chunks {
		t.Fatal("the picture arrived before the laptop moved")
	}
	toHome := map[uint32]int{}
	var asked [][]byte
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		switch m := m.(type) {
		case *newsnet.BlobChunk:
			if to == home {
				toHome[m.Index]++
			}
		case *newsnet.BlobWant:
			if from == home {
				asked = append(asked, m.Missing)
			}
		}
		return true
	}
	n.Move(office, home)
	n.FetchBlob(home, ref, string(pub)) // the application's fetchIncomplete
	if !n.RunUntil(2*time.Minute, func() bool { return n.Node(home).Blobs.Whole(ref.Hash) != nil }) {
		t.Fatalf("the moved laptop holds %d of %d chunks after 2 minutes", n.Node(home).Blobs.Chunks(ref.Hash), chunks)
	}
	if got := n.Node(home).Blobs.Whole(ref.Hash); !bytes.Equal(got, data) {
		t.Fatal("the moved laptop holds other bytes")
	}
	if len(toHome) != chunks-had {
		t.Errorf("%d distinct chunks crossed to the moved laptop, want the %d it lacked", len(toHome), chunks-had)
	}
	for i, k := range toHome {
		if k > 1 {
			t.Errorf("chunk %d crossed to the moved laptop %d times", i, k)
		}
	}
	if len(asked) == 0 || len(asked[0]) == 0 {
		t.Errorf("the moved laptop's first want %v: it should name the missing chunks, not ask for all", asked)
	}
	if nd := n.Node(home); nd.BlobsLost != 0 || nd.Servant.Status().Blobs.Unasked != 0 {
		t.Errorf("moved laptop: %d lost, %d chunks unasked", nd.BlobsLost, nd.Servant.Status().Blobs.Unasked)
	}
	if got := n.Node(peer).Blobs.Whole(ref.Hash); !bytes.Equal(got, data) {
		t.Errorf("the colleague holds %d of %d chunks", n.Node(peer).Blobs.Chunks(ref.Hash), chunks)
	}
	t.Logf("moved holding %d of %d chunks; got the %d others under the new address", had, chunks, len(toHome))
}

// A laptop behind a NAT cannot be dialled: it attaches as a leaf to an
// up-servant of its subnet. The picture published with an item comes with
// the item, and a large file comes when its reader opens it (FetchBlob),
// through its up-servant, whole and verified.
func TestBlobToUndialableLeaf(t *testing.T) {
	n := New(44)
	n.Bandwidth = 8 << 20
	checkEveryStep(t, n)
	seed := newsnet.ServantID("10.0.0.1:7400")
	pub := newsnet.ServantID("10.0.1.1:7400")
	desk := newsnet.ServantID("10.0.5.1:7400")
	laptop := newsnet.ServantID("10.0.5.2:7400")
	seeds := []newsnet.ServantID{seed}
	n.Add(seed, seeds)
	n.Add(pub, seeds)
	n.Add(desk, seeds)
	n.Firewall(laptop, true)
	n.Add(laptop, seeds, "photos")
	if !n.RunUntil(time.Minute, func() bool { return n.Settled() && n.Node(laptop).Servant.Status().Leaf }) {
		t.Fatalf("the laptop is no leaf: %+v; %v", n.Node(laptop).Servant.Status().Role, n.CheckTree())
	}
	up := n.Node(laptop).Servant.Status().Up
	if up == "" {
		t.Fatal("the leaf has no up-servant")
	}
	photo := picture(44, 700<<10)
	_, photoRef := n.PublishBlob(pub, "photos", photo)
	if !n.RunUntil(time.Minute, func() bool { return n.Node(laptop).Blobs.Whole(photoRef.Hash) != nil }) {
		t.Fatalf("the leaf holds %d of %d chunks of the picture", n.Node(laptop).Blobs.Chunks(photoRef.Hash), newsnet.BlobChunkCount(photoRef.Size))
	}
	if got := n.Node(laptop).Blobs.Whole(photoRef.Hash); !bytes.Equal(got, photo) {
		t.Fatal("the leaf holds another picture")
	}

	file := picture(45, 6<<20+1)
	fileRef := n.Shelve(pub, file)
	fileRef.Eager = false // a large attachment: fetched when opened
	chunks := newsnet.BlobChunkCount(fileRef.Size)
	mid := n.PublishRefs(pub, "photos", fileRef)
	n.RunFor(5 * time.Second)
	if n.Node(laptop).Delivered[mid] != 1 {
		t.Fatalf("the leaf delivered the item %d times", n.Node(laptop).Delivered[mid])
	}
	if got := n.Node(laptop).Blobs.Chunks(fileRef.Hash); got != 0 {
		t.Fatalf("the leaf got %d chunks of the file before it was opened", got)
	}
	fromUp := 0
	n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
		if c, ok := m.(*newsnet.BlobChunk); ok && to == laptop && c.Hash == fileRef.Hash {
			if from != up {
				t.Errorf("a chunk of the file came to the leaf from %s, not its up-servant %s", from, up)
			}
			fromUp++
		}
		return true
	}
	n.FetchBlob(laptop, fileRef, string(pub))
	if !n.RunUntil(time.Minute, func() bool { return n.Node(laptop).Blobs.Whole(fileRef.Hash) != nil }) {
		t.Fatalf("the leaf holds %d of %d chunks of the file a minute after it was opened", n.Node(laptop).Blobs.Chunks(fileRef.Hash), chunks)
	}
	if got := n.Node(laptop).Blobs.Whole(fileRef.Hash); !bytes.Equal(got, file) {
		t.Fatal("the leaf holds another file")
	}
	if fromUp != chunks {
		t.Errorf("%d chunks of the file crossed to the leaf, want each of the %d once", fromUp, chunks)
	}
	if n.Node(laptop).BlobsLost != 0 {
		t.Errorf("the leaf counted %d blobs lost", n.Node(laptop).BlobsLost)
	}
	if st := n.Node(laptop).Servant.Status(); !st.Leaf || st.Up != up {
		t.Errorf("the laptop is leaf %v under %s, want a leaf under %s", st.Leaf, st.Up, up)
	}
}

// A relay one wire version older (7: no blob frames) stands between a
// subscriber and the picture's publisher. The subscriber never sends it a
// blob frame; it asks over its other tree links and, where none leads to
// the picture, counts it lost once (BlobLost, which its host persists),
// not again later, and does not hang on it for good. Where another tree
// link does lead to a holder, the picture arrives over it.
func TestBlobBehindOlderRelay(t *testing.T) {
	seed := newsnet.ServantID("10.0.0.1:7400")
	pub := newsnet.ServantID("10.0.1.1:7400")
	old := newsnet.ServantID("10.0.5.1:7400") // wire version 7
	// Below old, in a slot of old's partition (4096 ports wide, slots of
	// 256) whose later joiners old redirects to sub.
	sub := newsnet.ServantID("10.0.5.1:7500")
	setup := func(t *testing.T, seedNo uint64) *Network {
		n := New(seedNo)
		n.Bandwidth = 8 << 20
		checkEveryStep(t, n)
		n.SpeakWire(old, 7)
		seeds := []newsnet.ServantID{seed}
		n.Add(seed, seeds)
		n.Add(pub, seeds)
		n.Add(old, seeds)
		n.RunUntil(time.Minute, n.Settled)
		n.Add(sub, seeds, "photos")
		if !n.RunUntil(time.Minute, n.Settled) {
			t.Fatalf("no tree: %v", n.CheckTree())
		}
		if st := n.Node(sub).Servant.Status(); st.Up != old || st.Links[0].Version != 7 {
			t.Fatalf("the subscriber is under %q at version %d, want under the older relay %s at 7", st.Up, st.Links[0].Version, old)
		}
		return n
	}
	blobFrames := func(n *Network) *int {
		k := 0
		n.Filter = func(from, to newsnet.ServantID, m newsnet.Message) bool {
			switch m.(type) {
			case *newsnet.BlobWant, *newsnet.BlobHead, *newsnet.BlobChunk, *newsnet.BlobNone:
				if from == old || to == old {
					k++
				}
			}
			return true
		}
		return &k
	}

	t.Run("unreachable: lost once", func(t *testing.T) {
		n := setup(t, 45)
		frames := blobFrames(n)
		var lost []newsnet.BlobLost
		n.Trace = func(_ time.Time, id newsnet.ServantID, a newsnet.Action) {
			if l, ok := a.(newsnet.BlobLost); ok && id == sub {
				lost = append(lost, l)
			}
		}
		data := picture(45, 300<<10)
		mid, ref := n.PublishBlob(pub, "photos", data)
		published := n.Now()
		n.RunFor(time.Second)
		if n.Node(sub).Delivered[mid] != 1 {
			t.Fatalf("the item did not cross the older relay: delivered %d times", n.Node(sub).Delivered[mid])
		}
		// Six attempts, five seconds apart at least: well within 5 minutes.
		if !n.RunUntil(5*time.Minute, func() bool { return len(lost) > 0 }) {
			t.Fatalf("the subscriber neither got nor gave up the picture in 5 minutes: %d transfers open", n.Node(sub).Servant.Status().BlobTransfers)
		}
		// Six attempts backing off from 5 s (5, 10, 20, 40, 40, 40 s):
		// about two minutes and a half, not one attempt per tick.
		took := n.Now().Sub(published)
		if took < 2*time.Minute {
			t.Errorf("counted lost %v after the item was published: the attempts did not back off", took)
		}
		t.Logf("counted lost %v after the item was published", took)
		n.RunFor(5 * time.Minute) // and nothing more happens
		if len(lost) != 1 || lost[0].Hash != ref.Hash || lost[0].Total != 1 || n.Node(sub).BlobsLost != 1 {
			t.Errorf("lost reports %+v, persisted total %d: want one, total 1", lost, n.Node(sub).BlobsLost)
		}
		if *frames != 0 {
			t.Errorf("%d blob frames crossed a link of the older relay", *frames)
		}
		if k := n.Node(sub).Servant.Status().BlobTransfers; k != 0 {
			t.Errorf("%d transfers still open on the subscriber after it gave up", k)
		}
		if c := n.Node(sub).Servant.Status().Counters.TooNew; c != 0 {
			t.Errorf("%d frames too new for the older relay were built and dropped", c)
		}
		// A restart with the persisted total counts on from it, and a
		// reader opening the attachment again asks again, visibly.
		n.Crash(sub)
		n.Restart(sub)
		if !n.RunUntil(time.Minute, n.Settled) {
			t.Fatalf("no tree after the restart: %v", n.CheckTree())
		}
		lost = nil
		n.FetchBlob(sub, ref, string(pub))
		n.RunUntil(5*time.Minute, func() bool { return len(lost) > 0 })
		if len(lost) != 1 || lost[0].Total != 2 {
			t.Errorf("after a restart and an explicit fetch: lost reports %+v, want one with total 2", lost)
		}
	})

	t.Run("reachable over another link", func(t *testing.T) {
		n := setup(t, 46)
		frames := blobFrames(n)
		// A colleague below the subscriber already holds the picture (it
		// fetched it where it was before): the subscriber, whose reverse
		// path toward the publisher runs over the older relay, asks over
		// its other tree links at once and finds it there.
		colleague := newsnet.ServantID("10.0.5.1:7510") // in sub's slot
		data := picture(46, 300<<10)
		n.Add(colleague, []newsnet.ServantID{seed})
		ref := n.Shelve(colleague, data)
		n.Shelve(pub, data)
		if !n.RunUntil(time.Minute, func() bool { return n.Settled() && n.Node(colleague).Servant.Status().Up == sub }) {
			t.Fatalf("the colleague is under %q, want under %s", n.Node(colleague).Servant.Status().Up, sub)
		}
		n.PublishRefs(pub, "photos", ref)
		published := n.Now()
		if !n.RunUntil(5*time.Minute, func() bool { return n.Node(sub).Blobs.Whole(ref.Hash) != nil }) {
			t.Fatalf("the subscriber holds %d of %d chunks; lost %d", n.Node(sub).Blobs.Chunks(ref.Hash), newsnet.BlobChunkCount(ref.Size), n.Node(sub).BlobsLost)
		}
		if got := n.Node(sub).Blobs.Whole(ref.Hash); !bytes.Equal(got, data) {
			t.Fatal("the subscriber holds another picture")
		}
		if took := n.Now().Sub(published); took > 5*time.Second {
			t.Errorf("whole %v after the item was published: the first want should go to the other link", took)
		}
		if n.Node(sub).BlobsLost != 0 || *frames != 0 {
			t.Errorf("lost %d, blob frames over the older relay's links %d", n.Node(sub).BlobsLost, *frames)
		}
	})
}
