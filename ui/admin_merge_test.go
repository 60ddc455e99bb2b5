package ui

import (
	"bytes"
	"crypto/ed25519"
	"slices"
	"strings"
	"testing"

	"newsdesk/categories"
	"newsdesk/trust"
	"newsdesk/ui/internal/fakebackend"
)

// testKey is a fixed public key whose bytes all equal b, so keys sort by b.
func testKey(b byte) ed25519.PublicKey { return bytes.Repeat([]byte{b}, ed25519.PublicKeySize) }

func pub(b byte, name string, cats ...string) trust.Publisher {
	return trust.Publisher{Name: name, Key: testKey(b), Categories: cats}
}

func publisherNames(ps []trust.Publisher) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name+"="+strings.Join(p.Categories, "+"))
	}
	return out
}

// TestAdminMergePublishers: the editor's change to the publishers applies
// to the version held now through trust.Merge (whose own tables cover
// every case); here: what the editor shows and says. Only an entry both
// sides changed differently conflicts, and the list shown then keeps the
// admin's version of it.
func TestAdminMergePublishers(t *testing.T) {
	ann, bob, cat, dan := pub(1, "Ann"), pub(2, "Bob"), pub(3, "Cat"), pub(4, "Dan")
	annHR, annIT := pub(1, "Ann", "hr"), pub(1, "Ann", "it")
	for _, c := range []struct {
		name               string
		base, mine, theirs []trust.Publisher
		revoked            []ed25519.PublicKey
		want               []trust.Publisher
		problems           []string // substrings, one per problem
	}{
		{name: "no concurrent change", base: []trust.Publisher{ann}, mine: []trust.Publisher{ann, bob}, theirs: []trust.Publisher{ann},
			want: []trust.Publisher{ann, bob}},
		{name: "a concurrent addition survives mine", base: []trust.Publisher{ann}, mine: []trust.Publisher{ann, bob}, theirs: []trust.Publisher{ann, cat},
			want: []trust.Publisher{ann, bob, cat}},
		{name: "my removal and their addition", base: []trust.Publisher{ann, bob}, mine: []trust.Publisher{ann}, theirs: []trust.Publisher{ann, bob, dan},
			want: []trust.Publisher{ann, dan}},
		{name: "changed differently", base: []trust.Publisher{ann, bob}, mine: []trust.Publisher{annHR, bob}, theirs: []trust.Publisher{annIT, bob, cat},
			want:     []trust.Publisher{annHR, bob, cat},
			problems: []string{"Another admin changed publisher “Ann” in version 7 to “Ann”, IT, while you changed it to “Ann”, HR."}},
		{name: "removed here, changed there", base: []trust.Publisher{ann, bob}, mine: []trust.Publisher{bob}, theirs: []trust.Publisher{annIT, bob},
			want:     []trust.Publisher{bob},
			problems: []string{"Another admin changed publisher “Ann” in version 7 to “Ann”, IT, while you removed it."}},
		{name: "changed here, removed there", base: []trust.Publisher{ann, bob}, mine: []trust.Publisher{pub(1, "Ann B."), bob}, theirs: []trust.Publisher{bob},
			want:     []trust.Publisher{pub(1, "Ann B."), bob},
			problems: []string{"Another admin removed publisher “Ann” in version 7, while you changed it to “Ann B.”, all categories."}},
		{name: "the same key added twice", base: nil, mine: []trust.Publisher{dan}, theirs: []trust.Publisher{pub(4, "Daniel")},
			want:     []trust.Publisher{dan},
			problems: []string{"also added the key of “Dan” in version 7, as “Daniel”"}},
		{name: "added a key revoked meanwhile", base: []trust.Publisher{ann}, mine: []trust.Publisher{ann, dan}, theirs: []trust.Publisher{ann}, revoked: []ed25519.PublicKey{testKey(4)},
			want:     []trust.Publisher{ann, dan},
			problems: []string{"Another admin revoked the key of publisher “Dan” in version 7, so it cannot publish."}},
		{name: "two problems, in key order", base: []trust.Publisher{ann, bob}, mine: []trust.Publisher{annHR, pub(2, "Bobby"), dan}, theirs: []trust.Publisher{annIT}, revoked: []ed25519.PublicKey{testKey(4)},
			want:     []trust.Publisher{annHR, pub(2, "Bobby"), dan},
			problems: []string{"changed publisher “Ann”", "removed publisher “Bob”", "revoked the key of publisher “Dan”"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := &trust.Network{Version: 6, Admins: []ed25519.PublicKey{testKey(9)}, Publishers: c.base}
			cur := &trust.SignedNetwork{Network: trust.Network{Version: 7, Admins: []ed25519.PublicKey{testKey(9)}, Publishers: c.theirs, Revoked: c.revoked}}
			next, got, problems := mergePublishersEdit(base, c.mine, cur, categories.Default())
			if !samePublishers(got, c.want) {
				t.Errorf("shown %q, want %q", publisherNames(got), publisherNames(c.want))
			}
			if (next == nil) != (len(c.problems) > 0) {
				t.Errorf("next definition %v with problems %q", next != nil, problems)
			}
			if next != nil && (next.Version != 8 || !samePublishers(next.Publishers, c.want)) {
				t.Errorf("next: version %d, publishers %q", next.Version, publisherNames(next.Publishers))
			}
			if len(problems) != len(c.problems) {
				t.Fatalf("problems %q, want %q", problems, c.problems)
			}
			for i, p := range problems {
				if !strings.Contains(p, c.problems[i]) {
					t.Errorf("problem %q, want %q", p, c.problems[i])
				}
			}
		})
	}
}

