package ui

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// The files beside an item (issue 29): the attachments its text shows no
// picture of are listed under it with their name and size, to open with
// the program the system has for them (written to a temporary file
// first) or to save where the reader chooses. One still arriving says how
// far it is, a missing one that it is not here; neither can be opened.

// attachmentFiles lists an item's attachments that are not shown inline.
type attachmentFiles struct {
	u       *UI
	content *fyne.Container
}

func newAttachmentFiles(u *UI) *attachmentFiles {
	f := &attachmentFiles{u: u, content: container.NewVBox()}
	f.content.Hide()
	return f
}

// set lists atts but those in inline (by ref).
func (f *attachmentFiles) set(atts []app.Attachment, inline map[string]bool) {
	f.content.RemoveAll()
	for _, a := range atts {
		if inline[a.Ref] {
			continue
		}
		if len(f.content.Objects) == 0 {
			f.content.Add(widget.NewSeparator())
			f.content.Add(widget.NewLabelWithStyle(lang.L("Attachments"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		}
		f.content.Add(f.row(a))
	}
	f.content.Hidden = len(f.content.Objects) == 0
	f.content.Refresh()
}

// row is one attachment: its name, size or state, Open and Save as….
func (f *attachmentFiles) row(a app.Attachment) fyne.CanvasObject {
	name := widget.NewLabel(a.Name)
	name.Truncation = fyne.TextTruncateEllipsis
	info := widget.NewLabel(formatBytes(a.Size))
	info.Importance = widget.LowImportance
	open := widget.NewButtonWithIcon(lang.L("Open"), theme.FileApplicationIcon(), func() { f.u.openAttachment(a) })
	save := widget.NewButtonWithIcon(lang.L("Save as…"), theme.DocumentSaveIcon(), func() { f.u.saveAttachment(a) })
	switch a.State {
	case app.BlobArriving:
		info.SetText(fmt.Sprintf(lang.L("%s, arriving: %d%%"), formatBytes(a.Size), percent(a.Received, a.Size)))
		open.Disable()
		save.Disable()
	case app.BlobMissing:
		open.Disable()
		save.Disable()
		if a.Lost {
			info.SetText(fmt.Sprintf(lang.L("%s, missing: the network could not deliver it"), formatBytes(a.Size)))
			info.Importance = widget.WarningImportance
		} else {
			info.SetText(fmt.Sprintf(lang.L("%s, not on this computer yet"), formatBytes(a.Size)))
		}
		if fetcher, ok := f.u.b.(BlobFetcher); ok {
			label := lang.L("Download")
			if a.Lost {
				label = lang.L("Try again")
			}
			var get *widget.Button
			get = widget.NewButtonWithIcon(label, theme.DownloadIcon(), func() {
				get.Disable()
				info.SetText(lang.L("Asking the network…"))
				info.Importance = widget.MediumImportance
				f.u.w.Go(func() func() {
					err := fetcher.FetchBlob(a.Hash)
					return func() {
						if err != nil {
							info.SetText(errorText(err))
							get.Enable()
						}
					}
				})
			})
			return container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), container.NewHBox(info, get, save), name)
		}
	}
	if riskyToOpen(a.Name) {
		open.Disable() // a program: saved, never started from here
	}
	return container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), container.NewHBox(info, open, save), name)
}

func percent(n, of int64) int64 {
	if of <= 0 {
		return 0
	}
	return min(100, n*100/of)
}

// riskyToOpen reports whether a file of this name would run as a program
// when the system opens it: such attachments may be saved but not opened
// from Newsdesk with a click.
func riskyToOpen(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".exe", ".com", ".bat", ".cmd", ".scr", ".pif", ".msi", ".msp", ".lnk", ".url",
		".js", ".jse", ".vbs", ".vbe", ".wsf", ".wsh", ".ps1", ".psm1", ".hta", ".cpl", ".reg",
		".jar", ".sh", ".bash", ".desktop", ".run", ".appimage", ".command", ".app", ".py", ".pl":
		return true
	}
	return false
}

// safeFileName is an attachment's name as a file name of its own: no
// directories, no control characters, never empty.
func safeFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	name = strings.Trim(name, " .")
	if name == "" {
		return "attachment"
	}
	return name
}

// openAttachment writes the attachment to a temporary file and opens it
// with the system's program for it.
func (u *UI) openAttachment(a app.Attachment) {
	if riskyToOpen(a.Name) {
		return
	}
	if u.tempDir == "" {
		dir, err := os.MkdirTemp("", "newsdesk-")
		if err != nil {
			u.reportError(lang.L("The attachment could not be opened"), err)
			return
		}
		u.tempDir = dir
	}
	dir := filepath.Join(u.tempDir, a.Hash[:min(len(a.Hash), 16)])
	u.w.Go(func() func() {
		path := filepath.Join(dir, safeFileName(a.Name))
		data, err := u.readBlob(a)
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err == nil {
			err = os.WriteFile(path, data, 0o600)
		}
		return func() {
			if err != nil {
				u.reportError(lang.L("The attachment could not be opened"), err)
				return
			}
			u.openLink(fileURL(path))
		}
	})
}

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) *url.URL {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/… on Windows
	}
	return &url.URL{Scheme: "file", Path: p}
}

// saveAttachment asks where to save the attachment and writes it there,
// off the UI thread.
func (u *UI) saveAttachment(a app.Attachment) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			u.reportError(lang.L("The attachment could not be saved"), err)
			return
		}
		if w == nil {
			return // cancelled
		}
		u.w.Go(func() func() {
			data, err := u.readBlob(a)
			if err == nil {
				_, err = w.Write(data)
			}
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			return func() {
				u.reportError(lang.L("The attachment could not be saved"), err)
			}
		})
	}, u.win)
	d.SetFileName(safeFileName(a.Name))
	d.Resize(fileDialogSize)
	d.Show()
}

// removeTempFiles removes the attachments written for other programs
// (when the window closes).
func (u *UI) removeTempFiles() {
	if u.tempDir != "" {
		_ = os.RemoveAll(u.tempDir)
		u.tempDir = ""
	}
}
