package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestShowMain(t *testing.T) {
	a := test.NewTempApp(t)
	u := New(a)
	u.ShowMain()

	// The test app keeps a blank window of its own; ours is the one titled.
	var w fyne.Window
	for _, c := range a.Driver().AllWindows() {
		if c.Title() == "Newsdesk" {
			w = c
		}
	}
	if w == nil {
		t.Fatal("no window titled \"Newsdesk\"")
	}
	if got, want := w.Canvas().Size(), fyne.NewSize(1000, 700); got != want {
		t.Errorf("window size = %v, want %v", got, want)
	}

	labels := visibleLabels(w.Content())
	for _, want := range []string{"Connecting to the network…", "All"} {
		if !labels[want] {
			t.Errorf("no visible label %q; have %v", want, labels)
		}
	}
}

// visibleLabels returns the texts of the visible labels under o, looking
// through containers and widget renderers as the canvas would.
func visibleLabels(o fyne.CanvasObject) map[string]bool {
	found := map[string]bool{}
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *widget.Label:
			found[v.Text] = true
			return
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return found
}
