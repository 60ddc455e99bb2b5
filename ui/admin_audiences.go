package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/trust"
)

// audiencesEditor edits the named ranges of the network definition
// (admins only): a working copy of the list, where a name is given its
// network ranges ("Berlin office" = 10.1.4.0/22). Saving publishes the
// next version of the definition through the backend
// (AudienceBackend.SetNamedAudiences); the list merges as a whole, so when
// another admin changed it meanwhile nothing is published until the admin
// has seen theirs and saves again.
type audiencesEditor struct {
	u        *UI
	base     []app.NamedAudience // the list the working copy was loaded from
	latest   []app.NamedAudience // the list held now; base unless another admin changed it
	version  uint64              // the definition version latest is from
	work     []app.NamedAudience // working copy, sorted by name
	selected int
	busy     bool

	list          *widget.List
	name, ranges  *widget.Entry
	add, remove   *widget.Button
	save, revert  *widget.Button
	heading       *widget.Label
	problem, note *widget.Label
	content       fyne.CanvasObject
}

func newAudiencesEditor(u *UI) *audiencesEditor {
	e := &audiencesEditor{u: u, selected: -1}
	e.list = widget.NewList(
		func() int { return len(e.work) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle(lang.L("Berlin office"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			ranges := widget.NewLabelWithStyle("10.1.4.0/22", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			ranges.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, name, nil, ranges)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(e.work) {
				return
			}
			row := o.(*fyne.Container)
			row.Objects[0].(*widget.Label).SetText(audienceText(e.work[i].Ranges))
			row.Objects[1].(*widget.Label).SetText(e.work[i].Name)
		},
	)
	e.list.OnSelected = func(i widget.ListItemID) {
		e.selected = i
		if i < len(e.work) {
			e.name.SetText(e.work[i].Name)
			e.ranges.SetText(audienceText(e.work[i].Ranges))
		}
		e.updateButtons()
	}
	e.list.OnUnselected = func(widget.ListItemID) { e.selected = -1; e.updateButtons() }

	e.name = widget.NewEntry()
	e.name.SetPlaceHolder(lang.L("e.g. Berlin office"))
	e.ranges = widget.NewEntry()
	e.ranges.SetPlaceHolder(lang.L("10.1.4.0/22, 2001:db8:4::/48"))
	for _, f := range []*widget.Entry{e.name, e.ranges} {
		f.OnChanged = func(string) { e.problem.SetText("") }
	}
	e.add = widget.NewButtonWithIcon(lang.L("Add or change"), theme.ContentAddIcon(), e.addNamed)
	e.remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), e.removeSelected)
	e.save = widget.NewButtonWithIcon(lang.L("Sign and publish"), theme.DocumentSaveIcon(), e.doSave)
	e.save.Importance = widget.HighImportance
	e.revert = widget.NewButtonWithIcon(lang.L("Revert"), theme.ContentUndoIcon(), func() { e.setWorking(e.latest, e.version) })
	e.heading = wrappedLabel("", widget.MediumImportance)
	e.problem = wrappedLabel("", widget.DangerImportance)
	e.note = wrappedLabel("", widget.MediumImportance)

	intro := widget.NewLabel(lang.L("Named ranges let publishers address an office by name: Compose offers them beside the audience field, and readers see the name next to an item's ranges. Giving an existing name new ranges changes it. Saving signs a new version of the network definition and sends it to every computer."))
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem(lang.L("Name"), e.name),
		widget.NewFormItem(lang.L("Network ranges"), e.ranges),
	)
	top := container.NewVBox(intro, e.heading)
	bottom := container.NewVBox(
		widget.NewSeparator(), form,
		container.NewBorder(nil, nil, e.add, e.remove),
		e.problem,
		container.NewBorder(nil, nil, container.NewHBox(e.save, e.revert), nil, e.note),
	)
	e.content = container.NewPadded(container.NewBorder(top, bottom, nil, nil, e.list))
	e.updateButtons()
	return e
}

// setNamed takes the list the backend holds, from definition sn (nil
// without one). Unsaved edits are kept, and so is the list they were made
// on, which saving hands the backend to tell them from other admins'.
func (e *audiencesEditor) setNamed(named []app.NamedAudience, sn *trust.SignedNetwork) {
	var version uint64
	if sn != nil {
		version = sn.Version
	}
	if e.dirty() {
		e.latest, e.version = named, version
		e.showHeading()
		e.updateButtons()
		return
	}
	e.setWorking(named, version)
}

func (e *audiencesEditor) setWorking(named []app.NamedAudience, version uint64) {
	e.base, e.latest, e.version = named, named, version
	e.work = slices.Clone(named)
	e.list.UnselectAll()
	e.selected = -1
	e.list.Refresh()
	e.problem.SetText("")
	e.showHeading()
	e.updateButtons()
}

