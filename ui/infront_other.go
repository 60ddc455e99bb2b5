//go:build !windows

package ui

import "fyne.io/fyne/v2"

// keepInFront does nothing outside Windows (see infront_windows.go): there
// the window manager decides, and Fyne has no way to ask for more.
func keepInFront(fyne.Window) {}
