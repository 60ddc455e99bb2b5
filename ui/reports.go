package ui

// Admin → Reports: the reach of every publisher's must-read posts, as
// the publishers report it to the admins (app.NetworkReports), each with
// who has not confirmed and the CSV export of everyone.

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// ReportsBackend is what a backend offers when admins can read the
// reports of must-read posts. The UI checks for it with a type assertion
// and offers the screen to trusted admins of one that answers; *app.App
// implements it.
type ReportsBackend interface {
	// NetworkReports returns the latest report of each must-read post,
	// newest first; app.ErrNotAdmin for a servant that is not an admin's.
	NetworkReports() ([]app.NetworkReport, error)
}

// reportsBackend returns the backend's ReportsBackend, if it has one.
func (u *UI) reportsBackend() (ReportsBackend, bool) {
	rb, ok := u.b.(ReportsBackend)
	return rb, ok
}

type reportsView struct {
	u       *UI
	reports []app.NetworkReport
	list    *widget.List
	empty   *widget.Label
	problem *widget.Label
	content fyne.CanvasObject
}

func newReportsView(u *UI) *reportsView {
	v := &reportsView{u: u}
	v.list = widget.NewList(
		func() int { return len(v.reports) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("Title", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			title.Truncation = fyne.TextTruncateEllipsis
			info := widget.NewLabel("")
			info.Importance = widget.LowImportance
			info.Truncation = fyne.TextTruncateEllipsis
			state := widget.NewLabel("000 of 000 confirmed · 000 not")
			readers := widget.NewButtonWithIcon(lang.L("Readers…"), theme.AccountIcon(), nil)
			return container.NewBorder(nil, nil, nil, container.NewHBox(state, readers), container.NewVBox(title, info))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(v.reports) {
				return
			}
			r := v.reports[i]
			row := o.(*fyne.Container)
			text := row.Objects[0].(*fyne.Container)
			right := row.Objects[1].(*fyne.Container)
			text.Objects[0].(*widget.Label).SetText(r.Title)
			text.Objects[1].(*widget.Label).SetText(v.infoText(r, v.u.now()))
			right.Objects[0].(*widget.Label).SetText(reportStateText(r.Reach))
			right.Objects[1].(*widget.Button).OnTapped = func() { v.u.showPending(r.Title, r.Reach) }
		},
	)
	v.empty = wrappedLabel(lang.L("No reports yet. When a publisher posts a must-read item, its reach comes here: who has it, who confirmed it and who has not. Publishers send an update at most every five minutes."), widget.LowImportance)
	v.problem = wrappedLabel("", widget.DangerImportance)
	heading := widget.NewLabelWithStyle(lang.L("Must-read posts of every publisher"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(heading, v.empty, v.problem)
	v.content = container.NewPadded(container.NewBorder(top, nil, nil, nil, v.list))
	return v
}

// reportStateText is a report's confirmations at a glance. Until the
// readers' own reports name them, those who have not confirmed are
// counted from the deliveries, or before those from the subscribers.
func reportStateText(r app.Reach) string {
	open := max(r.ReportedPending, uint64(len(r.Pending))) + uint64(len(r.Offline))
	readers := max(r.Delivered, r.Subscribers)
	open = max(open, readers-min(readers, r.Acknowledged))
	return fmt.Sprintf(lang.L("%d of %d confirmed · %d not"), r.Acknowledged, r.Acknowledged+open, open)
}

// infoText says whose post it is and how fresh the report is.
func (v *reportsView) infoText(r app.NetworkReport, now time.Time) string {
	parts := []string{categoryName(v.u.catalog, r.Category)}
	if r.Author != "" {
		parts = append(parts, r.Author)
	}
	parts = append(parts, fmt.Sprintf(lang.L("published %s"), formatTime(r.Published, dayMonthClock)), fmt.Sprintf(lang.L("reported %s"), relTime(r.Reach.At, now)))
	if r.Cut {
		parts = append(parts, lang.L("some names left out (too many for one report)"))
	}
	return strings.Join(parts, " · ")
}

// load reads the reports (background) and shows them.
func (v *reportsView) load() {
	rb, ok := v.u.reportsBackend()
	if !ok {
		return
	}
	v.u.w.Go(func() func() {
		rs, err := rb.NetworkReports()
		return func() {
			if err != nil {
				v.problem.SetText(lang.L("The reports could not be read: ") + errorText(err))
				v.problem.Show()
				return
			}
			v.problem.Hide()
			v.reports = rs
			if len(rs) == 0 {
				v.empty.Show()
			} else {
				v.empty.Hide()
			}
			v.list.Refresh()
		}
	})
}
