package ui

import (
	"bytes"
	"errors"
	"fmt"
	"fyne.io/fyne/v2/lang"
	"maps"
	"slices"
	"strings"

	"newsdesk/categories"
	"newsdesk/trust"
)

// The admin editors work on a copy of the network definition while other
// admins may publish new versions of it. Saving therefore does not write the
// working copy over whatever is held by then: it takes the admin's edit as
// the change from the version the editor was loaded from (the base) to the
// working copy, and applies that change to the version held at save time
// with trust.Merge (trust.MergeCatalog for the catalog), the merge the
// servants use for rival definitions too. A conflict publishes nothing: the
// editor shows the version held with the admin's side of every conflict on
// top (trust.MinePublishers, trust.MineCategories). The functions here
// apply an editor's edit that way and word the conflicts, free of Fyne so
// that they can be tested as plain tables.

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
	return fmt.Sprintf(lang.L("The editor now shows %s with your changes on top: save again to publish your version, or revert to drop your changes."), version)
}

// mergedNote is added to an outcome when the edit was applied onto a
// version other than the one the editor was loaded from; onto names it
// ("version 7").
func mergedNote(onto string) string {
	return " " + fmt.Sprintf(lang.L("Your changes were merged onto %s, which another admin published while you were editing."), onto)
}

// mergePublishersEdit applies the admin's change to the publishers, from
// base's to mine, onto cur, the definition held now. It returns the next
// definition to publish (numbered cur.Version+1), or, on a conflict, nil,
// the list the editor shows (cur's, with the admin's side of every
// conflict on top) and the problems. cat names categories in them.
func mergePublishersEdit(base *trust.Network, mine []trust.Publisher, cur *trust.SignedNetwork, cat *categories.Catalog) (*trust.Network, []trust.Publisher, []string) {
	edit := base.Clone()
	edit.Publishers = mine
	next, conflicts := trust.Merge(base, edit, &cur.Network)
	if len(conflicts) > 0 {
		words := conflictWords{when: fmt.Sprintf(lang.L("in version %d"), cur.Version), mine: edit, theirs: &cur.Network, cat: cat}
		return nil, trust.MinePublishers(next.Publishers, conflicts), words.problems(conflicts)
	}
	return next, next.Publishers, nil
}

// mergeSeedsEdit applies the admin's seed list, edited from base's, onto
// cur: the next definition, or nil and the problem. The list merges as a
// whole (its order is its meaning), so on a conflict the editor keeps
// showing the admin's list.
func mergeSeedsEdit(base *trust.Network, seeds []string, cur *trust.SignedNetwork) (*trust.Network, []string) {
	edit := base.Clone()
	edit.Seeds = seeds
	next, conflicts := trust.Merge(base, edit, &cur.Network)
	if len(conflicts) > 0 {
		words := conflictWords{when: fmt.Sprintf(lang.L("in version %d"), cur.Version), mine: edit, theirs: &cur.Network}
		return nil, words.problems(conflicts)
	}
	return next, nil
}

// mergeLimitsEdit applies the admin's publishing limits, edited from
// base's, onto cur: the next definition, or nil and the problem. The
// limits merge as one field (trust.Merge), so on a conflict the editor
// keeps showing the admin's limits. cat names categories in the problem.
func mergeLimitsEdit(base *trust.Network, limits trust.PublishLimits, cur *trust.SignedNetwork, cat *categories.Catalog) (*trust.Network, []string) {
	edit := base.Clone()
	edit.Limits = limits
	next, conflicts := trust.Merge(base, edit, &cur.Network)
	if len(conflicts) > 0 {
		words := conflictWords{when: fmt.Sprintf(lang.L("in version %d"), cur.Version), base: base, mine: edit, theirs: &cur.Network, cat: cat}
		return nil, words.problems(conflicts)
	}
	return next, nil
}

// mergeCatalogEdit applies the admin's catalog, edited from base, onto
// held, the catalog held now (nil for none); when says where held comes
// from ("in version 7"). It returns the merged categories, which the
// caller numbers, or, on a conflict, the categories the editor shows
// (held's, with the admin's side of every conflict on top) and the
// problems.
func mergeCatalogEdit(base, mine, held *categories.Catalog, when string) ([]categories.Category, []string) {
	merged, conflicts := trust.MergeCatalog(base, mine, held)
	if len(conflicts) > 0 {
		return trust.MineCategories(merged.All(), conflicts), conflictWords{when: when}.problems(conflicts)
	}
	return merged.All(), nil
}

func samePublisher(a, b trust.Publisher) bool {
	return a.Name == b.Name && bytes.Equal(a.Key, b.Key) && slices.Equal(a.Categories, b.Categories)
}

func samePublishers(a, b []trust.Publisher) bool { return slices.EqualFunc(a, b, samePublisher) }

