package ui

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"newsdesk/categories"
	"newsdesk/trust"
)

// The admin editors work on a copy of the network definition while other
// admins may publish new versions of it. Saving therefore does not write the
// working copy over whatever is held by then: it takes the admin's edit as
// the change from the version the editor was loaded from (the base) to the
// working copy, and applies that change to the version held at save time.
// The functions here are that three-way merge, free of Fyne so that they
// can be tested as plain tables.

// editConflict reports an edit that collides with what another admin
// published since the editor was loaded; nothing was published.
type editConflict struct {
	problems []string // one sentence each, naming what collides
}

func (e *editConflict) Error() string { return strings.Join(e.problems, " ") }

// errUpToDate: the definition held already says everything the edit says,
// so a new version would change nothing.
var errUpToDate = errors.New("the network definition already holds these changes")

// conflictAdvice ends a conflict message. The editor has been moved onto
// the version held, with the admin's changes kept on top, so both ways out
// are one button away and neither admin's work is dropped unseen: the other
// admin's is published and named in the message, the admin's own is still
// in the editor. version names what the editor now shows ("version 7").
func conflictAdvice(version string) string {
	return "The editor now shows " + version + " with your changes on top: save again to publish your version, or revert to drop your changes."
}

// mergedNote is added to an outcome when the edit was applied onto a
// version other than the one the editor was loaded from; onto names it
// ("version 7").
func mergedNote(onto string) string {
	return " Your changes were merged onto " + onto + ", which another admin published while you were editing."
}

// keyedConflict is one entry changed on both sides in different ways. A nil
// pointer means the entry is absent on that side.
type keyedConflict[T any] struct {
	base, mine, theirs *T
}

// mergeKeyed applies the change from base to mine onto theirs, one entry at
// a time, entries being matched by key. An entry changed (added, removed,
// edited) on one side only takes that side; one changed the same way on
// both is fine; one changed differently on both is a conflict. The result
// keeps the admin's version of every conflicting entry: it is what the
// editor shows after a conflict, never what gets published as is. It is
// sorted with compare.
func mergeKeyed[T any](base, mine, theirs []T, key func(T) string, same func(a, b T) bool, compare func(a, b T) int) ([]T, []keyedConflict[T]) {
	index := func(list []T) map[string]T {
		m := make(map[string]T, len(list))
		for _, x := range list {
			m[key(x)] = x
		}
		return m
	}
	baseBy, mineBy, theirsBy := index(base), index(mine), index(theirs)
	merged := index(theirs)
	var conflicts []keyedConflict[T]
	// Only keys the admin touched can differ from theirs; visit them in a
	// fixed order so that conflicts are reported in the list's order.
	var touched []T
	for _, b := range base {
		if m, ok := mineBy[key(b)]; !ok || !same(b, m) {
			touched = append(touched, b)
		}
	}
	for _, m := range mine {
		if _, ok := baseBy[key(m)]; !ok {
			touched = append(touched, m)
		}
	}
	slices.SortFunc(touched, compare)
	for _, x := range touched {
		k := key(x)
		b, inBase := baseBy[k]
		m, inMine := mineBy[k]
		t, inTheirs := theirsBy[k]
		var theirsChanged bool
		switch {
		case inBase != inTheirs:
			theirsChanged = true
		case inBase:
			theirsChanged = !same(b, t)
		}
		agree := inMine == inTheirs && (!inMine || same(m, t))
		if theirsChanged && !agree {
			c := keyedConflict[T]{}
			if inBase {
				c.base = &b
			}
			if inMine {
				c.mine = &m
			}
			if inTheirs {
				c.theirs = &t
			}
			conflicts = append(conflicts, c)
		}
		if inMine {
			merged[k] = m
		} else {
			delete(merged, k)
		}
	}
	out := make([]T, 0, len(merged))
	for _, x := range merged {
		out = append(out, x)
	}
	slices.SortFunc(out, compare)
	return out, conflicts
}

func samePublisher(a, b trust.Publisher) bool {
	return a.Name == b.Name && bytes.Equal(a.Key, b.Key) && slices.Equal(a.Categories, b.Categories)
}

func samePublishers(a, b []trust.Publisher) bool { return slices.EqualFunc(a, b, samePublisher) }

// mergePublishers applies the change from base to mine (publisher lists of
// the editor's base and working copy) onto cur, the definition held now.
// It returns the list to publish, or the one to show with the problems when
// it conflicts. cat names categories in the problems.
func mergePublishers(base, mine []trust.Publisher, cur *trust.SignedNetwork, cat *categories.Catalog) ([]trust.Publisher, []string) {
	merged, conflicts := mergeKeyed(base, mine, cur.Publishers,
		func(p trust.Publisher) string { return string(p.Key) },
		samePublisher,
		func(a, b trust.Publisher) int { return bytes.Compare(a.Key, b.Key) })
	var problems []string
	conflicted := make(map[string]bool, len(conflicts))
	for _, c := range conflicts {
		problems = append(problems, publisherConflict(c, cur.Version, cat))
		if c.mine != nil {
			conflicted[string(c.mine.Key)] = true
		}
	}
	// A key revoked meanwhile cannot be a publisher (the definition would
	// not validate): the admin has to learn that, not to see a signing error.
	for _, p := range merged {
		if cur.IsRevoked(p.Key) && !conflicted[string(p.Key)] {
			problems = append(problems, fmt.Sprintf("Another admin revoked the key of publisher “%s” in version %d, so it cannot publish.", p.Name, cur.Version))
		}
	}
	return merged, problems
}

