package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/trust"
)

// seedEditor edits the seed list: the servants a new connection tries, in
// priority order (the first reachable one is the vertex). Addresses are
// validated as host:port, can be tested for reachability, and the list is
// saved to the store for the next connection. An admin's list is
// published as the next version of the network definition, merged onto
// whatever version other admins published meanwhile (trust.Merge: the
// list merges as a whole, its order being its meaning).
type seedEditor struct {
	u        *UI
	seeds    []string
	saved    []string
	selected int
	// base is the definition the list was loaded with (nil without one): an
	// admin's edit is the change from its seeds. latest is the one held now,
	// newer than base while unsaved edits wait.
	base, latest *trust.SignedNetwork
	probes       *prober
	tested       bool // the list was tested once when first shown

	list                  *widget.List
	addr                  *widget.Entry
	add, remove, up, down *widget.Button
	test, save, revert    *widget.Button
	problem, note         *widget.Label
	advice                *widget.Label // the census's advice on the list (census.go), hidden without any
	content               fyne.CanvasObject
}

func newSeedEditor(u *UI) *seedEditor {
	s := &seedEditor{u: u, selected: -1}
	s.probes = newProber(u, func() { s.list.Refresh() })
	s.list = widget.NewList(
		func() int { return len(s.seeds) },
		func() fyne.CanvasObject {
			n := widget.NewLabel("1.")
			addr := widget.NewLabelWithStyle("255.255.255.255:65535", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			probe := widget.NewLabel("")
			probe.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(n, addr), nil, probe)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			probe := c.Objects[0].(*widget.Label)
			left := c.Objects[1].(*fyne.Container)
			left.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%d.", i+1))
			left.Objects[1].(*widget.Label).SetText(s.seeds[i])
			text := s.probes.text(s.seeds[i])
			if i == 0 && text == "" {
				text = lang.L("first seed: the vertex when reachable")
			}
			probe.SetText(text)
			switch r, ok := s.probes.results[s.seeds[i]]; {
			case ok && r.OK:
				probe.Importance = widget.SuccessImportance
			case ok:
				probe.Importance = widget.DangerImportance
			default:
				probe.Importance = widget.LowImportance
			}
			probe.Refresh()
		},
	)
	s.list.OnSelected = func(i widget.ListItemID) { s.selected = i; s.updateButtons() }
	s.list.OnUnselected = func(widget.ListItemID) { s.selected = -1; s.updateButtons() }

	s.addr = widget.NewEntry()
	s.addr.SetPlaceHolder(lang.L("host:port, e.g. 10.1.0.5:7400"))
	s.addr.OnSubmitted = func(string) { s.addSeed() }
	s.addr.OnChanged = func(string) { s.problem.SetText("") }
	s.add = widget.NewButtonWithIcon(lang.L("Add"), theme.ContentAddIcon(), s.addSeed)
	s.remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.ContentRemoveIcon(), s.removeSeed)
	s.up = widget.NewButtonWithIcon(lang.L("Move up"), theme.MoveUpIcon(), func() { s.move(-1) })
	s.down = widget.NewButtonWithIcon(lang.L("Move down"), theme.MoveDownIcon(), func() { s.move(1) })
	s.test = widget.NewButtonWithIcon(lang.L("Test reachability"), theme.SearchIcon(), s.testAll)
	s.save = widget.NewButtonWithIcon(lang.L("Save"), theme.DocumentSaveIcon(), s.doSave)
	s.save.Importance = widget.HighImportance
	s.revert = widget.NewButtonWithIcon(lang.L("Revert"), theme.ContentUndoIcon(), s.revertEdits)
	s.problem = wrappedLabel("", widget.DangerImportance)
	s.note = wrappedLabel("", widget.MediumImportance)
	s.advice = wrappedLabel("", widget.WarningImportance)
	s.advice.Hide()

	intro := widget.NewLabel(lang.L("Seeds are the servants a connection starts from, in priority order: the first reachable seed is the root of the tree. The list is stored on this computer and used at the next connection."))
	intro.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(intro, s.advice)
	addRow := container.NewBorder(nil, nil, nil, s.add, s.addr)
	side := container.NewVBox(s.up, s.down, s.remove, widget.NewSeparator(), s.test)
	bottom := container.NewVBox(addRow, s.problem, container.NewBorder(nil, nil, container.NewHBox(s.save, s.revert), nil, s.note))
	s.content = container.NewPadded(container.NewBorder(top, bottom, nil, side, s.list))
	s.updateButtons()
	return s
}

