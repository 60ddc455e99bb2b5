package ui

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/trust"
)

// limitCategoryRow is one category's own limits in the limits editor: the
// largest item and the attachments per item in it and its subcategories
// (trust.PublishLimits.CategoryItemBytes, CategoryAttachmentBytes). Either
// field may be left empty to use the limit for every category; "No
// attachments" is a choice of its own (trust.NoAttachments), not a size,
// because 0 would mean the default.
type limitCategoryRow struct {
	ids       []string // the category IDs, parallel to cat.Options
	cat       *widget.Select
	item, att *widget.Entry
	none      *widget.Check
	remove    *widget.Button
	problem   *widget.Label
	obj       fyne.CanvasObject
	editable  bool // an admin's row
}

// limitCategoryWidth is the width of the category column: the names of
// the default catalog's categories in every language fit it.
const limitCategoryWidth = 220

func newLimitCategoryRow(changed func(), remove func(*limitCategoryRow)) *limitCategoryRow {
	r := &limitCategoryRow{
		item: widget.NewEntry(), att: widget.NewEntry(),
		problem: wrappedLabel("", widget.DangerImportance),
	}
	r.cat = widget.NewSelect(nil, func(string) { changed() })
	r.cat.PlaceHolder = lang.L("Choose a category")
	r.item.SetPlaceHolder(lang.L("as for every category"))
	r.att.SetPlaceHolder(lang.L("as for every category"))
	r.item.OnChanged = func(string) { changed() }
	r.att.OnChanged = func(string) { changed() }
	r.none = widget.NewCheck(lang.L("No attachments"), func(on bool) {
		r.setEditable(r.editable)
		changed()
	})
	r.remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { remove(r) })
	r.problem.Hide()
	catBox := container.New(layout.NewGridWrapLayout(fyne.NewSize(limitCategoryWidth, r.cat.MinSize().Height)), r.cat)
	row := container.NewBorder(nil, nil, catBox, container.NewHBox(r.none, r.remove), container.NewGridWithColumns(2, r.item, r.att))
	r.obj = container.NewVBox(row, r.problem)
	return r
}

// limitCategoryHeading names the columns of the rows above them.
func limitCategoryHeading() fyne.CanvasObject {
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	sample := newLimitCategoryRow(func() {}, func(*limitCategoryRow) {})
	right := canvas.NewRectangle(color.Transparent) // as wide as a row's check and button
	right.SetMinSize(container.NewHBox(sample.none, sample.remove).MinSize())
	left := container.New(layout.NewGridWrapLayout(fyne.NewSize(limitCategoryWidth, sample.cat.MinSize().Height)), bold(lang.L("Category")))
	return container.NewBorder(nil, nil, left, right,
		container.NewGridWithColumns(2, bold(limitName(trust.LimitItemBytes)), bold(limitName(trust.LimitAttachmentBytes))))
}

// setOptions offers the categories ids, named names; the row's category
// stays chosen, and is offered by its ID when the catalog no longer has it.
func (r *limitCategoryRow) setOptions(ids, names []string) {
	chosen := r.id()
	r.ids, r.cat.Options = append([]string(nil), ids...), append([]string(nil), names...)
	r.choose(chosen)
}

// choose selects category id ("" for none), adding it as an option of its
// own when it is not offered.
func (r *limitCategoryRow) choose(id string) {
	if id == "" {
		r.cat.ClearSelected()
		return
	}
	for i, x := range r.ids {
		if x == id {
			r.cat.SetSelectedIndex(i)
			return
		}
	}
	r.ids = append(r.ids, id)
	r.cat.Options = append(r.cat.Options, id)
	r.cat.SetSelectedIndex(len(r.ids) - 1)
}

// id is the chosen category's ID, "" for none.
func (r *limitCategoryRow) id() string {
	if i := r.cat.SelectedIndex(); i >= 0 && i < len(r.ids) {
		return r.ids[i]
	}
	return ""
}

// set shows a category's entries as the definition has them (0: none).
func (r *limitCategoryRow) set(id string, item int, att int64) {
	r.choose(id)
	r.item.SetText("")
	if item != 0 {
		r.item.SetText(limitValueText(trust.LimitItemBytes, int64(item)))
	}
	r.att.SetText("")
	r.none.SetChecked(att == trust.NoAttachments)
	if att > 0 {
		r.att.SetText(limitValueText(trust.LimitAttachmentBytes, att))
	}
}

// limits parses and checks the row: the category and its entries (0 for
// a field left empty), or false after showing the problem under the row.
// name names the category in the problem.
func (r *limitCategoryRow) limits(name func(string) string) (id string, item int, att int64, ok bool) {
	id = r.id()
	problem := ""
	check := func(k trust.Limit, text string) int64 {
		n, p := parseLimit(k, text)
		if p == "" && (n != 0 || strings.TrimSpace(text) != "") { // a typed 0 is refused, not taken for empty
			if err := trust.CheckCategoryLimit(k, id, n); err != nil {
				p = limitProblem(err)
			}
		}
		if problem == "" {
			problem = p
		}
		return n
	}
	switch {
	case id == "":
		problem = lang.L("Choose a category, or remove the row.")
	default:
		item = int(check(trust.LimitItemBytes, r.item.Text)) // checked as int64 first: no overflow goes unsaid
		att = trust.NoAttachments
		if !r.none.Checked {
			att = check(trust.LimitAttachmentBytes, r.att.Text)
		}
		if problem == "" && item == 0 && att == 0 {
			problem = fmt.Sprintf(lang.L("Set the largest item or the attachments for %s, or remove the row."), name(id))
		}
	}
	return id, item, att, r.say(problem)
}

// say shows problem under the row ("" for none) and reports whether there
// was none.
func (r *limitCategoryRow) say(problem string) bool {
	showProblem(r.problem, problem)
	return problem == ""
}

// setEditable enables the row's widgets for an admin.
func (r *limitCategoryRow) setEditable(on bool) {
	r.editable = on
	for _, w := range []fyne.Disableable{r.cat, r.item, r.none, r.remove} {
		if on {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	if on && !r.none.Checked {
		r.att.Enable()
	} else {
		r.att.Disable()
	}
}
