package ui

import (
	"slices"
	"strings"
	"testing"

	"newsdesk/app"
)

func wizardHarness(t *testing.T) (*harness, *fake) {
	b := newFake()
	b.PresetNeedsSetup(true)
	b.PresetSettings(app.Settings{})
	b.PresetStatus(attachedStatus())
	b.SetProbe(probeFake)
	h := newHarness(t, b)
	if h.u.wizard == nil || h.u.running {
		t.Fatal("the wizard is not shown on first run")
	}
	return h, b
}

// TestWizardNewNetwork: the first run asks for a display name and, with
// "Start a new network", sets up at once and shows the reader.
func TestWizardNewNetwork(t *testing.T) {
	h, b := wizardHarness(t)
	z := h.u.wizard
	if z.mode.Selected != choiceNew || z.joinBox.Visible() {
		t.Errorf("default choice %q", z.mode.Selected)
	}
	h.tap(z.finish)
	if z.problem.Text != "Enter your display name." || len(b.setups) != 0 {
		t.Errorf("without a name: %q, %d setups", z.problem.Text, len(b.setups))
	}
	h.typeInto(z.name, "Dana Whitfield")
	h.tap(z.finish)
	if len(b.setups) != 1 || !b.setups[0].NewNetwork || b.setups[0].DisplayName != "Dana Whitfield" || b.setups[0].Seeds != nil {
		t.Fatalf("setup %+v", b.setups)
	}
	if !h.u.running || h.u.wizard != nil || h.u.reader == nil {
		t.Fatal("the reader did not replace the wizard")
	}
	if !hasLabel(h.win.Content(), "Feeds") {
		t.Error("the main window is not shown")
	}
	if got := b.Seeds(); !slices.Equal(got, []string{"10.1.4.23:7946"}) {
		t.Errorf("a new network's seed list is %q", got)
	}
}

// TestWizardJoin: joining takes a seed list, shows per line whether it is
// a valid host:port and, once typing pauses, whether it is reachable; it
// will not finish with an invalid line.
func TestWizardJoin(t *testing.T) {
	h, b := wizardHarness(t)
	z := h.u.wizard
	h.typeInto(z.name, "Sam")
	z.mode.SetSelected(choiceJoin)
	h.sync()
	if !z.joinBox.Visible() {
		t.Fatal("the seed list is not shown when joining")
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "at least one seed") {
		t.Errorf("empty list: %q", z.problem.Text)
	}
	h.typeInto(z.seeds, "10.1.0.5:7400\nnot-an-address\n192.0.2.7:7400\n\n10.1.0.5:7400")
	if len(b.probes) != 0 {
		t.Errorf("probed while typing: %q", b.probes)
	}
	info := labels(z.seedInfo)
	if len(info) != 4 || info[1] != "✗ not-an-address: missing port in address" || !strings.Contains(info[3], "listed twice") {
		t.Errorf("line verdicts %q", info)
	}
	h.advance(probeDelay)
	if !slices.Equal(b.probes, []string{"10.1.0.5:7400", "192.0.2.7:7400"}) {
		t.Errorf("probed %q", b.probes)
	}
	info = labels(z.seedInfo)
	if info[0] != "✓ 10.1.0.5:7400: reachable (3 ms)" || info[2] != "! 192.0.2.7:7400: unreachable: connection refused" {
		t.Errorf("after probing %q", info)
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "not-an-address") || len(b.setups) != 0 {
		t.Errorf("invalid line accepted: %q", z.problem.Text)
	}
	h.typeInto(z.seeds, "10.1.0.5:7400\n192.0.2.7:7400")
	h.tap(z.finish)
	if len(b.setups) != 1 || b.setups[0].NewNetwork || !slices.Equal(b.setups[0].Seeds, []string{"10.1.0.5:7400", "192.0.2.7:7400"}) {
		t.Fatalf("setup %+v", b.setups)
	}
	if !h.u.running {
		t.Error("the reader did not start")
	}
}
