//go:build !headless

package app_test

import (
	"newsdesk/app"
	"newsdesk/ui"
)

// The application is what the desktop UI runs on. The assertion lives
// in a test of package app_test because app must not import ui (Fyne, cgo)
// itself: the headless build has neither.
var _ ui.Backend = (*app.App)(nil)
