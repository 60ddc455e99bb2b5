package ui

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/trust"
)

// limitsEditor shows the network's publishing limits
// (trust.PublishLimits): items and bytes per hour and at once per
// publisher key, the largest item, and the attachments an item and a key
// per hour may carry, for every category and per category. An admin
// edits them in a form checked as it is typed (trust.CheckLimit) and
// saves them as the next version of the definition, signed with this
// installation's key and merged onto whatever version other admins
// published meanwhile (publishEdit, mergeLimitsEdit: the limits merge as
// one field, so a change of theirs is a conflict the admin decides).
// A publisher that is no admin sees them read-only, in the Newsroom: they
// are what its items are held to. (Before this editor, only the control
// API, PUT /v1/limits, and `network init` set them.)
type limitsEditor struct {
	u      *UI
	base   *trust.SignedNetwork // the version the form was loaded from
	latest *trust.SignedNetwork // the version held now; base unless edits are pending
	admin  bool                 // the form is editable
	busy   bool                 // a save is under way
	// filling: the form is being set from a definition, and its change
	// callbacks are not edits.
	filling bool

	fields  []*limitField // every limit of every category, in the form's order
	attNone *widget.Check // no attachments in any category
	rows    []*limitCategoryRow
	rowBox  *fyne.Container
	catIDs  []string // the catalog's categories, offered to the rows
	catOpts []string // their names, parallel

	addRow, save, revert, reset *widget.Button
	buttons                     fyne.CanvasObject // hidden for a non-admin
	heading, readOnly           *widget.Label
	problem, note               *widget.Label
	content                     fyne.CanvasObject
}

func newLimitsEditor(u *UI) *limitsEditor {
	e := &limitsEditor{u: u}
	for _, k := range formLimits {
		e.fields = append(e.fields, newLimitField(k, e.changed))
	}
	e.attNone = widget.NewCheck(lang.L("No attachments in any category"), func(on bool) {
		e.field(trust.LimitAttachmentBytes).entry.Disable()
		if !on && e.admin {
			e.field(trust.LimitAttachmentBytes).entry.Enable()
		}
		e.changed()
	})
	e.rowBox = container.NewVBox()
	e.addRow = widget.NewButtonWithIcon(lang.L("Add a category"), theme.ContentAddIcon(), func() {
		e.newRow()
		e.changed()
	})
	e.save = widget.NewButtonWithIcon(lang.L("Sign and publish"), theme.DocumentSaveIcon(), e.doSave)
	e.save.Importance = widget.HighImportance
	e.revert = widget.NewButtonWithIcon(lang.L("Revert"), theme.ContentUndoIcon(), func() { e.setWorking(e.latest) })
	e.reset = widget.NewButtonWithIcon(lang.L("Reset to defaults"), theme.HistoryIcon(), e.resetToDefaults)
	e.heading = wrappedLabel("", widget.MediumImportance)
	e.readOnly = wrappedLabel(lang.L("Only an admin of the network can change the limits."), widget.WarningImportance)
	e.problem = wrappedLabel("", widget.DangerImportance)
	e.note = wrappedLabel("", widget.MediumImportance)

	intro := wrappedLabel(lang.L("Publishing limits bound what one publisher key may put into the network, so that one key, or a stolen one, cannot fill every member's disk. Compose and the control API check them before publishing, and every computer holds other publishers to them. A field left empty takes its default. Saving signs a new version of the network definition and sends it to every computer."), widget.MediumImportance)
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	e.field(trust.LimitAttachmentBytes).withBeside(e.attNone)
	// One form for both sections, so that their entries line up.
	form := container.New(layout.NewFormLayout())
	section := func(title string, ks ...trust.Limit) {
		if len(form.Objects) > 0 {
			form.Add(widget.NewSeparator())
			form.Add(widget.NewSeparator())
		}
		form.Add(bold(title))
		form.Add(layout.NewSpacer())
		for _, k := range ks {
			form.Add(widget.NewLabel(limitName(k)))
			form.Add(e.field(k).obj)
		}
	}
	section(lang.L("Items"), trust.LimitItemsPerHour, trust.LimitBurstItems, trust.LimitBytesPerHour, trust.LimitBurstBytes, trust.LimitItemBytes)
	section(lang.L("Attachments"), trust.LimitAttachmentBytes, trust.LimitAttachmentBytesPerHour)
	catHint := wrappedLabel(lang.L("A category's own limits cover its subcategories; the most specific category wins. Leave a field empty to use the limit for every category."), widget.LowImportance)
	e.buttons = container.NewBorder(nil, nil, container.NewHBox(e.save, e.revert, e.reset), nil, e.note)
	body := container.NewVBox(
		intro, e.heading, e.readOnly, form, widget.NewSeparator(),
		bold(lang.L("Per category")), catHint,
		limitCategoryHeading(), e.rowBox, container.NewHBox(e.addRow),
	)
	bottom := container.NewVBox(widget.NewSeparator(), e.problem, e.buttons)
	e.content = container.NewPadded(container.NewBorder(nil, bottom, nil, nil, container.NewVScroll(body)))
	e.setEditable(false)
	return e
}

