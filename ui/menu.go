package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
)

// command is one menu entry with its shortcut: navigation as data. Each is
// in the window's main menu (whose shortcuts work whatever has the focus)
// and registered on the canvas.
type command struct {
	label string
	key   fyne.KeyName
	run   func()
}

func (u *UI) commands() (file, view []command) {
	tab := func(i int) func() {
		return func() { u.tabs.SelectIndex(i) }
	}
	file = []command{
		{lang.L("New item"), fyne.KeyN, u.newItem},
	}
	view = []command{
		{lang.L("Read"), fyne.Key1, tab(0)},
		{lang.L("Subscriptions"), fyne.Key2, tab(1)},
		{lang.L("Newsroom"), fyne.Key3, tab(2)},
		{lang.L("Admin"), fyne.Key4, tab(3)},
		{lang.L("Settings"), fyne.Key5, tab(4)},
		{"", "", nil},
		{lang.L("Search"), fyne.KeyF, func() {
			u.showRead()
			u.reader.focusSearch()
		}},
	}
	return file, view
}

func (u *UI) newItem() {
	u.tabs.Select(u.newsTab)
	u.newsTabs.SelectIndex(0)
	u.win.Canvas().Focus(u.compose.title)
}

// addMenu installs the main menu and the canvas shortcuts.
func (u *UI) addMenu() {
	file, view := u.commands()
	items := func(cmds []command) []*fyne.MenuItem {
		var out []*fyne.MenuItem
		for _, c := range cmds {
			if c.run == nil {
				out = append(out, fyne.NewMenuItemSeparator())
				continue
			}
			sc := &desktop.CustomShortcut{KeyName: c.key, Modifier: fyne.KeyModifierShortcutDefault}
			it := fyne.NewMenuItem(c.label, c.run)
			it.Shortcut = sc
			out = append(out, it)
			run := c.run
			u.win.Canvas().AddShortcut(sc, func(fyne.Shortcut) { run() })
		}
		return out
	}
	quit := fyne.NewMenuItem(lang.L("Quit"), u.quit)
	quit.IsQuit = true
	fileItems := append(items(file), fyne.NewMenuItemSeparator(), quit)
	u.win.SetMainMenu(fyne.NewMainMenu(
		fyne.NewMenu(lang.L("File"), fileItems...),
		fyne.NewMenu(lang.L("View"), items(view)...),
	))
}
