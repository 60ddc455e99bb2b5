package ui

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/trust"
)

// publishersEditor edits the trusted publishers of the network definition
// (admins only): a working copy of the list, to which a publisher is added
// by pasting its installation's public key (what `newsdesk key` prints or
// Settings shows), with a name and optionally the categories it may
// publish in. Saving signs the next version of the definition with this
// installation's key and publishes it to the network, merged onto whatever
// version other admins published meanwhile (trust.Merge).
type publishersEditor struct {
	u        *UI
	base     *trust.SignedNetwork // the version the working copy was loaded from
	latest   *trust.SignedNetwork // the version held now; base unless edits are pending
	pubs     []trust.Publisher    // working copy
	selected int
	busy     bool

	list          *widget.List
	key, name     *widget.Entry
	cats          *widget.CheckGroup
	catIDs        []string // parallel to cats.Options
	add, remove   *widget.Button
	save, revert  *widget.Button
	heading       *widget.Label
	open          *widget.Label // shown under open publishing
	problem, note *widget.Label
	content       fyne.CanvasObject
}

func newPublishersEditor(u *UI) *publishersEditor {
	p := &publishersEditor{u: u, selected: -1}
	p.list = widget.NewList(
		func() int { return len(p.pubs) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle(lang.L("Publisher name"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			key := widget.NewLabelWithStyle(lang.L("ed25519:…"), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			key.Truncation = fyne.TextTruncateEllipsis
			key.Importance = widget.LowImportance
			cats := widget.NewLabel(lang.L("all categories"))
			cats.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(container.NewBorder(nil, nil, name, nil, cats), key)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(p.pubs) {
				return
			}
			pub := p.pubs[i]
			box := o.(*fyne.Container)
			row := box.Objects[0].(*fyne.Container)
			row.Objects[0].(*widget.Label).SetText(p.catText(pub.Categories))
			row.Objects[1].(*widget.Label).SetText(pub.Name)
			box.Objects[1].(*widget.Label).SetText(trust.PublicKeyString(pub.Key))
		},
	)
	p.list.OnSelected = func(i widget.ListItemID) { p.selected = i; p.updateButtons() }
	p.list.OnUnselected = func(widget.ListItemID) { p.selected = -1; p.updateButtons() }

	p.key = widget.NewEntry()
	p.key.SetPlaceHolder(lang.L("ed25519:… (the key the publisher's Settings screen shows)"))
	p.key.TextStyle.Monospace = true
	p.name = widget.NewEntry()
	p.name.SetPlaceHolder(lang.L("e.g. Newsroom, HR team"))
	for _, e := range []*widget.Entry{p.key, p.name} {
		e.OnChanged = func(string) { p.problem.SetText("") }
	}
	p.cats = widget.NewCheckGroup(nil, nil)
	p.cats.Horizontal = true
	p.add = widget.NewButtonWithIcon(lang.L("Add publisher"), theme.ContentAddIcon(), p.addPublisher)
	p.remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), p.removeSelected)
	p.save = widget.NewButtonWithIcon(lang.L("Sign and publish"), theme.DocumentSaveIcon(), p.doSave)
	p.save.Importance = widget.HighImportance
	p.revert = widget.NewButtonWithIcon(lang.L("Revert"), theme.ContentUndoIcon(), func() { p.setWorking(p.latest) })
	p.heading = wrappedLabel("", widget.MediumImportance)
	p.open = wrappedLabel(lang.L("This network has open publishing: every member may publish in every category. The list below matters only if it is closed."), widget.WarningImportance)
	p.open.Hide()
	p.problem = wrappedLabel("", widget.DangerImportance)
	p.note = wrappedLabel("", widget.MediumImportance)

	intro := widget.NewLabel(lang.L("Publishers are the installations trusted to publish news. Add one by pasting its public key; leave every category unticked to let it publish in all of them. Saving signs a new version of the network definition and sends it to every computer."))
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem(lang.X("publishers.key", "Public key"), p.key), // short: the categories beside it are the editor's width
		widget.NewFormItem(lang.L("Name"), p.name),
		widget.NewFormItem(lang.L("Only in"), p.cats),
	)
	top := container.NewVBox(intro, p.heading, p.open)
	bottom := container.NewVBox(
		widget.NewSeparator(), form,
		container.NewBorder(nil, nil, p.add, p.remove),
		p.problem,
		container.NewBorder(nil, nil, container.NewHBox(p.save, p.revert), nil, p.note),
	)
	p.content = container.NewPadded(container.NewBorder(top, bottom, nil, nil, p.list))
	p.updateButtons()
	return p
}

