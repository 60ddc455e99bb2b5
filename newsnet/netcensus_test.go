package newsnet

// The census sub-machine (netcensus.go) on its own, through a fake of the
// servant. The census across a network is in sim/netcensus_test.go.

import (
	"fmt"
	"testing"
	"time"
)

type fakeCensusHost struct {
	now   time.Time
	role  Role
	up    *link
	downs []*link
	self  NetCensus
}

func (h *fakeCensusHost) clock() time.Time { return h.now }
func (h *fakeCensusHost) Role() Role       { return h.role }
func (h *fakeCensusHost) upLink() *link    { return h.up }
func (h *fakeCensusHost) treeLinks() []*link {
	if h.up == nil {
		return h.downs
	}
	return append([]*link{h.up}, h.downs...)
}
func (h *fakeCensusHost) linkByID(id LinkID) *link {
	for _, l := range h.treeLinks() {
		if l.id == id {
			return l
		}
	}
	return nil
}

// slotRange: slot i holds the servants of 10.0.i.0/24.
func (h *fakeCensusHost) slotRange(slot int) (lo, hi uint64) {
	return IDValue(ServantID(fmt.Sprintf("10.0.%d.0:0", slot))), IDValue(ServantID(fmt.Sprintf("10.0.%d.255:65535", slot)))
}
func (h *fakeCensusHost) ownCensusEntry() NetCensus                   { return h.self }
func (h *fakeCensusHost) send(*link, Message)                         {}
func (h *fakeCensusHost) act(Action)                                  {}
func (h *fakeCensusHost) towardServant(ServantID, *link, *link) *link { return nil }

// testNetCensus is a census whose partition h describes.
func testNetCensus(h *fakeCensusHost) netCensus {
	cfg := DefaultConfig("10.0.9.1:7400")
	return netCensus{cfg: &cfg, places: h}
}

// A down-servant's census may name among the worst off only servants of
// its own slot range, and a leaf's counts as one servant: a liar changes
// the figures of its own subtree only. The vertex's subtree is the
// network's census, which goes down once, not again until it changes or
// networkCensusPeriod passed; our subtree goes up only when it changed.
func TestNetCensusMergesWhatSubtreesCanHold(t *testing.T) {
	down := &link{id: 2, kind: linkDown, slot: 1, peer: "10.0.1.1:7400"}
	leaf := &link{id: 3, kind: linkDown, leaf: true, peer: "192.168.1.5:7400"}
	h := &fakeCensusHost{now: time.Unix(1_700_000_000, 0), role: RoleVertex, downs: []*link{down, leaf},
		self: NetCensus{Servants: 1, Depth: 1, Releases: []NameCount{{"1.0", 1}}}}
	n := testNetCensus(h)
	n.receive(h, down, &ReachReport{Subtree: &NetCensus{Servants: 40, Depth: 3, Lost: 9, LostServants: 2,
		WorstLost: []ServantCount{{"10.0.1.7:7400", 5}, {"10.0.4.4:7400", 4}}, Releases: []NameCount{{"1.0", 40}},
		Parts: []PartCensus{
			{Root: "10.0.1.7:7400", Lo: IDValue("10.0.1.0:0"), Hi: IDValue("10.0.1.127:65535"), Servants: 30, Depth: 2},
			{Root: "10.0.4.4:7400", Lo: IDValue("10.0.4.0:0"), Hi: IDValue("10.0.4.255:65535"), Servants: 9000, Depth: 2},
		}}})
	n.receive(h, leaf, &ReachReport{Subtree: &NetCensus{Servants: 5000, Depth: 9, Releases: []NameCount{{"0.9", 5000}}}})
	n.tick(h)
	got := n.subtree
	if got.Servants != 42 || got.Depth != 4 || len(got.WorstLost) != 1 || got.WorstLost[0].ID != "10.0.1.7:7400" {
		t.Errorf("subtree %+v: want 42 servants, depth 4, only the worst off inside the down's range", got)
	}
	if n.network.NetCensus.Servants != 42 {
		t.Errorf("the vertex's network census counts %d servants", n.network.Servants)
	}
	// The map: the down's part (the leaf has none), with the one part
	// below it that lies in its range; the subtree's census, which goes
	// up, is one level deep.
	parts := n.network.Parts
	if len(parts) != 1 || parts[0].Root != down.peer || parts[0].Servants != 40 ||
		len(parts[0].Parts) != 1 || parts[0].Parts[0].Root != "10.0.1.7:7400" || parts[0].Parts[0].Servants != 30 {
		t.Errorf("the network's map: %+v", parts)
	}
	if len(n.subtree.Parts) != 1 || n.subtree.Parts[0].Parts != nil {
		t.Errorf("the subtree's parts %+v, want one, one level deep", n.subtree.Parts)
	}
	_, network := n.dueOn(h, down)
	if network == nil {
		t.Fatal("no network census due on a downlink")
	}
	var m ReachReport
	n.add(h, down, &m, nil, network)
	if _, again := n.dueOn(h, down); again != nil || m.Network == nil {
		t.Errorf("the network census went down %v, and is due again at once: %v", m.Network != nil, again != nil)
	}
	h.role, h.up = RoleAttached, &link{id: 1, kind: linkUp}
	if sub, _ := n.dueOn(h, h.up); sub == nil {
		t.Fatal("our subtree is not due up")
	}
	n.add(h, h.up, &m, &n.subtree, nil)
	if sub, _ := n.dueOn(h, h.up); sub != nil {
		t.Error("an unchanged subtree is due up again")
	}
}
