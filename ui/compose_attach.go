package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	fstorage "fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/imaging"
	"newsdesk/news"
)

// Compose's pictures and files (issue 29). "Add picture…" (or a picture
// dropped on the window) scales a photo for publication (imaging), adds
// it to the draft's attachments and puts a reference to it,
// ![name][att:N], at the cursor, where the preview shows it; "Attach
// file…" (or any other file dropped) adds a file that readers find
// beside the text. Each is listed with its size and a button that
// removes it, renumbering the references after it. Files copied in a
// file manager paste as files (compose_paste.go); a picture copied as an
// image cannot be pasted, since Fyne's clipboard holds text only.

const (
	// maxAttachments and maxAttachmentBytes are the item format's limits;
	// a network may lower the bytes (composeFiles.limit). Compose says so
	// before publishing.
	maxAttachments     = 32
	maxAttachmentBytes = 20 << 20
	// maxPictureRead bounds a picture read to be scaled, maxFileRead a
	// file read to be attached (beyond the limit: it is refused).
	maxPictureRead = 64 << 20
	maxFileRead    = maxAttachmentBytes
)

// attachmentListHeight is the most the list of attachments takes, about
// three rows; it scrolls beyond.
const attachmentListHeight = 124

// fieldAttachments is the problem note under the attachments: no field
// of an item's, a note of the compose screen's.
const fieldAttachments news.Field = -1

// draftFile is one of the draft's attachments, with what Compose shows of
// it.
type draftFile struct {
	app.DraftAttachment
	hash          string // SHA-256, hex: the preview's cache key
	picture       bool   // added as a picture: the body refers to it
	width, height int    // of a picture, in pixels
	original      int    // bytes before scaling; 0: not scaled
}

// composeFiles is the attachment part of the compose screen.
type composeFiles struct {
	c          *composer
	files      []draftFile
	list       *fyne.Container
	summary    *widget.Label
	addPicture *widget.Button
	attachFile *widget.Button
	failed     *widget.Label // a file that could not be added
	content    fyne.CanvasObject

	// pending are the files being read and scaled, listed as such until
	// they are added: a large photo takes seconds, and Publish waits.
	pending []pendingFiles
	nextJob int
}

// pendingFiles are the files one background job is adding, and once it
// has ended what adds them.
type pendingFiles struct {
	job     int
	names   []string
	done    bool
	applies []func()
}

func newComposeFiles(c *composer) *composeFiles {
	f := &composeFiles{c: c, list: container.NewVBox()}
	f.addPicture = widget.NewButtonWithIcon(lang.L("Add picture…"), theme.FileImageIcon(), f.pickPicture)
	f.attachFile = widget.NewButtonWithIcon(lang.L("Attach file…"), theme.FileIcon(), f.pickFile)
	f.summary = widget.NewLabel("")
	f.summary.Importance = widget.LowImportance
	f.failed = wrappedLabel("", widget.DangerImportance)
	f.failed.Hide()
	f.content = container.NewVBox(
		container.NewBorder(nil, nil, container.NewHBox(f.addPicture, f.attachFile), nil, f.summary),
		container.New(&cappedHeightLayout{inner: f.list, most: attachmentListHeight}, container.NewVScroll(f.list)),
		f.failed)
	f.refresh()
	return f
}

var pictureExtensions = []string{".jpg", ".jpeg", ".png", ".gif", ".JPG", ".JPEG", ".PNG", ".GIF"}

// fileDialogSize is the size the dialogs that choose a picture or a file
// or save an attachment open at (smaller when the window is): Fyne's
// dialog opens at its least, which shows a few files and breaks their
// names after eight letters.
var fileDialogSize = fyne.NewSize(880, 580)

func (f *composeFiles) pickPicture() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) { f.opened(r, err, true) }, f.c.u.win)
	d.SetFilter(fstorage.NewExtensionFileFilter(pictureExtensions))
	d.Resize(fileDialogSize)
	d.Show()
}

