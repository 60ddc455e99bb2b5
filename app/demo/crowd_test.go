package demo

import (
	"context"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// The crowd joins the demo's tree, and the vertex's census counts it and
// maps it: partitions below the vertex, one site's lost items.
func TestCrowdJoinsTheCensus(t *testing.T) {
	d, err := Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const n = 150
	if err := d.crowd(n); err != nil {
		t.Fatal(err)
	}
	var got newsnet.NetworkCensus
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d.net.Do(func(s *sim.Network) {
			for _, nd := range s.Alive() {
				if nd.Servant.Role() == newsnet.RoleVertex {
					_, got = nd.Servant.Census()
				}
			}
		})
		if got.Servants > n && len(got.Parts) > 0 && got.Lost > 0 {
			t.Logf("counted after %v", time.Until(deadline.Add(-2*time.Minute)).Abs().Round(time.Second))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the vertex's census after two minutes: %d servants, %d partitions, %d lost", got.Servants, len(got.Parts), got.Lost)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var inParts uint64
	for _, p := range got.Parts {
		inParts += p.Servants
	}
	if inParts+got.Leaves+1 < got.Servants {
		t.Errorf("the map holds %d of %d servants (%d leaves)", inParts, got.Servants, got.Leaves)
	}
}
