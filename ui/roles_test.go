package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/container"

	"newsdesk/app"
	"newsdesk/trust"
	"newsdesk/ui/internal/fakebackend"
)

// asMember makes b a member of a network whose admin is another key, with
// pubs as its publishers; it returns the admin's key pair and definition.
func asMember(t *testing.T, b *fake, pubs ...trust.Publisher) (*trust.Identity, *trust.SignedNetwork) {
	t.Helper()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Acme", admin, []string{"10.1.0.5:7400"}, false)
	if err != nil {
		t.Fatal(err)
	}
	n := sn.Clone()
	n.Publishers = append(n.Publishers, pubs...)
	if sn, err = admin.SignNetwork(n); err != nil {
		t.Fatal(err)
	}
	b.PresetNetwork(sn)
	return admin, sn
}

// nextVersion signs the next version of sn with admin after edit.
func nextVersion(t *testing.T, admin *trust.Identity, sn *trust.SignedNetwork, edit func(*trust.Network)) *trust.SignedNetwork {
	t.Helper()
	n := sn.Clone()
	n.Version++
	edit(n)
	next, err := admin.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func tabTitles(items []*container.TabItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// TestRolesMember: an installation that is neither publisher nor admin has
// no Newsroom tab and sees only the network view under Admin; a new
// definition making it a publisher in IT shows the Newsroom with IT (and
// only IT) to choose from, at once.
func TestRolesMember(t *testing.T) {
	b := newFake(t)
	admin, sn := asMember(t, b)
	h := newHarness(t, b)
	if got := tabTitles(h.u.tabs.Items); slices.Contains(got, "Newsroom") {
		t.Errorf("a non-publisher has the tabs %q", got)
	}
	if got := tabTitles(h.u.adminTabs.Items); !slices.Equal(got, []string{"Network"}) {
		t.Errorf("a non-admin has the admin screens %q", got)
	}
	// Issue 26: no Admin tab holding only the diagnostics; the status
	// line's Details… shows them.
	if got := tabTitles(h.u.tabs.Items); slices.Contains(got, "Admin") {
		t.Errorf("a non-admin has the tabs %q", got)
	}
	h.tap(h.u.statusBar.details)
	if top := h.win.Canvas().Overlays().Top(); top == nil || !hasLabel(top, "Servant ID") {
		t.Error("Details… does not show the network view")
	}
	h.win.Canvas().Overlays().Remove(h.win.Canvas().Overlays().Top())
	if h.u.prefs.key.Text != trust.PublicKeyString(b.Identity().Public) {
		t.Errorf("settings show the key %q", h.u.prefs.key.Text)
	}

	next := nextVersion(t, admin, sn, func(n *trust.Network) {
		n.Publishers = append(n.Publishers, trust.Publisher{Name: "IT desk", Key: b.Identity().Public, Categories: []string{"it"}})
	})
	if err := b.PublishNetwork(next); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if got := tabTitles(h.u.tabs.Items); !slices.Equal(got, []string{"Read", "Subscriptions", "Newsroom", "Settings"}) {
		t.Errorf("a publisher has the tabs %q", got)
	}
	if !slices.Equal(h.u.compose.catIDs, []string{"it"}) || !slices.Equal(h.u.compose.category.Options, []string{"IT"}) {
		t.Errorf("compose offers %q (%q)", h.u.compose.catIDs, h.u.compose.category.Options)
	}
	if got := tabTitles(h.u.adminTabs.Items); !slices.Equal(got, []string{"Network"}) {
		t.Errorf("a publisher that is no admin has the admin screens %q", got)
	}

	// Publishing in IT works; the backend refuses elsewhere, and compose
	// would not offer it.
	c := h.u.compose
	h.u.tabs.Select(h.u.newsTab)
	c.selectCategory("it")
	h.typeInto(c.title, "Maintenance tonight")
	h.tap(c.publish)
	if len(b.drafts) != 1 || !strings.Contains(c.outcome.Text, "Published") {
		t.Errorf("publishing in IT: %d drafts, outcome %q", len(b.drafts), c.outcome.Text)
	}
	if p := c.validate(app.Draft{Category: "hr", Title: "x"}); !strings.Contains(p, "may not publish in HR") {
		t.Errorf("a draft in HR: %q", p)
	}

	// Revoked again: the Newsroom goes, and the reader is shown.
	next2 := nextVersion(t, admin, next, func(n *trust.Network) { n.Publishers = sn.Publishers })
	if err := b.PublishNetwork(next2); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if got := tabTitles(h.u.tabs.Items); slices.Contains(got, "Newsroom") || h.u.tabs.Selected() != h.u.readTab {
		t.Errorf("after removal: tabs %q, selected %q", got, h.u.tabs.Selected().Text)
	}
}

// TestRolesAdmin: an admin has every screen, compose offers every category.
func TestRolesAdmin(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	if got := tabTitles(h.u.adminTabs.Items); !slices.Equal(got, []string{"Seeds", "Categories", "Publishers", "Network", "Invitations", "Named ranges", "Reports", "Limits"}) {
		t.Errorf("an admin has the admin screens %q", got)
	}
	if got := tabTitles(h.u.tabs.Items); !slices.Equal(got, []string{"Read", "Subscriptions", "Newsroom", "Admin", "Settings"}) {
		t.Errorf("an admin has the tabs %q", got)
	}
	// Details… in the status line opens Admin → Network.
	h.tap(h.u.statusBar.details)
	if h.u.tabs.Selected() != h.u.adminTab || h.u.adminTabs.Selected() != h.u.networkTab {
		t.Errorf("Details… selected %q / %q", h.u.tabs.Selected().Text, h.u.adminTabs.Selected().Text)
	}
	if !slices.Equal(h.u.compose.catIDs, b.Catalog().IDs()) {
		t.Errorf("compose offers %q", h.u.compose.catIDs)
	}
}

// TestPublishersEditor: a pasted key is validated; a good one with a name
// and categories is added, and saving publishes the next signed version of
// the definition holding it; removing one publishes another.
func TestPublishersEditor(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.publishersTab)
	h.sync()
	p := h.u.publishers
	if len(p.pubs) != 1 || !hasLabel(p.content, "version 1") {
		t.Fatalf("editor shows %d publishers, %q", len(p.pubs), p.heading.Text)
	}
	other, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	good := trust.PublicKeyString(other.Public)
	for _, c := range []struct{ key, name, problem string }{
		{"", "HR", "Paste the publisher's public key"},
		{"not a key", "HR", "not a valid public key"},
		{good[:len(good)-2], "HR", "not a valid public key"},
		{trust.PublicKeyString(b.Identity().Public), "HR", "already a publisher"},
		{good, "", "Enter the publisher's name"},
	} {
		h.typeInto(p.key, c.key)
		h.typeInto(p.name, c.name)
		h.tap(p.add)
		if !strings.Contains(p.problem.Text, c.problem) {
			t.Errorf("add %q %q: problem %q, want %q", c.key, c.name, p.problem.Text, c.problem)
		}
	}
	if len(p.pubs) != 1 || !p.save.Disabled() {
		t.Fatalf("invalid additions changed the list: %d", len(p.pubs))
	}

	h.typeInto(p.key, "  "+good+"\n")
	h.typeInto(p.name, "HR team")
	p.cats.SetSelected([]string{"HR", "Company"})
	h.tap(p.add)
	if p.problem.Text != "" || len(p.pubs) != 2 || p.save.Disabled() {
		t.Fatalf("after a good add: problem %q, %d publishers", p.problem.Text, len(p.pubs))
	}
	if !hasLabel(p.list, "HR team") || !hasLabel(p.list, good) {
		t.Errorf("list shows %q", labels(p.list))
	}
	h.tap(p.save)
	sn := b.Network()
	pub, ok := sn.Publisher(other.Public)
	if sn.Version != 2 || !ok || pub.Name != "HR team" || !slices.Equal(pub.Categories, []string{"company", "hr"}) {
		t.Fatalf("published v%d: %+v", sn.Version, sn.Publishers)
	}
	if !bytes.Equal(sn.Signer, b.Identity().Public) || trust.VerifySelfSigned(sn) != nil {
		t.Error("not signed by this installation")
	}
	if p.note.Text != "Published as version 2 of the network definition." || !p.save.Disabled() {
		t.Errorf("note %q", p.note.Text)
	}
	if !strings.Contains(p.heading.Text, "version 2") {
		t.Errorf("heading %q", p.heading.Text)
	}

	// Remove it again: version 3 without it.
	i := slices.IndexFunc(p.pubs, func(x trust.Publisher) bool { return x.Name == "HR team" })
	p.list.Select(i)
	h.tap(p.remove)
	h.tap(p.save)
	if sn := b.Network(); sn.Version != 3 || len(sn.Publishers) != 1 {
		t.Errorf("after removal v%d: %+v", sn.Version, sn.Publishers)
	}
}

// TestSeedsPublished: an admin's seed list is a new signed version.
func TestSeedsPublished(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.seedsTab)
	h.sync()
	s := h.u.seeds
	h.typeInto(s.addr, "10.0.0.9:7400")
	h.tap(s.add)
	h.tap(s.save)
	// The admin's servant is its network's first seed.
	if sn := b.Network(); sn.Version != 2 || !slices.Equal(sn.Seeds, []string{fakebackend.Self, "10.0.0.9:7400"}) {
		t.Errorf("published v%d seeds %q", sn.Version, sn.Seeds)
	}
	if !strings.Contains(s.note.Text, "version 2") {
		t.Errorf("note %q", s.note.Text)
	}
}

