package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/categories"
)

func probeFake(addr string) app.Probe {
	if strings.HasPrefix(addr, "10.") {
		return app.Probe{Addr: addr, OK: true, RTT: 3 * time.Millisecond}
	}
	return app.Probe{Addr: addr, Problem: "connection refused"}
}

// TestSeedEditor: addresses are validated as host:port and not listed
// twice; added seeds are tested for reachability; seeds move up and down
// and are removed; Save stores the list.
func TestSeedEditor(t *testing.T) {
	b := newFake()
	b.seeds = []string{"10.0.0.1:7400", "10.0.0.2:7400"}
	b.probe = probeFake
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.SelectIndex(0)
	h.sync()
	s := h.u.seeds
	if !slices.Equal(s.seeds, b.seeds) {
		t.Fatalf("editor shows %q", s.seeds)
	}
	for _, c := range []struct{ in, problem string }{
		{"", "Enter an address"},
		{"seed.example.com", "missing port"},
		{"seed.example.com:0", "port must be 1..65535"},
		{"seed.example.com:99999", "port must be 1..65535"},
		{":7400", "missing host"},
		{"10.0.0.1:7400", "already in the list"},
	} {
		h.typeInto(s.addr, c.in)
		h.tap(s.add)
		if !strings.Contains(s.problem.Text, c.problem) {
			t.Errorf("add %q: problem %q, want %q", c.in, s.problem.Text, c.problem)
		}
	}
	if len(s.seeds) != 2 || !s.save.Disabled() {
		t.Fatalf("invalid additions changed the list: %q", s.seeds)
	}

	h.typeInto(s.addr, "seed.example.com:7400")
	h.tap(s.add)
	h.typeInto(s.addr, "10.0.0.3:7400")
	test_submit(s.addr)
	h.sync()
	if want := []string{"10.0.0.1:7400", "10.0.0.2:7400", "seed.example.com:7400", "10.0.0.3:7400"}; !slices.Equal(s.seeds, want) {
		t.Fatalf("seeds %q", s.seeds)
	}
	if s.problem.Text != "" || s.addr.Text != "" {
		t.Errorf("after a valid add: problem %q, entry %q", s.problem.Text, s.addr.Text)
	}
	if got := s.probes.text("seed.example.com:7400"); got != "unreachable: connection refused" {
		t.Errorf("probe of the new seed: %q", got)
	}
	if !hasLabel(s.list, "reachable (3 ms)") || !hasLabel(s.list, "unreachable: connection refused") {
		t.Errorf("reachability not shown: %q", labels(s.list))
	}

	// Move the last seed to the top, remove the unreachable one.
	s.list.Select(3)
	h.tap(s.up)
	h.tap(s.up)
	h.tap(s.up)
	if !s.up.Disabled() {
		t.Error("Move up enabled on the first seed")
	}
	if s.seeds[0] != "10.0.0.3:7400" {
		t.Errorf("after moving up: %q", s.seeds)
	}
	h.tap(s.down)
	if s.seeds[1] != "10.0.0.3:7400" {
		t.Errorf("after moving down: %q", s.seeds)
	}
	s.list.Select(3)
	h.tap(s.remove)
	want := []string{"10.0.0.1:7400", "10.0.0.3:7400", "10.0.0.2:7400"}
	if !slices.Equal(s.seeds, want) {
		t.Fatalf("after remove: %q", s.seeds)
	}
	if !slices.Equal(b.Seeds(), []string{"10.0.0.1:7400", "10.0.0.2:7400"}) {
		t.Error("edits reached the store before Save")
	}
	h.tap(s.test)
	h.tap(s.save)
	if len(b.seedsSaved) != 1 || !slices.Equal(b.seedsSaved[0], want) {
		t.Errorf("saved %q", b.seedsSaved)
	}
	if !s.save.Disabled() || !strings.Contains(s.note.Text, "next connection") {
		t.Errorf("after save: note %q", s.note.Text)
	}
	h.typeInto(s.addr, "10.9.9.9:1")
	h.tap(s.add)
	h.tap(s.revert)
	if !slices.Equal(s.seeds, want) {
		t.Errorf("revert: %q", s.seeds)
	}
}

// TestCatalogEditor: categories are added with their ID validated
// (categories.ValidateID, the parent first, no duplicates), edited,
// removed (not while they have children), and saved as the next catalog
// version.
func TestCatalogEditor(t *testing.T) {
	b := newFake()
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.SelectIndex(1)
	h.sync()
	e := h.u.catalogEd
	add := func(id, name string) {
		t.Helper()
		h.tap(e.newCat)
		h.typeInto(e.id, id)
		h.typeInto(e.name, name)
		h.tap(e.apply)
	}
	for _, c := range []struct{ id, name, problem string }{
		{"Marketing", "Marketing", "invalid character"},
		{"marketing/", "Marketing", "trailing '/'"},
		{"marketing/events", "Events", "parent \"marketing\" is not in the catalog"},
		{"sales", "Sales again", "already exists"},
		{"marketing", "", "name: required"},
	} {
		add(c.id, c.name)
		if !strings.Contains(e.problem.Text, c.problem) {
			t.Errorf("add %q: problem %q, want %q", c.id, e.problem.Text, c.problem)
		}
	}
	if !e.save.Disabled() {
		t.Fatal("invalid additions made the catalog dirty")
	}
	add("marketing", "Marketing")
	add("marketing/events", "Events")
	if e.problem.Text != "" {
		t.Fatalf("valid additions: %q", e.problem.Text)
	}
	if !hasLabel(e.list, "Events") {
		t.Error("new category not listed")
	}
	// Edit the name of an existing one; its ID is fixed.
	e.list.Select(slices.IndexFunc(e.cats, func(c categories.Category) bool { return c.ID == "hr" }))
	h.sync()
	if !e.id.Disabled() || e.name.Text != "HR" {
		t.Errorf("editing hr: id disabled %v, name %q", e.id.Disabled(), e.name.Text)
	}
	h.typeInto(e.name, "People")
	h.tap(e.apply)
	// A parent with children cannot go.
	e.list.Select(slices.IndexFunc(e.cats, func(c categories.Category) bool { return c.ID == "marketing" }))
	h.sync()
	h.tap(e.remove)
	if !strings.Contains(e.problem.Text, "remove those first") {
		t.Errorf("removing a parent: %q", e.problem.Text)
	}
	e.list.Select(slices.IndexFunc(e.cats, func(c categories.Category) bool { return c.ID == "facilities" }))
	h.sync()
	h.tap(e.remove)

	h.tap(e.save)
	c := b.Catalog()
	if c.Version() != 2 || !c.Has("marketing/events") || c.Has("facilities") {
		t.Fatalf("saved catalog v%d: %q", c.Version(), c.IDs())
	}
	if got, _ := c.Get("hr"); got.Name != "People" {
		t.Errorf("hr is named %q", got.Name)
	}
	// An admin's catalog is a new signed version of the network definition.
	if e.note.Text != "Saved as catalog version 2, published as version 2 of the network definition." || !e.save.Disabled() {
		t.Errorf("note %q", e.note.Text)
	}
	if sn := b.Network(); sn.Version != 2 || sn.Catalog != c {
		t.Errorf("network definition v%d, catalog v%d", sn.Version, sn.Catalog.Version())
	}
	// The rest of the window follows: compose offers the new category.
	if !slices.Contains(h.u.compose.catIDs, "marketing/events") {
		t.Error("compose does not offer the new category")
	}
}
