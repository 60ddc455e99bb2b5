//go:build !linux

package ui

import "os"

// trayAvailable reports whether to use the system tray: on Windows and
// macOS there always is one. NEWSDESK_NO_TRAY=1 turns it off.
func trayAvailable() bool { return os.Getenv("NEWSDESK_NO_TRAY") != "1" }