// field returns the field of limit k.
func (e *limitsEditor) field(k trust.Limit) *limitField {
	for _, f := range e.fields {
		if f.limit == k {
			return f
		}
	}
	panic(fmt.Sprintf("limits editor: no field for %s", k))
}

// setRoles takes the definition held and whether this installation may
// change it. Unsaved edits are kept, with the version they were made on,
// which saving needs to tell the admin's change from other admins'; an
// installation that stops being an admin drops them.
func (e *limitsEditor) setRoles(r roles) {
	e.setCategories()
	admin := r.trusted && r.admin
	if admin != e.admin {
		e.setEditable(admin)
		if !admin {
			e.setWorking(r.network)
			return
		}
	}
	if r.network == nil {
		return
	}
	if e.base != nil && e.dirty() {
		e.latest = r.network
		e.showHeading()
		e.updateButtons()
		return
	}
	e.setWorking(r.network)
}

// setCategories offers the catalog's categories to the rows, by name.
func (e *limitsEditor) setCategories() {
	cat := e.u.catalog
	e.catIDs = slices.Clone(cat.IDs())
	e.catOpts = make([]string, len(e.catIDs))
	for i, id := range e.catIDs {
		e.catOpts[i] = categoryName(cat, id)
	}
	was := e.filling
	e.filling = true
	for _, r := range e.rows {
		r.setOptions(e.catIDs, e.catOpts)
	}
	e.filling = was
}

// setEditable makes the form an admin's, or read-only.
func (e *limitsEditor) setEditable(on bool) {
	e.admin = on
	for _, f := range e.fields {
		if on && !(f.limit == trust.LimitAttachmentBytes && e.attNone.Checked) {
			f.entry.Enable()
		} else {
			f.entry.Disable()
		}
	}
	for _, r := range e.rows {
		r.setEditable(on)
	}
	if on {
		e.attNone.Enable()
		e.addRow.Show()
		e.buttons.Show()
		e.readOnly.Hide()
	} else {
		e.attNone.Disable()
		e.addRow.Hide()
		e.buttons.Hide()
		e.readOnly.Show()
	}
	e.updateButtons()
}

// setWorking shows the limits of sn and makes it the version edits are
// made on.
func (e *limitsEditor) setWorking(sn *trust.SignedNetwork) {
	e.base, e.latest = sn, sn
	var l trust.PublishLimits
	if sn != nil {
		l = sn.Limits
	}
	e.fill(l)
	e.problem.SetText("")
	e.showHeading()
	e.updateButtons()
}

