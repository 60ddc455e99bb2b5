package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/widget"
)

func checkNamed(v *subscriptionsView, name string) *widget.Check {
	return find[*widget.Check](v.list, func(c *widget.Check) bool { return c.Text == name })
}

// TestSubscriptionToggling: ticking a category subscribes to it at once
// (SetSubscriptions with the new, minimal set) and adds it to the sidebar;
// unticking removes it; a category under a subscribed parent shows ticked
// and cannot be unticked on its own.
func TestSubscriptionToggling(t *testing.T) {
	b := newFake(t)
	b.PresetSubscriptions("company", "sales")
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(1)
	h.sync()
	v := h.u.subsView

	emea := checkNamed(v, "Sales EMEA")
	if emea == nil || !emea.Checked || !emea.Disabled() {
		t.Fatalf("Sales EMEA under subscribed Sales: %+v", emea)
	}
	if !hasLabel(v.list, "Included in Sales.") {
		t.Error("no hint that Sales EMEA is included in Sales")
	}
	it := checkNamed(v, "IT")
	if it == nil || it.Checked || it.Disabled() {
		t.Fatalf("IT: %+v", it)
	}
	h.tap(it)
	if want := []string{"company", "it", "sales"}; len(b.subsCalls) != 1 || !slices.Equal(b.subsCalls[0], want) {
		t.Errorf("SetSubscriptions calls %q, want [%q]", b.subsCalls, want)
	}
	if _, ok := h.u.reader.sidebar.feed("it"); !ok {
		t.Error("IT not in the sidebar")
	}
	if v.note.Text != "Saved. Receiving 6 categories." {
		t.Errorf("note %q", v.note.Text)
	}

	h.tap(checkNamed(v, "Sales"))
	if got := b.subsCalls[len(b.subsCalls)-1]; !slices.Equal(got, []string{"company", "it"}) {
		t.Errorf("after unticking Sales: %q", got)
	}
	emea = checkNamed(v, "Sales EMEA")
	if emea.Checked || emea.Disabled() {
		t.Error("Sales EMEA still included after unsubscribing from Sales")
	}
	if _, ok := h.u.reader.sidebar.feed("sales/emea"); ok {
		t.Error("Sales EMEA still in the sidebar")
	}
	// A child on its own.
	h.tap(emea)
	if got := b.subsCalls[len(b.subsCalls)-1]; !slices.Equal(got, []string{"company", "it", "sales/emea"}) {
		t.Errorf("after ticking Sales EMEA: %q", got)
	}
	if f, ok := h.u.reader.sidebar.feed("sales/emea"); !ok || f.level != 0 {
		t.Errorf("Sales EMEA alone in the sidebar: %+v %v", f, ok)
	}
}

// TestSubscriptionBurst: toggles made while a change is on its way are
// sent once it returns, newest state only.
func TestSubscriptionBurst(t *testing.T) {
	b := newFake(t)
	b.PresetSubscriptions()
	h := newHarness(t, b)
	v := h.u.subsView
	v.toggle("it", true) // in flight
	v.toggle("hr", true) // waits
	v.toggle("company", true)
	h.sync()
	if len(b.subsCalls) != 2 || !slices.Equal(b.subsCalls[1], []string{"company", "hr", "it"}) {
		t.Errorf("calls %q", b.subsCalls)
	}
	if !slices.Equal(b.Subscriptions(), []string{"company", "hr", "it"}) {
		t.Errorf("backend has %q", b.Subscriptions())
	}
}
