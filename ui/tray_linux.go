package ui

import (
	"context"
	"os"
	"time"

	"github.com/godbus/dbus/v5"
)

// trayAvailable reports whether a StatusNotifier host is registered on the
// session D-Bus. Fyne's tray needs one: without it the icon never shows,
// and Fyne's systray panics on quit (fyne issue 6403). NEWSDESK_NO_TRAY=1
// turns the tray off. It may take up to a second: call it in the
// background.
func trayAvailable() bool {
	if os.Getenv("NEWSDESK_NO_TRAY") == "1" {
		return false
	}
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return false
	}
	defer conn.Close()
	if conn.Auth(nil) != nil || conn.Hello() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	const watcher = "org.kde.StatusNotifierWatcher"
	var owned bool
	if conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcher).Store(&owned) != nil || !owned {
		return false
	}
	var host dbus.Variant
	err = conn.Object(watcher, "/StatusNotifierWatcher").CallWithContext(ctx,
		"org.freedesktop.DBus.Properties.Get", 0, watcher, "IsStatusNotifierHostRegistered").Store(&host)
	if err != nil {
		return false
	}
	registered, _ := host.Value().(bool)
	return registered
}
