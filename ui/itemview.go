package ui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// itemView shows one item: title, author, time and category, an urgent or
// correction notice, and the Markdown body (sanitised, see markdown.go).
// The body is read from the backend in the background when the item
// opens.
type itemView struct {
	u *UI

	title      *widget.Label
	meta       *widget.Label
	urgent     *widget.Label
	correction *widget.Label
	original   *widget.Button // opens the corrected item
	markUnread *widget.Button
	keep       *widget.Button // keeps the item past the retention, or lets it go
	retract    *widget.Button // offered to admins and the item's publisher
	retracted  *widget.Label  // shown instead of the body once retracted
	body       *markdownText
	files      *attachmentFiles // the attachments not shown inline (attachments.go)
	atts       []app.Attachment // the open item's, as last read
	hint       *widget.Label
	page       *fyne.Container
	ack        *ackBanner // must-read items (mustread.go)

	id        uuid.UUID
	read      bool
	kept      bool
	sup       uuid.UUID
	corrKnown bool // the title of what it corrects is shown
	shown     *row // the open item's row

	onMarkUnread func(uuid.UUID)

	content fyne.CanvasObject
}

func newItemView(u *UI) *itemView {
	v := &itemView{
		u:          u,
		title:      widget.NewLabel(""),
		meta:       widget.NewLabel(""),
		urgent:     widget.NewLabel(lang.L("Urgent")),
		correction: widget.NewLabel(""),
		retracted:  widget.NewLabel(""),
		body:       newMarkdownText(),
		files:      newAttachmentFiles(u),
		hint:       widget.NewLabel(lang.L("Select an item to read it.\n\nUp and Down move through the list,\nEnter opens the item, Ctrl+F searches.")),
		ack:        newAckBanner(u),
	}
	v.title.Wrapping = fyne.TextWrapWord
	v.title.SizeName = theme.SizeNameSubHeadingText
	v.title.TextStyle.Bold = true
	v.meta.Wrapping = fyne.TextWrapWord
	v.meta.Importance = widget.LowImportance
	v.urgent.Importance = widget.DangerImportance
	v.urgent.TextStyle.Bold = true
	v.correction.Wrapping = fyne.TextWrapWord
	v.correction.Importance = widget.WarningImportance
	v.hint.Alignment = fyne.TextAlignCenter
	v.hint.Importance = widget.LowImportance
	v.original = widget.NewButtonWithIcon(lang.L("Show the original"), theme.HistoryIcon(), func() {
		if v.sup != uuid.Nil {
			v.showID(v.sup)
		}
	})
	v.markUnread = widget.NewButtonWithIcon(lang.L("Mark unread"), theme.MailComposeIcon(), func() {
		if v.onMarkUnread != nil && v.id != uuid.Nil {
			v.onMarkUnread(v.id)
		}
	})
	v.keep = widget.NewButtonWithIcon(keepText(), theme.DocumentSaveIcon(), v.toggleKeep)
	v.retract = widget.NewButtonWithIcon(lang.L("Retract…"), theme.DeleteIcon(), v.doRetract)
	v.retracted.Wrapping = fyne.TextWrapWord
	v.retracted.Importance = widget.DangerImportance
	v.original.Importance = widget.LowImportance
	v.markUnread.Importance = widget.LowImportance
	v.keep.Importance = widget.LowImportance
	v.retract.Importance = widget.LowImportance
	// The actions get a row of their own above the title: beside it, the
	// three of them left a reading pane's title a few words a line.
	header := container.NewVBox(
		v.ack.content,
		container.NewHBox(layout.NewSpacer(), v.retract, v.keep, v.markUnread),
		v.title,
		v.meta, v.urgent, v.retracted,
		container.NewBorder(nil, nil, nil, v.original, v.correction),
		widget.NewSeparator(),
	)
	v.page = container.NewBorder(header, nil, nil, nil, container.NewVScroll(container.NewPadded(container.NewVBox(v.body, v.files.content))))
	v.content = container.NewStack(container.NewCenter(v.hint), v.page)
	v.clear()
	return v
}

// clear shows the hint instead of an item.
func (v *itemView) clear() {
	v.id = uuid.Nil
	v.page.Hide()
	v.hint.Show()
}

// show opens r: the header at once from the row, the body when read.
func (v *itemView) show(r *row) {
	v.id, v.read, v.sup, v.shown = r.id, r.read, r.supersedes, r
	v.hint.Hide()
	v.page.Show()
	v.setHeader(r)
	v.body.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: lang.L("Loading…"), Style: widget.RichTextStyleParagraph}}
	v.body.Refresh()
	v.atts = nil
	v.files.set(nil, nil)
	v.loadBody(r.id)
}

// showID opens an item that need not be in the list (the original of a
// correction).
func (v *itemView) showID(id uuid.UUID) {
	v.id = id
	v.u.w.Go(func() func() {
		e, err := v.u.b.Item(id)
		return func() {
			if v.id != id {
				return
			}
			if err != nil {
				v.showError(err)
				return
			}
			r := rowOf(e)
			v.show(r)
		}
	})
}

func (v *itemView) setHeader(r *row) {
	v.title.SetText(r.title)
	meta := categoryName(v.u.catalog, r.category) + " · " + fullTime(r.created) + " (" + relTime(r.created, v.u.now()) + ")"
	if r.author != "" {
		meta = fmt.Sprintf(lang.L("By %s"), r.author) + " · " + meta
	}
	if r.audience != "" {
		ps, _ := parseAudienceField(r.audience)
		meta += " · " + audienceLabel(ps, v.u.roles.named)
	}
	v.meta.SetText(meta)
	if r.urgent {
		v.urgent.Show()
	} else {
		v.urgent.Hide()
	}
	if r.supersedes != uuid.Nil {
		v.corrKnown = r.correctionOf != ""
		v.correction.SetText(correctionText(r.correctionOf))
		v.correction.Show()
		v.original.Show()
	} else {
		v.correction.Hide()
		v.original.Hide()
	}
	v.setRead(r.read)
	v.setKept(r.kept)
	v.setRetracted(r)
	v.ack.set(r)
}