func (f *composeFiles) pickFile() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) { f.opened(r, err, false) }, f.c.u.win)
	d.Resize(fileDialogSize)
	d.Show()
}

// opened reads the file a dialog chose and adds it.
func (f *composeFiles) opened(r fyne.URIReadCloser, err error, picture bool) {
	if err != nil {
		f.showFailure("", err)
		return
	}
	if r == nil {
		return // cancelled
	}
	name := r.URI().Name()
	f.adding([]string{name}, func() []func() {
		defer r.Close()
		data, err := readAtMost(r, picture)
		if err != nil {
			return []func(){func() { f.showFailure(name, err) }}
		}
		return []func(){f.prepare(name, data, picture)}
	})
}

// dropped adds the files dropped on the window while Compose shows:
// pictures as pictures, anything else as files, in the order given.
func (f *composeFiles) dropped(_ fyne.Position, uris []fyne.URI) {
	u := f.c.u
	if u.tabs == nil || u.tabs.Selected() != u.newsTab || u.newsTabs.SelectedIndex() != 0 {
		return
	}
	names := make([]string, len(uris))
	for i, uri := range uris {
		names[i] = uri.Name()
	}
	// One job for them all: a job each would add them in the order
	// their reading and scaling happened to end.
	f.adding(names, func() []func() {
		out := make([]func(), len(uris))
		for i, uri := range uris {
			out[i] = f.readDropped(uri.Name(), func() (io.ReadCloser, error) { return openDropped(uri) })
		}
		return out
	})
}

// openDropped opens a dropped file; a folder of this computer is refused
// as one (app.ErrFolder), where reading it would fail with a system's
// message.
func openDropped(uri fyne.URI) (io.ReadCloser, error) {
	if uri.Scheme() == "file" {
		if st, err := os.Stat(uri.Path()); err == nil && st.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: uri.Path(), Err: app.ErrFolder}
		}
	}
	return fstorage.Reader(uri)
}

// readDropped reads a file dropped or pasted (background) and prepares
// it: as a picture if it is one, else as a file.
func (f *composeFiles) readDropped(name string, open func() (io.ReadCloser, error)) func() {
	r, err := open()
	if err != nil {
		return func() { f.showFailure(name, err) }
	}
	defer r.Close()
	data, err := readAtMost(r, true)
	if err != nil {
		return func() { f.showFailure(name, err) }
	}
	return f.prepare(name, data, imaging.MediaType(data) != "")
}

// adding runs load in the background, which reads and prepares the
// files named, and lists them as being added until it ends; then it runs
// what load returned (adding each file, or saying why not), unless the
// draft was cleared meanwhile. The jobs' results are applied in the
// order the jobs began, whichever ends first: a picture's reference
// names its place in the list, and the list is in the order chosen (the
// original's attachments of a correction first).
func (f *composeFiles) adding(names []string, load func() []func()) {
	f.nextJob++
	job := f.nextJob
	f.pending = append(f.pending, pendingFiles{job: job, names: names})
	f.refresh()
	f.c.u.w.Go(func() func() {
		applies := load()
		return func() {
			i := slices.IndexFunc(f.pending, func(p pendingFiles) bool { return p.job == job })
			if i < 0 {
				return // cleared meanwhile: not this draft's
			}
			f.pending[i].done, f.pending[i].applies = true, applies
			f.applyDone()
		}
	})
}

// applyDone applies the jobs that have ended, up to the first still
// running.
func (f *composeFiles) applyDone() {
	if len(f.pending) == 0 || !f.pending[0].done {
		return
	}
	for len(f.pending) > 0 && f.pending[0].done {
		applies := f.pending[0].applies
		f.pending = f.pending[1:]
		for _, apply := range applies {
			apply()
		}
	}
	f.refresh()
	if len(f.pending) == 0 && f.c.notes[fieldAttachments].Text == waitingProblem() {
		f.c.showProblem(draftProblem{field: fieldAttachments, text: f.problem()})
	}
}