// conflictWords words the conflicts of a merge for the admin.
type conflictWords struct {
	when         string              // where theirs comes from: "in version 7"
	mine, theirs *trust.Network      // the two sides, for whole fields (the seed list); nil for a catalog alone
	base         *trust.Network      // what both changed, for the limits; nil where no sentence needs it
	cat          *categories.Catalog // names categories in publishers' limits
}

// problems returns one sentence per conflict, in the merge's order. A
// missing parent that follows from a category both admins changed (the
// other admin renamed a category whose parent you removed with it, or
// removed a parent you renamed under your new category) is said by the
// sentence about that category.
func (w conflictWords) problems(conflicts []trust.Conflict) []string {
	both := map[string]bool{}
	for _, c := range conflicts {
		if c.Field == trust.FieldCatalog && c.Kind == trust.BothChanged {
			both[c.CategoryID] = true
		}
	}
	out := make([]string, 0, len(conflicts))
	for _, c := range conflicts {
		if c.Kind == trust.MissingParent && both[c.Related.ID] {
			continue
		}
		out = append(out, w.sentence(c))
	}
	return out
}

func (w conflictWords) sentence(c trust.Conflict) string {
	switch c.Field {
	case trust.FieldPublishers:
		return w.publisher(c)
	case trust.FieldCatalog:
		return w.category(c)
	case trust.FieldSeeds:
		if w.mine != nil && w.theirs != nil {
			return seedConflict(w.theirs.Seeds, w.mine.Seeds, w.when)
		}
	case trust.FieldPublishLimits:
		if w.base != nil && w.mine != nil && w.theirs != nil {
			return limitsConflict(w.base.Limits, w.theirs.Limits, w.mine.Limits, w.when, w.cat)
		}
	case trust.FieldAdmins:
		key := trust.PublicKeyString(c.Key)
		switch c.Kind {
		case trust.KeyRevoked:
			return fmt.Sprintf(lang.L("Another admin revoked the key %s %s, which you made an admin."), key, w.when)
		case trust.NoAdmin:
			return fmt.Sprintf(lang.L("Another admin removed admins %s: with the ones you removed, the network would have none left."), w.when)
		case trust.OverLimit:
			return fmt.Sprintf(lang.L("With the admins another admin added %s, the network would have more than %d: your admin %s cannot be added."), w.when, trust.MaxAdmins, key)
		}
	case trust.FieldRevoked:
		if c.Kind == trust.KeyRevoked {
			return fmt.Sprintf(lang.L("Another admin made the key %s an admin or publisher %s, while you revoked it."), trust.PublicKeyString(c.Key), w.when)
		}
	}
	return fmt.Sprintf(lang.L("Another admin also changed the %s %s."), c.Field, w.when)
}

func (w conflictWords) publisher(c trust.Conflict) string {
	s := c.Publisher
	name := func(p *trust.Publisher) string { return "“" + p.Name + "”" }
	describe := func(p *trust.Publisher) string {
		return fmt.Sprintf("“%s”, %s", p.Name, categoryList(w.cat, p.Categories))
	}
	switch {
	case c.Kind == trust.KeyRevoked && s.Mine != nil:
		return fmt.Sprintf(lang.L("Another admin revoked the key of publisher %s %s, so it cannot publish."), name(s.Mine), w.when)
	case c.Kind == trust.OverLimit && s.Mine != nil:
		return fmt.Sprintf(lang.L("With the publishers another admin added %s, the network would have more than %d: publisher %s cannot be added."), w.when, trust.MaxPublishers, name(s.Mine))
	case s.Base == nil && s.Mine != nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin also added the key of %s %s, as %s."), name(s.Mine), w.when, describe(s.Theirs))
	case s.Base != nil && s.Theirs == nil && s.Mine != nil:
		return fmt.Sprintf(lang.L("Another admin removed publisher %s %s, while you changed it to %s."), name(s.Base), w.when, describe(s.Mine))
	case s.Base != nil && s.Mine == nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin changed publisher %s %s to %s, while you removed it."), name(s.Base), w.when, describe(s.Theirs))
	case s.Base != nil && s.Mine != nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin changed publisher %s %s to %s, while you changed it to %s."), name(s.Base), w.when, describe(s.Theirs), describe(s.Mine))
	}
	return fmt.Sprintf(lang.L("Another admin also changed publisher %s %s."), trust.PublicKeyString(c.Key), w.when)
}