func (e *audiencesEditor) showHeading() {
	text := fmt.Sprintf(lang.L("Version %d of the network definition names %d range(s)."), e.version, len(e.latest))
	if e.dirty() && !sameNamed(e.base, e.latest) {
		text += lang.L(" Another admin changed them since you started: saving replaces theirs with yours; Revert shows theirs.")
	}
	e.heading.SetText(text)
}

func (e *audiencesEditor) dirty() bool { return !sameNamed(e.work, e.base) }

func sameNamed(a, b []app.NamedAudience) bool {
	return slices.EqualFunc(a, b, func(x, y app.NamedAudience) bool { return x.Name == y.Name && slices.Equal(x.Ranges, y.Ranges) })
}

func (e *audiencesEditor) updateButtons() {
	setEnabled(e.remove, e.selected >= 0 && e.selected < len(e.work) && !e.busy)
	setEnabled(e.add, !e.busy)
	setEnabled(e.save, e.dirty() && !e.busy)
	setEnabled(e.revert, e.dirty() && !e.busy)
	showUnsaved(e.note, e.dirty(), unsavedChanges())
}

// addNamed adds the form's name with its ranges, or gives an existing name
// the form's ranges.
func (e *audiencesEditor) addNamed() {
	name := strings.TrimSpace(e.name.Text)
	if problem := checkOneLineName(name, trust.MaxRangeNameRunes, lang.L("Enter a name for the ranges, such as Berlin office.")); problem != "" {
		e.problem.SetText(strings.TrimSuffix(problem, " "+leaveEmptyForEveryone()))
		return
	}
	if len(audienceRanges(e.ranges.Text)) == 0 {
		e.problem.SetText(fmt.Sprintf(lang.L("Enter the network ranges of %s, such as 10.1.4.0/22."), name))
		return
	}
	ps, problem := parseAudienceField(e.ranges.Text)
	if problem != "" {
		e.problem.SetText(problem)
		return
	}
	i, found := slices.BinarySearchFunc(e.work, name, func(n app.NamedAudience, name string) int { return strings.Compare(n.Name, name) })
	switch {
	case found:
		e.work = slices.Clone(e.work)
		e.work[i] = app.NamedAudience{Name: name, Ranges: ps}
	case len(e.work) >= trust.MaxNamedRanges:
		e.problem.SetText(fmt.Sprintf(lang.L("A network can name at most %d ranges."), trust.MaxNamedRanges))
		return
	default:
		e.work = slices.Insert(slices.Clone(e.work), i, app.NamedAudience{Name: name, Ranges: ps})
	}
	e.name.SetText("")
	e.ranges.SetText("")
	e.problem.SetText("")
	e.list.UnselectAll()
	e.selected = -1
	e.list.Refresh()
	e.updateButtons()
}

func (e *audiencesEditor) removeSelected() {
	if e.selected < 0 || e.selected >= len(e.work) {
		return
	}
	e.work = slices.Delete(slices.Clone(e.work), e.selected, e.selected+1)
	e.list.UnselectAll()
	e.selected = -1
	e.list.Refresh()
	e.updateButtons()
}

// doSave publishes the working copy as the named ranges. When another
// admin changed them since the edit started, the first save says so and
// publishes nothing; the edit is then based on theirs, so saving again
// replaces theirs knowingly.
func (e *audiencesEditor) doSave() {
	ab, ok := e.u.audienceBackend()
	if !ok || e.busy || !e.dirty() {
		return
	}
	was, now := e.base, slices.Clone(e.work)
	e.busy = true
	e.updateButtons()
	e.note.SetText(lang.L("Signing and publishing…"))
	e.u.w.Go(func() func() {
		version, err := ab.SetNamedAudiences(was, now)
		var held []app.NamedAudience
		if errors.Is(err, app.ErrNamedAudiencesChanged) {
			held = ab.NamedAudiences()
		}
		return func() {
			e.busy = false
			switch {
			case errors.Is(err, app.ErrNamedAudiencesChanged):
				e.base, e.latest = held, held
				e.note.SetText("")
				e.problem.SetText(lang.L("Not published: another admin changed the named ranges meanwhile. Revert shows theirs; Sign and publish again replaces them with yours."))
				e.showHeading()
				e.updateButtons()
				return
			case err != nil:
				e.note.SetText("")
				e.problem.SetText(lang.L("The named ranges were not saved: ") + errorText(err))
				e.updateButtons()
				return
			}
			e.setWorking(now, version)
			e.note.SetText(fmt.Sprintf(lang.L("Published as version %d of the network definition."), version))
			e.u.rolesRef.trigger()
		}
	})
}
