package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A laptop that sleeps mid-transfer (SIGSTOP: it reads and writes nothing,
// its connections stay open): a subscriber, and a relay passing the
// picture on to subscribers below it, each frozen beyond the transfer
// timeout (and the link timeout), then resumed. Every subscriber ends with
// the picture whole and verified, nobody counts it lost, and the chunks
// queued toward the sleeper stay within the chunk window of each link: a
// peer that stopped reading reports nothing written, so no more chunks go
// onto its link.
func TestBlobLaptopSleepsMidTransfer(t *testing.T) {
	for _, c := range []struct {
		name  string
		relay bool
		sleep time.Duration
	}{
		{"subscriber 12s", false, 12 * time.Second},
		{"subscriber 3min", false, 3 * time.Minute}, // beyond all attempts' time
		{"relay 12s", true, 12 * time.Second},
		{"relay 3min", true, 3 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newBlobWorld(t, 41, 60)
			data := picture(41, 2<<20+333)
			_, ref := w.PublishBlob(w.ids[0], "photos", data)
			chunks := newsnet.BlobChunkCount(ref.Size)
			w.RunFor(150 * time.Millisecond) // the picture is on its way
			var sleeper newsnet.ServantID
			for _, id := range w.ids[1:] {
				nd := w.Node(id)
				subscribed := slices.Contains(w.subs, id)
				if subscribed == c.relay || nd.Blobs.Chunks(ref.Hash) == chunks {
					continue
				}
				if c.relay && (nd.Blobs.Chunks(ref.Hash) == 0 || !slices.ContainsFunc(w.below(id), func(x newsnet.ServantID) bool {
					return slices.Contains(w.subs, x)
				})) {
					continue // not passing it on to a subscriber
				}
				sleeper = id
				break
			}
			if sleeper == "" {
				t.Fatal("no servant of the kind is mid-transfer 150 ms after the publication")
			}
			had := w.Node(sleeper).Blobs.Chunks(ref.Hash)
			queued := w.countQueuedToward(sleeper)
			w.Freeze(sleeper, c.sleep)
			w.RunFor(c.sleep)
			woke := w.Now()
			ok := w.RunUntil(5*time.Minute, func() bool { return w.whole(ref.Hash) })
			w.checkWhole(t, ref, data)
			if !ok {
				t.Fatalf("not every subscriber whole 5 minutes after %s woke", sleeper)
			}
			window := w.Base.Blob.Window/newsnet.BlobChunkSize + 1
			for from, k := range queued {
				if k > window {
					t.Errorf("%s queued %d chunks toward %s while it slept, more than the window of %d", from, k, sleeper, window)
				}
			}
			if got := w.Node(sleeper).Blobs.Chunks(ref.Hash); c.relay && got < had {
				t.Errorf("the relay held %d chunks before it slept, %d after", had, got)
			}
			t.Logf("%s slept holding %d of %d chunks (queued toward it meanwhile: %v); everyone whole %v after it woke",
				sleeper, had, chunks, queued, w.Now().Sub(woke))
		})
	}
}

// Freeze itself: a frozen servant's neighbours see silence
// and close their links; it takes the held frames and the closes when it
// wakes, and rejoins.
func TestFreezeClosesLinksByHeartbeat(t *testing.T) {
	n := New(47)
	checkEveryStep(t, n)
	seed := newsnet.ServantID("10.0.0.1:7400")
	a := newsnet.ServantID("10.0.5.1:7400")
	n.Add(seed, []newsnet.ServantID{seed})
	n.Add(a, []newsnet.ServantID{seed}, "news")
	if !n.RunUntil(time.Minute, n.Settled) {
		t.Fatal("no tree")
	}
	n.Freeze(a, 10*time.Second)
	n.RunFor(6 * time.Second)
	if got := n.Node(seed).Servant.Status().Downs; len(got) != 0 {
		t.Errorf("the seed still holds %v 6 s into the freeze", got)
	}
	if st := n.Node(a).Servant.Status(); st.Up != seed {
		t.Errorf("the frozen servant changed while frozen: up %q", st.Up)
	}
	if !n.RunUntil(time.Minute, n.Settled) {
		t.Fatal("no tree after the thaw")
	}
	id := n.Publish(seed, "news")
	n.RunFor(time.Second)
	if err := n.CheckDelivery(seed, id, "news"); err != nil {
		t.Error(fmt.Errorf("after the thaw: %w", err))
	}
}
