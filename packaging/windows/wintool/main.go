//go:build windows

// Command wintool is the Windows side of `make test-windows`: it runs under
// wine beside the Newsdesk programs and reports what a Windows user or
// administrator would look at, as JSON on stdout.
//
//	wintool windows            the top-level windows: title, class, process, rectangle, visible, foreground, topmost
//	wintool close [-pid N] T   asks the visible windows titled T (of process N) to close, as the title bar's X does
//	wintool acl PATH           the DACL of PATH in SDDL, and the current user's SID
//	wintool reg KEY...         the values of HKEY_LOCAL_MACHINE\KEY (64-bit view), null for a missing key
//	wintool uninstall NAME     the Apps and Features entries (HKLM …\Uninstall\*) whose DisplayName is NAME
//
// Copied as powershell.exe, it stands in for PowerShell, which wine does not
// have: it records each call (arguments, and the script Fyne's notification
// code writes and names on the command line) as one JSON line in calls.log
// beside itself, and fails like a PowerShell that policy blocks when a file
// named "blocked" lies beside it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

func main() {
	if strings.EqualFold(filepath.Base(os.Args[0]), "powershell.exe") || strings.EqualFold(filepath.Base(os.Args[0]), "powershell") {
		os.Exit(powershell(os.Args[1:]))
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "wintool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: wintool windows | close [-pid N] TITLE | acl PATH | reg KEY...")
	}
	switch args[0] {
	case "windows":
		ws, err := topWindows()
		if err != nil {
			return err
		}
		return emit(ws)
	case "close":
		fs := flag.NewFlagSet("close", flag.ContinueOnError)
		pid := fs.Uint("pid", 0, "only the windows of this process")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New("usage: wintool close [-pid N] TITLE")
		}
		return closeWindows(fs.Arg(0), uint32(*pid))
	case "acl":
		if len(args) != 2 {
			return errors.New("usage: wintool acl PATH")
		}
		return acl(args[1])
	case "uninstall":
		if len(args) != 2 {
			return errors.New("usage: wintool uninstall NAME")
		}
		return uninstallEntries(args[1])
	case "reg":
		out := map[string]map[string]any{}
		for _, k := range args[1:] {
			vals, err := regValues(k)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			out[k] = vals
		}
		return emit(out)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func emit(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

var (
	user32           = windows.NewLazySystemDLL("user32.dll")
	getWindowTextW   = user32.NewProc("GetWindowTextW")
	postMessageW     = user32.NewProc("PostMessageW")
	getWindowLongPtr = user32.NewProc("GetWindowLongPtrW")
	getWindowRect    = user32.NewProc("GetWindowRect")
	getClientRect    = user32.NewProc("GetClientRect")
	clientToScreen   = user32.NewProc("ClientToScreen")
)

const (
	wmClose      = 0x0010
	wsExTopmost  = 0x00000008
	maxTitleRune = 512
)

// gwlExStyle is GetWindowLongPtr's index of the extended style (-20).
var gwlExStyle = -20

// window is one top-level window as `wintool windows` reports it.
type window struct {
	Title      string `json:"title"`
	Class      string `json:"class"`
	PID        uint32 `json:"pid"`
	Visible    bool   `json:"visible"`
	Foreground bool   `json:"foreground"`
	Topmost    bool   `json:"topmost"`
	// Rect is left, top, right, bottom in screen pixels, the frame
	// included; Client is the client area's (the window's content: what
	// xdotool sees of it under wine without a window manager).
	Rect   [4]int32 `json:"rect"`
	Client [4]int32 `json:"client"`
	hwnd   windows.HWND
}

func topWindows() ([]window, error) {
	var out []window
	fg := windows.GetForegroundWindow()
	cb := syscall.NewCallback(func(h windows.HWND, _ uintptr) uintptr {
		w := window{hwnd: h, Visible: windows.IsWindowVisible(h), Foreground: h == fg}
		buf := make([]uint16, maxTitleRune)
		n, _, _ := getWindowTextW.Call(uintptr(h), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		w.Title = windows.UTF16ToString(buf[:n])
		if n, err := windows.GetClassName(h, &buf[0], int32(len(buf))); err == nil {
			w.Class = windows.UTF16ToString(buf[:n])
		}
		windows.GetWindowThreadProcessId(h, &w.PID)
		ex, _, _ := getWindowLongPtr.Call(uintptr(h), uintptr(gwlExStyle))
		w.Topmost = ex&wsExTopmost != 0
		getWindowRect.Call(uintptr(h), uintptr(unsafe.Pointer(&w.Rect)))
		getClientRect.Call(uintptr(h), uintptr(unsafe.Pointer(&w.Client)))
		clientToScreen.Call(uintptr(h), uintptr(unsafe.Pointer(&w.Client[0]))) // left, top
		clientToScreen.Call(uintptr(h), uintptr(unsafe.Pointer(&w.Client[2]))) // right, bottom
		out = append(out, w)
		return 1
	})
	if err := windows.EnumWindows(cb, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func closeWindows(title string, pid uint32) error {
	ws, err := topWindows()
	if err != nil {
		return err
	}
	n := 0
	for _, w := range ws {
		if w.Visible && w.Title == title && (pid == 0 || w.PID == pid) {
			if r, _, err := postMessageW.Call(uintptr(w.hwnd), wmClose, 0, 0); r == 0 {
				return fmt.Errorf("PostMessage to %q: %v", title, err)
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no visible window titled %q", title)
	}
	return emit(map[string]int{"closed": n})
}

func acl(path string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return err
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	return emit(map[string]string{"sddl": sd.String(), "user": user.User.Sid.String()})
}

func regValues(key string) (map[string]any, error) {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, key, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if errors.Is(err, registry.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer k.Close()
	names, err := k.ReadValueNames(-1)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, name := range names {
		if s, _, err := k.GetStringValue(name); err == nil {
			out[name] = s
		} else if n, _, err := k.GetIntegerValue(name); err == nil {
			out[name] = n
		} else {
			out[name] = "(" + err.Error() + ")"
		}
	}
	return out, nil
}

func uninstallEntries(name string) error {
	const base = `SOFTWARE\Microsoft\Windows\CurrentVersion\Uninstall`
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, base, registry.ENUMERATE_SUB_KEYS|registry.WOW64_64KEY)
	if err != nil {
		return err
	}
	defer k.Close()
	subs, err := k.ReadSubKeyNames(-1)
	if err != nil {
		return err
	}
	out := map[string]map[string]any{}
	for _, sub := range subs {
		vals, err := regValues(base + `\` + sub)
		if err == nil && vals["DisplayName"] == name {
			out[sub] = vals
		}
	}
	return emit(out)
}

// powershell records a call, as described in the package comment.
func powershell(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir := filepath.Dir(exe)
	_, statErr := os.Stat(filepath.Join(dir, "blocked"))
	blocked := statErr == nil
	call := map[string]any{"args": args, "blocked": blocked}
	// Fyne runs: -ExecutionPolicy Bypass "(Get-Content -Encoding UTF8 -Path FILE -Raw) | Invoke-Expression"
	if len(args) > 0 {
		launch := args[len(args)-1]
		if i, j := strings.Index(launch, "-Path "), strings.Index(launch, " -Raw"); i >= 0 && j > i {
			script, err := os.ReadFile(launch[i+len("-Path ") : j])
			if err != nil {
				call["error"] = err.Error()
			}
			call["script"] = string(script)
		}
	}
	line, _ := json.Marshal(call)
	f, err := os.OpenFile(filepath.Join(dir, "calls.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(line, '\n'))
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if blocked {
		fmt.Fprintln(os.Stderr, "Cannot invoke this script: the language mode of this session is restricted by policy.")
		return 1
	}
	return 0
}
