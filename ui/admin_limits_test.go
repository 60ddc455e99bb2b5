package ui

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/container"

	"newsdesk/trust"
)

// limitsOn opens Admin → Limits over b.
func limitsOn(t *testing.T, b *fake) (*harness, *limitsEditor) {
	t.Helper()
	h := newHarness(t, b)
	h.u.tabs.Select(h.u.adminTab)
	h.u.adminTabs.Select(h.u.limitsTab)
	h.sync()
	return h, h.u.limitsEd
}

// field returns the entry of limit k.
func (e *limitsEditor) entry(k trust.Limit) string { return e.field(k).entry.Text }

// TestAdminLimitsDefaults: a definition that sets no limits shows every
// field empty with its default as the placeholder, in units people read,
// each with what it protects against; nothing to save or reset.
func TestAdminLimitsDefaults(t *testing.T) {
	h, e := limitsOn(t, newFake(t))
	if !slices.Contains(h.u.adminTabs.Items, h.u.limitsTab) || slices.Contains(h.u.newsTabs.Items, h.u.limitsTab) {
		t.Fatalf("an admin's tabs: admin %q, newsroom %q", tabTitles(h.u.adminTabs.Items), tabTitles(h.u.newsTabs.Items))
	}
	for k, want := range map[trust.Limit]string{
		trust.LimitItemsPerHour:           "120 (default)",
		trust.LimitBurstItems:             "60 (default)",
		trust.LimitBytesPerHour:           "2 MiB (default)",
		trust.LimitBurstBytes:             "4 MiB (default)",
		trust.LimitItemBytes:              "no cap (default)",
		trust.LimitAttachmentBytes:        "20 MiB (default)",
		trust.LimitAttachmentBytesPerHour: "100 MiB (default)",
	} {
		f := e.field(k)
		if f.entry.Text != "" || f.entry.PlaceHolder != want || f.entry.Disabled() {
			t.Errorf("%s: text %q, placeholder %q (want %q), disabled %v", k, f.entry.Text, f.entry.PlaceHolder, want, f.entry.Disabled())
		}
	}
	for _, want := range []string{"version 1", "Keeps one key, or a stolen one, from flooding", "filling every member's disk with pictures", "Items per hour", "Attachments per item"} {
		if !hasLabel(e.content, want) {
			t.Errorf("no label %q", want)
		}
	}
	if len(e.rows) != 0 || e.attNone.Checked || !e.save.Disabled() || !e.reset.Disabled() || !e.revert.Disabled() || e.readOnly.Visible() {
		t.Errorf("rows %d, none %v, save enabled %v, reset enabled %v", len(e.rows), e.attNone.Checked, !e.save.Disabled(), !e.reset.Disabled())
	}
}

// TestAdminLimitsSave: edited limits, sizes typed loosely, are published
// as the next version of the definition signed by this installation, and
// shown as it holds them; a value equal to the one held is no change; Reset
// to defaults publishes a definition setting none.
func TestAdminLimitsSave(t *testing.T) {
	b := newFake(t)
	h, e := limitsOn(t, b)
	h.typeInto(e.field(trust.LimitItemsPerHour).entry, "1,000")
	h.typeInto(e.field(trust.LimitBytesPerHour).entry, "3 mb")
	h.typeInto(e.field(trust.LimitItemBytes).entry, "16k")
	h.typeInto(e.field(trust.LimitAttachmentBytes).entry, "5MiB")
	h.typeInto(e.field(trust.LimitAttachmentBytesPerHour).entry, "1.5 GiB")
	if e.save.Disabled() || e.note.Text != "Unsaved changes." {
		t.Fatalf("after editing: save enabled %v, note %q, problem %q", !e.save.Disabled(), e.note.Text, e.problem.Text)
	}
	if b.Network().Version != 1 {
		t.Fatal("published before saving")
	}
	h.tap(e.save)
	sn := b.Network()
	want := trust.PublishLimits{ItemsPerHour: 1000, BytesPerHour: 3 << 20, ItemBytes: 16 << 10, AttachmentBytes: 5 << 20, AttachmentBytesPerHour: 3 << 29}
	if sn.Version != 2 || !sn.Limits.Equal(want) {
		t.Fatalf("published v%d with %+v", sn.Version, sn.Limits)
	}
	if !bytes.Equal(sn.Signer, b.Identity().Public) || trust.VerifySelfSigned(sn) != nil {
		t.Error("not signed by this installation")
	}
	if e.note.Text != "Published as version 2 of the network definition." || !e.save.Disabled() || e.base.Version != 2 {
		t.Errorf("after saving: note %q, save enabled %v", e.note.Text, !e.save.Disabled())
	}
	for k, text := range map[trust.Limit]string{trust.LimitItemsPerHour: "1,000", trust.LimitBytesPerHour: "3 MiB",
		trust.LimitItemBytes: "16 KiB", trust.LimitAttachmentBytes: "5 MiB", trust.LimitAttachmentBytesPerHour: "1.5 GiB", trust.LimitBurstItems: ""} {
		if got := e.entry(k); got != text {
			t.Errorf("%s shows %q, want %q", k, got, text)
		}
	}
	h.typeInto(e.field(trust.LimitItemsPerHour).entry, "1000")
	if !e.save.Disabled() {
		t.Error("Save offered for the value held, written otherwise")
	}

	h.tap(e.reset)
	if e.entry(trust.LimitItemsPerHour) != "" || e.save.Disabled() {
		t.Fatalf("after Reset to defaults: items %q, save enabled %v", e.entry(trust.LimitItemsPerHour), !e.save.Disabled())
	}
	h.tap(e.save)
	if sn := b.Network(); sn.Version != 3 || !sn.Limits.IsZero() {
		t.Fatalf("reset published v%d with %+v", sn.Version, sn.Limits)
	}
	if !e.reset.Disabled() {
		t.Error("Reset to defaults offered at the defaults")
	}
}

