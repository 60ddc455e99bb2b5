package trust

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"

	"newsdesk/categories"
)

// Merging definitions. An admin edits the definition of the version it
// holds, and another admin may publish the next version meanwhile: the
// editors find it held when they save, and a servant finds its own published
// version lost to a rival of the same number (rival.go). Either way the
// admin's edit is the change from the version it was made on (base) to the
// admin's version (mine), and it is applied to the version the other admin
// published (theirs), so neither admin's work is published over. Merge is
// that three-way merge, the one the editors and the rival resolution share.
//
// Each part of the definition merges at the grain its meaning allows:
//
//   - publishers by key, categories by ID, admins and revoked keys key by
//     key: an entry only one side changed (added, removed, edited) takes
//     that side; an entry both changed alike is fine; an entry both changed
//     differently is a conflict;
//   - name, fanout, leaf capacity, publish limits (all of them as one
//     field), secret, open publishing, the named ranges and the seed
//     list as a whole: the seed list is a priority order whose first reachable seed becomes
//     the root, so an interleaving of two orders would be an order neither
//     admin chose;
//   - the ID never changes (Accept refuses it), so theirs is kept.
//
// A conflict keeps theirs' side, so the merged definition is always one
// that validates (given three that do) and can be signed as it is: what a
// servant publishes when its edit lost a tie. An editor instead shows the
// admin's side of every conflict on top (MinePublishers, MineCategories)
// and publishes nothing until the admin decides.
//
// Merging entry by entry can make a definition no side had and that breaks
// a rule of the whole; those are conflicts too, resolved toward theirs:
//
//   - a key revoked on one side that is an admin or a publisher on the
//     other (a definition cannot say both);
//   - a category without its parent (one side removed the parent, the
//     other put a category under it);
//   - no admin left (each side removed different admins);
//   - more admins, publishers, revoked keys or categories than a
//     definition may hold (each side added some).

// Field names a part of a network definition in a conflict.
type Field string

// The fields of a definition that an edit can change, in the order of
// Network's fields.
const (
	FieldName           Field = "name"
	FieldAdmins         Field = "admins"
	FieldSeeds          Field = "seeds"
	FieldCatalog        Field = "catalog"
	FieldPublishers     Field = "publishers"
	FieldRevoked        Field = "revoked"
	FieldFanout         Field = "fanout"
	FieldSecret         Field = "secret"
	FieldOpenPublishing Field = "open publishing"
	FieldAudiences      Field = "named ranges"
	FieldLeafCapacity   Field = "leaf capacity"
	FieldPublishLimits  Field = "publish limits"
)

var fieldOrder = []Field{FieldName, FieldAdmins, FieldSeeds, FieldCatalog, FieldPublishers, FieldRevoked, FieldFanout, FieldSecret, FieldOpenPublishing, FieldAudiences, FieldLeafCapacity, FieldPublishLimits}

// ConflictKind says why part of an edit was not applied.
type ConflictKind int

const (
	// BothChanged: the edit and theirs changed the same field, publisher
	// or category, differently.
	BothChanged ConflictKind = iota + 1
	// KeyRevoked: a key one side revoked is an admin or a publisher on the
	// other.
	KeyRevoked
	// MissingParent: a category would be left without its parent; Related
	// names the other category of the pair.
	MissingParent
	// NoAdmin: the admins each side removed would leave none.
	NoAdmin
	// OverLimit: the additions of both sides together exceed what a
	// definition may hold (MaxAdmins, MaxPublishers, MaxRevoked,
	// categories.MaxCategories); the edit's additions are left out.
	OverLimit
)

func (k ConflictKind) String() string {
	switch k {
	case BothChanged:
		return "changed on both sides"
	case KeyRevoked:
		return "revoked on one side"
	case MissingParent:
		return "parent missing"
	case NoAdmin:
		return "no admin left"
	case OverLimit:
		return "over the limit"
	}
	return fmt.Sprintf("ConflictKind(%d)", int(k))
}

