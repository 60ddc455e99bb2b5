package ui

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// ShowStartupError shows why Newsdesk cannot start (the data directory is
// in use by another instance, say) in a small window with a Quit button,
// for people who did not start it from a terminal.
//
// A damaged installation (app.ErrDamagedInstallation: its store is gone)
// can be repaired from here when reset is not nil: the window offers to
// start with an empty store, asks to confirm, and calls reset (which opens
// the app anew, as --reset-store does); this window closes once it
// succeeds, and shows its error otherwise.
func ShowStartupError(a fyne.App, err error, reset func() error) {
	UseLanguage("") // the settings are in the store that did not open
	w := a.NewWindow(mainTitle)
	msg := widget.NewLabel(startupProblem(err))
	msg.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox(widget.NewButtonWithIcon(lang.L("Quit"), theme.CancelIcon(), a.Quit))
	if reset != nil && errors.Is(err, app.ErrDamagedInstallation) {
		start := widget.NewButtonWithIcon(lang.L("Start with an empty store…"), theme.WarningIcon(), nil)
		start.OnTapped = func() {
			dialog.ShowConfirm(lang.L("Start with an empty store?"),
				lang.L("The damaged store is kept beside the new one, renamed, and is not shown any more.\nNewsdesk asks for the network again, as on a first start: its definition was in the store.\nYour next posts start a new numbered stream, so no servant drops them as old."),
				func(ok bool) {
					if !ok {
						return
					}
					if err := reset(); err != nil {
						msg.SetText(startupProblem(err))
						start.Disable()
						return
					}
					w.Close()
				}, w)
		}
		buttons.Add(start)
	}
	w.SetContent(container.NewPadded(container.NewBorder(nil, buttons, widget.NewIcon(theme.ErrorIcon()), nil, msg)))
	w.Resize(fyne.NewSize(560, 240))
	// Not the master window: after a reset the main window is, and closing
	// this one must not quit. Alone, closing it quits as the last window.
	w.Show()
}

func startupProblem(err error) string {
	return lang.L("Newsdesk could not start.") + "\n\n" + errorText(err)
}