// TestAdminLimitsRefused: a value outside trust's bounds, or no number or
// size at all, is said beside its field, in the reader's language, and
// Save stays off until it is put right.
func TestAdminLimitsRefused(t *testing.T) {
	b := newFake(t)
	h, e := limitsOn(t, b)
	for _, c := range []struct {
		k            trust.Limit
		text, reason string
	}{
		{trust.LimitItemsPerHour, "many", "“many” is not a whole number."},
		{trust.LimitItemsPerHour, "0", "Enter a number from 1 to 1,000,000, or leave it empty for the default."},
		{trust.LimitBurstItems, "2000000", "Enter a number from 1 to 1,000,000, or leave it empty for the default."},
		{trust.LimitBytesPerHour, "100 KiB", "Enter a size from 128 KiB to 1 TiB, or leave it empty for the default."},
		{trust.LimitItemBytes, "2 MiB", "Enter a size from 512 B to 1 MiB, or leave it empty for no cap."},
		{trust.LimitAttachmentBytes, "21 MiB", "Enter a size from 64 KiB to 20 MiB, or leave it empty for the default."},
		{trust.LimitAttachmentBytes, "1000", "Enter a size from 64 KiB to 20 MiB"}, // bytes, not the MiB meant
		{trust.LimitAttachmentBytesPerHour, "5 parsecs", "“5 parsecs” is not a size: enter one such as 5 MiB or 512 KiB."},
	} {
		f := e.field(c.k)
		h.typeInto(f.entry, c.text)
		if !f.problem.Visible() || !strings.HasPrefix(f.problem.Text, c.reason) || !e.save.Disabled() {
			t.Errorf("%s %q: problem %q (shown %v), save enabled %v", c.k, c.text, f.problem.Text, f.problem.Visible(), !e.save.Disabled())
		}
		if !hasLabel(f.obj, c.reason) {
			t.Errorf("%s %q: the problem is not beside the field", c.k, c.text)
		}
		h.typeInto(f.entry, "")
		if f.problem.Visible() {
			t.Errorf("%s: the problem stays after emptying the field", c.k)
		}
	}
	h.typeInto(e.field(trust.LimitItemsPerHour).entry, "0")
	h.tap(e.save)
	if b.Network().Version != 1 {
		t.Fatal("an invalid form was published")
	}
	h.typeInto(e.field(trust.LimitItemsPerHour).entry, "30")
	if e.save.Disabled() {
		t.Error("a valid form cannot be saved")
	}
}

