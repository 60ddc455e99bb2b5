package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/categories"
)

// titlesEditor is the part of the catalog editor's form that edits a
// category's titles in other languages (categories.Titles): a row per
// title, a language and the title in it. The languages the interface
// speaks are offered; any language tag may be typed ("de-CH", "fr").
type titlesEditor struct {
	rows    []*titleRow
	list    *fyne.Container // the rows
	add     *widget.Button
	content fyne.CanvasObject
	changed func() // after any edit
}

type titleRow struct {
	lang   *widget.SelectEntry
	text   *widget.Entry
	remove *widget.Button
	obj    fyne.CanvasObject
}

func newTitlesEditor(changed func()) *titlesEditor {
	t := &titlesEditor{list: container.NewVBox(), changed: changed}
	t.add = widget.NewButtonWithIcon(lang.L("Add a language"), theme.ContentAddIcon(), func() {
		t.addRow("", "")
		t.changed()
	})
	hint := wrappedLabel(lang.L("Readers see the title in their language, else the name."), widget.LowImportance)
	t.content = container.NewVBox(t.list, container.NewHBox(t.add), hint)
	return t
}

// offeredLanguages are the languages the interface speaks, for the
// language field's choices.
func offeredLanguages() []string {
	out := make([]string, len(Languages))
	for i, l := range Languages {
		out[i] = l.Code
	}
	return out
}

func (t *titlesEditor) addRow(code, text string) *titleRow {
	r := &titleRow{lang: widget.NewSelectEntry(offeredLanguages()), text: widget.NewEntry()}
	r.lang.SetPlaceHolder(lang.L("Language"))
	r.lang.SetText(code)
	r.text.SetPlaceHolder(lang.L("Title in that language"))
	r.text.SetText(text)
	r.lang.OnChanged = func(string) { t.changed() }
	r.text.OnChanged = func(string) { t.changed() }
	r.remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { t.removeRow(r) })
	langBox := container.New(layout.NewGridWrapLayout(fyne.NewSize(120, r.lang.MinSize().Height)), r.lang)
	r.obj = container.NewBorder(nil, nil, langBox, r.remove, r.text)
	t.rows = append(t.rows, r)
	t.list.Add(r.obj)
	return r
}

func (t *titlesEditor) removeRow(r *titleRow) {
	for i, x := range t.rows {
		if x == r {
			t.rows = append(t.rows[:i], t.rows[i+1:]...)
			break
		}
	}
	t.list.Remove(r.obj)
	t.changed()
}

// set shows ts, a row each.
func (t *titlesEditor) set(ts categories.Titles) {
	t.rows = nil
	t.list.RemoveAll()
	for _, x := range ts.All() {
		t.addRow(x.Lang, x.Text)
	}
	t.list.Refresh()
}

// titles returns the titles of the rows, or the problem in words. A row
// with neither a language nor a title is left out.
func (t *titlesEditor) titles() (categories.Titles, string) {
	var ts []categories.Title
	seen := map[string]bool{}
	for _, r := range t.rows {
		code, text := strings.TrimSpace(r.lang.Text), strings.TrimSpace(r.text.Text)
		if code == "" && text == "" {
			continue
		}
		if code == "" {
			return categories.Titles{}, fmt.Sprintf(lang.L("The title “%s” needs its language, such as de, de-CH or ja."), text)
		}
		canon, err := categories.CanonicalLanguage(code)
		if err != nil {
			return categories.Titles{}, fmt.Sprintf(lang.L("“%s” is not a language tag such as de, de-CH or ja."), code)
		}
		if p := checkOneLineName(text, categories.MaxTitleRunes, lang.L("The title is empty.")); p != "" {
			return categories.Titles{}, fmt.Sprintf(lang.L("Title in %s: %s"), canon, p)
		}
		if seen[canon] {
			return categories.Titles{}, fmt.Sprintf(lang.L("There are two titles in %s."), canon)
		}
		seen[canon] = true
		ts = append(ts, categories.Title{Lang: canon, Text: text})
	}
	if len(ts) > categories.MaxTitleLanguages {
		return categories.Titles{}, fmt.Sprintf(lang.L("A category has titles in at most %d languages."), categories.MaxTitleLanguages)
	}
	out, err := categories.NewTitles(ts)
	if err != nil {
		return categories.Titles{}, errorText(err)
	}
	return out, ""
}
