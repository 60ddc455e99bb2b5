package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// wrappedLabel is a label that wraps at word boundaries: the forms' notes,
// problems and outcomes, whose text length is not known in advance.
// Importance is widget.MediumImportance for plain text.
func wrappedLabel(text string, importance widget.Importance) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = importance
	return l
}
