package ui

import (
	"fmt"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"newsdesk/categories"
)

// subscriptionsView is the catalog browser: every category with a check
// box, children indented under their parents. A subscription to a parent
// includes its children, which then show checked and disabled. Changes go
// to the servant at once (in the background, newest state wins).
type subscriptionsView struct {
	u       *UI
	cats    []categories.Category
	list    *widget.List
	note    *widget.Label
	apply   *latest[[]string]
	content fyne.CanvasObject
}

func newSubscriptionsView(u *UI) *subscriptionsView {
	v := &subscriptionsView{u: u, note: widget.NewLabel("")}
	v.note.Wrapping = fyne.TextWrapWord
	v.apply = &latest[[]string]{w: u.w, set: u.b.SetSubscriptions, done: v.applied}
	v.list = widget.NewList(
		func() int { return len(v.cats) },
		func() fyne.CanvasObject {
			indent := canvas.NewRectangle(color.Transparent)
			check := widget.NewCheck(lang.L("Category"), nil)
			desc := widget.NewLabel("")
			desc.Importance = widget.LowImportance
			desc.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(indent, check), nil, desc)
		},
		v.updateRow,
	)
	intro := wrappedLabel(lang.L("Choose the categories you want to receive. A category includes the ones under it. Changes apply at once."), widget.MediumImportance)
	v.content = container.NewBorder(intro, v.note, nil, nil, v.list)
	return v
}

func (v *subscriptionsView) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	c := v.cats[i]
	row := o.(*fyne.Container)
	desc := row.Objects[0].(*widget.Label)
	left := row.Objects[1].(*fyne.Container)
	indent, check := left.Objects[0].(*canvas.Rectangle), left.Objects[1].(*widget.Check)
	indent.SetMinSize(fyne.NewSize(float32(depth(c.ID)*indentStep), 1))
	check.OnChanged = nil // SetChecked would report it
	check.SetText(categoryName(v.u.catalog, c.ID))
	subscribed := slices.Contains(v.u.subs, c.ID)
	inherited := !subscribed && categories.CoveredByAny(v.u.subs, c.ID)
	check.SetChecked(subscribed || inherited)
	if inherited {
		check.Disable()
	} else {
		check.Enable()
	}
	id := c.ID
	check.OnChanged = func(on bool) { v.toggle(id, on) }
	text := c.Description
	if inherited {
		if p := v.coveringParent(id); p != "" {
			text = fmt.Sprintf(lang.L("Included in %s."), categoryName(v.u.catalog, p)) + " " + text
		}
	}
	desc.SetText(text)
}

func (v *subscriptionsView) coveringParent(id string) string {
	for _, a := range categories.Ancestors(id) {
		if slices.Contains(v.u.subs, a) {
			return a
		}
	}
	return ""
}

// refresh shows the current catalog and subscriptions.
func (v *subscriptionsView) refresh() {
	v.cats = v.u.catalog.All()
	v.list.Refresh()
}

// toggle subscribes to or unsubscribes from id and sends the new set.
func (v *subscriptionsView) toggle(id string, on bool) {
	subs := slices.DeleteFunc(slices.Clone(v.u.subs), func(s string) bool { return s == id })
	if on {
		subs = append(subs, id)
	}
	subs = categories.Minimize(subs)
	v.u.subs = subs
	v.note.SetText(lang.L("Saving…"))
	v.list.Refresh()
	v.u.reader.subscriptionsChanged()
	v.apply.send(subs)
}

// applied reports the outcome of the newest SetSubscriptions.
func (v *subscriptionsView) applied(subs []string, err error) {
	if err != nil {
		v.note.SetText(lang.L("The subscriptions could not be changed: ") + errorText(err))
		v.u.catalogRef.trigger() // show what the servant has
		return
	}
	switch n := len(categories.Minimize(subs)); n {
	case 0:
		v.note.SetText(lang.L("Saved. You are not subscribed to anything."))
	default:
		n := len(v.u.catalog.Expand(subs))
		v.note.SetText(fmt.Sprintf(lang.N("Saved. Receiving %d categories.", n), n))
	}
}
