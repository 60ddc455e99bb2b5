package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"newsdesk/app"
)

// The treemap tiles its area: every box inside it, none overlapping
// another, each with an area proportional to its size.
func TestTreemapTilesByArea(t *testing.T) {
	sizes := []float64{500, 300, 120, 60, 12, 5, 2, 1}
	area := mapBox{10, 20, 600, 300}
	boxes := treemap(sizes, area)
	var total float64
	for _, s := range sizes {
		total += s
	}
	for i, b := range boxes {
		if b.x < area.x-0.01 || b.y < area.y-0.01 || b.x+b.w > area.x+area.w+0.01 || b.y+b.h > area.y+area.h+0.01 {
			t.Errorf("box %d %+v outside %+v", i, b, area)
		}
		want := sizes[i] / total * float64(area.w*area.h)
		if got := float64(b.w * b.h); math.Abs(got-want) > want*0.01+0.5 {
			t.Errorf("box %d: area %.1f, want %.1f", i, got, want)
		}
		for j := range i {
			o := boxes[j]
			if b.x+0.01 < o.x+o.w && o.x+0.01 < b.x+b.w && b.y+0.01 < o.y+o.h && o.y+0.01 < b.y+b.h {
				t.Errorf("boxes %d %+v and %d %+v overlap", i, b, j, o)
			}
		}
	}
}

// mapCensus is a census of 2,043 computers with two partitions below the
// vertex: one fine with two below it, one with lost items.
func mapCensus() app.Census {
	return app.Census{At: testNow.Add(-30 * time.Second), Servants: 2043, MinProtocol: 7, MaxProtocol: 7,
		WorstLost: []app.LostServant{{Servant: "10.3.8.41:7400", Lost: 7}},
		Parts: []app.MapPart{
			{Root: "10.1.0.5:7400", Lo: 1, Hi: 2, Servants: 1500, Leaves: 400, Depth: 3, MinProtocol: 7, MaxProtocol: 7,
				Parts: []app.MapPart{{Root: "10.1.4.1:7400", Servants: 900, Depth: 2, MinProtocol: 7, MaxProtocol: 7},
					{Root: "10.1.9.1:7400", Servants: 599, Depth: 2, MinProtocol: 7, MaxProtocol: 7}}},
			{Root: "10.3.0.2:7400", Lo: 10<<40 | 3<<32, Hi: 10<<40 | 3<<32 | (1<<32 - 1), Servants: 542, Leaves: 12, Lost: 7, LostServants: 1,
				Depth: 2, MinProtocol: 7, MaxProtocol: 7},
		}}
}

// Issue 30: the admin's network view maps the tree: a box per partition,
// sized by its computers and coloured by its health; tapping one shows
// its figures, with the computers in it that lost items.
func TestNetworkViewMap(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	b.PresetStatus(st)
	b.PresetCensus(mapCensus())
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.networkTab)
	h.sync()
	v := h.u.network
	if !v.tree.Visible() {
		t.Fatal("no map of the tree")
	}
	v.netMap.Resize(fyne.NewSize(600, 300))
	if n := len(v.netMap.hits); n != 4 {
		t.Fatalf("%d boxes, want 2 partitions and the 2 below the first", n)
	}
	big, small := v.netMap.hits[0].box, v.netMap.hits[3].box
	if big.w*big.h < 2*small.w*small.h {
		t.Errorf("the partition of 1,500 computers (%+v) is not larger than that of 542 (%+v)", big, small)
	}
	if got := partHealth(mapCensus().Parts[1], 7); got != theme.ColorNameError {
		t.Errorf("a partition with lost items is %s", got)
	}
	if got := partHealth(mapCensus().Parts[0], 7); got != theme.ColorNameSuccess {
		t.Errorf("a fine partition is %s", got)
	}
	if !hasLabel(v.content, "Tap a box for its figures. Green: fine; yellow: older protocol versions, or most computers cannot be dialled; red: lost items.") {
		t.Error("no hint before a box is tapped")
	}

	tapAt := func(b mapBox) {
		test.TapAt(v.netMap, fyne.NewPos(b.x+b.w/2, b.y+b.h-4))
		h.sync()
	}
	tapAt(v.netMap.hits[3].box)
	for _, want := range []string{"below 10.3.0.2:7400", "10.3.0.0 – 10.3.255.255", "542, of which 12 leaves (cannot be dialled)",
		"7 items on 1 computer\n10.3.8.41:7400: 7 items"} {
		if !hasLabel(v.content, want) {
			t.Errorf("the tapped partition's figures lack %q", want)
		}
	}
	tapAt(v.netMap.hits[1].box) // the first partition's first below it
	if !hasLabel(v.content, "below 10.1.4.1:7400") {
		t.Error("tapping a partition below another does not show it")
	}

	// Looking inside a partition: its servant's census maps two levels
	// below it; Up one level goes back to the whole network.
	b.PresetPartition("10.1.4.1:7400", app.Census{Servants: 900, MinProtocol: 7, MaxProtocol: 7,
		Parts: []app.MapPart{{Root: "10.1.4.9:7400", Servants: 500, MinProtocol: 7, MaxProtocol: 7}, {Root: "10.1.4.80:7400", Servants: 399, MinProtocol: 7, MaxProtocol: 7}}})
	test.Tap(v.look)
	h.sync()
	if len(v.netMap.hits) != 2 || v.where.Text != "The whole network › below 10.1.4.1:7400" || v.up.Disabled() {
		t.Errorf("inside 10.1.4.1:7400: %d boxes, where %q, up disabled %v", len(v.netMap.hits), v.where.Text, v.up.Disabled())
	}
	h.u.loadStatus()() // a refresh keeps the map inside
	if len(v.netMap.hits) != 2 {
		t.Errorf("a refresh left the partition: %d boxes", len(v.netMap.hits))
	}
	tapAt(v.netMap.hits[1].box)
	test.Tap(v.look) // 10.1.4.80 does not answer
	h.sync()
	if !v.mapNote.Visible() || !strings.HasPrefix(v.mapNote.Text, "10.1.4.80:7400 did not answer") {
		t.Errorf("an unanswered question shows %q", v.mapNote.Text)
	}
	test.Tap(v.up)
	if len(v.netMap.hits) != 4 || v.where.Text != "The whole network" || !v.up.Disabled() {
		t.Errorf("after Up: %d boxes, where %q", len(v.netMap.hits), v.where.Text)
	}
}

// The map of the largest census (32 partitions, each with 32) lays out
// every box, and labels only those big enough.
func TestNetMapLargestCensus(t *testing.T) {
	var parts []app.MapPart
	for i := range 32 {
		p := app.MapPart{Root: "10.0.0.1:7400", Servants: uint64(400 - i*10), MinProtocol: 7, MaxProtocol: 7}
		for j := range 32 {
			p.Parts = append(p.Parts, app.MapPart{Root: "10.0.0.2:7400", Servants: uint64(12 - j/3)})
		}
		parts = append(parts, p)
	}
	m := newNetMap(nil)
	m.set(parts, 7)
	w := test.NewWindow(m)
	defer w.Close()
	w.Resize(fyne.NewSize(800, 400))
	m.Resize(fyne.NewSize(800, 400))
	if n := len(m.hits); n != 32+32*32 {
		t.Errorf("%d boxes, want %d", n, 32+32*32)
	}
}