// TestSettingsPublicKey: Settings show this installation's key and copy it.
func TestSettingsPublicKey(t *testing.T) {
	b := newFake(t)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(4)
	h.sync()
	v := h.u.prefs
	key := trust.PublicKeyString(b.Identity().Public)
	if v.key.Text != key || !hasLabel(v.content, key) {
		t.Fatalf("settings show the key %q", v.key.Text)
	}
	h.tap(v.copyKey)
	if got := h.a.Clipboard().Content(); got != key {
		t.Errorf("clipboard %q", got)
	}
	if !strings.Contains(v.note.Text, "copied") {
		t.Errorf("note %q", v.note.Text)
	}
}

// TestWizardImport: the wizard imports a deployed definition file: it shows
// what the file defines, imports it and joins through its seeds; a file
// that is not a definition is refused with the reason.
func TestWizardImport(t *testing.T) {
	h, b := wizardHarness(t)
	z := h.u.wizard
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Acme news", admin, []string{"10.1.0.5:7400", "10.2.0.9:7400"}, false)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "acme.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}

	if !slices.Contains(z.mode.Options, choiceImport()) {
		t.Fatalf("choices %q", z.mode.Options)
	}
	h.typeInto(z.name, "Sam")
	z.mode.SetSelected(choiceImport())
	h.sync()
	if !z.importBox.Visible() || z.joinBox.Visible() {
		t.Fatal("the import form is not shown")
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "Choose the network definition file") || len(b.setups) != 0 {
		t.Errorf("without a file: %q", z.problem.Text)
	}
	h.typeInto(z.path, bad)
	h.tap(z.load)
	if want := "This file cannot be used: The file is not a Newsdesk network definition, or it is damaged"; !strings.HasPrefix(z.problem.Text, want) {
		t.Errorf("a bad file: %q, want %q", z.problem.Text, want)
	}
	h.tap(z.finish)
	if !strings.Contains(z.problem.Text, "could not be set up") || len(b.setups) != 0 || h.u.running {
		t.Errorf("finishing with a bad file: %q, %d setups", z.problem.Text, len(b.setups))
	}

	h.typeInto(z.path, path)
	h.tap(z.load)
	info := z.importInfo.Text
	for _, want := range []string{"Acme news", "version 1", "10.1.0.5:7400, 10.2.0.9:7400"} {
		if !strings.Contains(info, want) {
			t.Errorf("info %q lacks %q", info, want)
		}
	}
	if z.problem.Text != "" {
		t.Errorf("problem %q", z.problem.Text)
	}
	h.tap(z.finish)
	if len(b.setups) != 1 || b.setups[0].NewNetwork || !slices.Equal(b.setups[0].Seeds, sn.Seeds) {
		t.Fatalf("setup %+v", b.setups)
	}
	if got := b.Network(); got.ID != sn.ID || got.Version != 1 {
		t.Errorf("network held %q v%d", got.Name, got.Version)
	}
	if !h.u.running {
		t.Fatal("the reader did not start")
	}
	// A member of the imported network: no newsroom, no admin editors.
	if got := tabTitles(h.u.tabs.Items); slices.Contains(got, "Newsroom") {
		t.Errorf("tabs %q", got)
	}
	if got := tabTitles(h.u.adminTabs.Items); !slices.Equal(got, []string{"Network"}) {
		t.Errorf("admin screens %q", got)
	}
}

// A definition file that cannot be imported is refused in the
// interface's language: one that is not there, one edited by hand.
func TestWizardImportRefusedInJapanese(t *testing.T) {
	inLanguage(t, "ja")
	h, _ := wizardHarness(t)
	z := h.u.wizard
	dir := t.TempDir()
	edited := filepath.Join(dir, "acme.json")
	if err := os.WriteFile(edited, bytes.Replace(signedDefinition(false), []byte(`{"network":`), []byte("{\n  \"network\": "), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	z.mode.SetSelected(choiceImport())
	h.sync()
	for path, want := range map[string]string{
		filepath.Join(dir, "gone.json"): "ファイル " + filepath.Join(dir, "gone.json") + " はありません。",
		edited:                          "ネットワーク定義が手で編集されています。",
	} {
		h.typeInto(z.path, path)
		h.tap(z.load)
		if !strings.Contains(z.problem.Text, want) || strings.Contains(z.problem.Text, "network definition") {
			t.Errorf("%s: %q, want %q in it", filepath.Base(path), z.problem.Text, want)
		}
	}
}
