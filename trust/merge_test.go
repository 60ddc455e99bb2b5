package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"newsdesk/categories"
)

// Keys of the merge tests beyond the example network's roles.
var (
	k7 = fixedIdentity(7).Public
	k8 = fixedIdentity(8).Public
)

// keyName names the test keys in conflict descriptions.
func keyName(k ed25519.PublicKey) string {
	for _, r := range []struct {
		name string
		key  ed25519.PublicKey
	}{{"admin", adminID.Public}, {"newsroom", newsroomID.Public}, {"hr", hrID.Public}, {"revoked", revokedID.Public},
		{"outsider", outsiderID.Public}, {"second", secondAdmin.Public}, {"k7", k7}, {"k8", k8}} {
		if r.key.Equal(k) {
			return r.name
		}
	}
	return PublicKeyString(k)
}

// describe is a conflict in the tests' words: "field entry: kind", with the
// related category of a missing parent: "catalog sales (sales/nordics):
// parent missing".
func describe(c Conflict) string {
	s := string(c.Field)
	switch {
	case c.Key != nil:
		s += " " + keyName(c.Key)
	case c.CategoryID != "":
		s += " " + c.CategoryID
	}
	if c.Kind == MissingParent {
		s += " (" + c.Related.ID + ")"
	}
	return s + ": " + c.Kind.String()
}

func describeAll(cs []Conflict) []string {
	var out []string
	for _, c := range cs {
		out = append(out, describe(c))
	}
	return out
}

// mergeBase is the version both edits start from: the example network
// with a second admin.
func mergeBase() *Network {
	n := exampleNetwork()
	n.Admins = append(n.Admins, secondAdmin.Public)
	n.normalize()
	return n
}

// is matches the key k in a list of keys.
func is(k ed25519.PublicKey) func(ed25519.PublicKey) bool {
	return func(x ed25519.PublicKey) bool { return x.Equal(k) }
}

// Edits of a definition, each keeping it valid.
type edit func(*Network)

func edits(es ...edit) edit {
	return func(n *Network) {
		for _, e := range es {
			e(n)
		}
	}
}

func rename(name string) edit { return func(n *Network) { n.Name = name } }

func addAdmin(k ed25519.PublicKey) edit {
	return func(n *Network) { n.Admins = append(n.Admins, k); n.normalize() }
}

func removeAdmin(k ed25519.PublicKey) edit {
	return func(n *Network) { n.Admins = slices.DeleteFunc(n.Admins, is(k)) }
}

// revoke revokes k, which stops being an admin or a publisher.
func revoke(k ed25519.PublicKey) edit {
	return func(n *Network) {
		removeAdmin(k)(n)
		removePublisher(k)(n)
		unrevoke(k)(n)
		n.Revoked = append(n.Revoked, k)
		n.normalize()
	}
}

func unrevoke(k ed25519.PublicKey) edit {
	return func(n *Network) { n.Revoked = slices.DeleteFunc(n.Revoked, is(k)) }
}

func setPublisher(name string, k ed25519.PublicKey, cats ...string) edit {
	return func(n *Network) {
		removePublisher(k)(n)
		n.Publishers = append(n.Publishers, Publisher{Name: name, Key: k, Categories: cats})
		n.normalize()
	}
}

func removePublisher(k ed25519.PublicKey) edit {
	return func(n *Network) {
		n.Publishers = slices.DeleteFunc(n.Publishers, func(p Publisher) bool { return p.Key.Equal(k) })
	}
}

func seeds(s ...string) edit { return func(n *Network) { n.Seeds = s } }

// editCatalog changes the categories and numbers the catalog one up (a
// change that leaves the categories as they are leaves the catalog).
func editCatalog(f func([]categories.Category) []categories.Category) edit {
	return func(n *Network) {
		c, err := categories.NewCatalog(n.Catalog.Version()+1, f(n.Catalog.All()))
		if err != nil {
			panic(err)
		}
		if !slices.Equal(c.All(), n.Catalog.All()) {
			n.Catalog = c
		}
	}
}

func setCategory(id, name string) edit {
	return editCatalog(func(cs []categories.Category) []categories.Category {
		cs = slices.DeleteFunc(cs, func(c categories.Category) bool { return c.ID == id })
		return append(cs, categories.Category{ID: id, Name: name})
	})
}

