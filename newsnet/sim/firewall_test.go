package sim

import (
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Network.Firewall, the simulator's model of a laptop nobody can dial: the
// firewalled servant joins and receives through the link it dials, as a
// leaf, and a servant whose only way in is to dial it stays outside until
// the firewall lets it in and the next dial-back promotes it.
func TestFirewalledServantDialsOutOnly(t *testing.T) {
	n := New(3)
	n.Base.ReachProbeInterval = time.Minute
	checkEveryStep(t, n)
	vertex := newsnet.ServantID("10.0.0.1:7400")
	laptop := newsnet.ServantID("10.0.1.1:7400")
	behind := newsnet.ServantID("10.0.2.1:7400")
	n.Add(vertex, []newsnet.ServantID{vertex})
	n.Firewall(laptop, true)
	n.Add(laptop, []newsnet.ServantID{vertex}, "it")
	if !n.RunUntil(time.Minute, n.Converged) {
		t.Fatalf("the firewalled laptop did not join by dialing out: %v", n.CheckTree())
	}
	if st := n.Node(laptop).Servant.Status(); !st.Leaf || st.Reach != newsnet.ReachUnreachable || st.ReachAddr != laptop {
		t.Errorf("firewalled laptop: leaf %v, reach %v at %q; want a leaf found unreachable at %s", st.Leaf, st.Reach, st.ReachAddr, laptop)
	}
	id := n.Publish(vertex, "it")
	n.RunFor(time.Second)
	if got := n.Node(laptop).Delivered[id]; got != 1 {
		t.Errorf("the firewalled laptop holds the item %d times, want 1", got)
	}

	n.Add(behind, []newsnet.ServantID{laptop})
	n.RunFor(time.Minute)
	if st := n.Node(behind).Servant.Status(); st.Up != "" {
		t.Errorf("%s attached under %s by dialing a firewalled servant", behind, st.Up)
	}
	n.Firewall(laptop, false)
	// The vertex dials the laptop back within 1.5 probe intervals and
	// promotes it; then it takes down-servants.
	ok := n.RunUntil(3*time.Minute, func() bool { return n.Node(behind).Servant.Status().Up == laptop })
	if !ok {
		t.Errorf("%s did not attach under %s once its firewall let it in: role %s", behind, laptop, n.Node(behind).Servant.Status().Role)
	}
}
