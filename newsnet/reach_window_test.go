package newsnet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The window of a subtree is the window of its parts' windows: a relay
// that keeps the window of what its down-servants sent (their windows)
// keeps the window of the whole subtree, whatever the split and turn.
func TestReachWindowComposes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	item := [16]byte{7}
	for trial := range 50 {
		var all [][]byte
		for i := range 200 + r.IntN(300) {
			all = append(all, []byte(fmt.Sprintf("reader %d of trial %d", i, trial)))
		}
		n, turn := 1+r.IntN(40), r.IntN(ReachWindowTurns)
		window := func(bs [][]byte) [][]byte {
			bs = slices.Clone(bs)
			if len(bs) > n {
				bs = reachWindow(item, bs, turn, n)
			}
			slices.SortFunc(bs, bytes.Compare)
			return bs
		}
		var merged [][]byte
		for rest := all; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(60))
			merged = append(merged, window(rest[:k])...)
			rest = rest[k:]
		}
		if got, want := window(merged), window(all); !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("trial %d: the window of the parts' windows differs from the window of all", trial)
		}
	}
}

// Over a cycle of turns the windows name every reader, while no segment
// of the cycle holds more readers than a window.
func TestReachWindowCycleNamesEveryone(t *testing.T) {
	item := [16]byte{9}
	var all [][]byte
	for i := range 2000 {
		all = append(all, []byte(fmt.Sprintf("reader %04d", i)))
	}
	seen := map[string]bool{}
	for turn := range ReachWindowTurns {
		for _, b := range reachWindow(item, slices.Clone(all), turn, 256) {
			seen[string(b)] = true
		}
	}
	if len(seen) != len(all) {
		t.Errorf("a cycle of windows of 256 named %d of %d readers", len(seen), len(all))
	}
}
