package ui

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/trust"
)

// catalogEditor edits the category catalog: a working copy of the
// categories, edited one at a time in a form (ID, name, description and
// titles in other languages, admin_titles.go), checked with the catalog's
// own rules (categories.ValidateID, a parent before its children) and
// saved as a new catalog version with SetCatalog, or by an admin as part of
// the next version of the network definition.
//
// The catalog carries its own version, and that is what the editor goes by:
// base is the catalog version the working copy was loaded from, and saving
// merges the change from base to the working copy onto the catalog held by
// then (trust.MergeCatalog), numbering the result one above that catalog.
type catalogEditor struct {
	u        *UI
	base     *categories.Catalog
	latest   *categories.Catalog   // the catalog held now; base unless edits are pending
	cats     []categories.Category // working copy, sorted by ID
	selected int                   // index in cats, -1 for a new category

	list                     *widget.List
	id, name, desc           *widget.Entry
	titles                   *titlesEditor
	apply, remove, newCat    *widget.Button
	save, revert             *widget.Button
	formTitle, problem, note *widget.Label
	content                  fyne.CanvasObject
}

func newCatalogEditor(u *UI) *catalogEditor {
	e := &catalogEditor{u: u, selected: -1}
	e.list = widget.NewList(
		func() int { return len(e.cats) },
		func() fyne.CanvasObject {
			indent := canvas.NewRectangle(color.Transparent)
			name := widget.NewLabel(lang.L("Category name"))
			id := widget.NewLabelWithStyle(lang.L("category/id"), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			id.Importance = widget.LowImportance
			id.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(indent, name), nil, id)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := e.cats[i]
			row := o.(*fyne.Container)
			row.Objects[0].(*widget.Label).SetText(c.ID)
			left := row.Objects[1].(*fyne.Container)
			left.Objects[0].(*canvas.Rectangle).SetMinSize(fyne.NewSize(float32(depth(c.ID)*indentStep), 1))
			left.Objects[1].(*widget.Label).SetText(c.Name)
		},
	)
	e.list.OnSelected = func(i widget.ListItemID) { e.edit(i) }

	e.id = widget.NewEntry()
	e.id.SetPlaceHolder(lang.L("e.g. sales/emea (a-z, 0-9, '-', '/' between levels)"))
	e.name = widget.NewEntry()
	e.name.SetPlaceHolder(lang.L("Display name"))
	e.desc = widget.NewEntry()
	e.desc.SetPlaceHolder(lang.L("One line for readers (optional)"))
	e.apply = widget.NewButtonWithIcon(lang.L("Add"), theme.ConfirmIcon(), e.applyForm)
	e.remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), e.removeSelected)
	e.newCat = widget.NewButtonWithIcon(lang.L("New category"), theme.ContentAddIcon(), e.startNew)
	e.save = widget.NewButtonWithIcon(lang.L("Save catalog"), theme.DocumentSaveIcon(), e.doSave)
	e.save.Importance = widget.HighImportance
	e.revert = widget.NewButtonWithIcon(lang.L("Revert"), theme.ContentUndoIcon(), func() { e.setWorking(e.latest) })
	e.formTitle = widget.NewLabelWithStyle(lang.L("New category"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	e.problem = wrappedLabel("", widget.DangerImportance)
	e.note = wrappedLabel("", widget.MediumImportance)
	for _, en := range []*widget.Entry{e.id, e.name, e.desc} {
		en.OnChanged = func(string) { e.problem.SetText("") }
	}
	e.titles = newTitlesEditor(func() { e.problem.SetText("") })

	form := container.NewVBox(
		e.formTitle,
		widget.NewForm(
			widget.NewFormItem(lang.L("ID"), e.id),
			widget.NewFormItem(lang.L("Name"), e.name),
			widget.NewFormItem(lang.L("Description"), e.desc),
			widget.NewFormItem(lang.L("In other languages"), e.titles.content),
		),
		container.NewHBox(e.apply, e.remove, e.newCat),
		e.problem,
	)
	intro := wrappedLabel(lang.L("The catalog is the network's list of categories. A category's ID is also where its items are routed, so it cannot be renamed; its name and description can."), widget.MediumImportance)
	bottom := container.NewBorder(nil, nil, container.NewHBox(e.save, e.revert), nil, e.note)
	split := container.NewHSplit(e.list, container.NewVScroll(container.NewPadded(form)))
	split.Offset = 0.45
	e.content = container.NewPadded(container.NewBorder(intro, bottom, nil, nil, split))
	e.startNew()
	return e
}

// setCatalog takes the backend's catalog. Unsaved edits are kept, and so is
// the catalog they were made on, which saving needs to tell the admin's
// changes from others'.
func (e *catalogEditor) setCatalog(c *categories.Catalog) {
	if e.base != nil && e.dirty() {
		e.latest = c
		e.updateButtons()
		return
	}
	e.setWorking(c)
}

func (e *catalogEditor) setWorking(c *categories.Catalog) {
	e.rebase(c, c.All())
}

// rebase makes c the catalog the working copy cats is edited from.
func (e *catalogEditor) rebase(c *categories.Catalog, cats []categories.Category) {
	e.base, e.latest = c, c
	e.cats = cats
	e.list.UnselectAll()
	e.list.Refresh()
	e.startNew()
}

func (e *catalogEditor) dirty() bool {
	return e.base == nil || !slices.Equal(e.cats, e.base.All())
}

func (e *catalogEditor) updateButtons() {
	if e.dirty() {
		e.save.Enable()
		e.revert.Enable()
	} else {
		e.save.Disable()
		e.revert.Disable()
	}
	unsaved := unsavedChanges()
	if e.base != nil && e.latest != nil && e.latest.Version() != e.base.Version() {
		unsaved = fmt.Sprintf(lang.L("Unsaved changes, made on catalog version %d; saving merges them onto version %d."), e.base.Version(), e.latest.Version())
	}
	showUnsaved(e.note, e.dirty(), unsaved)
	if e.selected >= 0 {
		e.remove.Enable()
	} else {
		e.remove.Disable()
	}
}

// startNew clears the form for a new category.
func (e *catalogEditor) startNew() {
	e.selected = -1
	e.list.UnselectAll()
	e.formTitle.SetText(lang.L("New category"))
	e.id.Enable()
	e.id.SetText("")
	e.name.SetText("")
	e.desc.SetText("")
	e.titles.set(categories.Titles{})
	e.apply.SetText(lang.L("Add"))
	e.problem.SetText("")
	e.updateButtons()
}

// edit loads category i into the form.
func (e *catalogEditor) edit(i int) {
	if i < 0 || i >= len(e.cats) {
		return
	}
	c := e.cats[i]
	e.selected = i
	e.formTitle.SetText(fmt.Sprintf(lang.L("Edit %s"), c.ID))
	e.id.SetText(c.ID)
	e.id.Disable()
	e.name.SetText(c.Name)
	e.desc.SetText(c.Description)
	e.titles.set(c.Titles)
	e.apply.SetText(lang.L("Update"))
	e.problem.SetText("")
	e.updateButtons()
}

// checkCategory validates c against the working copy; isNew for an
// addition.
func checkCategory(c categories.Category, cats []categories.Category, isNew bool) error {
	validate := categories.ValidateID // an entry named before ValidateNewID's rule stays editable
	if isNew {
		validate = categories.ValidateNewID
	}
	if err := validate(c.ID); err != nil {
		return err
	}
	if isNew && app.IsSystemCategory(c.ID) {
		return shownErrorf(lang.L("category %q is reserved for the network's own business"), c.ID)
	}
	has := func(id string) bool {
		return slices.ContainsFunc(cats, func(x categories.Category) bool { return x.ID == id })
	}
	if isNew && has(c.ID) {
		return shownErrorf(lang.L("category %q already exists"), c.ID)
	}
	if p, ok := categories.Parent(c.ID); ok && !has(p) {
		return shownErrorf(lang.L("category %q: its parent %q is not in the catalog; add the parent first"), c.ID, p)
	}
	if len(cats) >= categories.MaxCategories && isNew {
		return shownErrorf(lang.L("the catalog holds at most %d categories"), categories.MaxCategories)
	}
	return c.Validate()
}

func (e *catalogEditor) applyForm() {
	titles, problem := e.titles.titles()
	if problem != "" {
		e.problem.SetText(problem)
		return
	}
	c := categories.Category{ID: strings.TrimSpace(e.id.Text), Name: strings.TrimSpace(e.name.Text), Description: strings.TrimSpace(e.desc.Text),
		Titles: titles}
	isNew := e.selected < 0
	if err := checkCategory(c, e.cats, isNew); err != nil {
		e.problem.SetText(errorText(err))
		return
	}
	if isNew {
		e.cats = append(e.cats, c)
		slices.SortFunc(e.cats, func(a, b categories.Category) int { return strings.Compare(a.ID, b.ID) })
	} else {
		e.cats[e.selected] = c
	}
	e.list.Refresh()
	i := slices.IndexFunc(e.cats, func(x categories.Category) bool { return x.ID == c.ID })
	e.list.Select(i)
	e.updateButtons()
}

func (e *catalogEditor) removeSelected() {
	if e.selected < 0 {
		return
	}
	id := e.cats[e.selected].ID
	if slices.ContainsFunc(e.cats, func(x categories.Category) bool { return x.ID != id && categories.Covers(id, x.ID) }) {
		e.problem.SetText(fmt.Sprintf(lang.L("%q has categories under it: remove those first."), id))
		return
	}
	e.cats = slices.Delete(e.cats, e.selected, e.selected+1)
	e.list.Refresh()
	e.startNew()
}

func (e *catalogEditor) doSave() {
	// The rules of a catalog are checked at once; the version is only known
	// once the catalog held at save time is.
	mine, err := categories.NewCatalog(1, e.cats)
	if err != nil {
		e.problem.SetText(errorText(err))
		return
	}
	base := e.base
	e.save.Disable()
	e.note.SetText(lang.L("Saving…"))
	tb, signed := e.u.trustBackend()
	signed = signed && e.u.roles.admin
	e.u.w.Go(func() func() {
		var saved, onto *categories.Catalog
		var ontoNetwork *trust.SignedNetwork
		var merged []categories.Category
		mergeOnto := func(held *categories.Catalog, when string) error {
			onto = held
			var problems []string
			merged, problems = mergeCatalogEdit(base, mine, held, when)
			if len(problems) > 0 {
				return &editConflict{problems: problems}
			}
			// The version is the editor's to choose: one above the catalog
			// held, as the note after saving says.
			version := uint64(1)
			if held != nil {
				if slices.Equal(merged, held.All()) {
					return errUpToDate
				}
				version = held.Version() + 1
			}
			// The backend adopts only a newer catalog than its own.
			if local := e.u.b.Catalog(); local != nil && local.Version() >= version {
				version = local.Version() + 1
			}
			var err error
			saved, err = categories.NewCatalog(version, merged)
			return err
		}
		// An admin's catalog goes into a new signed version of the network
		// definition, which applies it everywhere.
		var next *trust.SignedNetwork
		var err error
		if signed {
			next, err = publishEdit(tb, func(cur *trust.SignedNetwork, n *trust.Network) error {
				ontoNetwork = cur
				if err := mergeOnto(cur.Catalog, fmt.Sprintf(lang.L("in version %d"), cur.Version)); err != nil {
					return err
				}
				n.Catalog = saved
				return nil
			})
		} else {
			held := e.u.b.Catalog()
			when := ""
			if held != nil {
				when = fmt.Sprintf(lang.L("in catalog version %d"), held.Version())
			}
			if err = mergeOnto(held, when); err == nil {
				err = e.u.b.SetCatalog(saved)
			}
		}
		// An admin's catalog is part of a version of the network
		// definition, which is the version the admin knows; an
		// installation's own catalog has only its catalog version.
		var ontoName string
		switch {
		case ontoNetwork != nil:
			ontoName = fmt.Sprintf(lang.L("version %d"), ontoNetwork.Version)
		case onto != nil:
			ontoName = fmt.Sprintf(lang.L("catalog version %d"), onto.Version())
		}
		return func() {
			var conflict *editConflict
			switch {
			case errors.As(err, &conflict) && onto != nil:
				e.rebase(onto, merged)
				e.problem.SetText(lang.L("Not saved: ") + conflict.Error() + " " + conflictAdvice(ontoName))
				return
			case errors.Is(err, errUpToDate):
				e.setWorking(onto)
				e.note.SetText(fmt.Sprintf(lang.L("Nothing to save: catalog version %d already has these categories."), onto.Version()))
				return
			case err != nil:
				e.note.SetText("")
				e.problem.SetText(lang.L("The catalog was not saved: ") + errorText(err))
				e.updateButtons()
				return
			}
			e.setWorking(saved)
			var note string
			if next != nil {
				note = fmt.Sprintf(lang.L("Saved as catalog version %d, published as version %d of the network definition."), saved.Version(), next.Version)
				e.u.rolesRef.trigger()
			} else {
				note = fmt.Sprintf(lang.L("Saved as version %d."), saved.Version())
			}
			if base != nil && onto != nil && onto.Version() != base.Version() {
				note += mergedNote(ontoName)
			}
			e.note.SetText(note)
			e.u.catalog = saved
			e.u.catalogChanged()
		}
	})
}
