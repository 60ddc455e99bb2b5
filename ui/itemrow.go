package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/categories"
)

// rowView is one row of the item list: a marker (unread dot or urgent
// sign), the title (bold while unread), and below it the category, the
// author and, for a correction, what it corrects; the relative time on the
// right. Every row has the same height, so the list can place rows without
// measuring them.
type rowView struct {
	widget.BaseWidget
	bg, outline *canvas.Rectangle
	dot         *canvas.Circle
	urgent      *widget.Icon
	title, meta *widget.Label
	when        *widget.Label
	content     fyne.CanvasObject
	shown       rowState
	drawn       bool // colours and markers applied once
}

func newRowView() *rowView {
	r := &rowView{
		bg:      canvas.NewRectangle(color.Transparent),
		outline: canvas.NewRectangle(color.Transparent),
		dot:     canvas.NewCircle(theme.Color(theme.ColorNamePrimary)),
		urgent:  widget.NewIcon(theme.NewErrorThemedResource(theme.WarningIcon())),
		title:   widget.NewLabel("Title"),
		meta:    widget.NewLabel("Category · Author"),
		when:    widget.NewLabel("10 min ago"),
	}
	r.outline.StrokeWidth = 2
	r.outline.CornerRadius = theme.SelectionRadiusSize()
	r.bg.CornerRadius = theme.SelectionRadiusSize()
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.meta.Truncation = fyne.TextTruncateEllipsis
	r.meta.SizeName = theme.SizeNameCaptionText
	r.meta.Importance = widget.LowImportance
	r.when.SizeName = theme.SizeNameCaptionText
	r.when.Importance = widget.LowImportance
	marker := container.New(&markerLayout{}, r.dot, r.urgent)
	text := container.New(&linesLayout{overlap: 2 * theme.InnerPadding()}, r.title, r.meta)
	// The time column has a fixed width, so that the title's width does not
	// change with the time shown (a resize re-truncates the text).
	when := container.New(&fixedWidthLayout{sample: "00 min ago"}, r.when)
	r.content = container.NewStack(r.bg, r.outline,
		container.NewBorder(nil, nil, marker, when, text))
	r.ExtendBaseWidget(r)
	return r
}

func (r *rowView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.content)
}

// rowState is everything a row shows; a row whose state is unchanged is
// not touched (shaping text is what a list refresh costs).
type rowState struct {
	title, meta, when string
	bold, danger      bool
	marker            int // 0 none, 1 unread dot, 2 urgent
	open, cursor      bool
}

// set shows it. open marks the item shown in the item view, cursor the
// keyboard position, unconfirmed a must-read item the reader has not
// confirmed yet.
func (r *rowView) set(it *row, cat *categories.Catalog, now time.Time, open, cursor, unconfirmed bool) {
	st := rowState{title: it.title, when: relTime(it.created, now), bold: !it.read, danger: it.urgent, open: open, cursor: cursor}
	meta := categoryName(cat, it.category)
	if it.author != "" {
		meta += " · " + it.author
	}
	if it.supersedes != uuid.Nil {
		if it.correctionOf != "" {
			meta = fmt.Sprintf(lang.L("Correction of “%s”"), it.correctionOf) + " · " + meta
		} else {
			meta = lang.L("Correction of an earlier item") + " · " + meta
		}
	}
	if unconfirmed {
		meta = lang.L("MUST READ") + " · " + meta
	}
	if it.urgent {
		meta = lang.L("URGENT") + " · " + meta
	}
	st.meta = meta
	switch {
	case it.urgent:
		st.marker = 2
	case !it.read:
		st.marker = 1
	}
	r.apply(st)
}

func (r *rowView) apply(st rowState) {
	old := r.shown
	r.shown = st
	if st.title != old.title || st.bold != old.bold {
		r.title.TextStyle.Bold = st.bold
		r.title.SetText(st.title)
	}
	if st.meta != old.meta || st.danger != old.danger {
		r.meta.Importance = widget.LowImportance
		if st.danger {
			r.meta.Importance = widget.DangerImportance
		}
		r.meta.SetText(st.meta)
	}
	if st.when != old.when {
		r.when.SetText(st.when)
	}
	if st.marker != old.marker || !r.drawn {
		r.setMarker(st.marker)
	}
	if st.open != old.open || st.cursor != old.cursor || !r.drawn {
		r.setState(st.open, st.cursor)
	}
	r.drawn = true
}

// Refresh redraws everything (a theme change).
func (r *rowView) Refresh() {
	r.drawn = false
	st := r.shown
	r.shown = rowState{}
	r.apply(st)
	r.BaseWidget.Refresh()
}

func (r *rowView) setMarker(marker int) {
	switch marker {
	case 2:
		r.dot.Hide()
		r.urgent.Show()
	case 1:
		r.urgent.Hide()
		r.dot.FillColor = theme.Color(theme.ColorNamePrimary)
		r.dot.Show()
		r.dot.Refresh()
	default:
		r.urgent.Hide()
		r.dot.Hide()
	}
}

func (r *rowView) setState(open, cursor bool) {
	r.bg.FillColor = color.Transparent
	if open {
		r.bg.FillColor = theme.Color(theme.ColorNameSelection)
	}
	r.outline.StrokeColor = color.Transparent
	if cursor {
		r.outline.StrokeColor = theme.Color(theme.ColorNameFocus)
	}
	r.bg.Refresh()
	r.outline.Refresh()
}
