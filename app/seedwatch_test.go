package app

import (
	"context"
	"testing"
	"time"
)

// Issue 30: a listed seed that has not been in the network for a day is
// reported, with when it was last seen; one never seen since the watch
// began, from when it began; the record survives a restart.
func TestSeedWatch(t *testing.T) {
	dir := t.TempDir()
	a := openApp(t, Options{DataDir: dir})
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	listed := []string{"10.1.0.5:7400", "10.2.0.9:7400", "10.3.0.2:7400"}
	if away := a.watchSeeds(listed, listed[:2], t0); len(away) != 0 {
		t.Fatalf("at the start: %+v", away)
	}
	// The second seed goes away; a day later it and the never-seen third
	// are reported, the first (still online) is not.
	a.watchSeeds(listed, listed[:1], t0.Add(time.Hour))
	away := a.watchSeeds(listed, listed[:1], t0.Add(SeedAwayAfter+time.Minute))
	if len(away) != 2 || away[0].Seed != listed[1] || !away[0].LastSeen.Equal(t0) ||
		away[1].Seed != listed[2] || !away[1].LastSeen.IsZero() || !away[1].Watched.Equal(t0) {
		t.Fatalf("a day later: %+v", away)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Network: a.Network()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	away = b.watchSeeds(listed, listed, t0.Add(SeedAwayAfter+2*time.Minute))
	if len(away) != 0 {
		t.Errorf("every seed back: %+v", away)
	}
	away = b.watchSeeds(listed, nil, t0.Add(2*SeedAwayAfter+3*time.Minute))
	if len(away) != 3 {
		t.Errorf("after a restart and a day with no seed: %+v", away)
	}
}
