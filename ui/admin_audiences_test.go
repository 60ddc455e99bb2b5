package ui

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/container"

	"newsdesk/trust"
)

// The named-ranges editor: an admin adds, changes and removes names with
// their ranges, a malformed entry is refused in words, and saving
// publishes the next version of the definition, which Compose then offers.
func TestAdminNamedRanges(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	if !slices.Contains(h.u.adminTabs.Items, h.u.audiencesTab) {
		t.Fatal("an admin's Admin tab has no named ranges")
	}
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.audiencesTab)
	h.sync()
	e := h.u.audiencesEd
	v1 := b.Network().Version
	if !e.save.Disabled() {
		t.Error("Sign and publish offered with nothing changed")
	}

	for _, tc := range []struct{ name, ranges, problem string }{
		{"", "10.1.4.0/22", "Enter a name"},
		{"Berlin office", "", "Enter the network ranges of Berlin office"},
		{"Berlin office", "10.1.4.0/22 berlin", `"berlin" is not a network range`},
	} {
		h.typeInto(e.name, tc.name)
		h.typeInto(e.ranges, tc.ranges)
		h.tap(e.add)
		if !strings.Contains(e.problem.Text, tc.problem) || len(e.work) != 0 {
			t.Errorf("%q = %q: problem %q, list %v", tc.name, tc.ranges, e.problem.Text, e.work)
		}
	}

	add := func(name, ranges string) {
		t.Helper()
		h.typeInto(e.name, name)
		h.typeInto(e.ranges, ranges)
		h.tap(e.add)
		if e.problem.Text != "" {
			t.Fatalf("adding %s: %s", name, e.problem.Text)
		}
	}
	add("Paris office", "10.2.0.0/16")
	add("Berlin office", "10.1.4.7/22, 2001:db8:4::/48")
	add("Rome office", "10.3.0.0/16")
	if len(e.work) != 3 || e.work[0].Name != "Berlin office" || audienceText(e.work[0].Ranges) != "10.1.4.0/22, 2001:db8:4::/48" {
		t.Fatalf("working list %v", e.work)
	}
	// Selecting a row fills the form; the same name with other ranges
	// changes it.
	e.list.Select(2)
	h.sync()
	if e.name.Text != "Rome office" || e.ranges.Text != "10.3.0.0/16" {
		t.Errorf("the form shows %q = %q", e.name.Text, e.ranges.Text)
	}
	h.tap(e.remove)
	e.list.Select(1)
	h.sync()
	h.typeInto(e.ranges, "10.2.0.0/15")
	h.tap(e.add)
	if len(e.work) != 2 || audienceText(e.work[1].Ranges) != "10.2.0.0/15" {
		t.Fatalf("after remove and change: %v", e.work)
	}
	if b.Network().Version != v1 {
		t.Fatal("published before saving")
	}

	h.tap(e.save)
	sn := b.Network()
	if sn.Version != v1+1 || len(sn.Audiences) != 2 || sn.Audiences[1].Name != "Paris office" ||
		sn.Audiences[1].Ranges[0] != netip.MustParsePrefix("10.2.0.0/15") {
		t.Fatalf("published version %d with %v", sn.Version, sn.Audiences)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.note.Text, "Published as version") || !e.save.Disabled() {
		t.Errorf("after saving: note %q, save enabled %v", e.note.Text, !e.save.Disabled())
	}
	if got := h.u.compose.picker.checks.Options; !slices.Equal(got, []string{"Berlin office", "Paris office"}) {
		t.Errorf("Compose offers %v", got)
	}
}

// Another admin's change of the named ranges is not published over
// silently: the first save says so, the second replaces theirs knowingly.
func TestAdminNamedRangesChangedMeanwhile(t *testing.T) {
	b, other, h := twoAdminsOn(t, func(u *UI) *container.TabItem { return u.audiencesTab })
	e := h.u.audiencesEd
	h.typeInto(e.name, "Berlin office")
	h.typeInto(e.ranges, "10.1.4.0/22")
	h.tap(e.add)
	adoptFrom(t, h, b, other, func(n *trust.Network) {
		n.Audiences = []trust.NamedRange{{Name: "Paris office", Ranges: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}}}
	})
	if len(e.work) != 1 || e.work[0].Name != "Berlin office" || !strings.Contains(e.heading.Text, "Another admin changed them") {
		t.Fatalf("after their version: work %v, heading %q", e.work, e.heading.Text)
	}
	theirs := b.Network().Version
	h.tap(e.save)
	if b.Network().Version != theirs || !strings.Contains(e.problem.Text, "another admin changed the named ranges") {
		t.Fatalf("first save: version %d (theirs %d), problem %q", b.Network().Version, theirs, e.problem.Text)
	}
	h.tap(e.save)
	if sn := b.Network(); sn.Version != theirs+1 || len(sn.Audiences) != 1 || sn.Audiences[0].Name != "Berlin office" {
		t.Fatalf("second save: version %d, %v", sn.Version, sn.Audiences)
	}
}
