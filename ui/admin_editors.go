package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2/widget"
)

// checkOneLineName applies the network definition's rule for a name that is
// shown on one line, such as a range's or a publisher's: not empty, at most
// limit characters, no control characters. ifEmpty asks for the name in the
// form's own words. It returns the problem in words, or "".
func checkOneLineName(name string, limit int, ifEmpty string) string {
	switch {
	case name == "":
		return ifEmpty
	case utf8.RuneCountInString(name) > limit:
		return fmt.Sprintf(lang.L("The name is too long: at most %d characters."), limit)
	case strings.ContainsFunc(name, unicode.IsControl):
		return lang.L("The name must be one line without control characters.")
	}
	return ""
}

// unsavedPrefix starts every note about unsaved changes, so that such a note
// can be told apart from one about something else, such as what the last
// save did.
func unsavedPrefix() string { return lang.L("Unsaved changes") }

// unsavedChanges is the note about unsaved changes when there is nothing
// more to say about them.
func unsavedChanges() string { return unsavedPrefix() + "." }

// showUnsaved keeps an editor's note in step with its working copy: while
// dirty it shows unsaved (unsavedChanges, or a longer text starting with
// unsavedPrefix); once the changes are saved or reverted it clears a note
// about them but leaves any other note standing.
func showUnsaved(note *widget.Label, dirty bool, unsaved string) {
	switch {
	case dirty:
		note.SetText(unsaved)
	case strings.HasPrefix(note.Text, unsavedPrefix()):
		note.SetText("")
	}
}
