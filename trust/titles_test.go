package trust

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"newsdesk/categories"
)

// withTitles returns n with titles for "sales" and "hr" in its catalog.
func withTitles(t *testing.T, n *Network) *Network {
	t.Helper()
	cats := n.Catalog.All()
	for i, c := range cats {
		switch c.ID {
		case "sales":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "de", Text: "Vertrieb"}, categories.Title{Lang: "ja", Text: "営業"})
		case "hr":
			cats[i].Titles = categories.MustTitles(categories.Title{Lang: "de-CH", Text: "Personal"}, categories.Title{Lang: "ru", Text: "Кадры"})
		}
	}
	cat, err := categories.NewCatalog(n.Catalog.Version()+1, cats)
	if err != nil {
		t.Fatal(err)
	}
	n.Catalog = cat
	return n
}

const wantTitles = `,"categoryTitles":{"hr":{"de-CH":"Personal","ru":"Кадры"},"sales":{"de":"Vertrieb","ja":"営業"}}}`

// The titles travel as the definition's last member: the definition
// round-trips with them, the signature covers them, and the catalog
// document inside is the one releases before titles read.
func TestDefinitionCategoryTitles(t *testing.T) {
	cur := signedExample(t)
	sn, err := adminID.SignNetwork(withTitles(t, next(cur, 1)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	network := doc[:bytes.Index(doc, []byte(`,"signer"`))]
	if !bytes.HasSuffix(network, []byte(wantTitles)) {
		t.Fatalf("encoding:\n%s", doc)
	}
	catalog, err := sn.Catalog.Marshal()
	if err != nil || !bytes.Contains(doc, catalog) || bytes.Contains(catalog, []byte("Vertrieb")) {
		t.Errorf("the catalog member: %s (%v)", catalog, err)
	}
	got, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(got); err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if names := got.NewerMembers(); names != nil {
		t.Errorf("NewerMembers = %v: this release knows categoryTitles", names)
	}
	sales, _ := got.Catalog.Get("sales")
	if sales.Title("ja") != "営業" || sales.Title("de-AT") != "Vertrieb" || sales.Title("fr") != "Sales" {
		t.Errorf("sales after parsing: %+v", sales.Titles.All())
	}
	// Editing it here keeps the titles.
	edit := got.Network.Clone()
	edit.Version++
	edit.Name = "Example GmbH"
	again, err := adminID.SignNetwork(edit)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := again.Marshal(); err != nil || !bytes.Contains(b, []byte(wantTitles)) {
		t.Errorf("edited: %s (%v)", b, err)
	}
	tampered, err := ParseSignedNetwork(bytes.Replace(doc, []byte("Vertrieb"), []byte("Verkauf"), 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a changed title accepted: %v", err)
	}
}

// A definition without titles encodes as before titles existed (the
// golden file pins the rest), and bad titles are refused.
func TestDefinitionCategoryTitlesRejects(t *testing.T) {
	cur := signedExample(t)
	doc, err := cur.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(doc, []byte("categoryTitles")) {
		t.Fatalf("a definition without titles names them: %s", doc)
	}
	sn, err := adminID.SignNetwork(withTitles(t, next(cur, 1)))
	if err != nil {
		t.Fatal(err)
	}
	good, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, repl := range map[string]string{
		"unknown category": `,"categoryTitles":{"hr":{"de-CH":"Personal","ru":"Кадры"},"nope":{"de":"Vertrieb","ja":"営業"}}}`,
		"empty":            `,"categoryTitles":{}}`,
		"null":             `,"categoryTitles":null}`,
		"bad tag":          `,"categoryTitles":{"hr":{"de-CH":"Personal","ru":"Кадры"},"sales":{"de!":"Vertrieb","ja":"営業"}}}`,
		"lower-case tag":   `,"categoryTitles":{"hr":{"de-ch":"Personal","ru":"Кадры"},"sales":{"de":"Vertrieb","ja":"営業"}}}`,
		"control":          `,"categoryTitles":{"hr":{"de-CH":"Per\u0007sonal","ru":"Кадры"},"sales":{"de":"Vertrieb","ja":"営業"}}}`,
		"empty title":      `,"categoryTitles":{"hr":{"de-CH":"","ru":"Кадры"},"sales":{"de":"Vertrieb","ja":"営業"}}}`,
		"unsorted":         `,"categoryTitles":{"sales":{"de":"Vertrieb","ja":"営業"},"hr":{"de-CH":"Personal","ru":"Кадры"}}}`,
	} {
		bad := bytes.Replace(good, []byte(wantTitles), []byte(repl), 1)
		if bytes.Equal(bad, good) {
			t.Fatalf("%s: nothing replaced", name)
		}
		if _, err := ParseSignedNetwork(bad); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// asOlderRelease makes this package, for the test, a release from before
// category titles: one that does not know the "categoryTitles" member.
// Such a release reads exactly what this one reads without the member, so
// taking it out of knownMembers is that release's parser (newer.go).
func asOlderRelease(t *testing.T) {
	t.Helper()
	saved := knownMembers
	knownMembers = slices.DeleteFunc(slices.Clone(saved), func(m string) bool { return m == "categoryTitles" })
	if len(knownMembers) != len(saved)-1 {
		t.Fatal("knownMembers has no categoryTitles")
	}
	t.Cleanup(func() { knownMembers = saved })
}

// Versions mix: a definition with titles, signed on this release, reaches
// a release that does not know them. That release accepts it (the
// signature verifies over the bytes as received), keeps the titles byte
// for byte as a member of a newer release and passes the definition on
// unchanged, shows the categories' base names, and refuses to edit it.
// Passed on to this release again, the titles are read.
func TestDefinitionCategoryTitlesOnOlderRelease(t *testing.T) {
	cur := signedExample(t)
	sn, err := adminID.SignNetwork(withTitles(t, next(cur, 1)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}

	var passedOn []byte
	t.Run("older", func(t *testing.T) {
		asOlderRelease(t)
		old, err := ParseSignedNetwork(doc)
		if err != nil {
			t.Fatalf("an older release refuses the definition: %v", err)
		}
		if err := cur.Accept(old); err != nil {
			t.Fatalf("an older release does not accept it: %v", err)
		}
		if err := VerifySelfSigned(old); err != nil {
			t.Fatalf("VerifySelfSigned: %v", err)
		}
		if names := old.NewerMembers(); !slices.Equal(names, []string{"categoryTitles"}) {
			t.Errorf("NewerMembers = %v", names)
		}
		if old.Catalog.HasTitles() {
			t.Error("the older release reads titles")
		}
		if sales, _ := old.Catalog.Get("sales"); sales.Title("de") != "Sales" {
			t.Errorf("the older release shows %q", sales.Title("de"))
		}
		if old.Catalog.Version() != sn.Catalog.Version() {
			t.Errorf("catalog version %d", old.Catalog.Version())
		}
		if passedOn, err = old.Marshal(); err != nil || !bytes.Equal(passedOn, doc) {
			t.Errorf("passed on as\n%s\nwant\n%s (%v)", passedOn, doc, err)
		}
		edit := old.Network.Clone()
		edit.Version++
		if _, err := adminID.SignNetwork(edit); err == nil || !strings.Contains(err.Error(), "newer Newsdesk (categoryTitles)") {
			t.Errorf("editing it on the older release: %v", err)
		}
	})
	back, err := ParseSignedNetwork(passedOn)
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(back); err != nil {
		t.Fatal(err)
	}
	if sales, _ := back.Catalog.Get("sales"); sales.Title("ja") != "営業" {
		t.Errorf("this release, after an older one passed it on: %q", sales.Title("ja"))
	}
}

// Publisher names and the network's name in any script: only control
// characters and broken UTF-8 are refused.
func TestNamesInAnyScript(t *testing.T) {
	cur := signedExample(t)
	for _, name := range []string{"広報部", "新闻中心", "홍보팀", "Отдел новостей", "قسم الأخبار", "צוות החדשות", "समाचार टीम", "Ελληνικά νέα"} {
		n := next(cur, 1)
		n.Name = name
		n.Publishers[0].Name = name
		sn, err := adminID.SignNetwork(n)
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		doc, err := sn.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseSignedNetwork(doc)
		if err != nil || got.Name != name || cur.Accept(got) != nil {
			t.Errorf("%q: parsed %v", name, err)
		}
	}
	for _, name := range []string{"News\nroom", "News\x00", "\xffNews"} {
		n := next(cur, 1)
		n.Publishers[0].Name = name
		if _, err := adminID.SignNetwork(n); err == nil {
			t.Errorf("publisher %q signed", name)
		}
	}
}

// Titles are part of a category in a merge: titles added on one side
// merge with another side's edit of another category, and two different
// edits of one category's titles conflict.
func TestMergeCatalogTitles(t *testing.T) {
	base := categories.Default()
	edit := func(version uint64, id string, f func(*categories.Category)) *categories.Catalog {
		cats := base.All()
		for i := range cats {
			if cats[i].ID == id {
				f(&cats[i])
			}
		}
		c, err := categories.NewCatalog(version, cats)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	de := func(c *categories.Category) {
		c.Titles = categories.MustTitles(categories.Title{Lang: "de", Text: "Vertrieb"})
	}
	ja := func(c *categories.Category) {
		c.Titles = categories.MustTitles(categories.Title{Lang: "ja", Text: "営業"})
	}
	mine := edit(2, "sales", de)
	theirs := edit(2, "hr", ja)
	merged, conflicts := MergeCatalog(base, mine, theirs)
	if len(conflicts) != 0 {
		t.Fatalf("conflicts %v", conflicts)
	}
	sales, _ := merged.Get("sales")
	hr, _ := merged.Get("hr")
	if sales.Title("de") != "Vertrieb" || hr.Title("ja") != "営業" {
		t.Errorf("merged: sales %q, hr %q", sales.Title("de"), hr.Title("ja"))
	}
	_, conflicts = MergeCatalog(base, mine, edit(2, "sales", ja))
	if len(conflicts) != 1 || conflicts[0].Kind != BothChanged || conflicts[0].CategoryID != "sales" {
		t.Errorf("both changed sales' titles: %v", conflicts)
	}
}
