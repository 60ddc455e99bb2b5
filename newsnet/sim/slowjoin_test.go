package sim

import (
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A servant whose path to the tree answers slower than the join timeout
// (a far office behind a congested VPN: 1.6 s each way, so a join's answer
// comes 3.2 s after the request against a join timeout of 3 s, while the
// link, once up, stays within the link timeout of 4 s) still joins:
// each unanswered attempt gives the next one longer (connector.go,
// attemptTimeout). With a fixed timeout it gave up on every answer just
// before it came, for ever. Once attached, it gets the vertex's items.
func TestSlowPathStillJoins(t *testing.T) {
	n := New(5)
	checkEveryStep(t, n)
	vertex := newsnet.ServantID("10.0.0.1:7400")
	far := newsnet.ServantID("10.9.0.1:7400")
	n.Add(vertex, []newsnet.ServantID{vertex})
	n.RunFor(time.Second)
	n.Delay(vertex, far, 1600*time.Millisecond)
	if n.Base.JoinTimeout >= 3200*time.Millisecond || n.Base.LinkTimeout <= 3200*time.Millisecond {
		t.Fatalf("join timeout %v, link timeout %v: the test needs answers slower than the one, faster than the other",
			n.Base.JoinTimeout, n.Base.LinkTimeout)
	}
	added := n.Now()
	n.Add(far, []newsnet.ServantID{vertex}, "it")
	if !n.RunUntil(2*time.Minute, n.Converged) {
		t.Fatalf("the far servant did not join over its slow path: role %s, %v",
			n.Node(far).Servant.Status().Role, n.CheckTree())
	}
	joined := n.Now()
	id := n.Publish(vertex, "it")
	n.RunFor(10 * time.Second)
	if got := n.Node(far).Delivered[id]; got != 1 {
		t.Errorf("the far servant holds the item %d times, want 1", got)
	}
	if c := n.Node(far).Servant.Status().Counters; c.Lost != 0 {
		t.Errorf("the far servant counted %d lost", c.Lost)
	}
	t.Logf("joined %v after it started", joined.Sub(added))
}
