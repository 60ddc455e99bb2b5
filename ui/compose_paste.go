package ui

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// Pasting files into Compose's text (issue 29). Fyne's clipboard holds
// text only (fyne.Clipboard, 2.7), so a picture copied as an image cannot
// be pasted. A file copied in a file manager can: it arrives as its
// path, or its file:// address (one a line for several), which is what
// Linux file managers put on the clipboard as text, and what Windows
// Explorer's "Copy as path" gives (in quotes). Text whose every line
// names an existing file adds those files as a drop does: pictures at
// the cursor, other files to the list. Any other text pastes as text,
// and Ctrl+Shift+V always pastes text, for a path meant as text.

// bodyEntry is Compose's text field: a multi-line Entry whose paste
// recognises files.
type bodyEntry struct {
	widget.Entry
	// pasteFiles adds the files of pasted text (paths, absolute), or
	// pastes the text if they turn out not to be files; nil: text only.
	pasteFiles func(paths []string, text string)
}

func newBodyEntry() *bodyEntry {
	e := &bodyEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut takes a paste of files (Ctrl+V, and the context menu's
// Paste, which comes here too) as files; Ctrl+Shift+V pastes text.
func (e *bodyEntry) TypedShortcut(s fyne.Shortcut) {
	switch s := s.(type) {
	case *fyne.ShortcutPaste:
		if e.pasteFiles != nil && s.Clipboard != nil && !e.Disabled() {
			text := s.Clipboard.Content()
			if paths := pastedPaths(text); paths != nil {
				e.pasteFiles(paths, text)
				return
			}
			e.insert(text) // read once: what was checked is what is pasted
			return
		}
	case *desktop.CustomShortcut:
		if plainPaste(s) {
			if a := fyne.CurrentApp(); a != nil {
				e.Entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: a.Clipboard()})
			}
			return
		}
	}
	e.Entry.TypedShortcut(s)
}

// insert puts text at the cursor (replacing the selection) as a paste
// would, without touching the system's clipboard nor looking for files.
func (e *bodyEntry) insert(text string) {
	e.Entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard(text)})
}

// plainPaste reports whether s is the paste shortcut with Shift: Ctrl
// (Cmd on macOS) + Shift + V.
func plainPaste(s *desktop.CustomShortcut) bool {
	return s.KeyName == fyne.KeyV &&
		(s.Modifier == fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift)
}

// pastedPaths returns the files that pasted text names, one a line
// (blank lines aside): absolute paths, quoted or not, or file://
// addresses of this computer. nil when any line is something else, or
// there are more lines than an item has attachments: that is text. It
// looks at the text only; whether the files exist is for the caller.
func pastedPaths(text string) []string {
	var paths []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p, ok := pastedPath(line)
		if !ok || len(paths) == maxAttachments {
			return nil
		}
		paths = append(paths, p)
	}
	return paths
}

// pastedPath is the file one pasted line names.
func pastedPath(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1] // Explorer's "Copy as path"
	}
	if len(s) > 5 && strings.EqualFold(s[:5], "file:") {
		u, err := url.Parse(s)
		if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || u.Path == "" {
			return "", false // another computer's, or not an address
		}
		s = u.Path
		if runtime.GOOS == "windows" && len(s) >= 3 && s[0] == '/' && s[2] == ':' {
			s = s[1:] // file:///C:/Users/… is C:/Users/…
		}
		s = filepath.FromSlash(s)
	}
	if strings.ContainsAny(s, "\x00\t") || !filepath.IsAbs(s) {
		return "", false
	}
	return filepath.Clean(s), true
}

// pasted adds the files pasted in the body, in their order, as if they
// had been dropped; if one of them is not an existing file (then the
// text was no list of files, as "/etc is where…" is not), it pastes text
// instead. The files are looked at in the background: a path may be on
// a slow network share.
func (f *composeFiles) pasted(paths []string, text string) {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	f.adding(names, func() []func() {
		for _, p := range paths {
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				return []func(){func() { f.c.body.insert(text) }}
			}
		}
		out := make([]func(), len(paths))
		for i, p := range paths {
			out[i] = f.readDropped(names[i], func() (io.ReadCloser, error) { return os.Open(p) })
		}
		return out
	})
}
