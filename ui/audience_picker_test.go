package ui

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"newsdesk/news"
	"newsdesk/trust"
)

// withNamedRanges gives b's definition the named ranges Berlin office
// (10.1.4.0/22 and 2001:db8:4::/48) and Paris office (10.2.0.0/16).
func withNamedRanges(t *testing.T, b *fake) {
	t.Helper()
	b.PresetNetwork(nextVersion(t, b.Identity(), b.Network(), func(n *trust.Network) {
		n.Audiences = []trust.NamedRange{
			{Name: "Berlin office", Ranges: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22"), netip.MustParsePrefix("2001:db8:4::/48")}},
			{Name: "Paris office", Ranges: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}},
		}
	}))
}

// Compose offers the named ranges beside the audience field: ticking a
// name adds its ranges to the field, unticking takes them out, typing a
// name's ranges ticks it, and the draft's audience is the union of the
// names ticked and the ranges typed.
func TestComposeNamedRanges(t *testing.T) {
	b := newFake(t)
	withNamedRanges(t, b)
	h, c := composeHarness(t, b)
	p := c.picker
	if !p.content.Visible() || !slices.Equal(p.checks.Options, []string{"Berlin office", "Paris office"}) {
		t.Fatalf("the picker offers %v (visible %v)", p.checks.Options, p.content.Visible())
	}
	chooseCategory(c, "hr")
	h.typeInto(c.title, "Office party")

	h.typeInto(c.audience, "10.9.0.0/16")
	p.checks.SetSelected([]string{"Berlin office"})
	h.sync()
	if c.audience.Text != "10.1.4.0/22, 10.9.0.0/16, 2001:db8:4::/48" {
		t.Errorf("ticking Berlin: the field says %q", c.audience.Text)
	}
	p.checks.SetSelected([]string{"Berlin office", "Paris office"})
	h.sync()
	p.checks.SetSelected([]string{"Paris office"})
	h.sync()
	if c.audience.Text != "10.2.0.0/16, 10.9.0.0/16" {
		t.Errorf("unticking Berlin: the field says %q", c.audience.Text)
	}
	h.typeInto(c.audience, "10.9.0.0/16, 2001:db8:4::/48 10.1.4.0/22")
	if !slices.Equal(p.checks.Selected, []string{"Berlin office"}) {
		t.Errorf("typing Berlin's ranges ticked %v", p.checks.Selected)
	}
	p.checks.SetSelected([]string{"Berlin office", "Paris office"})
	h.sync()
	h.tap(c.publish)
	if len(b.drafts) != 1 || fmt.Sprint(news.FormatAudience(b.drafts[0].Audience)) != "[10.1.4.0/22 10.2.0.0/16 10.9.0.0/16 2001:db8:4::/48]" {
		t.Fatalf("drafts %+v", b.drafts)
	}
	if len(p.checks.Selected) != 0 {
		t.Errorf("the cleared form keeps %v ticked", p.checks.Selected)
	}
}

// Without named ranges Compose shows no picker.
func TestComposeNoNamedRanges(t *testing.T) {
	_, c := composeHarness(t, newFake(t))
	if c.picker.content.Visible() {
		t.Error("a picker with nothing to pick")
	}
}

// The reader says whom an item is for, naming the named ranges it is
// made of.
func TestItemViewAudience(t *testing.T) {
	b := newFake(t)
	withNamedRanges(t, b)
	it := item(1, "hr", "Berlin office closed", 10)
	it.Audience, _ = news.ParseAudience([]string{"10.1.4.0/22", "2001:db8:4::/48", "10.9.0.0/16"})
	plain := item(2, "hr", "For everyone", 5)
	b.Add(it, plain)
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "Berlin office closed"))
	if want := " · For 10.1.4.0/22, 2001:db8:4::/48 (Berlin office), 10.9.0.0/16"; !strings.HasSuffix(h.u.reader.view.meta.Text, want) {
		t.Errorf("meta %q, want it to end in %q", h.u.reader.view.meta.Text, want)
	}
	h.tap(rowTappable(t, h.u.reader.list, "For everyone"))
	if m := h.u.reader.view.meta.Text; strings.Contains(m, "For ") {
		t.Errorf("an item for everyone says %q", m)
	}
}
