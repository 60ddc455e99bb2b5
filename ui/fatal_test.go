package ui

import (
	"errors"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

func startupWindow(t *testing.T, a fyne.App) fyne.Window {
	t.Helper()
	for _, w := range a.Driver().AllWindows() {
		if w.Title() == mainTitle {
			return w
		}
	}
	t.Fatal("no startup error window")
	return nil
}

func button(o fyne.CanvasObject, text string) *widget.Button {
	return find[*widget.Button](o, func(b *widget.Button) bool { return b.Text == text })
}

// A damaged installation can be started afresh from the startup window,
// after a confirmation; a failed attempt shows its error; other errors
// offer only Quit.
func TestStartupErrorOffersResetForDamagedStore(t *testing.T) {
	a := test.NewTempApp(t)
	damaged := fmt.Errorf("opening the data directory: %w", app.ErrDamagedInstallation)
	resets := 0
	var resetErr error
	ShowStartupError(a, damaged, func() error { resets++; return resetErr })
	w := startupWindow(t, a)
	start := button(w.Content(), "Start with an empty store…")
	if start == nil || !hasLabel(w.Content(), "store is damaged") {
		t.Fatalf("window %q offers no reset", labels(w.Content()))
	}

	test.Tap(start)
	confirm := w.Canvas().Overlays().Top()
	if confirm == nil || !hasLabel(confirm, "damaged store is kept") {
		t.Fatal("no confirmation before starting afresh")
	}
	test.Tap(button(confirm, "No"))
	if resets != 0 {
		t.Fatal("reset without confirmation")
	}

	resetErr = errors.New("disk on fire")
	test.Tap(start)
	test.Tap(button(w.Canvas().Overlays().Top(), "Yes"))
	if resets != 1 || !hasLabel(w.Content(), "disk on fire") || !start.Disabled() {
		t.Fatalf("after a failed reset: %d resets, %q, button disabled %v", resets, labels(w.Content()), start.Disabled())
	}
}

func TestStartupErrorResetClosesWindow(t *testing.T) {
	a := test.NewTempApp(t)
	ShowStartupError(a, app.ErrDamagedInstallation, func() error { return nil })
	w := startupWindow(t, a)
	test.Tap(button(w.Content(), "Start with an empty store…"))
	test.Tap(button(w.Canvas().Overlays().Top(), "Yes"))
	for _, o := range a.Driver().AllWindows() {
		if o == w {
			t.Fatal("the startup window stays open after a successful reset")
		}
	}
}

func TestStartupErrorWithoutReset(t *testing.T) {
	for _, tc := range []struct {
		err   error
		reset func() error
	}{
		{errors.New("data directory in use by another newsdesk"), func() error { return nil }},
		{app.ErrDamagedInstallation, nil},
	} {
		a := test.NewTempApp(t)
		ShowStartupError(a, tc.err, tc.reset)
		w := startupWindow(t, a)
		if button(w.Content(), "Quit") == nil || button(w.Content(), "Start with an empty store…") != nil {
			t.Errorf("%v: buttons wrong: %q", tc.err, labels(w.Content()))
		}
	}
}