// removeCategory removes id and everything under it.
func removeCategory(id string) edit {
	return editCatalog(func(cs []categories.Category) []categories.Category {
		return slices.DeleteFunc(cs, func(c categories.Category) bool { return categories.Covers(id, c.ID) })
	})
}

func fanout(f int) edit           { return func(n *Network) { n.Fanout = f } }
func secret(b byte) edit          { return func(n *Network) { n.Secret = bytes.Repeat([]byte{b}, SecretSize) } }
func openPublishing(on bool) edit { return func(n *Network) { n.OpenPublishing = on } }

// equalDefinitions compares two definitions field by field, the catalog by
// its categories: a catalog whose version alone changed is no edit, and
// MergeCatalog's numbering has its own test.
func equalDefinitions(a, b *Network) bool {
	if !slices.Equal(a.Catalog.All(), b.Catalog.All()) {
		return false
	}
	x, y := a.Clone(), b.Clone()
	x.Catalog, y.Catalog = nil, nil
	x.normalize()
	y.normalize()
	return reflect.DeepEqual(x, y)
}

func sameDefinition(t *testing.T, got, want *Network) {
	t.Helper()
	if !equalDefinitions(got, want) {
		t.Errorf("merged\n%s\nwant\n%s", dump(got), dump(want))
	}
}

func ids(cs []categories.Category) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID+"="+c.Name)
	}
	return out
}

func dump(n *Network) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id %s name %q version %d fanout %d open %v secret %x\n", n.ID, n.Name, n.Version, n.Fanout, n.OpenPublishing, n.Secret[:2])
	names := func(ks []ed25519.PublicKey) (s []string) {
		for _, k := range ks {
			s = append(s, keyName(k))
		}
		return s
	}
	fmt.Fprintf(&b, "admins %v revoked %v seeds %v\npublishers", names(n.Admins), names(n.Revoked), n.Seeds)
	for _, p := range n.Publishers {
		fmt.Fprintf(&b, " %s=%q%v", keyName(p.Key), p.Name, p.Categories)
	}
	if n.Catalog != nil {
		fmt.Fprintf(&b, "\ncatalog v%d %v", n.Catalog.Version(), ids(n.Catalog.All()))
	}
	return b.String()
}