// TestAdminMergeSeeds: the list changed on one side takes that side;
// changed differently on both, nothing is published and the problem names
// both lists.
func TestAdminMergeSeeds(t *testing.T) {
	a, b, c, d := "10.0.0.1:7400", "10.0.0.2:7400", "10.0.0.3:7400", "10.0.0.4:7400"
	for _, tc := range []struct {
		name               string
		base, mine, theirs []string
		want               []string
		problem            string
	}{
		{name: "only mine changed", base: []string{a, b}, mine: []string{b, a}, theirs: []string{a, b}, want: []string{b, a}},
		{name: "only theirs changed", base: []string{a, b}, mine: []string{a, b}, theirs: []string{a, b, c}, want: []string{a, b, c}},
		{name: "from nothing", mine: []string{a}, want: []string{a}},
		{name: "both differently", base: []string{a, b}, mine: []string{a, b, c}, theirs: []string{a, b, d},
			problem: "Another admin changed the seed list in version 7 to 10.0.0.1:7400, 10.0.0.2:7400, 10.0.0.4:7400, while you changed it to 10.0.0.1:7400, 10.0.0.2:7400, 10.0.0.3:7400."},
		{name: "emptied against reordered", base: []string{a, b}, mine: nil, theirs: []string{b, a},
			problem: "Another admin changed the seed list in version 7 to 10.0.0.2:7400, 10.0.0.1:7400, while you changed it to an empty list."},
	} {
		base := &trust.Network{Version: 6, Seeds: tc.base}
		cur := &trust.SignedNetwork{Network: trust.Network{Version: 7, Seeds: tc.theirs}}
		next, problems := mergeSeedsEdit(base, tc.mine, cur)
		switch {
		case tc.problem != "":
			if next != nil || !slices.Equal(problems, []string{tc.problem}) {
				t.Errorf("%s: published %v, problems %q, want %q", tc.name, next != nil, problems, tc.problem)
			}
		case next == nil || !slices.Equal(next.Seeds, tc.want):
			t.Errorf("%s: %v (problems %q), want %q", tc.name, next, problems, tc.want)
		}
	}
}