// catText names a publisher's categories.
func (p *publishersEditor) catText(ids []string) string { return categoryList(p.u.catalog, ids) }

// setRoles takes the definition the backend holds. Unsaved edits are kept,
// and so is the version they were made on, which saving needs to tell the
// admin's changes from the other admins'.
func (p *publishersEditor) setRoles(r roles) {
	p.setCategories()
	if r.network == nil {
		return
	}
	if p.base != nil && p.dirty() {
		p.latest = r.network
		p.showHeading()
		p.updateButtons()
		return
	}
	p.setWorking(r.network)
}

// setCategories offers the catalog's categories as restrictions.
func (p *publishersEditor) setCategories() {
	chosen := p.chosen()
	p.catIDs = slices.Clone(p.u.catalog.IDs())
	opts := make([]string, 0, len(p.catIDs))
	for _, id := range p.catIDs {
		opts = append(opts, categoryName(p.u.catalog, id))
	}
	p.cats.Options = opts
	var sel []string
	for i, id := range p.catIDs {
		if slices.Contains(chosen, id) {
			sel = append(sel, opts[i])
		}
	}
	p.cats.SetSelected(sel)
	p.cats.Refresh()
}

// chosen returns the ticked category IDs.
func (p *publishersEditor) chosen() []string {
	var out []string
	for i, name := range p.cats.Options {
		if i < len(p.catIDs) && slices.Contains(p.cats.Selected, name) {
			out = append(out, p.catIDs[i])
		}
	}
	return out
}

func (p *publishersEditor) setWorking(sn *trust.SignedNetwork) {
	var pubs []trust.Publisher
	if sn != nil {
		pubs = sn.Clone().Publishers
	}
	p.rebase(sn, pubs)
	p.problem.SetText("")
}

// rebase makes sn the version the working copy pubs is edited from.
func (p *publishersEditor) rebase(sn *trust.SignedNetwork, pubs []trust.Publisher) {
	p.base, p.latest = sn, sn
	p.pubs = pubs
	p.list.UnselectAll()
	p.selected = -1
	p.list.Refresh()
	p.showHeading()
	p.updateButtons()
}

func (p *publishersEditor) showHeading() {
	sn := p.latest
	if sn == nil {
		p.heading.SetText("")
		p.open.Hide()
		return
	}
	text := fmt.Sprintf(lang.L("Network “%s”, version %d: %d publisher(s)."), sn.Name, sn.Version, len(sn.Publishers))
	if p.base != nil && p.base.Version != sn.Version {
		text += fmt.Sprintf(lang.L(" Your unsaved changes were made on version %d; saving merges them onto version %d."), p.base.Version, sn.Version)
	}
	p.heading.SetText(text)
	if sn.OpenPublishing {
		p.open.Show()
	} else {
		p.open.Hide()
	}
}

func (p *publishersEditor) dirty() bool {
	if p.base == nil {
		return false
	}
	return !samePublishers(p.pubs, p.base.Publishers)
}

func (p *publishersEditor) updateButtons() {
	setEnabled(p.remove, p.selected >= 0 && p.selected < len(p.pubs))
	setEnabled(p.add, p.latest != nil)
	setEnabled(p.save, p.dirty() && !p.busy)
	setEnabled(p.revert, p.dirty() && !p.busy)
	showUnsaved(p.note, p.dirty(), unsavedChanges())
}