// fill shows l in the form.
func (e *limitsEditor) fill(l trust.PublishLimits) {
	e.filling = true
	defer func() { e.filling = false }()
	for _, f := range e.fields {
		f.set(limitOf(l, f.limit))
		showProblem(f.problem, "")
	}
	e.attNone.SetChecked(l.AttachmentBytes == trust.NoAttachments)
	e.rows = nil
	e.rowBox.RemoveAll()
	ids := slices.Sorted(maps.Keys(l.CategoryItemBytes))
	for id := range l.CategoryAttachmentBytes {
		if _, ok := l.CategoryItemBytes[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		e.newRow().set(id, l.CategoryItemBytes[id], l.CategoryAttachmentBytes[id])
	}
	e.rowBox.Refresh()
}

// limitOf is limit k of every category as l sets it: 0 for the default,
// trust.NoAttachments for none.
func limitOf(l trust.PublishLimits, k trust.Limit) int64 {
	switch k {
	case trust.LimitItemsPerHour:
		return int64(l.ItemsPerHour)
	case trust.LimitBurstItems:
		return int64(l.BurstItems)
	case trust.LimitBytesPerHour:
		return l.BytesPerHour
	case trust.LimitBurstBytes:
		return l.BurstBytes
	case trust.LimitItemBytes:
		return int64(l.ItemBytes)
	case trust.LimitAttachmentBytes:
		return l.AttachmentBytes // trust.NoAttachments included
	case trust.LimitAttachmentBytesPerHour:
		return l.AttachmentBytesPerHour
	}
	return 0
}

// newRow adds an empty category row.
func (e *limitsEditor) newRow() *limitCategoryRow {
	r := newLimitCategoryRow(e.changed, e.removeRow)
	r.setOptions(e.catIDs, e.catOpts)
	r.setEditable(e.admin)
	e.rows = append(e.rows, r)
	e.rowBox.Add(r.obj)
	return r
}

func (e *limitsEditor) removeRow(r *limitCategoryRow) {
	e.rows = slices.DeleteFunc(e.rows, func(x *limitCategoryRow) bool { return x == r })
	e.rowBox.Remove(r.obj)
	e.changed()
}

// resetToDefaults empties the form: every limit at its default, no
// category of its own. Saving publishes that.
func (e *limitsEditor) resetToDefaults() {
	e.fill(trust.PublishLimits{})
	e.changed()
}

// form reads the limits the form sets, showing each field's problem
// beside it; false when one has a problem.
func (e *limitsEditor) form() (trust.PublishLimits, bool) {
	var l trust.PublishLimits
	ok := true
	for _, f := range e.fields {
		if f.limit == trust.LimitAttachmentBytes && e.attNone.Checked {
			showProblem(f.problem, "") // its text does not count under the check
			l.AttachmentBytes = trust.NoAttachments
			continue
		}
		n, valid := f.value()
		ok = ok && valid
		switch f.limit {
		case trust.LimitItemsPerHour:
			l.ItemsPerHour = int(n)
		case trust.LimitBurstItems:
			l.BurstItems = int(n)
		case trust.LimitBytesPerHour:
			l.BytesPerHour = n
		case trust.LimitBurstBytes:
			l.BurstBytes = n
		case trust.LimitItemBytes:
			l.ItemBytes = int(n)
		case trust.LimitAttachmentBytes:
			l.AttachmentBytes = n
		case trust.LimitAttachmentBytesPerHour:
			l.AttachmentBytesPerHour = n
		}
	}
	name := func(id string) string { return "“" + categoryName(e.u.catalog, id) + "”" }
	seen := map[string]bool{}
	for _, r := range e.rows {
		id, item, att, valid := r.limits(name)
		if valid && seen[id] {
			valid = r.say(fmt.Sprintf(lang.L("%s has a row above already."), name(id)))
		}
		seen[id] = true
		ok = ok && valid
		if !valid {
			continue
		}
		if item != 0 {
			if l.CategoryItemBytes == nil {
				l.CategoryItemBytes = map[string]int{}
			}
			l.CategoryItemBytes[id] = item
		}
		if att != 0 {
			if l.CategoryAttachmentBytes == nil {
				l.CategoryAttachmentBytes = map[string]int64{}
			}
			l.CategoryAttachmentBytes[id] = att
		}
	}
	if !ok {
		return l, false
	}
	if len(e.rows) > trust.MaxCategoryCaps {
		e.problem.SetText(fmt.Sprintf(lang.L("At most %d categories can have limits of their own."), trust.MaxCategoryCaps))
		return l, false
	}
	// The fields passed trust's checks one by one; the whole set is
	// checked as signing will, for whatever the fields cannot see.
	if err := l.Validate(); err != nil {
		e.problem.SetText(limitProblem(err))
		return l, false
	}
	return l, true
}

// changed follows an edit: the problems, the buttons and the note.
func (e *limitsEditor) changed() {
	if e.filling {
		return
	}
	e.problem.SetText("")
	e.updateButtons()
}

// dirty reports whether the form differs from the version it was loaded
// from; a form with a problem does, as no definition holds it.
func (e *limitsEditor) dirty() bool {
	if e.base == nil {
		return false
	}
	l, ok := e.form()
	return !ok || !l.Equal(e.base.Limits)
}

func (e *limitsEditor) updateButtons() {
	l, valid := e.form()
	dirty := e.base != nil && (!valid || !l.Equal(e.base.Limits))
	setEnabled(e.save, e.admin && valid && dirty && !e.busy)
	setEnabled(e.revert, e.admin && dirty && !e.busy)
	setEnabled(e.reset, e.admin && e.base != nil && !(valid && l.IsZero()) && !e.busy)
	setEnabled(e.addRow, e.admin && !e.busy)
	showUnsaved(e.note, dirty, unsavedChanges())
}

func (e *limitsEditor) showHeading() {
	sn := e.latest
	if sn == nil {
		e.heading.SetText("")
		return
	}
	text := fmt.Sprintf(lang.L("The limits of network “%s”, version %d."), sn.Name, sn.Version)
	if e.base != nil && e.base.Version != sn.Version {
		text += fmt.Sprintf(lang.L(" Your unsaved changes were made on version %d; saving merges them onto version %d."), e.base.Version, sn.Version)
	}
	e.heading.SetText(text)
}

// doSave publishes the next version with the admin's limits, merged onto
// the version held by then.
func (e *limitsEditor) doSave() {
	tb, ok := e.u.trustBackend()
	mine, valid := e.form()
	if !ok || !valid || !e.admin || e.busy || e.base == nil {
		return
	}
	base, cat := e.base, e.u.catalog
	e.busy = true
	e.updateButtons()
	e.note.SetText(lang.L("Signing and publishing…"))
	e.u.w.Go(func() func() {
		var onto *trust.SignedNetwork
		next, err := publishEdit(tb, func(cur *trust.SignedNetwork, n *trust.Network) error {
			onto = cur
			out, problems := mergeLimitsEdit(&base.Network, mine, cur, cat)
			switch {
			case len(problems) > 0:
				return &editConflict{problems: problems}
			case out.Limits.Equal(cur.Limits):
				return errUpToDate
			}
			*n = *out
			return nil
		})
		return func() {
			e.busy = false
			var conflict *editConflict
			switch {
			case errors.As(err, &conflict):
				// The form keeps the admin's limits, now on top of
				// theirs: saving again publishes them knowingly.
				e.base, e.latest = onto, onto
				e.note.SetText("")
				e.showHeading()
				e.updateButtons()
				e.problem.SetText(lang.L("Not published: ") + conflict.Error() + " " + conflictAdvice(fmt.Sprintf(lang.L("version %d"), onto.Version)))
				return
			case errors.Is(err, errUpToDate):
				e.setWorking(onto)
				e.note.SetText(fmt.Sprintf(lang.L("Nothing to publish: version %d already has these limits."), onto.Version))
				return
			case err != nil:
				e.note.SetText("")
				e.problem.SetText(lang.L("The limits were not saved: ") + errorText(err))
				e.updateButtons()
				return
			}
			e.setWorking(next)
			note := fmt.Sprintf(lang.L("Published as version %d of the network definition."), next.Version)
			if onto.Version != base.Version {
				note += mergedNote(fmt.Sprintf(lang.L("version %d"), onto.Version))
			}
			e.note.SetText(note)
			e.u.rolesRef.trigger()
		}
	})
}
