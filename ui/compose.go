package ui

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// previewDelay is how long typing must pause before the preview renders.
const previewDelay = 150 * time.Millisecond

// composer is the newsroom's compose screen: category, title, urgent flag,
// the Markdown body with a live preview, and publishing with its outcome.
// A correction is a draft with Supersedes set (see myPosts).
type composer struct {
	u          *UI
	category   *widget.Select
	catIDs     []string // parallel to category.Options
	title      *widget.Entry
	urgent     *widget.Check
	mustRead   *widget.Check   // readers confirm (mustread.go)
	audience   *widget.Entry   // optional network ranges (audience.go)
	picker     *audiencePicker // the named ranges beside it (audience_picker.go)
	expires    *widget.Entry   // optional expiry, whenLayout in local time
	at         *widget.Entry   // optional publication time, whenLayout in local time (scheduled.go)
	body       *bodyEntry      // pastes files (compose_paste.go)
	preview    *markdownText
	previewDeb debouncer
	publish    *widget.Button
	clear      *widget.Button
	problem    *widget.Label                // validation: the draft's first problem; by the Publish button unless a note shows it
	notes      map[news.Field]*widget.Label // the problem under its field, for the fields on this screen
	outcome    *widget.Label                // what became of the last publication
	banner     *fyne.Container
	bannerText *widget.Label
	files      *composeFiles // pictures and files (compose_attach.go)

	supersedes uuid.UUID
	busy       bool
	// shownCategory is the category the shown problem is about: choosing
	// another clears the problem, re-selecting the same one does not.
	shownCategory string

	content fyne.CanvasObject
}

