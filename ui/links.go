package ui

import (
	"net/url"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Links in items open in the system's browser. Fyne's own handler logs a
// failure (no browser, no xdg-open, a refusing portal) and shows nothing;
// the reader tapped a link and deserves to hear that it did not open, and
// to get the address to open it another way.

// openLinksHere makes the links of segs (and of the paragraphs and lists
// in them) open through openLink.
func (u *UI) openLinksHere(segs []widget.RichTextSegment) {
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.HyperlinkSegment:
			link := v.URL
			v.OnTapped = func() { u.openLink(link) }
		case *widget.ParagraphSegment:
			u.openLinksHere(v.Texts)
		case *widget.ListSegment:
			u.openLinksHere(v.Items)
		}
	}
}

// openLink opens link in the system's browser, and says so when it cannot.
func (u *UI) openLink(link *url.URL) {
	if link == nil {
		return
	}
	open := u.opts.openURL
	if open == nil {
		open = fyne.CurrentApp().OpenURL // as Fyne's own handler does
	}
	if err := open(link); err != nil {
		u.showLinkFailure(link, err)
	}
}

// showLinkFailure tells the reader that link did not open, why, and offers
// its address to copy.
func (u *UI) showLinkFailure(link *url.URL, err error) {
	addr := widget.NewLabel(link.String())
	addr.Wrapping = fyne.TextWrapBreak
	addr.Selectable = true
	note := wrappedLabel("", widget.LowImportance)
	copyBtn := widget.NewButtonWithIcon(lang.L("Copy the address"), theme.ContentCopyIcon(), func() {
		u.app.Clipboard().SetContent(link.String())
		note.SetText(lang.L("Copied: paste it into a browser."))
	})
	content := container.NewVBox(
		wrappedLabel(lang.L("Newsdesk could not open this link in a browser: ")+errorText(err), widget.MediumImportance),
		addr, container.NewHBox(copyBtn), note,
	)
	d := dialog.NewCustom(lang.L("The link did not open"), lang.L("Close"), content, u.win)
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
}
