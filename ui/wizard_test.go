package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/ui/internal/fakebackend"
)

func wizardHarness(t *testing.T) (*harness, *fake) { return wizardHarnessOver(t, newUnsetFake(t)) }

// wizardHarnessOver shows the first run of b.
func wizardHarnessOver(t *testing.T, b *fake) (*harness, *fake) {
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
	if z.mode.Selected != choiceNew() || z.joinBox.Visible() {
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

// plainBackend is a Backend and nothing more: a network that needs no
// membership proof, joined by its seed list.
type plainBackend struct{ Backend }

// TestWizardJoin: a backend without invitations joins by a seed list; the
// wizard shows per line whether it is a valid host:port and, once typing
// pauses, whether it is reachable, in full (wrapped, never cut off); it
// will not finish with an invalid line.
func TestWizardJoin(t *testing.T) {
	b := newUnsetFake(t)
	b.PresetSettings(app.Settings{})
	b.PresetStatus(attachedStatus())
	b.SetProbe(probeFake)
	h := newHarnessOver(t, plainBackend{b}, func() time.Time { return testNow })
	z := h.u.wizard
	if z.invites != nil || slices.Contains(z.mode.Options, choiceImport()) {
		t.Fatal("a plain backend is offered invitations or imports")
	}
	h.typeInto(z.name, "Sam")
	z.mode.SetSelected(choiceJoin())
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
	if len(info) != 4 || info[1] != "× not-an-address: missing port in address" || !strings.Contains(info[3], "listed twice") {
		t.Errorf("line verdicts %q", info)
	}
	h.advance(probeDelay)
	if !slices.Equal(b.probes, []string{"10.1.0.5:7400", "192.0.2.7:7400"}) {
		t.Errorf("probed %q", b.probes)
	}
	info = labels(z.seedInfo)
	if info[0] != "10.1.0.5:7400: reachable (3 ms)" || info[2] != "! 192.0.2.7:7400: unreachable: connection refused" {
		t.Errorf("after probing %q", info)
	}
	for _, o := range z.seedInfo.Objects {
		if l := o.(*widget.Label); l.Wrapping != fyne.TextWrapWord || l.Truncation != fyne.TextTruncateOff {
			t.Errorf("verdict %q is cut off rather than wrapped", l.Text)
		}
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

// TestWizardJoinByInvitation: with a backend that has invitations, "Join a
// network" takes an invitation code, says as it is pasted whether it is
// one, and joins with it (redeemed at the admin's servant); a refusal is
// shown in full, wrapped within the window, and leaves the wizard to try
// again.
func TestWizardJoinByInvitation(t *testing.T) {
	admin := fakebackend.New(t, testNow)
	h, b := wizardHarnessOver(t, newJoinerFake(admin))
	z := h.u.wizard
	h.typeInto(z.name, "Sam")
	z.mode.SetSelected(choiceJoin())
	h.sync()
	if z.invites == nil || !z.joinBox.Visible() || !z.code.Visible() {
		t.Fatal("the invitation code is not asked for")
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "Paste the invitation code") {
		t.Errorf("without a code: %q", z.problem.Text)
	}
	h.typeInto(z.code, "10.1.0.5:7400")
	if !strings.HasPrefix(z.codeInfo.Text, "×") || !strings.Contains(z.codeInfo.Text, "newsdesk:join?") {
		t.Errorf("a seed address as the code: %q", z.codeInfo.Text)
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "Correct the invitation code") || len(b.joins) != 0 {
		t.Errorf("finishing with a bad code: %q, %d joins", z.problem.Text, len(b.joins))
	}

	// Someone else used the invitation first.
	code := invitation(t, admin)
	if err := admin.Redeem(code, "Someone else"); err != nil {
		t.Fatal(err)
	}
	// A code whose via was changed on the way is refused as it is pasted.
	h.pasteInto(z.code, strings.Replace(code, "&via="+fakebackend.Self, "&via=10.1.0.6:7400", 1))
	if !strings.HasPrefix(z.codeInfo.Text, "×") || !strings.Contains(z.codeInfo.Text, "altered") {
		t.Errorf("a code with another via: %q", z.codeInfo.Text)
	}
	h.pasteInto(z.code, "  "+code+"\n")
	// A complete code, not one redeemed yet (issue 26).
	if got := z.codeInfo.Text; !strings.HasPrefix(got, "The code is complete") || !strings.Contains(got, "asks the network at "+fakebackend.Self) ||
		strings.Contains(got, "redeemed") {
		t.Errorf("a good code: %q", got)
	}

	// Refused: the whole reason shows, wrapped inside the window.
	h.tap(z.finish)
	if len(b.joins) != 1 || b.joins[0] != code || h.u.running {
		t.Fatalf("joins %q, running %v", b.joins, h.u.running)
	}
	if !strings.Contains(z.problem.Text, "This invitation has been used as often as it may be. Ask an admin for a new invitation.") ||
		!strings.HasSuffix(z.problem.Text, "(Newsdesk asked "+fakebackend.Self+".)") {
		t.Errorf("the refusal shows as %q", z.problem.Text)
	}
	if z.codeInfo.Text != "" {
		t.Errorf("beside the refusal the code still says %q", z.codeInfo.Text)
	}
	if z.problem.Wrapping != fyne.TextWrapWord || z.problem.Truncation != fyne.TextTruncateOff {
		t.Error("the problem label does not wrap")
	}
	if w, win := z.problem.Size().Width, h.win.Canvas().Size().Width; w <= 0 || w > win {
		t.Errorf("the problem label is %v wide in a window of %v", w, win)
	}
	if one := widget.NewLabel("x").MinSize().Height; z.problem.MinSize().Height < 2*one-1 {
		t.Errorf("the long refusal is %v high, one line is %v: not wrapped", z.problem.MinSize().Height, one)
	}
	if z.finish.Disabled() {
		t.Error("finish stays disabled after a refusal")
	}

	// Accepted: set up as a member of the admin's network, with its
	// seeds; the reader shows.
	code = invitation(t, admin)
	h.pasteInto(z.code, code)
	h.tap(z.finish)
	if len(b.joins) != 2 || b.joins[1] != code || !h.u.running || h.u.wizard != nil {
		t.Fatalf("after joining: joins %d, running %v, problem %q", len(b.joins), h.u.running, z.problem.Text)
	}
	if b.Network().ID != admin.Network().ID || b.IsAdmin() {
		t.Errorf("joined network %s (admin %v), invited to %s", b.Network().ID, b.IsAdmin(), admin.Network().ID)
	}
	if got := b.Seeds(); !slices.Equal(got, []string{fakebackend.Self}) {
		t.Errorf("seeds after joining %q", got)
	}
	if s := b.Settings(); s.DisplayName != "Sam" {
		t.Errorf("display name %q", s.DisplayName)
	}
	if l, err := admin.Invitations(); err != nil || len(l) != 2 || l[1].State != "used up" {
		t.Errorf("the admin's invitations %+v, %v", l, err)
	}
}

// invitation is a code admin made for one joiner.
func invitation(t *testing.T, admin *fakebackend.Backend) string {
	t.Helper()
	inv, err := admin.CreateInvitation(app.InviteOptions{Uses: 1})
	if err != nil {
		t.Fatal(err)
	}
	return inv.Code
}

// Issue 26: a second profile on this computer finds port 7400 taken; the
// wizard proposes the next free port and says so plainly, joins with it,
// and a port that turns out taken is refused before the invitation is
// used, saying what to do.
func TestWizardPortTaken(t *testing.T) {
	admin := fakebackend.New(t, testNow)
	b := newJoinerFake(admin)
	b.PresetSettings(app.Settings{})
	b.PresetStatus(attachedStatus())
	b.PresetPortTaken("7400")
	h := newHarness(t, b)
	z := h.u.wizard
	if z.port.Text != "7401" || !strings.Contains(z.portInfo.Text, "Port 7400 is in use on this computer") ||
		!strings.Contains(z.portInfo.Text, "this one will use port 7401") {
		t.Fatalf("port %q, note %q", z.port.Text, z.portInfo.Text)
	}
	h.typeInto(z.name, "Sam")
	z.mode.SetSelected(choiceJoin())
	h.pasteInto(z.code, invitation(t, admin))
	h.typeInto(z.port, "7400")
	h.tap(z.finish)
	if got := z.problem.Text; !strings.Contains(got, "Port 7400 is in use on this computer") || !strings.Contains(got, "Choose another port") ||
		!strings.Contains(got, "The invitation was not used.") {
		t.Errorf("joining on a taken port: %q", got)
	}
	if h.u.running {
		t.Fatal("set up on a taken port")
	}
	if l, err := admin.Invitations(); err != nil || len(l) != 1 || l[0].Used != 0 {
		t.Errorf("after the refusal the admin's invitation is %+v, %v", l, err)
	}
	// A free port is filled in for the next try.
	if z.port.Text != "7401" || !z.portInfo.Visible() || !strings.Contains(z.portInfo.Text, "Press Start again") {
		t.Errorf("after the refusal: port %q, note %q", z.port.Text, z.portInfo.Text)
	}
	h.typeInto(z.port, "70000")
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "from 1 to 65535") {
		t.Errorf("port 70000: %q", z.problem.Text)
	}
	h.typeInto(z.port, "7401")
	h.tap(z.finish)
	if !h.u.running {
		t.Fatalf("not set up on a free port: %q", z.problem.Text)
	}
	if got := b.Settings().Listen; got != "0.0.0.0:7401" {
		t.Errorf("listen address after setup %q", got)
	}
}