// Sides is one entry of a list field (a publisher, a category) as base, the
// edit (Mine) and theirs have it; nil where it is absent.
type Sides[T any] struct{ Base, Mine, Theirs *T }

// Conflict is one part of an edit that Merge did not apply: the merged
// definition has theirs' side of it.
type Conflict struct {
	Field Field
	Kind  ConflictKind
	// Key is the admin, publisher or revoked key in question (Field admins,
	// publishers or revoked).
	Key ed25519.PublicKey
	// Publisher is Key's publisher entry on each side (Field publishers).
	Publisher Sides[Publisher]
	// CategoryID and Category: the category in question and its entry on
	// each side (Field catalog).
	CategoryID string
	Category   Sides[categories.Category]
	// Related is, for MissingParent, the other category of the pair: when
	// the edit has the category (Category.Mine set), the category above it
	// that theirs removed; when the edit removed it, the category theirs
	// has below it. Its entry is the one the sides last agreed on (base's
	// where it has one).
	Related categories.Category
}

// String names the conflict for a log line: "fanout", "publisher
// ed25519:… (revoked on one side)", "category hr/payroll (parent missing)".
func (c Conflict) String() string {
	s := string(c.Field)
	switch c.Field {
	case FieldAdmins:
		s = "admin " + PublicKeyString(c.Key)
	case FieldPublishers:
		s = "publisher " + PublicKeyString(c.Key)
	case FieldRevoked:
		s = "revoked key " + PublicKeyString(c.Key)
	case FieldCatalog:
		if c.CategoryID != "" {
			s = "category " + c.CategoryID
		}
	}
	if c.Kind != BothChanged {
		s += " (" + c.Kind.String() + ")"
	}
	return s
}