func publisherConflict(c keyedConflict[trust.Publisher], version uint64, cat *categories.Catalog) string {
	name := func(p *trust.Publisher) string { return "“" + p.Name + "”" }
	describe := func(p *trust.Publisher) string {
		return fmt.Sprintf("“%s”, %s", p.Name, categoryList(cat, p.Categories))
	}
	switch {
	case c.base == nil:
		return fmt.Sprintf("Another admin also added the key of %s in version %d, as %s.", name(c.mine), version, describe(c.theirs))
	case c.theirs == nil:
		return fmt.Sprintf("Another admin removed publisher %s in version %d, while you changed it to %s.", name(c.base), version, describe(c.mine))
	case c.mine == nil:
		return fmt.Sprintf("Another admin changed publisher %s in version %d to %s, while you removed it.", name(c.base), version, describe(c.theirs))
	default:
		return fmt.Sprintf("Another admin changed publisher %s in version %d to %s, while you changed it to %s.", name(c.base), version, describe(c.theirs), describe(c.mine))
	}
}

// categoryList names a publisher's categories for a sentence.
func categoryList(cat *categories.Catalog, ids []string) string {
	if len(ids) == 0 {
		return "all categories"
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = categoryName(cat, id)
	}
	return strings.Join(names, ", ")
}

// mergeSeeds applies the change from base to mine onto theirs. The seed
// list is a priority order, and its order is its meaning: the first
// reachable seed becomes the root of the whole network. When both admins
// changed it differently, any interleaving of the two orders would be an
// order neither of them chose, so the merge does not guess: it reports a
// conflict and returns mine for the editor to show.
func mergeSeeds(base, mine, theirs []string) (merged []string, conflict bool) {
	switch {
	case slices.Equal(mine, base):
		return slices.Clone(theirs), false
	case slices.Equal(theirs, base), slices.Equal(theirs, mine):
		return slices.Clone(mine), false
	}
	return slices.Clone(mine), true
}

// seedConflict names a seed-list conflict.
func seedConflict(theirs, mine []string, version uint64) string {
	list := func(s []string) string {
		if len(s) == 0 {
			return "an empty list"
		}
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("Another admin changed the seed list in version %d to %s, while you changed it to %s.", version, list(theirs), list(mine))
}

// mergeCategories applies the change from base to mine (the catalog the
// editor was loaded from and its working copy) onto theirs, the catalog
// held now, category by category (the ID is a category's identity: it
// cannot be renamed). when says where theirs comes from, for the problems
// ("in version 7"). Besides categories changed on both sides, a category
// left without its parent (one side removed a parent the other gave a new
// child) is a conflict: the catalog is a tree.
func mergeCategories(base, mine []categories.Category, theirs *categories.Catalog, when string) ([]categories.Category, []string) {
	var theirsAll []categories.Category
	if theirs != nil {
		theirsAll = theirs.All()
	}
	merged, conflicts := mergeKeyed(base, mine, theirsAll,
		func(c categories.Category) string { return c.ID },
		func(a, b categories.Category) bool { return a == b },
		func(a, b categories.Category) int { return strings.Compare(a.ID, b.ID) })
	var problems []string
	for _, c := range conflicts {
		problems = append(problems, categoryConflict(c, when))
	}
	byID := func(list []categories.Category) map[string]categories.Category {
		m := make(map[string]categories.Category, len(list))
		for _, c := range list {
			m[c.ID] = c
		}
		return m
	}
	mergedByID, baseByID, mineByID := byID(merged), byID(base), byID(mine)
	for _, c := range merged {
		parent, ok := categories.Parent(c.ID)
		if !ok {
			continue
		}
		if _, ok := mergedByID[parent]; ok {
			continue
		}
		p, ok := baseByID[parent]
		if !ok {
			p = categories.Category{ID: parent}
		}
		if _, mineHas := mineByID[c.ID]; mineHas {
			problems = append(problems, fmt.Sprintf("Another admin removed category %s %s, which your category %s needs as its parent.", categoryLabel(p), when, categoryLabel(c)))
		} else {
			problems = append(problems, fmt.Sprintf("Another admin added category %s %s, under %s, which you removed.", categoryLabel(c), when, categoryLabel(p)))
		}
	}
	return merged, problems
}

func categoryLabel(c categories.Category) string {
	if c.Name == "" || c.Name == c.ID {
		return "“" + c.ID + "”"
	}
	return fmt.Sprintf("“%s” (%s)", c.Name, c.ID)
}

func categoryConflict(c keyedConflict[categories.Category], when string) string {
	describe := func(c *categories.Category) string {
		if c.Description == "" {
			return "“" + c.Name + "”"
		}
		return fmt.Sprintf("“%s” (“%s”)", c.Name, c.Description)
	}
	switch {
	case c.base == nil:
		return fmt.Sprintf("Another admin also added category %s %s, as %s.", categoryLabel(*c.mine), when, describe(c.theirs))
	case c.theirs == nil:
		return fmt.Sprintf("Another admin removed category %s %s, while you changed it to %s.", categoryLabel(*c.base), when, describe(c.mine))
	case c.mine == nil:
		return fmt.Sprintf("Another admin changed category %s %s to %s, while you removed it.", categoryLabel(*c.base), when, describe(c.theirs))
	default:
		return fmt.Sprintf("Another admin changed category %s %s to %s, while you changed it to %s.", categoryLabel(*c.base), when, describe(c.theirs), describe(c.mine))
	}
}