// The problems read in the reader's language, with its digit grouping.
func TestAdminLimitsRefusedInGerman(t *testing.T) {
	inLanguage(t, "de")
	h, e := limitsOn(t, newFake(t))
	f := e.field(trust.LimitBurstItems)
	if f.entry.PlaceHolder != "60 (Standard)" {
		t.Errorf("placeholder %q", f.entry.PlaceHolder)
	}
	h.typeInto(f.entry, "2000000")
	if want := "Geben Sie eine Zahl von 1 bis 1.000.000 ein, oder lassen Sie das Feld leer, um den Standardwert zu verwenden."; f.problem.Text != want {
		t.Errorf("problem %q", f.problem.Text)
	}
	h.typeInto(e.field(trust.LimitAttachmentBytes).entry, "1,5 MiB")
	if p := e.field(trust.LimitAttachmentBytes).problem; p.Visible() {
		t.Errorf("1,5 MiB refused: %q", p.Text)
	}
}

// TestAdminLimitsCategories: categories chosen by their names get limits
// of their own, "No attachments" among them, published as the
// definition's category entries (-1 for none) and shown again from it; a
// row without a category or a limit, or for a category twice, is refused.
func TestAdminLimitsCategories(t *testing.T) {
	b := newFake(t)
	h, e := limitsOn(t, b)
	h.tap(e.addRow)
	r := e.rows[0]
	if !slices.Equal(r.cat.Options, []string{"Company", "Facilities", "HR", "IT", "Sales", "Sales Americas", "Sales APAC", "Sales EMEA"}) {
		t.Errorf("categories offered: %q", r.cat.Options)
	}
	if r.problem.Text != "Choose a category, or remove the row." || !e.save.Disabled() {
		t.Errorf("an empty row: problem %q", r.problem.Text)
	}
	r.cat.SetSelected("HR")
	h.sync()
	if r.problem.Text != "Set the largest item or the attachments for “HR”, or remove the row." {
		t.Errorf("a row without limits: problem %q", r.problem.Text)
	}
	h.typeInto(r.item, "4 KiB")
	h.typeInto(r.att, "32 KiB")
	if !strings.HasPrefix(r.problem.Text, "Enter a size from 64 KiB to 20 MiB, or leave it empty to use the limit for every category.") {
		t.Errorf("32 KiB of attachments: problem %q", r.problem.Text)
	}
	h.typeInto(r.att, "1 MiB")
	h.tap(e.addRow)
	alerts := e.rows[1]
	alerts.cat.SetSelected("HR")
	h.sync()
	h.tap(alerts.none)
	if alerts.problem.Text != "“HR” has a row above already." || !e.save.Disabled() {
		t.Errorf("a second row for HR: problem %q", alerts.problem.Text)
	}
	alerts.cat.SetSelected("Company")
	h.sync()
	if !alerts.att.Disabled() || r.problem.Visible() || alerts.problem.Visible() || e.save.Disabled() {
		t.Fatalf("valid rows: problems %q, %q; attachments field enabled %v", r.problem.Text, alerts.problem.Text, !alerts.att.Disabled())
	}
	h.tap(e.save)
	sn := b.Network()
	if sn.Version != 2 || !maps.Equal(sn.Limits.CategoryItemBytes, map[string]int{"hr": 4096}) ||
		!maps.Equal(sn.Limits.CategoryAttachmentBytes, map[string]int64{"hr": 1 << 20, "company": trust.NoAttachments}) {
		t.Fatalf("published v%d with %+v", sn.Version, sn.Limits)
	}
	if sn.Limits.AttachmentCap("company") != 0 || sn.Limits.AttachmentCap("hr/payroll") != 1<<20 {
		t.Errorf("caps: company %d, hr/payroll %d", sn.Limits.AttachmentCap("company"), sn.Limits.AttachmentCap("hr/payroll"))
	}

	// The editor shows the definition's entries, sorted by category.
	if len(e.rows) != 2 || e.rows[0].id() != "company" || e.rows[1].id() != "hr" {
		t.Fatalf("rows after saving: %d", len(e.rows))
	}
	company, hr := e.rows[0], e.rows[1]
	if !company.none.Checked || company.item.Text != "" || hr.item.Text != "4 KiB" || hr.att.Text != "1 MiB" || hr.none.Checked || !e.save.Disabled() {
		t.Errorf("shown again: company none %v item %q; hr %q %q", company.none.Checked, company.item.Text, hr.item.Text, hr.att.Text)
	}
	// Removing a row removes its entries; unticking "No attachments"
	// with the field empty leaves the category without a limit of its own.
	h.tap(hr.remove)
	h.tap(company.none)
	if !strings.Contains(company.problem.Text, "Set the largest item or the attachments") {
		t.Errorf("company without limits: %q", company.problem.Text)
	}
	h.tap(company.none)
	h.tap(e.save)
	if sn := b.Network(); sn.Version != 3 || len(sn.Limits.CategoryItemBytes) != 0 ||
		!maps.Equal(sn.Limits.CategoryAttachmentBytes, map[string]int64{"company": trust.NoAttachments}) {
		t.Fatalf("published v%d with %+v", sn.Version, sn.Limits)
	}

	// "No attachments" in every category is -1 for all.
	h.tap(e.attNone)
	if !e.field(trust.LimitAttachmentBytes).entry.Disabled() {
		t.Error("the attachments field stays editable under No attachments")
	}
	h.tap(e.save)
	if sn := b.Network(); sn.Limits.AttachmentBytes != trust.NoAttachments || sn.Limits.AttachmentCap("it") != 0 {
		t.Fatalf("no attachments at all: %+v", sn.Limits)
	}
	if !e.attNone.Checked || e.entry(trust.LimitAttachmentBytes) != "" {
		t.Errorf("shown again: none %v, field %q", e.attNone.Checked, e.entry(trust.LimitAttachmentBytes))
	}
}