// checkNewPublisher validates the form, returning the publisher or the
// problem in words.
func (p *publishersEditor) checkNewPublisher() (trust.Publisher, string) {
	text := strings.TrimSpace(p.key.Text)
	if text == "" {
		return trust.Publisher{}, lang.L("Paste the publisher's public key.")
	}
	key, err := trust.ParsePublicKey(text)
	if err != nil {
		return trust.Publisher{}, fmt.Sprintf(lang.L("That is not a valid public key: paste the whole key, which starts with %s."), "ed25519:")
	}
	if i := slices.IndexFunc(p.pubs, func(x trust.Publisher) bool { return bytes.Equal(x.Key, key) }); i >= 0 {
		return trust.Publisher{}, fmt.Sprintf(lang.L("This key is already a publisher (%s)."), p.pubs[i].Name)
	}
	if p.latest != nil && p.latest.IsRevoked(key) {
		return trust.Publisher{}, lang.L("This key has been revoked and cannot publish.")
	}
	name := strings.TrimSpace(p.name.Text)
	if problem := checkOneLineName(name, trust.MaxPublisherNameRunes, lang.L("Enter the publisher's name.")); problem != "" {
		return trust.Publisher{}, problem
	}
	return trust.Publisher{Name: name, Key: key, Categories: p.chosen()}, ""
}

func (p *publishersEditor) addPublisher() {
	pub, problem := p.checkNewPublisher()
	if problem != "" {
		p.problem.SetText(problem)
		return
	}
	p.pubs = append(p.pubs, pub)
	slices.SortFunc(p.pubs, func(a, b trust.Publisher) int { return bytes.Compare(a.Key, b.Key) })
	p.key.SetText("")
	p.name.SetText("")
	p.cats.SetSelected(nil)
	p.problem.SetText("")
	p.list.Refresh()
	p.updateButtons()
}

func (p *publishersEditor) removeSelected() {
	if p.selected < 0 || p.selected >= len(p.pubs) {
		return
	}
	p.pubs = slices.Delete(p.pubs, p.selected, p.selected+1)
	p.list.UnselectAll()
	p.selected = -1
	p.list.Refresh()
	p.updateButtons()
}

// doSave publishes the next version with the admin's changes to the
// publishers, merged onto the version held by then.
func (p *publishersEditor) doSave() {
	tb, ok := p.u.trustBackend()
	if !ok || p.busy || p.base == nil {
		return
	}
	base, mine, cat := p.base, slices.Clone(p.pubs), p.u.catalog
	p.busy = true
	p.updateButtons()
	p.note.SetText(lang.L("Signing and publishing…"))
	p.u.w.Go(func() func() {
		var onto *trust.SignedNetwork
		var merged []trust.Publisher
		next, err := publishEdit(tb, func(cur *trust.SignedNetwork, n *trust.Network) error {
			onto = cur
			var out *trust.Network
			var problems []string
			out, merged, problems = mergePublishersEdit(&base.Network, mine, cur, cat)
			switch {
			case len(problems) > 0:
				return &editConflict{problems: problems}
			case samePublishers(merged, cur.Publishers):
				return errUpToDate
			}
			*n = *out
			return nil
		})
		return func() {
			p.busy = false
			var conflict *editConflict
			switch {
			case errors.As(err, &conflict):
				p.rebase(onto, merged)
				p.problem.SetText(lang.L("Not published: ") + conflict.Error() + " " + conflictAdvice(fmt.Sprintf(lang.L("version %d"), onto.Version)))
				return
			case errors.Is(err, errUpToDate):
				p.setWorking(onto)
				p.note.SetText(fmt.Sprintf(lang.L("Nothing to publish: version %d already has these publishers."), onto.Version))
				return
			case err != nil:
				p.note.SetText("")
				p.problem.SetText(lang.L("The publishers were not saved: ") + errorText(err))
				p.updateButtons()
				return
			}
			p.setWorking(next)
			note := fmt.Sprintf(lang.L("Published as version %d of the network definition."), next.Version)
			if onto.Version != base.Version {
				note += mergedNote(fmt.Sprintf(lang.L("version %d"), onto.Version))
			}
			p.note.SetText(note)
			p.u.rolesRef.trigger()
		}
	})
}
