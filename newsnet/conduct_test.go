package newsnet

import (
	"slices"
	"testing"
	"time"
)

// A peer's points decay by half every conductHalfLife: steady misconduct
// below the rate that keeps them under the limit is noted once a minute
// and never banned; a burst past the limit bans the peer for banDuration,
// and the ban runs out.
func TestConductDecaysAndBans(t *testing.T) {
	var c conduct
	now := time.Unix(1_700_000_000, 0)
	if v := c.record("p", reasonRequests, 1, now); v != conductNote {
		t.Errorf("the first point: %v, want a note", v)
	}
	if v := c.record("p", reasonRequests, 1, now.Add(time.Second)); v != conductCounted {
		t.Errorf("a second point within the note gap: %v", v)
	}
	for i := range 60 { // one point a minute for an hour: decays faster than it grows
		now = now.Add(time.Minute)
		if v := c.record("p", reasonRequests, 1, now); v == conductBan {
			t.Fatalf("banned after %d minutes of one point a minute", i+1)
		}
	}
	if v := c.record("q", reasonForged, conductLimit, now); v != conductBan {
		t.Fatalf("a burst to the limit: %v, want a ban", v)
	}
	if _, banned := c.bannedUntil("q", now.Add(banDuration-time.Second)); !banned {
		t.Error("the ban lapsed early")
	}
	if got := c.status(now).Banned; !slices.Equal(got, []ServantID{"q"}) {
		t.Errorf("banned %v", got)
	}
	c.tick(now.Add(banDuration))
	if _, banned := c.bannedUntil("q", now.Add(banDuration)); banned || len(c.banned) != 0 {
		t.Error("the ban did not run out")
	}
	if c.status(now).Counts[reasonRequests] != 62 {
		t.Errorf("counts %v", c.status(now).Counts)
	}
}