// TestLimitsReadOnly: a publisher that is no admin sees the limits its
// items are held to in the Newsroom, read-only, with nothing to save;
// made an admin, it finds them under Admin, to edit.
func TestLimitsReadOnly(t *testing.T) {
	b := newFake(t)
	admin, sn := asMember(t, b, trust.Publisher{Name: "Desk", Key: b.Identity().Public})
	sn = nextVersion(t, admin, sn, func(n *trust.Network) {
		n.Limits = trust.PublishLimits{ItemsPerHour: 30, CategoryAttachmentBytes: map[string]int64{"it": trust.NoAttachments}}
	})
	b.PresetNetwork(sn)
	h := newHarness(t, b)
	if got := tabTitles(h.u.newsTabs.Items); !slices.Equal(got, []string{"Compose", "My posts", "Limits"}) {
		t.Fatalf("a publisher's newsroom: %q", got)
	}
	if slices.Contains(h.u.adminTabs.Items, h.u.limitsTab) {
		t.Error("a publisher has Admin → Limits")
	}
	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.Select(h.u.limitsTab)
	h.sync()
	e := h.u.limitsEd
	if e.entry(trust.LimitItemsPerHour) != "30" || len(e.rows) != 1 || !e.rows[0].none.Checked || e.rows[0].cat.Selected != "IT" {
		t.Fatalf("shows items %q, %d rows", e.entry(trust.LimitItemsPerHour), len(e.rows))
	}
	for _, f := range e.fields {
		if !f.entry.Disabled() {
			t.Errorf("%s editable", f.limit)
		}
	}
	r := e.rows[0]
	if !r.cat.Disabled() || !r.none.Disabled() || !r.remove.Disabled() || !e.attNone.Disabled() {
		t.Error("the category row is editable")
	}
	if e.buttons.Visible() || e.addRow.Visible() || !hasLabel(e.content, "Only an admin of the network can change the limits.") {
		t.Error("a publisher is offered to save")
	}

	next := nextVersion(t, admin, sn, func(n *trust.Network) { n.Admins = append(n.Admins, b.Identity().Public) })
	if err := b.PublishNetwork(next); err != nil {
		t.Fatal(err)
	}
	h.sync()
	if !slices.Contains(h.u.adminTabs.Items, h.u.limitsTab) || slices.Contains(h.u.newsTabs.Items, h.u.limitsTab) {
		t.Fatalf("made an admin: admin %q, newsroom %q", tabTitles(h.u.adminTabs.Items), tabTitles(h.u.newsTabs.Items))
	}
	if e.field(trust.LimitItemsPerHour).entry.Disabled() || !e.buttons.Visible() || e.readOnly.Visible() || e.base.Version != next.Version {
		t.Error("an admin cannot edit the limits")
	}
}

