// Package ui holds the Fyne views of Newsdesk.
//
// The views show what the application core holds and never block on the
// network or the disk in a callback; updates from other goroutines reach
// them through fyne.Do.
package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

const (
	mainTitle     = "Newsdesk"
	connectingMsg = "Connecting to the network…"
	sidebarShare  = 0.22 // fraction of the window width given to the sidebar
)

var mainSize = fyne.NewSize(1000, 700)

// UI owns the windows of one Fyne application.
type UI struct {
	app  fyne.App
	main fyne.Window

	// feeds are the sidebar entries: "All", then the subscribed categories.
	feeds  []string
	status *widget.Label
}

// New returns the UI of a, with no window shown yet.
func New(a fyne.App) *UI {
	return &UI{app: a, feeds: []string{"All"}}
}

// ShowMain builds the main window and shows it. Closing it quits the app.
func (u *UI) ShowMain() {
	if u.main == nil {
		u.main = u.buildMain()
	}
	u.main.Show()
}

func (u *UI) buildMain() fyne.Window {
	w := u.app.NewWindow(mainTitle)
	w.SetMaster()

	sidebar := widget.NewList(
		func() int { return len(u.feeds) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(u.feeds[id]) },
	)
	sidebar.Select(0)

	u.status = widget.NewLabel(connectingMsg)
	split := container.NewHSplit(sidebar, container.NewCenter(u.status))
	split.Offset = sidebarShare

	w.SetContent(split)
	w.Resize(mainSize)
	return w
}