// load reads the stored list and the definition it goes with (background).
func (s *seedEditor) load() {
	tb, trusted := s.u.trustBackend()
	s.u.w.Go(func() func() {
		seeds := s.u.b.Seeds()
		var sn *trust.SignedNetwork
		if trusted {
			sn = tb.Network()
		}
		return func() {
			s.base, s.latest = sn, sn
			s.saved = slices.Clone(seeds)
			s.setSeeds(seeds)
		}
	})
}

// revertEdits drops the unsaved edits and shows the list held now.
func (s *seedEditor) revertEdits() {
	if s.latest != s.base {
		s.load() // a newer definition stored its own list meanwhile
		return
	}
	s.setSeeds(s.saved)
}

// setNetwork is told the definition held. A newer version replaces the list
// on show when nothing is pending (adopting a definition also stores its
// seeds); unsaved edits are kept, with the version they were made on.
func (s *seedEditor) setNetwork(sn *trust.SignedNetwork) {
	if sn == nil || (s.latest != nil && s.latest.Version == sn.Version) {
		return
	}
	if s.dirty() {
		s.latest = sn
		s.updateButtons()
		return
	}
	s.load()
}

func (s *seedEditor) setSeeds(seeds []string) {
	s.seeds = slices.Clone(seeds)
	s.list.UnselectAll()
	s.selected = -1
	s.list.Refresh()
	s.problem.SetText("")
	s.updateButtons()
}

func (s *seedEditor) dirty() bool { return !slices.Equal(s.seeds, s.saved) }

func (s *seedEditor) updateButtons() {
	sel := s.selected >= 0 && s.selected < len(s.seeds)
	setEnabled(s.remove, sel)
	setEnabled(s.up, sel && s.selected > 0)
	setEnabled(s.down, sel && s.selected < len(s.seeds)-1)
	setEnabled(s.test, len(s.seeds) > 0)
	setEnabled(s.save, s.dirty())
	setEnabled(s.revert, s.dirty())
	unsaved := unsavedChanges()
	if s.dirty() && s.base != nil && s.latest.Version != s.base.Version {
		unsaved = fmt.Sprintf(lang.L("Unsaved changes, made on version %d of the network definition; saving merges them onto version %d."), s.base.Version, s.latest.Version)
	}
	showUnsaved(s.note, s.dirty(), unsaved)
}

// checkSeed validates an address for the list.
func checkSeed(addr string, list []string) error {
	if addr == "" {
		return shownError(lang.L("Enter an address as host:port."))
	}
	if err := app.CheckAddress(addr); err != nil {
		return shownErrorf(lang.L("%s is not a host:port address: %s."), addr, addrProblem(err))
	}
	if slices.Contains(list, addr) {
		return shownErrorf(lang.L("%s is already in the list."), addr)
	}
	return nil
}

func (s *seedEditor) addSeed() {
	addr := strings.TrimSpace(s.addr.Text)
	if err := checkSeed(addr, s.seeds); err != nil {
		s.problem.SetText(errorText(err))
		return
	}
	s.seeds = append(s.seeds, addr)
	s.addr.SetText("")
	s.problem.SetText("")
	s.list.Refresh()
	s.updateButtons()
	s.probes.probe(addr)
}

func (s *seedEditor) removeSeed() {
	if s.selected < 0 || s.selected >= len(s.seeds) {
		return
	}
	s.seeds = slices.Delete(s.seeds, s.selected, s.selected+1)
	s.list.UnselectAll()
	s.list.Refresh()
	s.updateButtons()
}