// TestAdminMergeCategories: categories merge by ID like publishers by key,
// and a merge that would leave a category without its parent is a
// conflict; the editor then shows the admin's side on top, the orphan
// included, for the admin to decide.
func TestAdminMergeCategories(t *testing.T) {
	cat := func(id, name string) categories.Category { return categories.Category{ID: id, Name: name} }
	sales, hr, it := cat("sales", "Sales"), cat("hr", "HR"), cat("it", "IT")
	mkt, events := cat("marketing", "Marketing"), cat("marketing/events", "Events")
	for _, c := range []struct {
		name               string
		base, mine, theirs []categories.Category
		want               []categories.Category
		problems           []string
	}{
		{name: "both added different categories", base: []categories.Category{hr}, mine: []categories.Category{hr, sales}, theirs: []categories.Category{hr, it},
			want: []categories.Category{hr, it, sales}},
		{name: "my rename and their removal elsewhere", base: []categories.Category{hr, it}, mine: []categories.Category{cat("hr", "People"), it}, theirs: []categories.Category{hr},
			want: []categories.Category{cat("hr", "People")}},
		{name: "renamed differently", base: []categories.Category{hr}, mine: []categories.Category{cat("hr", "People")}, theirs: []categories.Category{cat("hr", "Staff")},
			want:     []categories.Category{cat("hr", "People")},
			problems: []string{"Another admin changed category “HR” (hr) in version 7 to “Staff”, while you changed it to “People”."}},
		{name: "a child under a removed parent", base: []categories.Category{hr, mkt}, mine: []categories.Category{hr, mkt, events}, theirs: []categories.Category{hr},
			want:     []categories.Category{hr, events},
			problems: []string{"Another admin removed category “Marketing” (marketing) in version 7, which your category “Events” (marketing/events) needs as its parent."}},
		{name: "a removed parent with a new child", base: []categories.Category{hr, mkt}, mine: []categories.Category{hr}, theirs: []categories.Category{hr, mkt, events},
			want:     []categories.Category{hr, events},
			problems: []string{"Another admin added category “Events” (marketing/events) in version 7, under “Marketing” (marketing), which you removed."}},
		{name: "a grandchild under a removed parent", base: []categories.Category{hr, mkt}, mine: []categories.Category{hr, mkt, events, cat("marketing/events/fairs", "Fairs")}, theirs: []categories.Category{hr},
			want: []categories.Category{hr, events, cat("marketing/events/fairs", "Fairs")},
			problems: []string{"Another admin removed category “Marketing” (marketing) in version 7, which your category “Events” (marketing/events) needs as its parent.",
				"Another admin removed category “Marketing” (marketing) in version 7, which your category “Fairs” (marketing/events/fairs) is under."}},
		{name: "renamed there, removed with its parent here", base: []categories.Category{hr, mkt, events}, mine: []categories.Category{hr}, theirs: []categories.Category{hr, mkt, cat("marketing/events", "Fairs")},
			want:     []categories.Category{hr},
			problems: []string{"Another admin changed category “Events” (marketing/events) in version 7 to “Fairs”, while you removed it."}},
		{name: "a renamed parent removed there, a new child here", base: []categories.Category{hr, mkt}, mine: []categories.Category{hr, cat("marketing", "Sales and marketing"), events}, theirs: []categories.Category{hr},
			want:     []categories.Category{hr, cat("marketing", "Sales and marketing"), events},
			problems: []string{"Another admin removed category “Marketing” (marketing) in version 7, while you changed it to “Sales and marketing”."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			catalog := func(v uint64, cs []categories.Category) *categories.Catalog {
				out, err := categories.NewCatalog(v, cs)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			got, problems := mergeCatalogEdit(catalog(2, c.base), catalog(1, c.mine), catalog(3, c.theirs), "in version 7")
			if !slices.Equal(got, c.want) {
				t.Errorf("merged %v, want %v", got, c.want)
			}
			if !slices.Equal(problems, c.problems) {
				t.Errorf("problems %q, want %q", problems, c.problems)
			}
		})
	}
}

// racingBackend adopts a version signed by another admin just before the
// first version this installation publishes, as when both arrive at once.
type racingBackend struct {
	*fakebackend.Backend
	other *trust.Identity
	raced bool
}

func (r *racingBackend) PublishNetwork(next *trust.SignedNetwork) error {
	if !r.raced {
		r.raced = true
		n := r.Network().Clone()
		n.Version++
		n.Seeds = []string{"10.0.0.9:7400"}
		theirs, err := r.other.SignNetwork(n)
		if err != nil {
			return err
		}
		if err := r.Backend.PublishNetwork(theirs); err != nil {
			return err
		}
	}
	return r.Backend.PublishNetwork(next)
}

// TestAdminPublishEditRace: a version adopted between reading the
// definition and publishing makes publishEdit merge again onto it, so the
// other admin's change survives and the edit is published on top.
func TestAdminPublishEditRace(t *testing.T) {
	b := newFake(t)
	other := withSecondAdmin(t, b)
	r := &racingBackend{Backend: b.Backend, other: other}
	var merges []uint64
	next, err := publishEdit(r, func(cur *trust.SignedNetwork, n *trust.Network) error {
		merges = append(merges, cur.Version)
		n.Name = "Acme"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(merges, []uint64{2, 3}) || next.Version != 4 || next.Name != "Acme" || !slices.Equal(next.Seeds, []string{"10.0.0.9:7400"}) {
		t.Errorf("merged onto %v, published v%d %q seeds %q", merges, next.Version, next.Name, next.Seeds)
	}
	if b.Network() != next {
		t.Error("the merged version was not adopted")
	}
}