func (w conflictWords) category(c trust.Conflict) string {
	s := c.Category
	describe := func(c *categories.Category) string {
		out := "“" + c.Name + "”"
		if c.Description != "" {
			out = fmt.Sprintf("“%s” (“%s”)", c.Name, c.Description)
		}
		// Titles are part of the category: two edits that differ in
		// them alone show where.
		var titles []string
		for _, t := range c.Titles.All() {
			titles = append(titles, t.Lang+" “"+t.Text+"”")
		}
		if len(titles) > 0 {
			out += " [" + strings.Join(titles, ", ") + "]"
		}
		return out
	}
	switch {
	case c.Kind == trust.MissingParent && s.Mine != nil:
		if p, _ := categories.Parent(c.CategoryID); p == c.Related.ID {
			return fmt.Sprintf(lang.L("Another admin removed category %s %s, which your category %s needs as its parent."), categoryLabel(c.Related), w.when, categoryLabel(*s.Mine))
		}
		return fmt.Sprintf(lang.L("Another admin removed category %s %s, which your category %s is under."), categoryLabel(c.Related), w.when, categoryLabel(*s.Mine))
	case c.Kind == trust.MissingParent:
		removed := categories.Category{ID: c.CategoryID}
		if s.Base != nil {
			removed = *s.Base
		}
		return fmt.Sprintf(lang.L("Another admin added category %s %s, under %s, which you removed."), categoryLabel(c.Related), w.when, categoryLabel(removed))
	case c.Kind == trust.OverLimit && s.Mine != nil:
		return fmt.Sprintf(lang.L("With the categories another admin added %s, the catalog would hold more than %d: category %s cannot be added."), w.when, categories.MaxCategories, categoryLabel(*s.Mine))
	case s.Base == nil && s.Mine != nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin also added category %s %s, as %s."), categoryLabel(*s.Mine), w.when, describe(s.Theirs))
	case s.Base != nil && s.Theirs == nil && s.Mine != nil:
		return fmt.Sprintf(lang.L("Another admin removed category %s %s, while you changed it to %s."), categoryLabel(*s.Base), w.when, describe(s.Mine))
	case s.Base != nil && s.Mine == nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin changed category %s %s to %s, while you removed it."), categoryLabel(*s.Base), w.when, describe(s.Theirs))
	case s.Base != nil && s.Mine != nil && s.Theirs != nil:
		return fmt.Sprintf(lang.L("Another admin changed category %s %s to %s, while you changed it to %s."), categoryLabel(*s.Base), w.when, describe(s.Theirs), describe(s.Mine))
	}
	return fmt.Sprintf(lang.L("Another admin also changed category “%s” %s."), c.CategoryID, w.when)
}

// categoryList names a publisher's categories for a sentence.
func categoryList(cat *categories.Catalog, ids []string) string {
	if len(ids) == 0 {
		return lang.L("all categories")
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = categoryName(cat, id)
	}
	return strings.Join(names, ", ")
}

// seedConflict names a seed-list conflict.
func seedConflict(theirs, mine []string, when string) string {
	list := func(s []string) string {
		if len(s) == 0 {
			return lang.L("an empty list")
		}
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf(lang.L("Another admin changed the seed list %s to %s, while you changed it to %s."), when, list(theirs), list(mine))
}

// limitsConflict names a conflict of the publishing limits by what each
// side changed from base.
func limitsConflict(base, theirs, mine trust.PublishLimits, when string, cat *categories.Catalog) string {
	return fmt.Sprintf(lang.L("Another admin changed the publishing limits %s (%s), while you changed them (%s)."),
		when, strings.Join(limitChanges(base, theirs, cat), "; "), strings.Join(limitChanges(base, mine, cat), "; "))
}

// limitChanges names the limits that to sets differently from from, each
// with its value in to: "Items per hour: 60", "Attachments per item in
// “Alerts”: no attachments".
func limitChanges(from, to trust.PublishLimits, cat *categories.Catalog) []string {
	var out []string
	for _, k := range formLimits {
		a, b := limitOf(from, k), limitOf(to, k)
		if a != b {
			out = append(out, limitName(k)+": "+limitSettingText(k, b))
		}
	}
	ids := slices.Sorted(maps.Keys(from.CategoryItemBytes))
	ids = append(ids, slices.Collect(maps.Keys(from.CategoryAttachmentBytes))...)
	ids = append(ids, slices.Collect(maps.Keys(to.CategoryItemBytes))...)
	ids = append(ids, slices.Collect(maps.Keys(to.CategoryAttachmentBytes))...)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		in := func(k trust.Limit, n int64) string {
			v := lang.L("as for every category")
			if n != 0 {
				v = limitSettingText(k, n)
			}
			return fmt.Sprintf(lang.L("%s in “%s”: %s"), limitName(k), categoryName(cat, id), v)
		}
		if a, b := from.CategoryItemBytes[id], to.CategoryItemBytes[id]; a != b {
			out = append(out, in(trust.LimitItemBytes, int64(b)))
		}
		if a, b := from.CategoryAttachmentBytes[id], to.CategoryAttachmentBytes[id]; a != b {
			out = append(out, in(trust.LimitAttachmentBytes, b))
		}
	}
	return out
}

func categoryLabel(c categories.Category) string {
	if c.Name == "" || c.Name == c.ID {
		return "“" + c.ID + "”"
	}
	return fmt.Sprintf("“%s” (%s)", c.Name, c.ID)
}