func (s *seedEditor) move(d int) {
	i, j := s.selected, s.selected+d
	if i < 0 || j < 0 || j >= len(s.seeds) {
		return
	}
	s.seeds[i], s.seeds[j] = s.seeds[j], s.seeds[i]
	s.list.Refresh()
	s.list.Select(j)
	s.updateButtons()
}

// shown tests the seeds the first time the editor comes on screen.
func (s *seedEditor) shown() {
	if !s.tested && len(s.seeds) > 0 {
		s.testAll()
	}
}

func (s *seedEditor) testAll() {
	s.tested = true
	for _, a := range s.seeds {
		s.probes.probe(a)
	}
	s.list.Refresh()
}

func (s *seedEditor) doSave() {
	seeds := slices.Clone(s.seeds)
	base := s.base
	s.save.Disable()
	s.note.SetText(lang.L("Saving…"))
	tb, signed := s.u.trustBackend()
	signed = signed && s.u.roles.admin
	s.u.w.Go(func() func() {
		// An admin's list goes into a new signed version of the network
		// definition (every servant uses it); the local list is set too, so
		// a servant still connecting uses it for its next round at once.
		var next, onto *trust.SignedNetwork
		var err error
		result := seeds
		if signed {
			next, err = publishEdit(tb, func(cur *trust.SignedNetwork, n *trust.Network) error {
				onto = cur
				from := &cur.Network
				if base != nil {
					from = &base.Network
				}
				out, problems := mergeSeedsEdit(from, seeds, cur)
				if len(problems) > 0 {
					return &editConflict{problems: problems}
				}
				result = out.Seeds
				if slices.Equal(out.Seeds, cur.Seeds) {
					return errUpToDate
				}
				*n = *out
				return nil
			})
		}
		var conflict *editConflict
		if errors.Is(err, errUpToDate) {
			err = nil // the definition has the list already; this computer may not
		}
		if err == nil {
			err = s.u.b.SetSeeds(result)
		}
		return func() {
			switch {
			case errors.As(err, &conflict):
				s.base, s.latest = onto, onto
				if len(onto.Seeds) > 0 {
					s.saved = slices.Clone(onto.Seeds)
				}
				s.updateButtons()
				s.problem.SetText(lang.L("Not published: ") + conflict.Error() + " " + conflictAdvice(fmt.Sprintf(lang.L("version %d"), onto.Version)))
				return
			case err != nil:
				s.note.SetText("")
				s.problem.SetText(lang.L("The seed list was not saved: ") + errorText(err))
				s.updateButtons()
				return
			}
			s.saved = slices.Clone(result)
			s.setSeeds(result)
			switch {
			case next != nil:
				s.base, s.latest = next, next
				note := fmt.Sprintf(lang.L("Published as version %d of the network definition. The new list is used at the next connection."), next.Version)
				if base != nil && onto.Version != base.Version {
					note += mergedNote(fmt.Sprintf(lang.L("version %d"), onto.Version))
				}
				s.note.SetText(note)
				s.u.rolesRef.trigger()
			case onto != nil:
				s.base, s.latest = onto, onto
				s.note.SetText(fmt.Sprintf(lang.L("Saved. Version %d of the network definition already has this list; it is used at the next connection."), onto.Version))
			default:
				s.note.SetText(lang.L("Saved. The new list is used at the next connection."))
			}
		}
	})
}

// setAdvice shows what the network's census says of the seed list: seeds
// away for a day, seeds carrying most leaves.
func (s *seedEditor) setAdvice(census *app.Census) {
	var notes []string
	if census != nil {
		notes = seedNotes(*census)
	}
	text := strings.Join(notes, "\n")
	if text == s.advice.Text {
		return
	}
	s.advice.SetText(text)
	if text == "" {
		s.advice.Hide()
	} else {
		s.advice.Show()
	}
}
