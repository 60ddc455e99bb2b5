package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ShowStartupError shows why Newsdesk cannot start (the data directory is
// in use by another instance, say) in a small window with a Quit button,
// for people who did not start it from a terminal.
func ShowStartupError(a fyne.App, err error) {
	w := a.NewWindow(mainTitle)
	msg := widget.NewLabel("Newsdesk could not start.\n\n" + err.Error())
	msg.Wrapping = fyne.TextWrapWord
	quit := widget.NewButtonWithIcon("Quit", theme.CancelIcon(), a.Quit)
	w.SetContent(container.NewPadded(container.NewBorder(nil, container.NewHBox(quit), widget.NewIcon(theme.ErrorIcon()), nil, msg)))
	w.Resize(fyne.NewSize(520, 200))
	w.SetMaster()
	w.Show()
}
