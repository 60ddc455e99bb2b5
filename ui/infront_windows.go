//go:build windows

package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
	"golang.org/x/sys/windows"
)

var setWindowPos = windows.NewLazySystemDLL("user32.dll").NewProc("SetWindowPos")

// hwndTopmost is SetWindowPos's HWND_TOPMOST, (HWND)-1.
var hwndTopmost = ^uintptr(0)

const (
	swpNoSize     = 0x0001
	swpNoMove     = 0x0002
	swpNoActivate = 0x0010
)

// keepInFront puts w above every window that is not itself always on top,
// without activating it. Windows does not let a program in the background
// take the foreground (RequestFocus is then refused, and the taskbar
// button flashes instead), and Newsdesk in the tray is such a program:
// without this, the urgent window could open behind the program the user
// works in. The order of windows is not restricted that way; the window
// comes above the others without taking the keyboard from them.
func keepInFront(w fyne.Window) {
	nw, ok := w.(driver.NativeWindow)
	if !ok {
		return
	}
	nw.RunNative(func(ctx any) {
		c, ok := ctx.(driver.WindowsWindowContext)
		if !ok || c.HWND == 0 {
			return
		}
		setWindowPos.Call(c.HWND, hwndTopmost, 0, 0, 0, 0, swpNoSize|swpNoMove|swpNoActivate)
	})
}
