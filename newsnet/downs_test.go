package newsnet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// downSet against an obviously correct model: a plain list searched
// linearly, after each of many random joins, promotions, demotions and
// losses (as raft's quorum/quick_test.go checks against a naive version).
func TestDownSetMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var ds downSet
	var all []*link // the model: every downlink, any order
	n := 0
	for step := range 5000 {
		switch op := rng.IntN(4); {
		case op == 0 || len(all) == 0: // a joiner takes an empty slot, or becomes a leaf
			n++
			l := &link{id: LinkID(n), peer: ServantID(fmt.Sprintf("p%d", n))}
			if slot := rng.IntN(8); naiveInSlot(all, slot) == nil && rng.IntN(2) == 0 {
				ds.addMember(l, slot)
			} else {
				ds.addLeaf(l)
			}
			all = append(all, l)
		case op == 1: // a leaf found reachable takes its empty slot
			d := all[rng.IntN(len(all))]
			if slot := rng.IntN(8); d.leaf && naiveInSlot(all, slot) == nil {
				ds.remove(d)
				ds.addMember(d, slot)
			}
		case op == 2: // a member found unreachable becomes a leaf
			d := all[rng.IntN(len(all))]
			if !d.leaf {
				ds.remove(d)
				ds.addLeaf(d)
			}
		default: // a downlink is lost
			i := rng.IntN(len(all))
			if !ds.remove(all[i]) || ds.remove(all[i]) {
				t.Fatalf("step %d: remove of a present link did not report it once", step)
			}
			all = slices.Delete(all, i, i+1)
		}
		checkDownSet(t, step, ds, all)
	}
}

func naiveInSlot(all []*link, slot int) *link {
	for _, d := range all {
		if !d.leaf && d.slot == slot {
			return d
		}
	}
	return nil
}

func checkDownSet(t *testing.T, step int, ds downSet, all []*link) {
	t.Helper()
	if len(ds) != len(all) {
		t.Fatalf("step %d: %d downlinks, model %d", step, len(ds), len(all))
	}
	leaves := 0
	for _, d := range all {
		if d.leaf {
			leaves++
		}
		if ds.byPeer(d.peer) != d {
			t.Fatalf("step %d: byPeer(%s) wrong", step, d.peer)
		}
	}
	if ds.leaves() != leaves || len(ds.members()) != len(all)-leaves {
		t.Fatalf("step %d: %d leaves and %d members, model %d and %d", step, ds.leaves(), len(ds.members()), leaves, len(all)-leaves)
	}
	for i, d := range ds {
		if d.kind != linkDown || d.leaf != (d.slot == leafSlot) {
			t.Fatalf("step %d: %s kind %v leaf %v slot %d", step, d.peer, d.kind, d.leaf, d.slot)
		}
		if i > 0 && (ds[i-1].slot >= d.slot && !(d.leaf && ds[i-1].leaf)) {
			t.Fatalf("step %d: order broken at %d: slot %d after %d", step, i, d.slot, ds[i-1].slot)
		}
	}
	for slot := range 8 {
		if ds.inSlot(slot) != naiveInSlot(all, slot) {
			t.Fatalf("step %d: inSlot(%d) differs from the model", step, slot)
		}
	}
	if ds.byPeer("nobody") != nil {
		t.Fatalf("step %d: byPeer found nobody", step)
	}
}