// waitingProblem is what stops Publish while files are being added.
func waitingProblem() string {
	return lang.L("Some files are still being added: publish once they are listed.")
}

// tooLargeError: a file over Limit bytes, the most read to attach it (or,
// for a picture, to scale it).
type tooLargeError struct{ Limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("too large to attach (more than %d bytes)", e.Limit)
}

// readAtMost reads a picture (before scaling) or a file to attach, up to
// its bound.
func readAtMost(r io.Reader, picture bool) ([]byte, error) {
	limit := int64(maxFileRead)
	if picture {
		limit = maxPictureRead
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &tooLargeError{Limit: limit}
	}
	return data, nil
}

// add adds a picture or a file of the draft (the tests' way in, and the
// dialogs' and drops' after reading): prepared in the background.
func (f *composeFiles) add(name string, data []byte, picture bool) {
	f.adding([]string{name}, func() []func() { return []func(){f.prepare(name, data, picture)} })
}

// prepare scales a picture (background) and returns what adds it.
func (f *composeFiles) prepare(name string, data []byte, picture bool) func() {
	name = safeFileName(path.Base(strings.ReplaceAll(name, `\`, "/")))
	df := draftFile{DraftAttachment: app.DraftAttachment{Name: name, Data: data}, picture: picture}
	if picture {
		p, err := imaging.Prepare(data)
		if err != nil {
			return func() { f.showFailure(name, err) }
		}
		df.Data, df.MediaType, df.width, df.height = p.Data, p.MediaType, p.Width, p.Height
		if p.Scaled {
			df.original = p.Original
			if p.MediaType == imaging.JPEG && !strings.HasSuffix(strings.ToLower(name), ".jpg") && !strings.HasSuffix(strings.ToLower(name), ".jpeg") {
				df.Name = strings.TrimSuffix(name, path.Ext(name)) + ".jpg"
			}
		}
	} else if len(data) > maxFileRead {
		return func() { f.showFailure(name, &tooLargeError{Limit: maxFileRead}) }
	}
	sum := sha256.Sum256(df.Data)
	df.hash = hex.EncodeToString(sum[:])
	return func() { f.added(df) }
}

// added puts a prepared file into the draft, and a picture's reference at
// the body's cursor.
func (f *composeFiles) added(df draftFile) {
	f.failed.Hide()
	f.files = append(f.files, df)
	if df.picture {
		alt := strings.NewReplacer("[", "(", "]", ")").Replace(df.Name)
		ref := fmt.Sprintf("![%s][att:%d]", alt, len(f.files))
		f.c.body.insert(ref)
		// The dialog took the focus and gives it to nobody: back to the
		// text, where the publisher types on after the picture. Not when
		// they went to another field meanwhile (a photo takes seconds).
		if cv := fyne.CurrentApp().Driver().CanvasForObject(f.c.body); cv != nil && cv.Focused() == nil {
			cv.Focus(f.c.body)
		}
	}
	f.changed()
}

// textClipboard is a clipboard holding one text: it pastes a reference
// into the body as typing would, at the cursor, without touching the
// system's clipboard.
type textClipboard string

func (t textClipboard) Content() string { return string(t) }
func (textClipboard) SetContent(string) {}

func (f *composeFiles) showFailure(name string, err error) { showFailure(f.failed, name, err) }

// showFailure says on l why the file name ("" when the dialog did not
// say) could not be added.
func showFailure(l *widget.Label, name string, err error) {
	if name == "" {
		l.SetText(lang.L("The file could not be added: ") + errorText(err))
	} else {
		l.SetText(fmt.Sprintf(lang.L("“%s” could not be added: %s"), name, errorText(err)))
	}
	l.Show()
}

// remove takes the i-th attachment out of the draft, its pictures out of
// the body, and renumbers the references after it.
func (f *composeFiles) remove(i int) {
	if i < 0 || i >= len(f.files) {
		return
	}
	f.files = append(f.files[:i:i], f.files[i+1:]...)
	f.c.body.SetText(removeReference(f.c.body.Text, i+1))
	f.changed()
}

// attReference is a reference to an attachment in a body, with the
// picture's ![alt] before it if it is one.
var attReference = regexp.MustCompile(`(!\[[^\]\n]*\])?\[att:([0-9]+)\]`)

// removeReference removes the pictures of attachment n from body and
// counts the references to those after it down by one. A picture on a
// line of its own goes with its line and a blank line after it, as
// Add picture… is used between paragraphs: the text does not keep an
// empty paragraph where it was.
func removeReference(body string, n int) string {
	alone := regexp.MustCompile(`(?m)^[ \t]*!\[[^\]\n]*\]\[att:` + strconv.Itoa(n) + `\][ \t]*(?:\r?\n(?:[ \t]*\r?\n)?|$)`)
	body = alone.ReplaceAllString(body, "")
	return attReference.ReplaceAllStringFunc(body, func(m string) string {
		sub := attReference.FindStringSubmatch(m)
		k, err := strconv.Atoi(sub[2])
		switch {
		case err != nil || k < n:
			return m
		case k == n && sub[1] != "":
			return ""
		case k == n:
			return sub[1] // a link's label: the text stays
		}
		return sub[1] + "[att:" + strconv.Itoa(k-1) + "]"
	})
}

// total is the size of the draft's attachments.
func (f *composeFiles) total() int64 {
	var n int64
	for _, df := range f.files {
		n += int64(len(df.Data))
	}
	return n
}

// limit is the most bytes of attachments the draft may carry: the
// network's cap in the chosen category (trust.PublishLimits.AttachmentCap,
// which the backend enforces), else the item format's; 0 when the network
// allows none there.
func (f *composeFiles) limit() int64 {
	if sn := f.c.u.roles.network; sn != nil {
		return sn.Limits.AttachmentCap(f.c.categoryID())
	}
	return maxAttachmentBytes
}

// problem says what of the attachments stops the draft, or "".
func (f *composeFiles) problem() string {
	limit := f.limit()
	switch {
	case len(f.files) > maxAttachments:
		return fmt.Sprintf(lang.L("Too many attachments: an item has at most %d. Remove %d."), maxAttachments, len(f.files)-maxAttachments)
	case len(f.files) > 0 && limit == 0:
		return lang.L("The network allows no attachments in this category: remove them.")
	case f.total() > limit && limit < maxAttachmentBytes:
		return fmt.Sprintf(lang.L("The attachments are too large: %s in all, and the network allows at most %s in this category. Remove some."), formatBytes(f.total()), formatBytes(limit))
	case f.total() > limit:
		return fmt.Sprintf(lang.L("The attachments are too large: %s in all, at most %s. Remove some."), formatBytes(f.total()), formatBytes(limit))
	}
	return ""
}

// changed lists the attachments again, checks the limits and renders the
// preview.
func (f *composeFiles) changed() {
	f.refresh()
	f.c.showProblem(draftProblem{field: fieldAttachments, text: f.problem()})
	f.c.previewDeb.cancel()
	f.c.renderPreview()
}

// refresh lists the attachments with their sizes.
func (f *composeFiles) refresh() {
	f.list.RemoveAll()
	for i, df := range f.files {
		name := widget.NewLabel(df.Name)
		name.Truncation = fyne.TextTruncateEllipsis
		info := widget.NewLabel(fileInfo(df))
		info.Importance = widget.LowImportance
		icon := theme.FileIcon()
		if df.picture {
			icon = theme.FileImageIcon()
		}
		rm := widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), func() { f.remove(i) })
		rm.Importance = widget.LowImportance
		f.list.Add(container.NewBorder(nil, nil, widget.NewIcon(icon), container.NewHBox(info, rm), name))
	}
	f.listPending()
	if len(f.files) == 0 {
		f.summary.SetText("")
	} else {
		f.summary.SetText(fmt.Sprintf(lang.L("%d of %d attachments, %s of %s"), len(f.files), maxAttachments, formatBytes(f.total()), formatBytes(f.limit())))
	}
	f.list.Refresh()
}

// listPending lists the files being added, after those added.
func (f *composeFiles) listPending() {
	for _, p := range f.pending {
		for _, n := range p.names {
			name := widget.NewLabel(n)
			name.Truncation = fyne.TextTruncateEllipsis
			info := widget.NewLabel(lang.L("being added…"))
			info.Importance = widget.LowImportance
			f.list.Add(container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), info, name))
		}
	}
}

// fileInfo is what the list says of an attachment: a picture's pixels
// and bytes, and its bytes before scaling; a file's bytes.
func fileInfo(df draftFile) string {
	size := formatBytes(int64(len(df.Data)))
	switch {
	case df.picture && df.original > 0:
		return fmt.Sprintf(lang.L("%d × %d, %s (was %s)"), df.width, df.height, size, formatBytes(int64(df.original)))
	case df.picture:
		return fmt.Sprintf(lang.L("%d × %d, %s"), df.width, df.height, size)
	}
	return size
}

// draftAttachments are the draft's attachments, for Publish.
func (f *composeFiles) draftAttachments() []app.DraftAttachment {
	if len(f.files) == 0 {
		return nil
	}
	out := make([]app.DraftAttachment, len(f.files))
	for i, df := range f.files {
		out[i] = df.DraftAttachment
	}
	return out
}

// previewPictures are the draft's pictures for the preview, read from
// the draft.
func (f *composeFiles) previewPictures() *pictures {
	atts := make([]app.Attachment, len(f.files))
	data := make(map[string][]byte, len(f.files))
	for i, df := range f.files {
		mt := df.MediaType
		if mt == "" {
			mt = imaging.MediaType(df.Data)
		}
		atts[i] = app.Attachment{Ref: "att:" + strconv.Itoa(i+1), Hash: df.hash, Name: df.Name, MediaType: mt,
			Size: int64(len(df.Data)), State: app.BlobWhole, Received: int64(len(df.Data))}
		data[df.hash] = df.Data
	}
	return newPictures(f.c.u, atts, func(a app.Attachment) ([]byte, error) { return data[a.Hash], nil })
}

// clear empties the attachments.
func (f *composeFiles) clear() {
	f.files = nil
	f.pending = nil
	f.failed.Hide()
	f.refresh()
}

// correct takes the attachments of the item e corrects into the draft,
// read from the backend (background); those not here are left out, with
// their references, and the note says so.
func (f *composeFiles) correct(e app.Entry) {
	atts := e.Attachments
	if len(atts) == 0 {
		return
	}
	names := make([]string, len(atts))
	for i, a := range atts {
		names[i] = a.Name
	}
	u := f.c.u
	f.adding(names, func() []func() {
		files := make([]*draftFile, len(atts))
		for i, a := range atts {
			data, err := u.readBlob(a)
			if err != nil {
				continue
			}
			sum := sha256.Sum256(data)
			df := &draftFile{DraftAttachment: app.DraftAttachment{Name: a.Name, MediaType: a.MediaType, Data: data}, hash: hex.EncodeToString(sum[:]), picture: a.IsImage()}
			if df.picture {
				if mt, w, h, err := imaging.Config(data); err == nil && mt != "" {
					df.width, df.height = w, h
				}
			}
			files[i] = df
		}
		return []func(){func() {
			body, lost := f.c.body.Text, 0
			for i := len(files) - 1; i >= 0; i-- {
				if files[i] == nil {
					body = removeReference(body, i+1)
					lost++
				}
			}
			f.files = nil
			for _, df := range files {
				if df != nil {
					f.files = append(f.files, *df)
				}
			}
			if lost > 0 {
				f.c.body.SetText(body)
				f.failed.SetText(fmt.Sprintf(lang.N("%d attachments of the original are not on this computer and were left out.", lost), lost))
				f.failed.Show()
			}
			f.changed()
		}}
	})
}
