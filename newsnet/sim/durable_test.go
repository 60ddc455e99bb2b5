package sim

import (
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A servant away longer than the catch-up window still receives, through
// catch-up, the items of durable categories published while it was away by
// a source it has never heard of; ordinary items that old from such a
// source are left out. Without Durable the system item is left out too: the
// rule is what brings it. (Once a source is followed, its later items in
// subscribed categories come whatever their age: that is the per-source
// exactly-once rule, so the ordinary item here has a source of its own.)
func TestCatchUpDurableCategoriesBeyondWindow(t *testing.T) {
	for _, durable := range []bool{true, false} {
		n := New(7)
		checkEveryStep(t, n)
		n.Base.CatchUpWindow = time.Hour
		if durable {
			n.Base.Durable = []string{"system"}
		}
		archive, reader := newsnet.ServantID("10.0.0.1:7400"), newsnet.ServantID("10.0.0.2:7400")
		admin, writer := newsnet.ServantID("10.0.0.3:7400"), newsnet.ServantID("10.0.0.4:7400")
		seeds := []newsnet.ServantID{archive}
		n.Add(archive, seeds, newsnet.AllCategories)
		n.Add(reader, seeds, "news", "system")
		if !n.RunUntil(time.Minute, n.Converged) {
			t.Fatalf("no tree: %v", n.CheckTree())
		}
		n.Stop(reader)
		n.Add(admin, seeds)
		n.Add(writer, seeds)
		if !n.RunUntil(time.Minute, n.Converged) {
			t.Fatalf("no tree with the writer: %v", n.CheckTree())
		}
		sys := n.Publish(admin, "system")
		old := n.Publish(writer, "news")
		n.RunFor(2 * time.Hour) // the reader is away twice the window
		// A third source's recent item: the writer's own later items would
		// reveal its earlier counts as a gap, which is repaired whatever
		// their age.
		fresh := n.Publish(archive, "news")
		n.RunFor(time.Second)
		n.Stop(writer)
		n.Stop(admin)
		n.Restart(reader)
		n.RunFor(time.Minute)

		got := n.Node(reader).Delivered
		if got[fresh] != 1 {
			t.Errorf("durable=%v: the item published within the window delivered %d times", durable, got[fresh])
		}
		if got[old] != 0 {
			t.Errorf("durable=%v: an ordinary item older than the window delivered %d times", durable, got[old])
		}
		want := 0
		if durable {
			want = 1
		}
		if got[sys] != want {
			t.Errorf("durable=%v: the system item delivered %d times, want %d", durable, got[sys], want)
		}
	}
}