// TestMerge: the edit (base → mine) applies onto theirs field by field, and
// entry by entry in the lists with keys; whatever both changed differently,
// or what the two together cannot hold, keeps theirs' side and is named.
// Every field of the definition has its rows.
func TestMerge(t *testing.T) {
	nordics := setCategory("sales/nordics", "Nordics")
	for _, c := range []struct {
		name         string
		mine, theirs edit
		want         edit // applied to theirs
		conflicts    []string
	}{
		{name: "nothing changed"},
		{name: "name: mine only", mine: rename("Mine"), want: rename("Mine")},
		{name: "name: theirs only", theirs: rename("Theirs")},
		{name: "name: both alike", mine: rename("Same"), theirs: rename("Same")},
		{name: "name: both differently", mine: rename("Mine"), theirs: rename("Theirs"),
			conflicts: []string{"name: changed on both sides"}},

		{name: "admins: each adds one", mine: addAdmin(k7), theirs: addAdmin(k8), want: addAdmin(k7)},
		{name: "admins: my removal and their addition", mine: removeAdmin(secondAdmin.Public), theirs: addAdmin(k8),
			want: removeAdmin(secondAdmin.Public)},
		{name: "admins: both removed the same", mine: removeAdmin(secondAdmin.Public), theirs: removeAdmin(secondAdmin.Public)},
		{name: "admins: each removes the other, none left", mine: removeAdmin(adminID.Public), theirs: removeAdmin(secondAdmin.Public),
			conflicts: []string{"admins admin: no admin left"}},
		{name: "admins: I add a key they revoked", mine: addAdmin(k7), theirs: revoke(k7),
			conflicts: []string{"admins k7: revoked on one side"}},
		{name: "admins: I revoke an admin they kept", mine: revoke(secondAdmin.Public), theirs: rename("Theirs"),
			want: revoke(secondAdmin.Public)},
		{name: "admins: I revoke an admin they removed", mine: revoke(secondAdmin.Public), theirs: removeAdmin(secondAdmin.Public),
			want: revoke(secondAdmin.Public)},

		{name: "seeds: mine reordered", mine: seeds("10.0.0.2:7400", "seed1.example.com:7400", "[2001:db8::1]:7400"),
			want: seeds("10.0.0.2:7400", "seed1.example.com:7400", "[2001:db8::1]:7400")},
		{name: "seeds: theirs added", theirs: seeds("seed1.example.com:7400", "10.0.0.2:7400", "[2001:db8::1]:7400", "10.0.0.9:7400")},
		{name: "seeds: both the same way", mine: seeds("10.0.0.9:7400"), theirs: seeds("10.0.0.9:7400")},
		{name: "seeds: to none", mine: seeds(), want: seeds()},
		{name: "seeds: both differently", mine: seeds("10.0.0.8:7400"), theirs: seeds("10.0.0.9:7400"),
			conflicts: []string{"seeds: changed on both sides"}},
		{name: "seeds: reordered against removed", mine: seeds("10.0.0.2:7400", "seed1.example.com:7400", "[2001:db8::1]:7400"), theirs: seeds("seed1.example.com:7400"),
			conflicts: []string{"seeds: changed on both sides"}},

		{name: "catalog: each adds a category", mine: setCategory("legal", "Legal"), theirs: setCategory("events", "Events"),
			want: setCategory("legal", "Legal")},
		{name: "catalog: my rename, their removal elsewhere", mine: setCategory("hr", "People"), theirs: removeCategory("it"),
			want: setCategory("hr", "People")},
		{name: "catalog: the same rename", mine: setCategory("hr", "People"), theirs: setCategory("hr", "People")},
		{name: "catalog: renamed differently", mine: setCategory("hr", "People"), theirs: setCategory("hr", "Staff"),
			conflicts: []string{"catalog hr: changed on both sides"}},
		{name: "catalog: renamed here, removed there", mine: setCategory("hr", "People"), theirs: removeCategory("hr"),
			conflicts: []string{"catalog hr: changed on both sides"}},
		{name: "catalog: the same ID added twice", mine: setCategory("legal", "Legal"), theirs: setCategory("legal", "Law"),
			conflicts: []string{"catalog legal: changed on both sides"}},
		{name: "catalog: my child under their removed parent", mine: nordics, theirs: removeCategory("sales"),
			conflicts: []string{"catalog sales/nordics (sales): parent missing"}},
		{name: "catalog: my removed parent, their new child", mine: removeCategory("sales"), theirs: nordics,
			want:      edits(removeCategory("sales/emea"), removeCategory("sales/americas"), removeCategory("sales/apac")),
			conflicts: []string{"catalog sales (sales/nordics): parent missing"}},
		{name: "catalog: my removed subtree, their grandchild", mine: removeCategory("sales"), theirs: setCategory("sales/emea/uk", "UK"),
			want:      edits(removeCategory("sales/americas"), removeCategory("sales/apac")),
			conflicts: []string{"catalog sales/emea (sales/emea/uk): parent missing", "catalog sales (sales/emea/uk): parent missing"}},
		{name: "catalog: my new subtree under their removed parent", mine: edits(nordics, setCategory("sales/nordics/dk", "Denmark")), theirs: removeCategory("sales"),
			conflicts: []string{"catalog sales/nordics (sales): parent missing", "catalog sales/nordics/dk (sales): parent missing"}},

		{name: "catalog: renamed there, removed with its parent here", mine: removeCategory("sales"), theirs: setCategory("sales/emea", "EMEA"),
			want:      edits(removeCategory("sales/americas"), removeCategory("sales/apac")),
			conflicts: []string{"catalog sales/emea: changed on both sides", "catalog sales (sales/emea): parent missing"}},
		{name: "catalog: a parent renamed here and removed there, with my new child", mine: edits(setCategory("sales", "Revenue"), nordics), theirs: removeCategory("sales"),
			conflicts: []string{"catalog sales: changed on both sides", "catalog sales/nordics (sales): parent missing"}},

		{name: "publishers: each adds one", mine: setPublisher("K7", k7), theirs: setPublisher("K8", k8), want: setPublisher("K7", k7)},
		{name: "publishers: my removal and their addition", mine: removePublisher(newsroomID.Public), theirs: setPublisher("K8", k8),
			want: removePublisher(newsroomID.Public)},
		{name: "publishers: their removal and my addition", mine: setPublisher("K7", k7), theirs: removePublisher(newsroomID.Public),
			want: setPublisher("K7", k7)},
		{name: "publishers: different ones changed", mine: setPublisher("Newsroom", newsroomID.Public, "it"), theirs: setPublisher("People", hrID.Public, "hr"),
			want: setPublisher("Newsroom", newsroomID.Public, "it")},
		{name: "publishers: the same change", mine: setPublisher("HR", hrID.Public, "hr"), theirs: setPublisher("HR", hrID.Public, "hr")},
		{name: "publishers: both removed it", mine: removePublisher(hrID.Public), theirs: removePublisher(hrID.Public)},
		{name: "publishers: changed differently", mine: setPublisher("HR team", hrID.Public, "hr", "it"), theirs: setPublisher("HR team", hrID.Public, "company"),
			conflicts: []string{"publishers hr: changed on both sides"}},
		{name: "publishers: removed here, changed there", mine: removePublisher(hrID.Public), theirs: setPublisher("People", hrID.Public),
			conflicts: []string{"publishers hr: changed on both sides"}},
		{name: "publishers: changed here, removed there", mine: setPublisher("People", hrID.Public), theirs: removePublisher(hrID.Public),
			conflicts: []string{"publishers hr: changed on both sides"}},
		{name: "publishers: the same key added twice", mine: setPublisher("Dan", k7), theirs: setPublisher("Daniel", k7),
			conflicts: []string{"publishers k7: changed on both sides"}},
		{name: "publishers: I add a key they revoked", mine: setPublisher("K7", k7), theirs: revoke(k7),
			conflicts: []string{"publishers k7: revoked on one side"}},
		{name: "publishers: I revoke a key they made a publisher", mine: revoke(k7), theirs: setPublisher("K7", k7),
			conflicts: []string{"revoked k7: revoked on one side"}},
		{name: "publishers: I revoke a publisher they changed", mine: revoke(hrID.Public), theirs: setPublisher("People", hrID.Public),
			conflicts: []string{"publishers hr: changed on both sides", "revoked hr: revoked on one side"}},

		{name: "revoked: each revokes a key", mine: revoke(k7), theirs: revoke(k8), want: revoke(k7)},
		{name: "revoked: my pardon, their revocation", mine: unrevoke(revokedID.Public), theirs: revoke(k8), want: unrevoke(revokedID.Public)},
		{name: "revoked: both revoke the same", mine: revoke(newsroomID.Public), theirs: revoke(newsroomID.Public)},

		{name: "fanout: mine only", mine: fanout(8), want: fanout(8)},
		{name: "fanout: both differently", mine: fanout(8), theirs: fanout(32), conflicts: []string{"fanout: changed on both sides"}},
		{name: "secret: mine rotated", mine: secret(7), want: secret(7)},
		{name: "secret: both rotated", mine: secret(7), theirs: secret(8), conflicts: []string{"secret: changed on both sides"}},
		{name: "open publishing: mine only", mine: openPublishing(true), want: openPublishing(true)},
		{name: "open publishing: both alike", mine: openPublishing(true), theirs: openPublishing(true)},

		{name: "the ID is theirs", mine: func(n *Network) { n.ID = uuid.MustParse("00000000-0000-4000-8000-000000000001") }},
		{name: "several fields", mine: edits(seeds("10.1.1.1:7400"), fanout(8)), theirs: edits(rename("Theirs"), fanout(32)),
			want: seeds("10.1.1.1:7400"), conflicts: []string{"fanout: changed on both sides"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := mergeBase()
			mine, theirs := base.Clone(), base.Clone()
			theirs.Version++
			for _, e := range []struct {
				n *Network
				f edit
			}{{mine, c.mine}, {theirs, c.theirs}} {
				if e.f != nil {
					e.f(e.n)
				}
				if err := e.n.Validate(); err != nil {
					t.Fatalf("test edit: %v", err)
				}
			}
			theirsBefore := theirs.Clone()
			mineBefore := mine.Clone()
			got, conflicts := Merge(base, mine, theirs)

			want := theirs.Clone()
			want.Version++
			if c.want != nil {
				c.want(want)
			}
			sameDefinition(t, got, want)
			if d := describeAll(conflicts); !slices.Equal(d, c.conflicts) {
				t.Errorf("conflicts\n%q\nwant\n%q", d, c.conflicts)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("merged definition: %v", err)
			}
			if !reflect.DeepEqual(theirs, theirsBefore) || !reflect.DeepEqual(mine, mineBefore) {
				t.Error("Merge changed its input")
			}
		})
	}
}