func newComposer(u *UI) *composer {
	c := &composer{u: u}
	c.previewDeb = debouncer{w: u.w, delay: previewDelay}
	c.notes = map[news.Field]*widget.Label{}
	for _, f := range []news.Field{news.FieldCategory, news.FieldTitle, news.FieldAt, news.FieldExpires, news.FieldAudience, news.FieldBody, fieldAttachments} {
		c.notes[f] = wrappedLabel("", widget.DangerImportance)
		c.notes[f].Hide()
	}
	c.category = widget.NewSelect(nil, func(string) {
		id := c.categoryID()
		if id == c.shownCategory {
			// setCatalog keeping the choice (the catalog or the roles
			// were told again): the problem the user reads stays.
			return
		}
		c.shownCategory = id
		c.showProblem(draftProblem{})
		if c.files != nil {
			// The network's attachment cap may differ by category.
			c.files.refresh()
			if p := c.files.problem(); p != "" {
				c.showProblem(draftProblem{field: fieldAttachments, text: p})
			}
		}
	})
	c.category.PlaceHolder = lang.L("Choose a category")
	c.title = widget.NewEntry()
	c.title.SetPlaceHolder(lang.L("A short, clear headline"))
	c.title.OnChanged = func(string) { c.showProblem(draftProblem{}); c.previewDeb.call(c.renderPreview) }
	c.urgent = widget.NewCheck(lang.L("Urgent (notifies every reader)"), nil)
	c.mustRead = widget.NewCheck(lang.L("Must read (readers confirm)"), nil)
	c.expires = widget.NewEntry()
	c.expires.SetPlaceHolder(fmt.Sprintf(lang.L("Never (or %s, local time)"), whenHint))
	c.expires.OnChanged = func(string) { c.showProblem(draftProblem{}) }
	c.at = widget.NewEntry()
	c.at.SetPlaceHolder(fmt.Sprintf(lang.L("Now (or %s, local time)"), whenHint))
	c.at.OnChanged = func(string) { c.showProblem(draftProblem{}) }
	c.audience = newAudienceEntry(func() { c.showProblem(draftProblem{}); c.picker.fieldChanged() })
	c.picker = newAudiencePicker(c.audience)
	c.body = newBodyEntry()
	c.body.SetPlaceHolder(lang.L("Write the item in Markdown: **bold**, *italic*, - lists, [links](https://…)"))
	c.body.OnChanged = func(string) { c.previewDeb.call(c.renderPreview) }
	c.preview = newMarkdownText()
	c.files = newComposeFiles(c)
	c.body.pasteFiles = c.files.pasted
	u.win.SetOnDropped(c.files.dropped)
	c.publish = widget.NewButtonWithIcon(lang.L("Publish"), theme.MailSendIcon(), c.doPublish)
	c.publish.Importance = widget.HighImportance
	c.clear = widget.NewButtonWithIcon(lang.L("Clear"), theme.ContentClearIcon(), c.reset)
	c.problem = wrappedLabel("", widget.DangerImportance)
	c.outcome = wrappedLabel("", widget.MediumImportance)
	c.bannerText = wrappedLabel("", widget.WarningImportance)
	c.banner = container.NewBorder(nil, nil, nil,
		widget.NewButton(lang.L("Not a correction"), func() { c.setSupersedes(uuid.Nil, "") }), c.bannerText)
	c.banner.Hide()
	c.renderPreview()

	form := widget.NewForm(
		widget.NewFormItem(lang.L("Category"), container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(c.urgent, c.mustRead), c.category), c.notes[news.FieldCategory])),
		widget.NewFormItem(lang.L("Title"), container.NewVBox(c.title, c.notes[news.FieldTitle])),
		widget.NewFormItem(lang.L("Publish at"), container.NewVBox(c.at, c.notes[news.FieldAt])),
		widget.NewFormItem(lang.L("Expires"), container.NewVBox(c.expires, c.notes[news.FieldExpires])),
		widget.NewFormItem(lang.L("Audience"), container.NewVBox(c.audience, c.picker.content, c.notes[news.FieldAudience])),
	)
	edit := container.NewBorder(widget.NewLabelWithStyle(lang.L("Text (Markdown)"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewVBox(c.notes[news.FieldBody], c.files.content, c.notes[fieldAttachments]), nil, nil, c.body)
	prev := container.NewBorder(widget.NewLabelWithStyle(lang.L("Preview"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil,
		container.NewVScroll(container.NewPadded(c.preview)))
	split := container.NewHSplit(edit, prev)
	bottom := container.NewVBox(c.problem,
		container.NewBorder(nil, nil, container.NewHBox(c.publish, c.clear), nil, c.outcome))
	c.content = container.NewPadded(container.NewBorder(container.NewVBox(form, c.banner), bottom, nil, nil, split))
	return c
}

// setCatalog offers the catalog's categories this installation may
// publish in (the roles), keeping the choice.
func (c *composer) setCatalog() {
	chosen := c.categoryID()
	c.catIDs = slices.DeleteFunc(slices.Clone(c.u.catalog.IDs()), func(id string) bool { return !c.u.roles.may(id) })
	opts := make([]string, len(c.catIDs))
	for i, id := range c.catIDs {
		opts[i] = strings.Repeat("    ", depth(id)) + categoryName(c.u.catalog, id)
	}
	c.category.SetOptions(opts)
	c.selectCategory(chosen)
	c.files.refresh() // the definition, and so its attachment caps, may have changed
}

func (c *composer) categoryID() string {
	if i := c.category.SelectedIndex(); i >= 0 && i < len(c.catIDs) {
		return c.catIDs[i]
	}
	return ""
}

func (c *composer) selectCategory(id string) {
	if i := slices.Index(c.catIDs, id); i >= 0 {
		c.category.SetSelectedIndex(i)
	} else {
		c.category.ClearSelected()
	}
}

func (c *composer) renderPreview() {
	md := c.body.Text
	if t := strings.TrimSpace(c.title.Text); t != "" {
		md = "# " + t + "\n\n" + md
	}
	if strings.TrimSpace(md) == "" {
		c.preview.Segments = []widget.RichTextSegment{&widget.TextSegment{
			Text: lang.L("The item appears here as readers will see it."), Style: previewHintStyle,
		}}
		c.preview.Refresh()
		return
	}
	if len(c.files.files) == 0 {
		c.u.setMarkdown(c.preview, md)
		return
	}
	pics := c.files.previewPictures()
	c.preview.Segments = markdownBody(md, pics)
	c.u.openLinksHere(c.preview.Segments)
	c.preview.Refresh()
	pics.load(c.preview.Refresh)
}

var previewHintStyle = widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, Inline: false, TextStyle: fyne.TextStyle{Italic: true}}

// whenLayout is how the compose screen's date/time fields are typed, and
// whenHint how the screen names that form to people.
const (
	whenLayout = "2006-01-02 15:04"
	whenHint   = "YYYY-MM-DD HH:MM"
)

// parseWhen reads a date/time field in local time; empty is the zero time.
func parseWhen(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.ParseInLocation(whenLayout, s, time.Local)
	return t, err == nil
}

// draft is what the form holds (a date/time that does not parse is left
// out: check reports it).
func (c *composer) draft() app.Draft {
	expires, _ := parseWhen(c.expires.Text)
	at, _ := parseWhen(c.at.Text)
	audience, _ := parseAudienceField(c.audience.Text)
	return app.Draft{
		Category: c.categoryID(), Title: strings.TrimSpace(c.title.Text), Body: c.body.Text,
		Urgent: c.urgent.Checked, Supersedes: c.supersedes, Expires: expires, At: at,
		MustRead: c.mustRead.Checked, Audience: audience, Attachments: c.files.draftAttachments(),
	}
}

// draftProblem is what stops a draft: in words, and the field it concerns
// (news.FieldAuthor is the display name in Settings; 0 is none).
type draftProblem struct {
	field news.Field
	text  string
}

// validate applies the item rules (news.Item.Validate) to the draft and
// returns the first problem in words, or "".
func (c *composer) validate(d app.Draft) string { return c.check(d).text }

// check is validate with the field of the problem.
func (c *composer) check(d app.Draft) draftProblem {
	if d.Category == "" {
		return draftProblem{news.FieldCategory, lang.L("Choose a category.")}
	}
	if !c.u.catalog.Has(d.Category) {
		return draftProblem{news.FieldCategory, fmt.Sprintf(lang.L("The category %q is no longer in the catalog."), d.Category)}
	}
	if !c.u.roles.may(d.Category) {
		return draftProblem{news.FieldCategory, fmt.Sprintf(lang.L("This installation may not publish in %s."), categoryName(c.u.catalog, d.Category))}
	}
	if _, ok := parseWhen(c.at.Text); !ok {
		return draftProblem{news.FieldAt, atFormatProblem(c.u.now())}
	}
	if _, ok := parseWhen(c.expires.Text); !ok {
		return draftProblem{news.FieldExpires, fmt.Sprintf(lang.L("Type the expiry as %s (for example %s), or leave it empty."), whenHint, c.u.now().Add(24*time.Hour).Format(whenLayout))}
	}
	if _, problem := parseAudienceField(c.audience.Text); problem != "" {
		return draftProblem{news.FieldAudience, problem}
	}
	if problem := c.files.problem(); problem != "" {
		return draftProblem{fieldAttachments, problem}
	}
	if len(c.files.pending) > 0 {
		return draftProblem{fieldAttachments, waitingProblem()}
	}
	now := c.u.now()
	it := news.Item{
		ID: news.IDAt(now, 1), Category: d.Category, Title: d.Title, Body: manifestLike(d.Body, d.Attachments),
		Author: c.u.settings.DisplayName, Source: news.IDAt(now, 2), Created: now, Supersedes: d.Supersedes,
		Expires: d.Expires, At: d.At,
	}
	if err := app.CheckSchedule(&it, now); err != nil {
		p, _ := fieldProblem(err)
		return p
	}
	p, _ := fieldProblem(it.Validate())
	return p
}

// manifestLike appends to body a manifest of the draft's attachments as
// long as the real one, whose hashes Publish computes: the item's rules
// see the references and the length they will see, without hashing every
// attachment on every keystroke.
func manifestLike(body string, das []app.DraftAttachment) string {
	atts := make([]news.Attachment, len(das))
	for i, d := range das {
		atts[i] = news.Attachment{Name: d.Name, MediaType: cmp.Or(d.MediaType, "application/octet-stream"), Size: max(int64(len(d.Data)), 1)}
	}
	return news.AppendManifest(body, atts)
}

// fieldProblem says an item rule a draft breaks (a *news.FieldError in
// err's chain) in words; false when err is not one.
func fieldProblem(err error) (draftProblem, bool) {
	var fe *news.FieldError
	if !errors.As(err, &fe) {
		return draftProblem{}, false
	}
	p := draftProblem{field: fe.Field}
	switch {
	case fe.Field == news.FieldTitle && fe.Rule == news.RuleRequired:
		p.text = lang.L("Give the item a title.")
	case fe.Field == news.FieldTitle && fe.Rule == news.RuleTooLong:
		p.text = fmt.Sprintf(lang.L("The title is too long: at most %d characters."), fe.Limit)
	case fe.Field == news.FieldBody && fe.Rule == news.RuleTooLong:
		p.text = fmt.Sprintf(lang.L("The text is too long: at most %d KB."), fe.Limit>>10)
	case fe.Field == news.FieldExpires && fe.Rule == news.RulePast:
		p.text = lang.L("The expiry has passed: choose a later time, or leave it empty.")
	case fe.Field == news.FieldExpires && fe.Rule == news.RuleNotAfter:
		p.text = lang.L("The item would expire before it is published: choose a later expiry.")
	case fe.Field == news.FieldAt:
		p.text = atProblem(fe)
	case fe.Field == news.FieldAuthor:
		p.text = fmt.Sprintf(lang.L("%s Correct it under Settings."), otherFieldText(fe))
	default:
		p.text = otherFieldText(fe) // errtext.go
	}
	return p, true
}

// showProblem shows p under its field, or by the Publish button when its
// field is not on this screen (the display name), or clears it for the
// zero problem.
func (c *composer) showProblem(p draftProblem) {
	c.problem.SetText(p.text)
	if _, ok := c.notes[p.field]; ok {
		c.problem.Hide()
	} else {
		c.problem.Show()
	}
	c.showAtField(p)
}

// showAtField shows p under its field if it is on this screen, and clears
// the other fields' notes.
func (c *composer) showAtField(p draftProblem) {
	for f, note := range c.notes {
		if f == p.field && p.text != "" {
			note.SetText(p.text)
			note.Show()
		} else {
			note.SetText("")
			note.Hide()
		}
	}
}

func (c *composer) doPublish() {
	if c.busy {
		return
	}
	d := c.draft()
	if p := c.check(d); p.text != "" {
		c.showProblem(p)
		return
	}
	c.showProblem(draftProblem{})
	c.busy = true
	c.publish.Disable()
	c.outcome.Importance = widget.MediumImportance
	c.outcome.SetText(lang.L("Publishing…"))
	c.u.w.Go(func() func() {
		res, err := c.u.b.Publish(d)
		return func() {
			c.busy = false
			c.publish.Enable()
			c.showOutcome(d, res, err)
			if err == nil {
				c.reset()
				c.u.posts.reload()
			}
		}
	})
}

// outcomeText says what became of a publication.
func outcomeText(d app.Draft, res app.PublishResult, catName string) (string, widget.Importance) {
	switch res.Outcome {
	case app.Delivered:
		return fmt.Sprintf(lang.L("Published “%s”: delivered to the tree."), d.Title), widget.SuccessImportance
	case app.Queued:
		return fmt.Sprintf(lang.L("Published “%s”: queued until connected. It goes out as soon as this computer rejoins the network."), d.Title), widget.WarningImportance
	case app.Suppressed:
		return fmt.Sprintf(lang.L("Published “%s”, but nobody subscribes to %s, so it was not sent (no subscribers)."), d.Title, catName), widget.WarningImportance
	case app.Scheduled:
		return scheduledOutcome(d.Title, d.At), widget.SuccessImportance
	}
	return fmt.Sprintf(lang.L("Published “%s”: %s."), d.Title, res.Outcome.String()), widget.MediumImportance
}

func (c *composer) showOutcome(d app.Draft, res app.PublishResult, err error) {
	if err != nil {
		c.outcome.Importance = widget.DangerImportance
		c.outcome.SetText(lang.L("Not published: ") + catalogErrorText(err, c.u.catalog))
		if p, ok := fieldProblem(err); ok {
			c.showAtField(p)
		}
		return
	}
	text, imp := outcomeText(d, res, categoryName(c.u.catalog, d.Category))
	c.outcome.Importance = imp
	c.outcome.SetText(text)
}

// reset empties the form but keeps the category.
func (c *composer) reset() {
	c.title.SetText("")
	c.body.SetText("")
	c.urgent.SetChecked(false)
	c.mustRead.SetChecked(false)
	c.expires.SetText("")
	c.at.SetText("")
	c.audience.SetText("")
	c.setSupersedes(uuid.Nil, "")
	c.files.clear()
	c.showProblem(draftProblem{})
	c.previewDeb.cancel()
	c.renderPreview()
}

func (c *composer) setSupersedes(id uuid.UUID, title string) {
	c.supersedes = id
	if id == uuid.Nil {
		c.banner.Hide()
		return
	}
	c.bannerText.SetText(fmt.Sprintf(lang.L("Correction of “%s”: readers see this item in its place."), title))
	c.banner.Show()
}

// correct prefills a correction of e.
func (c *composer) correct(e app.Entry) {
	it := e.Item
	c.selectCategory(it.Category)
	c.title.SetText(it.Title)
	c.body.SetText(stripManifest(it.Body)) // Publish appends the new one
	c.files.clear()
	c.files.correct(e)
	c.urgent.SetChecked(it.Urgent)
	c.mustRead.SetChecked(it.MustRead)
	c.audience.SetText(audienceText(it.Audience))
	c.setSupersedes(it.ID, it.Title)
	c.outcome.SetText("")
	c.previewDeb.cancel()
	c.renderPreview()
	c.u.tabs.Select(c.u.newsTab)
	c.u.newsTabs.SelectIndex(0)
	c.u.win.Canvas().Focus(c.title)
}
