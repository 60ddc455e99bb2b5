package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"

	"newsdesk/assets"
)

// tray is the system-tray icon and its menu: the unread count (a disabled
// label), Open, and Quit. With a tray, closing the window only hides it and
// the servant keeps running; without one (no StatusNotifier host, see
// trayAvailable), closing the window quits.
type tray struct {
	desk   desktop.App
	menu   *fyne.Menu
	unread *fyne.MenuItem
	count  uint64
}

// setupTray checks for a tray in the background and installs it when
// there is one.
func (u *UI) setupTray() {
	if u.opts.desktop == nil || u.opts.trayOK == nil {
		return
	}
	u.w.Go(func() func() {
		if !u.opts.trayOK() {
			return nil
		}
		return func() {
			u.tray = newTray(u)
			if u.reader != nil {
				u.reader.countsRef.trigger()
			}
		}
	})
}

func newTray(u *UI) *tray {
	t := &tray{desk: u.opts.desktop}
	t.unread = fyne.NewMenuItem(lang.L("No unread items"), nil)
	t.unread.Disabled = true
	open := fyne.NewMenuItem(lang.L("Open Newsdesk"), u.showWindow)
	quit := fyne.NewMenuItem(lang.L("Quit"), u.quit)
	quit.IsQuit = true
	t.menu = fyne.NewMenu(mainTitle, t.unread, fyne.NewMenuItemSeparator(), open, fyne.NewMenuItemSeparator(), quit)
	t.desk.SetSystemTrayMenu(t.menu)
	t.desk.SetSystemTrayIcon(assets.Icon)
	// Closing the window hides it; the tray's Open brings it back.
	u.win.SetCloseIntercept(u.win.Hide)
	return t
}

func unreadLabel(n uint64) string {
	switch n {
	case 0:
		return lang.L("No unread items")
	}
	return fmt.Sprintf(lang.N("%d unread items", int(n)), n)
}

// setUnread updates the menu's count (a no-op without a tray).
func (t *tray) setUnread(n uint64) {
	if t == nil || n == t.count && t.unread.Label == unreadLabel(n) {
		return
	}
	t.count = n
	t.unread.Label = unreadLabel(n)
	t.desk.SetSystemTrayMenu(t.menu)
}
