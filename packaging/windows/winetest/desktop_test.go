//go:build linux

package winetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// desktopApp is the desktop app that the logon started.
type desktopApp struct {
	unixPID int    // the process on Linux
	pid     uint32 // its Windows process ID, which wintool reports
}

// mainWindow returns the app's main window, visible, or fails.
func (h *harness) mainWindow(t *testing.T, d desktopApp) window {
	t.Helper()
	return h.waitWindow(t, "the main window", func(w window) bool {
		return w.PID == d.pid && w.Title == mainTitle && w.Class == "GLFW30"
	})
}

func (h *harness) desktop(t *testing.T, n *linuxNet) {
	// PowerShell, which Fyne runs for every notification: wine has only a
	// stub; wintool in its place records each call.
	psDir := h.cPath(`C:\windows\system32\WindowsPowerShell\v1.0`)
	tool, err := os.ReadFile(h.tool)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(psDir, "powershell.exe"), tool, 0o755); err != nil {
		t.Fatal(err)
	}
	h.startX(t)

	// A logon: wine's session ends (wineserver -k), and wineboot starts
	// a new one, running what HKLM\…\Run lists, as Windows does at logon.
	h.run(command, nil, "wineserver", "-k") // fails when no server runs: nothing to end
	h.mustRun(t, nil, "wine", "wineboot")
	var d desktopApp
	waitFor(t, quick, "newsdesk.exe started from the Run key", func() error {
		pids := h.unixPIDs(desktopExe)
		if len(pids) != 1 {
			return fmt.Errorf("processes %v", pids)
		}
		d.unixPID = pids[0]
		return nil
	})
	w := h.waitWindow(t, "the main window", func(w window) bool { return w.Title == mainTitle && w.Class == "GLFW30" })
	d.pid = w.PID

	// The preset network: no wizard, and the servant joins the Linux
	// seed's network.
	desktopLink := func(a api) (received []string, ok bool) {
		st, err := a.status()
		if err != nil {
			return nil, false
		}
		for _, l := range st.Links {
			if l.Peer == desktopAddr {
				return l.Received, true
			}
		}
		return nil, false
	}
	linked := func() (received []string, ok bool) {
		for _, a := range []api{n.seed, n.member} {
			if r, ok := desktopLink(a); ok {
				return r, true
			}
		}
		return nil, false
	}
	waitFor(t, network, "the desktop app linked into the Linux network", func() error {
		if !alive(d.unixPID) {
			t.Fatal("newsdesk.exe ended")
		}
		if _, ok := linked(); !ok {
			return errNotYet
		}
		return nil
	})
	h.shot(t, "desktop-started", w.Client)

	// Subscribe with the keyboard: Subscriptions (Ctrl+2), the list (Tab),
	// its first check box (Tab: Company, the catalog's first category),
	// Space. The app takes the keys in order, whenever it draws.
	h.x(t, "key", "ctrl+2", "Tab", "Tab", "space")
	waitFor(t, network, "the desktop's subscription to company at its Linux neighbour", func() error {
		r, _ := linked()
		for _, c := range r {
			if c == "company" {
				return nil
			}
		}
		h.shot(t, "desktop-subscriptions", w.Client)
		return fmt.Errorf("received from the desktop: %q", r)
	})

	// An item published on Linux, opened with the keyboard: the publisher
	// learns that a reader opened it.
	welcome := n.seed.publish(t, map[string]any{"category": "company", "title": "Welcome from Linux",
		"body": "This item was published on **Linux** and read on Windows."})
	waitFor(t, network, "the item read on the desktop", func() error {
		h.x(t, "key", "ctrl+1", "Return") // Read, open the newest item
		rc, err := n.seed.reach(welcome)
		if err == nil && rc.Read < 1 {
			err = fmt.Errorf("reach %+v", rc)
		}
		return err
	})
	h.shot(t, "desktop-reading", w.Client)

	h.secondStarts(t, d)
	h.toTray(t, d, linked)
	h.urgent(t, n, d, psDir)
	h.trayMenu(t, d, linked)

	// The data directory, under %LOCALAPPDATA%.
	dir := h.dataDir(t)
	for _, f := range []string{"identity.key", "installation-id", "newsdesk.db"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the data directory: %v", err)
		}
	}
	// What wine reports of the ACL that the app gave the directory
	// (install.ProtectDataDir). wine keeps no DACL on files: it answers
	// with one made from the Unix mode, so this is a record, not a check.
	acl, err := h.run(command, nil, "wine", winPath(h.tool), "acl", `C:\users\`+h.user(t)+`\AppData\Local\Newsdesk`)
	if err != nil {
		t.Logf("data directory %s: wine did not report its ACL: %v", dir, err)
		return
	}
	t.Logf("data directory %s, ACL as wine reports it: %s", dir, strings.Join(strings.Fields(acl.stdout), " "))
}

// secondStarts: a second start on the same data directory is refused,
// with a window that says why; so is a second profile's start (another
// data directory) while the first runs, since the servant's port is taken.
func (h *harness) secondStarts(t *testing.T, d desktopApp) {
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"second-start", "data directory in use by another newsdesk", nil},
		{"second-profile", ":" + desktopPort + " is in use on this computer", []string{"--data", `C:\users\Public\Newsdesk-second`}},
	} {
		p := h.start(t, c.name, nil, append([]string{"wine", desktopExe}, c.args...)...)
		w := h.waitWindow(t, "the window of the "+c.name, func(w window) bool {
			return w.Title == mainTitle && w.PID != d.pid && w.Class == "GLFW30"
		})
		h.shot(t, c.name, w.Client)
		// A close that comes while the window is still being set up can
		// go unhandled on a busy machine: ask again rather than wait on it.
		code := -1
		for try := 0; code == -1 && try < 3; try++ {
			h.toolRun(t, "close", "-pid", fmt.Sprint(w.PID), mainTitle)
			code = p.wait(quick / 3)
		}
		if code != 1 || !strings.Contains(p.output(), c.want) {
			t.Errorf("%s: exit code %d, want 1 with %q in:\n%s", c.name, code, c.want, lastLines(p.output(), 10))
		}
		if !alive(d.unixPID) {
			t.Fatalf("the first newsdesk.exe ended at the %s", c.name)
		}
	}
}

// psCall is one call that the PowerShell stand-in recorded.
type psCall struct {
	Args    []string `json:"args"`
	Blocked bool     `json:"blocked"`
	Script  string   `json:"script"`
	Error   string   `json:"error"`
}

func psCalls(t *testing.T, dir string) []psCall {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "calls.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []psCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c psCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("calls.log: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// toTray: closing the main window hides it in the tray; the app and its
// servant's link stay.
func (h *harness) toTray(t *testing.T, d desktopApp, linked func() ([]string, bool)) {
	h.toolRun(t, "close", "-pid", fmt.Sprint(d.pid), mainTitle)
	waitFor(t, quick, "the main window hidden", func() error {
		for _, w := range h.windows(t) {
			if w.PID == d.pid && w.Title == mainTitle {
				return errNotYet
			}
		}
		return nil
	})
	if !alive(d.unixPID) {
		t.Fatal("closing the window ended newsdesk.exe: there is no tray")
	}
	if _, ok := linked(); !ok {
		t.Error("the servant's link closed with the window")
	}
}

// urgent: with the main window in the tray and another program in front
// (Notepad), an urgent item opens its window in front of it and notifies;
// the notification's script carries the title as text; with PowerShell
// failing (blocked by policy), the next urgent item still opens and the
// app runs on.
func (h *harness) urgent(t *testing.T, n *linuxNet, d desktopApp, psDir string) {
	notepad := h.start(t, "notepad", nil, "wine", "notepad")
	defer notepad.kill()
	h.waitWindow(t, "Notepad in front", func(w window) bool { return w.Class == "Notepad" && w.Foreground })

	title := `Evacuation drill at 11:00 $(Start-Process calc.exe) “Assembly point B”`
	n.seed.publish(t, map[string]any{"category": "company", "title": title, "body": "Leave by the stairs.", "urgent": true})
	u := h.waitWindow(t, "the urgent window", func(w window) bool { return w.Title == urgentTitle && w.PID == d.pid })
	h.shot(t, "desktop-urgent", u.Client)
	// Always on top (ui.keepInFront), which Windows grants a program in
	// the background; and the foreground, which wine grants and Windows
	// may not.
	if !u.Topmost {
		t.Error("the urgent window is not on top of other windows")
	}
	waitFor(t, quick, "the urgent item in front, over Notepad", func() error {
		for _, w := range h.windows(t) {
			if w.Foreground && w.Title == urgentTitle {
				return nil
			}
		}
		return errNotYet
	})

	var call psCall
	waitFor(t, quick, "the notification through PowerShell", func() error {
		calls := psCalls(t, psDir)
		if len(calls) == 0 {
			return errNotYet
		}
		call = calls[0]
		return nil
	})
	// Fyne's script: $title = "…" with the text as ui.toastSafe and Fyne
	// left it: the $ followed by a word joiner, the typographic quotes as
	// escaped plain ones.
	wantLine := "$title = \"Urgent: Evacuation drill at 11:00 $\u2060(Start-Process calc.exe) `\"Assembly point B`\"\""
	if !strings.Contains(call.Script, wantLine) {
		t.Errorf("the notification script does not carry the title as text; want the line\n%s\nin:\n%s", wantLine, call.Script)
	}
	if len(call.Args) < 3 || call.Args[0] != "-ExecutionPolicy" || call.Args[1] != "Bypass" {
		t.Errorf("PowerShell's arguments: %q", call.Args)
	}

	// PowerShell blocked: it fails at once. The app runs on; the next
	// urgent item still opens.
	if err := os.WriteFile(filepath.Join(psDir, "blocked"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n.seed.publish(t, map[string]any{"category": "company", "title": "Second alarm", "body": "Stay outside.", "urgent": true})
	waitFor(t, quick, "the blocked PowerShell call", func() error {
		calls := psCalls(t, psDir)
		if len(calls) < 2 || !calls[1].Blocked || !strings.Contains(calls[1].Script, "Second alarm") {
			return fmt.Errorf("calls %+v", calls)
		}
		return nil
	})
	// The window steps through both; closing it dismisses one at a time,
	// and after the last it is gone.
	closes := 0
	waitFor(t, quick, "the urgent window gone, its items dismissed", func() error {
		for _, w := range h.windows(t) {
			if w.Title == urgentTitle && w.PID == d.pid {
				closes++
				h.run(quick, nil, "wine", winPath(h.tool), "close", "-pid", fmt.Sprint(d.pid), urgentTitle)
				return fmt.Errorf("still open after %d closes", closes)
			}
		}
		return nil
	})
	if closes < 2 {
		t.Errorf("the urgent window closed after %d closes, with two urgent items in it", closes)
	}
	if !alive(d.unixPID) {
		t.Fatal("newsdesk.exe ended")
	}
}

// trayMenu: the tray menu's "Open Newsdesk" shows the main window again
// and "Quit" ends the app, which closes its links.
func (h *harness) trayMenu(t *testing.T, d desktopApp, linked func() ([]string, bool)) {
	// The tray: wine's explorer shows it as a small window of its own
	// (Shell_TrayWnd); the taskbar of Windows is always on top, so it is
	// raised before the click.
	menu := func(what string, at func(m window) (int32, int32)) {
		tray := h.waitWindow(t, "the tray", func(w window) bool { return w.Class == "Shell_TrayWnd" })
		var m window
		waitFor(t, quick, "the tray menu", func() error {
			h.x(t, "search", "--onlyvisible", "--class", "explorer.exe", "windowraise")
			h.click(t, tray.Client[0]+8, tray.Client[1]+10, 3) // the first icon, with the right button
			for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
				for _, w := range h.windows(t) {
					if w.Class == "#32768" && w.PID == d.pid {
						m = w
						return nil
					}
				}
			}
			return errNotYet // the click came before the icon: again
		})
		h.shot(t, "tray-menu-"+strings.ToLower(strings.Fields(what)[0]), [4]int32{0, 0, m.Rect[2] + 40, m.Rect[3] + 40})
		x, y := at(m)
		h.click(t, x, y, 1)
	}
	// The menu: "No unread items" (disabled), a separator, "Open
	// Newsdesk", a separator, "Quit".
	menu("Open Newsdesk", func(m window) (int32, int32) { return m.Client[0] + 30, (m.Client[1] + m.Client[3]) / 2 })
	h.mainWindow(t, d)
	menu("Quit", func(m window) (int32, int32) { return m.Client[0] + 30, m.Client[3] - 10 })
	waitFor(t, quick, "newsdesk.exe to end", func() error {
		if alive(d.unixPID) {
			return errNotYet
		}
		return nil
	})
	waitFor(t, network, "the desktop's link closed", func() error {
		if _, ok := linked(); ok {
			return errNotYet
		}
		return nil
	})
}