// Merge applies an admin's edit, the change from base to mine, onto theirs,
// another version of the same definition, and returns the result numbered
// theirs.Version+1, unsigned, with the parts of the edit it did not apply
// (ordered by field, then by key or ID). The inputs are not modified and
// the result shares no memory with them (but the immutable catalogs).
func Merge(base, mine, theirs *Network) (*Network, []Conflict) {
	out := theirs.Clone()
	out.Version = theirs.Version + 1
	var conflicts []Conflict
	whole := func(f Field, mineSame, theirsSame, agree bool, apply func()) {
		switch {
		case mineSame, agree:
		case theirsSame:
			apply()
		default:
			conflicts = append(conflicts, Conflict{Field: f, Kind: BothChanged})
		}
	}
	whole(FieldName, mine.Name == base.Name, theirs.Name == base.Name, mine.Name == theirs.Name,
		func() { out.Name = mine.Name })
	whole(FieldSeeds, slices.Equal(mine.Seeds, base.Seeds), slices.Equal(theirs.Seeds, base.Seeds), slices.Equal(mine.Seeds, theirs.Seeds),
		func() { out.Seeds = slices.Clone(mine.Seeds) })
	whole(FieldFanout, mine.Fanout == base.Fanout, theirs.Fanout == base.Fanout, mine.Fanout == theirs.Fanout,
		func() { out.Fanout = mine.Fanout })
	whole(FieldLeafCapacity, mine.LeafCapacity == base.LeafCapacity, theirs.LeafCapacity == base.LeafCapacity, mine.LeafCapacity == theirs.LeafCapacity,
		func() { out.LeafCapacity = mine.LeafCapacity })
	whole(FieldPublishLimits, mine.Limits.Equal(base.Limits), theirs.Limits.Equal(base.Limits), mine.Limits.Equal(theirs.Limits),
		func() { out.Limits = mine.Limits.clone() })
	whole(FieldSecret, bytes.Equal(mine.Secret, base.Secret), bytes.Equal(theirs.Secret, base.Secret), bytes.Equal(mine.Secret, theirs.Secret),
		func() { out.Secret = slices.Clone(mine.Secret) })
	whole(FieldOpenPublishing, mine.OpenPublishing == base.OpenPublishing, theirs.OpenPublishing == base.OpenPublishing, mine.OpenPublishing == theirs.OpenPublishing,
		func() { out.OpenPublishing = mine.OpenPublishing })
	whole(FieldAudiences, sameNamedRanges(mine.Audiences, base.Audiences), sameNamedRanges(theirs.Audiences, base.Audiences),
		sameNamedRanges(mine.Audiences, theirs.Audiences), func() { out.Audiences = cloneNamedRanges(mine.Audiences) })

	var cc []Conflict
	out.Catalog, cc = MergeCatalog(base.Catalog, mine.Catalog, theirs.Catalog)
	conflicts = append(conflicts, cc...)

	keyOf := func(k ed25519.PublicKey) string { return string(k) }
	present := func(_, _ ed25519.PublicKey) bool { return true } // a key set: only presence counts
	admins := newTable(keyOf, present, base.Admins, mine.Admins, theirs.Admins)
	revoked := newTable(keyOf, present, base.Revoked, mine.Revoked, theirs.Revoked)
	pubs := newTable(func(p Publisher) string { return string(p.Key) }, samePublisher,
		clonePublishers(base.Publishers), clonePublishers(mine.Publishers), clonePublishers(theirs.Publishers))
	keyConflict := func(f Field, kind ConflictKind, k string) {
		c := Conflict{Field: f, Kind: kind, Key: ed25519.PublicKey(k)}
		if f == FieldPublishers {
			c.Publisher = pubs.sides(k)
		}
		conflicts = append(conflicts, c)
	}
	// In a key set an entry is there or not, so the two sides never
	// change one differently.
	admins.merge()
	revoked.merge()
	for _, k := range pubs.merge() {
		keyConflict(FieldPublishers, BothChanged, k)
	}

	// The rules of the whole definition, restored toward theirs (which
	// keeps them) until none is broken: every step moves an entry back to
	// theirs' state, so this ends, at theirs at the latest.
	overLimit := func(f Field, t interface{ trim(int) []string }, limit int) bool {
		trimmed := t.trim(limit)
		for _, k := range trimmed {
			keyConflict(f, OverLimit, k)
		}
		return len(trimmed) > 0
	}
	noAdmin := func() bool {
		if len(admins.out) > 0 {
			return false
		}
		for _, k := range sortedKeys(admins.theirs) {
			admins.revert(k)
			keyConflict(FieldAdmins, NoAdmin, k)
		}
		return len(admins.theirs) > 0
	}
	revokedIn := func(f Field, t interface{ revert(string) bool }, has func(string) bool) bool {
		changed := false
		for _, k := range sortedKeys(revoked.out) {
			if !has(k) {
				continue
			}
			if t.revert(k) {
				keyConflict(f, KeyRevoked, k)
				changed = true
			}
			if revoked.revert(k) {
				keyConflict(FieldRevoked, KeyRevoked, k)
				changed = true
			}
		}
		return changed
	}
	for {
		changed := overLimit(FieldAdmins, admins, MaxAdmins)
		changed = overLimit(FieldPublishers, pubs, MaxPublishers) || changed
		changed = overLimit(FieldRevoked, revoked, MaxRevoked) || changed
		changed = noAdmin() || changed
		changed = revokedIn(FieldAdmins, admins, admins.has) || changed
		changed = revokedIn(FieldPublishers, pubs, pubs.has) || changed
		if !changed {
			break
		}
	}
	out.Admins = admins.list()
	out.Publishers = pubs.list()
	out.Revoked = revoked.list()
	out.normalize()

	rank := func(c Conflict) int { return slices.Index(fieldOrder, c.Field) }
	slices.SortStableFunc(conflicts, func(a, b Conflict) int { return rank(a) - rank(b) })
	return out, conflicts
}

