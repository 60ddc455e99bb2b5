package ui

import "fyne.io/fyne/v2/widget"

// setEnabled enables b when on and disables it otherwise: the editors
// recompute every button's state from theirs after each change.
func setEnabled(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}