// setRetracted shows whether the open item is retracted, and offers the
// retraction to those who may make it.
func (v *itemView) setRetracted(r *row) {
	if r.retracted {
		text := lang.L("This item was retracted by its publisher or an admin.")
		switch {
		case r.expired:
			text = lang.L("This item has expired.")
		case r.retraction != "":
			text = fmt.Sprintf(lang.L("Retracted: %s"), r.retraction)
		}
		v.retracted.SetText(text)
		v.retracted.Show()
		v.markUnread.Hide()
		v.keep.Hide()
	} else {
		v.retracted.Hide()
		v.markUnread.Show()
		v.keep.Show()
	}
	if v.u.mayRetract(r) {
		v.retract.Show()
	} else {
		v.retract.Hide()
	}
}

// markRetracted shows the open item as retracted (or expired) now (an
// event said so).
func (v *itemView) markRetracted(rt *app.Retraction) {
	if v.shown == nil {
		return
	}
	r := *v.shown
	r.retracted, r.retraction, r.expired = true, rt.Reason, rt.Expired
	v.shown = &r
	v.setRetracted(&r)
	v.ack.set(&r)
	v.body.Segments = nil
	v.body.Refresh()
	v.files.set(nil, nil)
}

// doRetract asks for a reason and retracts the open item.
func (v *itemView) doRetract() {
	r := v.shown
	if r == nil {
		return
	}
	v.u.confirmRetract(r.id, r.title, func() {
		if v.id == r.id {
			v.u.reader.refreshOpen()
		}
	})
}

// setRead updates the read state of the shown item.
func (v *itemView) setRead(read bool) {
	v.read = read
	if read {
		v.markUnread.Enable()
	} else {
		v.markUnread.Disable()
	}
}

// The Keep button's words: what tapping it does, and what it did.
func keepText() string { return lang.L("Keep") }
func keptText() string { return lang.L("Kept") }

// correctionText is the banner of a correction of the item titled title
// ("" when not known).
func correctionText(title string) string {
	if title == "" {
		return lang.L("Correction of an earlier item: this item replaces it.")
	}
	return fmt.Sprintf(lang.L("Correction of “%s”: this item replaces it."), title)
}

// setKept shows whether the reader keeps the open item.
func (v *itemView) setKept(kept bool) {
	v.kept = kept
	if kept {
		v.keep.SetText(keptText())
		v.keep.SetIcon(theme.ConfirmIcon())
		v.keep.Importance = widget.MediumImportance
	} else {
		v.keep.SetText(keepText())
		v.keep.SetIcon(theme.DocumentSaveIcon())
		v.keep.Importance = widget.LowImportance
	}
	v.keep.Refresh()
}

// toggleKeep keeps the open item past the retention of the settings, or
// lets it go again.
func (v *itemView) toggleKeep() {
	id, keep := v.id, !v.kept
	if id == uuid.Nil {
		return
	}
	v.u.w.Go(func() func() {
		err := v.u.b.Keep(id, keep)
		return func() {
			if err != nil {
				v.u.reportError(lang.L("The item could not be kept"), err)
				return
			}
			if v.id == id {
				v.setKept(keep)
			}
		}
	})
}

func (v *itemView) loadBody(id uuid.UUID) {
	v.u.w.Go(func() func() {
		e, err := v.u.b.Item(id)
		var segs []widget.RichTextSegment
		var pics *pictures
		switch {
		case err == nil && e.Item.Newer != 0:
			segs = markdownSegments(newerItemBody())
		case err == nil:
			pics = newPictures(v.u, e.Attachments, v.u.readBlob)
			segs = markdownBody(e.Item.Body, pics) // parse off the UI thread
		}
		return func() {
			if v.id != id {
				return
			}
			if err != nil {
				v.showError(err)
				return
			}
			if e.Item.Supersedes != uuid.Nil && !v.corrKnown {
				v.fillCorrection(e)
			}
			if e.Retracted != nil {
				v.markRetracted(e.Retracted)
				return
			}
			v.u.openLinksHere(segs)
			v.body.Segments = segs
			v.body.Refresh()
			v.atts = e.Attachments
			if pics != nil {
				v.files.set(e.Attachments, pics.used)
				pics.load(func() {
					if v.id == id {
						v.body.Refresh()
					}
				})
			}
		}
	})
}

// attachmentsChanged shows the open item again when its attachments
// changed state (arrived, arriving further, missing).
func (v *itemView) attachmentsChanged(e app.Entry) {
	if e.Retracted != nil || slices.Equal(e.Attachments, v.atts) {
		return
	}
	v.loadBody(e.Item.ID)
}

// fillCorrection looks up the title of what e corrects when the row did
// not know it.
func (v *itemView) fillCorrection(e app.Entry) {
	id, sup := e.Item.ID, e.Item.Supersedes
	v.u.w.Go(func() func() {
		o, err := v.u.b.Item(sup)
		return func() {
			if err == nil && v.id == id {
				v.corrKnown = true
				v.correction.SetText(correctionText(o.Item.Title))
			}
		}
	})
}

func (v *itemView) showError(err error) {
	v.hint.Hide()
	v.page.Show()
	v.body.Segments = []widget.RichTextSegment{&widget.TextSegment{
		Text: fmt.Sprintf(lang.L("This item could not be read: %v"), errorText(err)), Style: widget.RichTextStyleParagraph,
	}}
	v.body.Refresh()
}