// MergeCatalog is Merge for the catalog alone, category by category (the ID
// is a category's identity: it cannot be renamed), each conflict keeping
// theirs' side. A nil catalog has no categories. It returns theirs when the
// edit changes nothing in it; otherwise mine when the result is mine's
// categories and mine's version is above theirs; otherwise a catalog
// numbered one above both, so that every servant adopts it, whichever of
// the two it holds. An installation's own catalog (no definition) merges
// with it too.
func MergeCatalog(base, mine, theirs *categories.Catalog) (*categories.Catalog, []Conflict) {
	all := func(c *categories.Catalog) []categories.Category {
		if c == nil {
			return nil
		}
		return c.All()
	}
	version := func(c *categories.Catalog) uint64 {
		if c == nil {
			return 0
		}
		return c.Version()
	}
	t := newTable(func(c categories.Category) string { return c.ID },
		func(a, b categories.Category) bool { return a == b },
		all(base), all(mine), all(theirs))
	var conflicts []Conflict
	conflict := func(kind ConflictKind, id string, related categories.Category) {
		conflicts = append(conflicts, Conflict{Field: FieldCatalog, Kind: kind, CategoryID: id, Category: t.sides(id), Related: related})
	}
	for _, id := range t.merge() {
		conflict(BothChanged, id, categories.Category{})
	}
	// A category whose parent is missing: the parent was removed on one
	// side, the category put under it on the other. Both go back to
	// theirs' state, which puts theirs' parent back or leaves the edit's
	// category out; that can leave a category further down or up without
	// its own parent, or (a parent put back) one category over the limit,
	// so this repeats. cause carries the category a restored or left-out
	// one stands for, which names the conflict.
	cause := map[string]categories.Category{}
	agreed := func(id string) categories.Category {
		s := t.sides(id)
		for _, c := range []*categories.Category{s.Base, s.Theirs, s.Mine} {
			if c != nil {
				return *c
			}
		}
		return categories.Category{ID: id, Name: id}
	}
	missingParent := func() bool {
		child, parent, ok := orphan(t.out)
		if !ok {
			return false
		}
		changed := false
		if t.revert(child) { // the edit's category, left out
			why, ok := cause[parent]
			if !ok {
				why = agreed(parent)
			}
			cause[child] = why
			conflict(MissingParent, child, why)
			changed = true
		}
		if t.revert(parent) { // the parent the edit removed, put back
			why, ok := cause[child]
			if !ok {
				why = t.out[child]
			}
			cause[parent] = why
			conflict(MissingParent, parent, why)
			changed = true
		}
		return changed // false: theirs itself breaks the rule, nothing to restore
	}
	for {
		trimmed := t.trim(categories.MaxCategories)
		for _, id := range trimmed {
			conflict(OverLimit, id, categories.Category{})
		}
		if !missingParent() && len(trimmed) == 0 {
			break
		}
	}
	list := t.list()
	switch {
	case theirs != nil && slices.Equal(list, all(theirs)):
		return theirs, conflicts
	case mine != nil && version(mine) > version(theirs) && slices.Equal(list, all(mine)):
		return mine, conflicts
	}
	merged, err := categories.NewCatalog(max(version(mine), version(theirs))+1, list)
	if err != nil {
		// Categories from valid catalogs with every parent and within the
		// limit: a bug here, not a conflict.
		panic("trust: merged catalog: " + err.Error())
	}
	return merged, conflicts
}

// orphan returns the first category of cats (by ID) whose parent is not
// in cats.
func orphan(cats map[string]categories.Category) (child, parent string, ok bool) {
	for _, id := range sortedKeys(cats) {
		if p, ok := categories.Parent(id); ok {
			if _, has := cats[p]; !has {
				return id, p, true
			}
		}
	}
	return "", "", false
}

// MinePublishers returns merged, a merge's publishers, with the edit's side
// of every publisher conflict put back, sorted by key: what an editor shows
// after a conflict, so that the admin's work stays in front of the admin.
// It may break a rule (a revoked key), which is what the conflict says.
func MinePublishers(merged []Publisher, conflicts []Conflict) []Publisher {
	t := newTable(func(p Publisher) string { return string(p.Key) }, samePublisher, nil, nil, clonePublishers(merged))
	for _, c := range conflicts {
		if c.Field == FieldPublishers {
			t.set(string(c.Key), c.Publisher.Mine)
		}
	}
	return t.list()
}

