package ui

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/container"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/trust"
)

func probeFake(addr string) app.Probe {
	if strings.HasPrefix(addr, "10.") {
		return app.Probe{Addr: addr, OK: true, RTT: 3 * time.Millisecond}
	}
	return app.Probe{Addr: addr, Problem: "connection refused", Kind: app.ProbeRefused}
}

// openSeedEditor opens Admin → Seeds on a backend holding seeds, whose
// probes answer as probeFake, and checks that the editor lists them.
func openSeedEditor(t *testing.T, seeds ...string) (*fake, *harness, *seedEditor) {
	t.Helper()
	b := newFake(t)
	if err := b.Backend.SetSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	b.SetProbe(probeFake)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.SelectIndex(0)
	h.sync()
	s := h.u.seeds
	if !slices.Equal(s.seeds, b.Seeds()) {
		t.Fatalf("editor shows %q", s.seeds)
	}
	return b, h, s
}

// TestSeedEditor: addresses are validated as host:port and not listed
// twice; added seeds are tested for reachability; seeds move up and down
// and are removed; Save stores the list.
func TestSeedEditor(t *testing.T) {
	b, h, s := openSeedEditor(t, "10.0.0.1:7400", "10.0.0.2:7400")
	for _, c := range []struct{ in, problem string }{
		{"", "Enter an address"},
		{"seed.example.com", "missing port"},
		{"seed.example.com:0", "the port must be a number from 1 to 65535"},
		{"seed.example.com:99999", "the port must be a number from 1 to 65535"},
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
	b := newFake(t)
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
		{"Marketing", "Marketing", "may not hold “M”"},
		{"marketing/", "Marketing", "may not start or end with “/”"},
		{"marketing/events", "Events", "parent \"marketing\" is not in the catalog"},
		{"sales", "Sales again", "already exists"},
		{"marketing", "", "Name: required."},
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

// withSecondAdmin makes b's definition list another admin besides b's own
// key (version 2), and returns the other admin's key pair, with which a
// test publishes as a colleague at another computer would.
func withSecondAdmin(t *testing.T, b *fake) *trust.Identity {
	t.Helper()
	other, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b.PresetNetwork(nextVersion(t, b.Identity(), b.Network(), func(n *trust.Network) { n.Admins = append(n.Admins, other.Public) }))
	return other
}

// adoptFrom has b adopt the next version signed by admin after edit, as
// when it arrives over the network, and runs what follows in the UI.
func adoptFrom(t *testing.T, h *harness, b *fake, admin *trust.Identity, edit func(*trust.Network)) {
	t.Helper()
	if err := b.PublishNetwork(nextVersion(t, admin, b.Network(), edit)); err != nil {
		t.Fatal(err)
	}
	h.sync()
}

func newKey(t *testing.T) *trust.Identity {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// twoAdminsOn opens the admin screen tab of a fake backend whose network
// has a second admin, returned to sign the versions "another admin"
// publishes.
func twoAdminsOn(t *testing.T, tab func(*UI) *container.TabItem) (*fake, *trust.Identity, *harness) {
	t.Helper()
	b := newFake(t)
	other := withSecondAdmin(t, b)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(tab(h.u))
	h.sync()
	return b, other, h
}

// TestAdminPublishersConcurrentAddition: while I add a publisher, another
// admin publishes a version adding another one; my save publishes a
// version holding both and says that it merged.
func TestAdminPublishersConcurrentAddition(t *testing.T) {
	b, other, h := twoAdminsOn(t, func(u *UI) *container.TabItem { return u.publishersTab })
	p := h.u.publishers

	hr, ann := newKey(t), newKey(t)
	h.typeInto(p.key, trust.PublicKeyString(hr.Public))
	h.typeInto(p.name, "HR team")
	h.tap(p.add)
	adoptFrom(t, h, b, other, func(n *trust.Network) {
		n.Publishers = append(n.Publishers, trust.Publisher{Name: "Ann", Key: ann.Public})
	})
	if len(p.pubs) != 2 || p.save.Disabled() {
		t.Fatalf("the new version replaced my unsaved edit: %d publishers", len(p.pubs))
	}
	if !strings.Contains(p.heading.Text, "version 3") || !strings.Contains(p.heading.Text, "made on version 2; saving merges them onto version 3") {
		t.Errorf("heading %q", p.heading.Text)
	}

	h.tap(p.save)
	sn := b.Network()
	_, hasHR := sn.Publisher(hr.Public)
	_, hasAnn := sn.Publisher(ann.Public)
	if sn.Version != 4 || !hasHR || !hasAnn || !bytes.Equal(sn.Signer, b.Identity().Public) {
		t.Fatalf("published v%d by %s: %+v", sn.Version, trust.PublicKeyString(sn.Signer), sn.Publishers)
	}
	if want := "Published as version 4 of the network definition. Your changes were merged onto version 3, which another admin published while you were editing."; p.note.Text != want {
		t.Errorf("note %q", p.note.Text)
	}
	if len(p.pubs) != 3 || !p.save.Disabled() || p.problem.Text != "" {
		t.Errorf("after saving: %d publishers, problem %q", len(p.pubs), p.problem.Text)
	}
}

// TestAdminPublishersConflict: I remove a publisher that another admin changed
// meanwhile. Nothing is published; the message names the conflict and the
// editor moves onto the other admin's version with my removal still
// pending, so saving again is a choice made knowingly.
func TestAdminPublishersConflict(t *testing.T) {
	b := newFake(t)
	other := withSecondAdmin(t, b)
	ann := newKey(t)
	b.PresetNetwork(nextVersion(t, other, b.Network(), func(n *trust.Network) {
		n.Publishers = append(n.Publishers, trust.Publisher{Name: "Ann", Key: ann.Public})
	}))
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.publishersTab)
	h.sync()
	p := h.u.publishers
	p.list.Select(slices.IndexFunc(p.pubs, func(x trust.Publisher) bool { return x.Name == "Ann" }))
	h.tap(p.remove)
	adoptFrom(t, h, b, other, func(n *trust.Network) {
		i := slices.IndexFunc(n.Publishers, func(x trust.Publisher) bool { return x.Name == "Ann" })
		n.Publishers[i].Categories = []string{"hr"}
	})

	h.tap(p.save)
	if sn := b.Network(); sn.Version != 4 || !bytes.Equal(sn.Signer, other.Public) {
		t.Fatalf("a conflicting edit was published: v%d", sn.Version)
	}
	for _, want := range []string{
		"Another admin changed publisher “Ann” in version 4 to “Ann”, HR, while you removed it.",
		"Not published: Another admin",
		"The editor now shows version 4 with your changes on top",
	} {
		if !strings.Contains(p.problem.Text, want) {
			t.Errorf("problem %q, want %q", p.problem.Text, want)
		}
	}
	if !hasLabel(p.content, "Another admin changed publisher “Ann”") {
		t.Error("the conflict is not on screen")
	}
	if p.base.Version != 4 || len(p.pubs) != 1 || p.save.Disabled() || !strings.HasPrefix(p.heading.Text, "Network “Newsdesk”, version 4: 2 publisher(s).") {
		t.Errorf("after the conflict: base v%d, %d publishers, heading %q", p.base.Version, len(p.pubs), p.heading.Text)
	}

	// Saving again keeps my removal, now made on version 4.
	h.tap(p.save)
	if sn := b.Network(); sn.Version != 5 || len(sn.Publishers) != 1 {
		t.Errorf("saving again: v%d %+v", sn.Version, sn.Publishers)
	}
	if p.note.Text != "Published as version 5 of the network definition." {
		t.Errorf("note %q", p.note.Text)
	}
}

// TestAdminSeedsFollowAndConflict: with nothing pending the seed editor shows
// the list of a version another admin published; with an edit pending, a
// differently changed list is a conflict: nothing is published or stored,
// and Revert takes the other admin's list.
func TestAdminSeedsFollowAndConflict(t *testing.T) {
	b, other, h := twoAdminsOn(t, func(u *UI) *container.TabItem { return u.seedsTab })
	s := h.u.seeds
	adoptFrom(t, h, b, other, func(n *trust.Network) { n.Seeds = []string{"10.0.0.7:7400"} })
	if !slices.Equal(s.seeds, []string{"10.0.0.7:7400"}) || !s.save.Disabled() {
		t.Fatalf("the editor shows %q after version 3", s.seeds)
	}

	h.typeInto(s.addr, "10.0.0.8:7400")
	h.tap(s.add)
	theirs := []string{"10.0.0.7:7400", "10.0.0.9:7400"}
	adoptFrom(t, h, b, other, func(n *trust.Network) { n.Seeds = theirs })
	if want := []string{"10.0.0.7:7400", "10.0.0.8:7400"}; !slices.Equal(s.seeds, want) {
		t.Fatalf("my pending edit is gone: %q", s.seeds)
	}
	if s.note.Text != "Unsaved changes, made on version 3 of the network definition; saving merges them onto version 4." {
		t.Errorf("note %q", s.note.Text)
	}
	h.tap(s.save)
	if sn := b.Network(); sn.Version != 4 || len(b.seedsSaved) != 0 {
		t.Fatalf("a conflicting list was saved: v%d, stored %q", sn.Version, b.seedsSaved)
	}
	if want := "Another admin changed the seed list in version 4 to 10.0.0.7:7400, 10.0.0.9:7400, while you changed it to 10.0.0.7:7400, 10.0.0.8:7400."; !strings.Contains(s.problem.Text, want) {
		t.Errorf("problem %q", s.problem.Text)
	}
	h.tap(s.revert)
	if !slices.Equal(s.seeds, theirs) || !s.save.Disabled() {
		t.Errorf("revert shows %q", s.seeds)
	}
}

// TestAdminCatalogConcurrentAddition: categories added by me and by
// another admin meanwhile are both in the catalog I save, numbered one
// above the other admin's catalog.
func TestAdminCatalogConcurrentAddition(t *testing.T) {
	b, other, h := twoAdminsOn(t, func(u *UI) *container.TabItem { return u.catalogTab })
	e := h.u.catalogEd
	h.tap(e.newCat)
	h.typeInto(e.id, "marketing")
	h.typeInto(e.name, "Marketing")
	h.tap(e.apply)
	adoptFrom(t, h, b, other, func(n *trust.Network) {
		c, err := categories.NewCatalog(n.Catalog.Version()+1, append(n.Catalog.All(), categories.Category{ID: "legal", Name: "Legal"}))
		if err != nil {
			t.Fatal(err)
		}
		n.Catalog = c
	})
	if !slices.Contains(e.cats, categories.Category{ID: "marketing", Name: "Marketing"}) {
		t.Fatal("my pending category is gone")
	}
	if e.note.Text != "Unsaved changes, made on catalog version 1; saving merges them onto version 2." {
		t.Errorf("note %q", e.note.Text)
	}

	h.tap(e.save)
	sn := b.Network()
	if sn.Version != 4 || sn.Catalog.Version() != 3 || !sn.Catalog.Has("legal") || !sn.Catalog.Has("marketing") {
		t.Fatalf("published v%d, catalog v%d %q", sn.Version, sn.Catalog.Version(), sn.Catalog.IDs())
	}
	if want := "Saved as catalog version 3, published as version 4 of the network definition. Your changes were merged onto version 3, which another admin published while you were editing."; e.note.Text != want {
		t.Errorf("note %q", e.note.Text)
	}
	if !e.save.Disabled() || !slices.Contains(h.u.compose.catIDs, "legal") {
		t.Errorf("after saving: save enabled %v, compose offers %q", !e.save.Disabled(), h.u.compose.catIDs)
	}
}