// TestAdminLimitsConcurrent: a change of another part of the definition
// meanwhile is merged with mine; another admin's change of the limits is
// a conflict, said with both sides, and nothing is published until I
// save again, knowingly.
func TestAdminLimitsConcurrent(t *testing.T) {
	b, other, h := twoAdminsOn(t, func(u *UI) *container.TabItem { return u.limitsTab })
	e := h.u.limitsEd
	h.typeInto(e.field(trust.LimitItemsPerHour).entry, "200")
	adoptFrom(t, h, b, other, func(n *trust.Network) { n.Name = "Acme news" })
	if e.entry(trust.LimitItemsPerHour) != "200" || e.save.Disabled() {
		t.Fatalf("the new version replaced my unsaved edit: %q", e.entry(trust.LimitItemsPerHour))
	}
	if !strings.Contains(e.heading.Text, "made on version 2; saving merges them onto version 3") {
		t.Errorf("heading %q", e.heading.Text)
	}
	h.tap(e.save)
	sn := b.Network()
	if sn.Version != 4 || sn.Name != "Acme news" || sn.Limits.ItemsPerHour != 200 {
		t.Fatalf("published v%d %q with %+v", sn.Version, sn.Name, sn.Limits)
	}
	if want := "Published as version 4 of the network definition. Your changes were merged onto version 3, which another admin published while you were editing."; e.note.Text != want {
		t.Errorf("note %q", e.note.Text)
	}

	h.typeInto(e.field(trust.LimitAttachmentBytes).entry, "5 MiB")
	adoptFrom(t, h, b, other, func(n *trust.Network) {
		n.Limits.ItemsPerHour = 60
		n.Limits.CategoryAttachmentBytes = map[string]int64{"sales": trust.NoAttachments}
	})
	h.tap(e.save)
	if sn := b.Network(); sn.Version != 5 || !bytes.Equal(sn.Signer, other.Public) {
		t.Fatalf("a conflicting edit was published: v%d", sn.Version)
	}
	for _, want := range []string{
		"Not published: Another admin changed the publishing limits in version 5 (Items per hour: 60; Attachments per item in “Sales”: no attachments), while you changed them (Attachments per item: 5 MiB).",
		"The editor now shows version 5 with your changes on top",
	} {
		if !strings.Contains(e.problem.Text, want) {
			t.Errorf("problem %q, want %q", e.problem.Text, want)
		}
	}
	if e.entry(trust.LimitItemsPerHour) != "200" || e.entry(trust.LimitAttachmentBytes) != "5 MiB" || e.base.Version != 5 || e.save.Disabled() {
		t.Fatalf("after the conflict: items %q, attachments %q, base v%d", e.entry(trust.LimitItemsPerHour), e.entry(trust.LimitAttachmentBytes), e.base.Version)
	}

	// Saving again publishes mine over theirs; Revert would have shown
	// theirs.
	h.tap(e.save)
	sn = b.Network()
	if sn.Version != 6 || !sn.Limits.Equal(trust.PublishLimits{ItemsPerHour: 200, AttachmentBytes: 5 << 20}) {
		t.Fatalf("saving again: v%d %+v", sn.Version, sn.Limits)
	}
	if e.note.Text != "Published as version 6 of the network definition." {
		t.Errorf("note %q", e.note.Text)
	}
}

// Sizes are read as people write them, and a definition's limits are
// shown so that reading them back gives the same bytes.
func TestLimitSizes(t *testing.T) {
	for text, want := range map[string]int64{
		"20 MiB": 20 << 20, "20MiB": 20 << 20, "20 mb": 20 << 20, "20M": 20 << 20, " 512 KiB ": 512 << 10,
		"1.5 MiB": 3 << 19, "1,5 MiB": 3 << 19, "4096": 4096, "4096 B": 4096, "2 GiB": 2 << 30, "1 TiB": 1 << 40,
		"MiB": -1, "1.000,5 MiB": -1, "-1": -1, "5 parsecs": -1, "": -1,
	} {
		if got := parsedSize(text); got != want {
			t.Errorf("parsedSize(%q) = %d, want %d", text, got, want)
		}
	}
	for _, n := range []int64{512, 1000, 64 << 10, 3 << 19, 1500000, 100 << 20, 1 << 40, 1<<40 - 1} {
		text := limitValueText(trust.LimitBytesPerHour, n)
		if got := parsedSize(text); got != n {
			t.Errorf("%d shows as %q, read back as %d", n, text, got)
		}
	}
	for text, want := range map[string]int64{"1,000": 1000, "1.000.000": 1_000_000, "120": 120} {
		if got, ok := parseCount(text); !ok || got != want {
			t.Errorf("parseCount(%q) = %d, %v", text, got, ok)
		}
	}
	if _, ok := parseCount("12a"); ok {
		t.Error("12a is a count")
	}
}