// TestMergeCatalogVersion: a merged catalog that differs from theirs is
// numbered above both sides, so that a servant holding either adopts it;
// an edit that changes nothing in it keeps theirs, and one only the admin
// made keeps the admin's catalog as it is.
func TestMergeCatalogVersion(t *testing.T) {
	cat := func(v uint64, ids ...string) *categories.Catalog {
		var cs []categories.Category
		for _, id := range ids {
			cs = append(cs, categories.Category{ID: id, Name: id})
		}
		c, err := categories.NewCatalog(v, cs)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := cat(3, "hr")
	for _, c := range []struct {
		name               string
		base, mine, theirs *categories.Catalog
		want               *categories.Catalog // the very catalog, or nil for a new one
		version            uint64
		ids                []string
	}{
		{name: "nothing changed", base: base, mine: base, theirs: cat(4, "hr", "it"), want: nil, version: 4, ids: []string{"hr", "it"}},
		{name: "only mine changed", base: base, mine: cat(4, "hr", "it"), theirs: base, version: 4, ids: []string{"hr", "it"}},
		{name: "both changed", base: base, mine: cat(4, "hr", "it"), theirs: cat(4, "hr", "sales"), version: 5, ids: []string{"hr", "it", "sales"}},
		{name: "both changed, mine numbered lower", base: base, mine: cat(4, "hr", "it"), theirs: cat(9, "hr", "sales"), version: 10, ids: []string{"hr", "it", "sales"}},
		{name: "mine numbered no higher than theirs", base: base, mine: cat(3, "hr", "it"), theirs: cat(3, "hr"), version: 4, ids: []string{"hr", "it"}},
		{name: "both made the same change", base: base, mine: cat(4, "hr", "it"), theirs: cat(5, "hr", "it"), version: 5, ids: []string{"hr", "it"}},
		{name: "no catalog held", base: nil, mine: cat(1, "hr"), theirs: nil, version: 1, ids: []string{"hr"}},
		{name: "from none onto one", base: nil, mine: cat(1, "it"), theirs: cat(2, "hr"), version: 3, ids: []string{"hr", "it"}},
	} {
		got, conflicts := MergeCatalog(c.base, c.mine, c.theirs)
		if len(conflicts) > 0 {
			t.Errorf("%s: conflicts %q", c.name, describeAll(conflicts))
		}
		if got.Version() != c.version || !slices.Equal(got.IDs(), c.ids) {
			t.Errorf("%s: version %d %v, want %d %v", c.name, got.Version(), got.IDs(), c.version, c.ids)
		}
		switch {
		case c.name == "only mine changed" && got != c.mine:
			t.Errorf("%s: not mine's catalog", c.name)
		case c.name == "both made the same change" && got != c.theirs:
			t.Errorf("%s: not theirs' catalog", c.name)
		}
	}
}

// testKey is key i of a run of distinct keys.
func testKey(i int) ed25519.PublicKey {
	k := make(ed25519.PublicKey, ed25519.PublicKeySize)
	binary.BigEndian.PutUint32(k[28:], uint32(i)+1000)
	return k
}

// TestMergeOverLimit: each side adds within a limit, both together break
// it: the admin's additions are left out and named.
func TestMergeOverLimit(t *testing.T) {
	base := mergeBase()
	for i := len(base.Admins); i < MaxAdmins-1; i++ {
		base.Admins = append(base.Admins, testKey(i))
	}
	for i := len(base.Publishers); i < MaxPublishers-1; i++ {
		base.Publishers = append(base.Publishers, Publisher{Name: "P", Key: testKey(i)})
	}
	base.normalize()
	mine, theirs := base.Clone(), base.Clone()
	addAdmin(k7)(mine)
	setPublisher("K7", k7)(mine)
	addAdmin(k8)(theirs)
	setPublisher("K8", k8)(theirs)
	for _, n := range []*Network{base, mine, theirs} {
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	got, conflicts := Merge(base, mine, theirs)
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
	if got.IsAdmin(k7) || !got.IsAdmin(k8) || len(got.Admins) != MaxAdmins || len(got.Publishers) != MaxPublishers {
		t.Errorf("admins %d (k7 %v, k8 %v), publishers %d", len(got.Admins), got.IsAdmin(k7), got.IsAdmin(k8), len(got.Publishers))
	}
	if d, want := describeAll(conflicts), []string{"admins k7: over the limit", "publishers k7: over the limit"}; !slices.Equal(d, want) {
		t.Errorf("conflicts %q, want %q", d, want)
	}
	if mp := MinePublishers(got.Publishers, conflicts); len(mp) != MaxPublishers+1 {
		t.Errorf("with mine on top: %d publishers, want the admin's addition back", len(mp))
	}

	cats := func(n int, extra string) *categories.Catalog {
		var cs []categories.Category
		for i := range n {
			cs = append(cs, categories.Category{ID: fmt.Sprintf("c%d", i), Name: "C"})
		}
		if extra != "" {
			cs = append(cs, categories.Category{ID: extra, Name: extra})
		}
		c, err := categories.NewCatalog(2, cs)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	merged, cc := MergeCatalog(cats(categories.MaxCategories-1, ""), cats(categories.MaxCategories-1, "mine"), cats(categories.MaxCategories-1, "theirs"))
	if merged.Has("mine") || !merged.Has("theirs") || merged.Len() != categories.MaxCategories {
		t.Errorf("catalog of %d, mine %v theirs %v", merged.Len(), merged.Has("mine"), merged.Has("theirs"))
	}
	if d, want := describeAll(cc), []string{"catalog mine: over the limit"}; !slices.Equal(d, want) {
		t.Errorf("catalog conflicts %q, want %q", d, want)
	}
}

// TestMineOnTop: what an editor shows after a conflict is theirs with the
// admin's side of every conflict put back: the admin's version of each
// conflicting publisher and category, also where it breaks a rule.
func TestMineOnTop(t *testing.T) {
	base := mergeBase()
	mine, theirs := base.Clone(), base.Clone()
	edits(setPublisher("People", hrID.Public), setPublisher("K7", k7), setCategory("hr", "People"), setCategory("sales/nordics", "Nordics"))(mine)
	edits(removePublisher(hrID.Public), revoke(k7), setPublisher("K8", k8), setCategory("hr", "Staff"), removeCategory("sales"), setCategory("legal", "Legal"))(theirs)
	got, conflicts := Merge(base, mine, theirs)

	pubs := MinePublishers(got.Publishers, conflicts)
	want := theirs.Clone()
	edits(setPublisher("People", hrID.Public), setPublisher("K7", k7))(want)
	if !slices.EqualFunc(pubs, want.Publishers, samePublisher) {
		t.Errorf("publishers %v, want %v", pubs, want.Publishers)
	}
	cats := MineCategories(got.Catalog.All(), conflicts)
	wantCats := append(theirs.Catalog.All(), categories.Category{ID: "sales/nordics", Name: "Nordics"})
	wantCats[slices.IndexFunc(wantCats, func(c categories.Category) bool { return c.ID == "hr" })].Name = "People"
	slices.SortFunc(wantCats, func(a, b categories.Category) int { return strings.Compare(a.ID, b.ID) })
	if !slices.Equal(cats, wantCats) {
		t.Errorf("categories %v, want %v", ids(cats), ids(wantCats))
	}
}

// TestMergeProperties merges random edits of one definition and checks
// the merge against an obviously correct model: every entry (field,
// admin, publisher, revoked key, category) the admin changed takes the
// admin's side, every other one theirs'. Without conflicts the merge is
// that model; with conflicts the editor's view (mine on top) still is, and
// the merged definition, which keeps theirs' side of each conflict, is
// valid. Merging with nothing on one side gives the other side.
func TestMergeProperties(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	kinds := map[ConflictKind]int{} // the runs must reach every kind but OverLimit (TestMergeOverLimit)
	start := mergeBase()
	edits(setCategory("x", "X"), setCategory("x/y", "Y"), setCategory("x/y/z", "Z"))(start)
	for i := range runs {
		base := randomEdit(rng, start)
		mine, theirs := randomEdit(rng, base), randomEdit(rng, base)
		theirs.Version = base.Version + 1
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d run %d: %s\nbase   %s\nmine   %s\ntheirs %s", seed, i, fmt.Sprintf(format, args...), dump(base), dump(mine), dump(theirs))
		}
		got, conflicts := Merge(base, mine, theirs)
		for _, c := range conflicts {
			kinds[c.Kind]++
		}
		if err := got.Validate(); err != nil {
			fail("merged definition invalid: %v (conflicts %q)", err, describeAll(conflicts))
		}
		model, modelCats := overlay(base, mine, theirs)
		if len(conflicts) == 0 {
			g := got.Clone()
			g.Catalog = nil
			g.normalize()
			if !reflect.DeepEqual(g, model) || !slices.Equal(got.Catalog.All(), modelCats) {
				fail("no conflict, but the merge is not the model:\n%s\nmodel\n%s", dump(got), dump(model))
			}
			back, c := Merge(base, theirs, mine)
			if len(c) > 0 || !slices.EqualFunc(back.Publishers, got.Publishers, samePublisher) || !slices.Equal(back.Catalog.All(), got.Catalog.All()) || back.Name != got.Name {
				fail("merging the other way round differs: %q", describeAll(c))
			}
		}
		if pubs := MinePublishers(got.Publishers, conflicts); !slices.EqualFunc(pubs, model.Publishers, samePublisher) {
			fail("publishers with mine on top differ from the model (conflicts %q)", describeAll(conflicts))
		}
		if cats := MineCategories(got.Catalog.All(), conflicts); !slices.Equal(cats, modelCats) {
			fail("categories with mine on top %v, model %v", ids(cats), ids(modelCats))
		}
		for _, c := range []struct{ mine, theirs, want *Network }{{base, theirs, theirs}, {mine, base, mine}, {mine, mine, mine}} {
			got, conflicts := Merge(base, c.mine, c.theirs)
			want := c.want.Clone()
			want.Version = c.theirs.Version + 1
			if len(conflicts) > 0 || !equalDefinitions(got, want) {
				fail("a merge with one side unchanged: conflicts %q\n%s", describeAll(conflicts), dump(got))
			}
		}
	}
	if !testing.Short() {
		for _, k := range []ConflictKind{BothChanged, KeyRevoked, MissingParent, NoAdmin} {
			if kinds[k] == 0 {
				t.Errorf("seed %d: no run had a conflict %q: the random edits miss a case", seed, k)
			}
		}
	}
}

// overlay is the model: theirs with every entry the edit changed taken
// from mine. It may break a rule of the whole definition, so its
// categories come as a list (a catalog would refuse an orphan), and its
// Catalog is nil.
func overlay(base, mine, theirs *Network) (*Network, []categories.Category) {
	out := theirs.Clone()
	out.Version = theirs.Version + 1
	if mine.Name != base.Name {
		out.Name = mine.Name
	}
	if !slices.Equal(mine.Seeds, base.Seeds) {
		out.Seeds = slices.Clone(mine.Seeds)
	}
	if mine.Fanout != base.Fanout {
		out.Fanout = mine.Fanout
	}
	if !bytes.Equal(mine.Secret, base.Secret) {
		out.Secret = slices.Clone(mine.Secret)
	}
	if mine.OpenPublishing != base.OpenPublishing {
		out.OpenPublishing = mine.OpenPublishing
	}
	keys := func(b, m, t []ed25519.PublicKey) []ed25519.PublicKey {
		out := slices.Clone(t)
		for _, k := range b {
			if !slices.ContainsFunc(m, is(k)) {
				out = slices.DeleteFunc(out, is(k))
			}
		}
		for _, k := range m {
			if !slices.ContainsFunc(b, is(k)) && !slices.ContainsFunc(out, is(k)) {
				out = append(out, k)
			}
		}
		return out
	}
	out.Admins = keys(base.Admins, mine.Admins, theirs.Admins)
	out.Revoked = keys(base.Revoked, mine.Revoked, theirs.Revoked)
	pub := func(n *Network, k ed25519.PublicKey) *Publisher {
		if p, ok := n.Publisher(k); ok {
			return &p
		}
		return nil
	}
	samePtr := func(a, b *Publisher) bool {
		return a == nil && b == nil || a != nil && b != nil && samePublisher(*a, *b)
	}
	for _, n := range []*Network{base, mine} {
		for _, p := range n.Publishers {
			if m := pub(mine, p.Key); !samePtr(pub(base, p.Key), m) {
				removePublisher(p.Key)(out)
				if m != nil {
					out.Publishers = append(out.Publishers, *m)
				}
			}
		}
	}
	cats := map[string]categories.Category{}
	for _, c := range theirs.Catalog.All() {
		cats[c.ID] = c
	}
	find := func(c *categories.Catalog, id string) (categories.Category, bool) { return c.Get(id) }
	for _, n := range []*Network{base, mine} {
		for _, c := range n.Catalog.All() {
			b, inBase := find(base.Catalog, c.ID)
			m, inMine := find(mine.Catalog, c.ID)
			if inBase != inMine || b != m {
				delete(cats, c.ID)
				if inMine {
					cats[c.ID] = m
				}
			}
		}
	}
	list := make([]categories.Category, 0, len(cats))
	for _, c := range cats {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b categories.Category) int { return strings.Compare(a.ID, b.ID) })
	out.Catalog = nil
	out.normalize()
	return out, list
}

// randomEdit returns a valid random edit of n: small pools of keys,
// seeds and categories, so that the two sides of a merge often touch the
// same entries.
func randomEdit(rng *rand.Rand, n *Network) *Network {
	out := n.Clone()
	pool := []ed25519.PublicKey{adminID.Public, secondAdmin.Public, newsroomID.Public, hrID.Public, revokedID.Public, k7, k8}
	pick := func() ed25519.PublicKey { return pool[rng.IntN(len(pool))] }
	for range rng.IntN(5) {
		switch rng.IntN(12) {
		case 0:
			out.Name = []string{"A", "B", "C"}[rng.IntN(3)]
		case 1:
			if k := pick(); !out.IsRevoked(k) && !out.IsAdmin(k) {
				addAdmin(k)(out)
			}
		case 2:
			if k := pick(); len(out.Admins) > 1 {
				removeAdmin(k)(out)
			}
		case 3:
			if k := pick(); len(out.Admins) > 1 || !out.IsAdmin(k) {
				revoke(k)(out)
			}
		case 4:
			unrevoke(pick())(out)
		case 5:
			if k := pick(); !out.IsRevoked(k) {
				cats := [][]string{nil, {"hr"}, {"it"}, {"hr", "it"}}[rng.IntN(4)]
				setPublisher([]string{"P", "Q"}[rng.IntN(2)], k, cats...)(out)
			}
		case 6:
			removePublisher(pick())(out)
		case 7:
			all := []string{"a.example:1", "b.example:1", "c.example:1"}
			rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			out.Seeds = all[:rng.IntN(4)]
		case 8:
			switch rng.IntN(3) {
			case 0:
				out.Fanout = []int{8, 16, 32}[rng.IntN(3)]
			case 1:
				secret(byte(rng.IntN(3)))(out)
			case 2:
				out.OpenPublishing = !out.OpenPublishing
			}
		default:
			ids := []string{"x", "x/y", "x/y/z", "x/w", "sales", "sales/emea", "hr"}
			id := ids[rng.IntN(len(ids))]
			if rng.IntN(2) == 0 {
				removeCategory(id)(out)
				break
			}
			name := []string{"One", "Two"}[rng.IntN(2)]
			editCatalog(func(cs []categories.Category) []categories.Category {
				for a := id; ; { // the category and whatever it is missing above it
					cs = slices.DeleteFunc(cs, func(c categories.Category) bool { return c.ID == a })
					cs = append(cs, categories.Category{ID: a, Name: name})
					p, ok := categories.Parent(a)
					if !ok || slices.ContainsFunc(cs, func(c categories.Category) bool { return c.ID == p }) {
						return cs
					}
					a = p
				}
			})(out)
		}
	}
	out.normalize()
	if err := out.Validate(); err != nil {
		panic(err)
	}
	return out
}