// MineCategories is MinePublishers for a merge's categories: the edit's side
// of every catalog conflict put back, sorted by ID. It may leave a category
// without its parent, which is what the conflict says.
func MineCategories(merged []categories.Category, conflicts []Conflict) []categories.Category {
	t := newTable(func(c categories.Category) string { return c.ID }, func(a, b categories.Category) bool { return a == b }, nil, nil, merged)
	for _, c := range conflicts {
		if c.Field == FieldCatalog && c.CategoryID != "" {
			t.set(c.CategoryID, c.Category.Mine)
		}
	}
	return t.list()
}

func samePublisher(a, b Publisher) bool {
	return a.Name == b.Name && bytes.Equal(a.Key, b.Key) && slices.Equal(a.Categories, b.Categories)
}

func clonePublishers(ps []Publisher) []Publisher {
	out := make([]Publisher, len(ps))
	for i, p := range ps {
		out[i] = Publisher{Name: p.Name, Key: slices.Clone(p.Key), Categories: slices.Clone(p.Categories)}
	}
	return out
}

// table is the three-way merge of one list field whose entries have a key:
// the three sides by key, and out, theirs with the edit applied.
type table[T any] struct {
	same                    func(a, b T) bool
	base, mine, theirs, out map[string]T
}

func newTable[T any](key func(T) string, same func(a, b T) bool, base, mine, theirs []T) *table[T] {
	index := func(list []T) map[string]T {
		m := make(map[string]T, len(list))
		for _, x := range list {
			m[key(x)] = x
		}
		return m
	}
	return &table[T]{same: same, base: index(base), mine: index(mine), theirs: index(theirs), out: index(theirs)}
}

// merge applies the edit to out entry by entry and returns the keys both
// sides changed differently, sorted; out keeps theirs' entry for those.
func (t *table[T]) merge() []string {
	var touched []string // only entries the edit changed can differ from theirs
	for k, b := range t.base {
		if m, ok := t.mine[k]; !ok || !t.same(b, m) {
			touched = append(touched, k)
		}
	}
	for k := range t.mine {
		if _, ok := t.base[k]; !ok {
			touched = append(touched, k)
		}
	}
	slices.Sort(touched)
	var both []string
	for _, k := range touched {
		b, m, th := lookup(t.base, k), lookup(t.mine, k), lookup(t.theirs, k)
		if !t.equal(b, th) && !t.equal(m, th) {
			both = append(both, k)
			continue
		}
		t.set(k, m)
	}
	return both
}

func lookup[T any](m map[string]T, k string) *T {
	if v, ok := m[k]; ok {
		return &v
	}
	return nil
}

func (t *table[T]) equal(x, y *T) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return t.same(*x, *y)
}

// set makes out's entry k v, or removes it for nil.
func (t *table[T]) set(k string, v *T) {
	if v == nil {
		delete(t.out, k)
	} else {
		t.out[k] = *v
	}
}

func (t *table[T]) has(k string) bool {
	_, ok := t.out[k]
	return ok
}

func (t *table[T]) sides(k string) Sides[T] {
	return Sides[T]{Base: lookup(t.base, k), Mine: lookup(t.mine, k), Theirs: lookup(t.theirs, k)}
}

// revert puts theirs' entry k back into out and reports whether that
// changed out.
func (t *table[T]) revert(k string) bool {
	th := lookup(t.theirs, k)
	if t.equal(lookup(t.out, k), th) {
		return false
	}
	t.set(k, th)
	return true
}

// trim leaves out the edit's additions when out holds more than limit
// entries, and returns their keys, sorted. Theirs holds at most limit, so
// what is left does too.
func (t *table[T]) trim(limit int) []string {
	if len(t.out) <= limit {
		return nil
	}
	var added []string
	for _, k := range sortedKeys(t.out) {
		if _, ok := t.theirs[k]; !ok {
			t.set(k, nil)
			added = append(added, k)
		}
	}
	return added
}

// list returns out's entries sorted by key.
func (t *table[T]) list() []T {
	out := make([]T, 0, len(t.out))
	for _, k := range sortedKeys(t.out) {
		out = append(out, t.out[k])
	}
	return out
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
