//go:build linux

package winetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"newsdesk/app/apptest"
	"newsdesk/cli"
)

// Addresses. make test-windows runs the test in a network namespace of its
// own, where nothing else listens; the ports are kept apart from other
// tests' all the same.
const (
	seedAddr   = "127.0.0.1:17901"
	winAddr    = "127.0.0.1:17911"
	winControl = "127.0.0.1:17912"
	// The desktop app listens where an installed one does
	// (app.DefaultListen), and advertises loopback, the way to its seeds.
	desktopPort = "7400"
	desktopAddr = "127.0.0.1:" + desktopPort
)

// Where the MSI puts things (packaging/windows/newsdesk.wxs).
const (
	installDir  = `C:\Program Files\Newsdesk`
	desktopExe  = installDir + `\newsdesk.exe`
	regNewsdesk = `SOFTWARE\Newsdesk`
	regRun      = `SOFTWARE\Microsoft\Windows\CurrentVersion\Run`
	regAUMID    = `SOFTWARE\Classes\AppUserModelId\com.newsdesk.app`
	mainTitle   = "Newsdesk"
	urgentTitle = "Urgent — Newsdesk" // ui.takeoverTitle
)

// TestWindows: the Windows build, for real, under wine 10 and beside
// servants on Linux, in the order an IT department meets it.
//
//  1. headless: newsdesk-headless.exe joins the Linux network with an
//     invitation code, receives a Linux seed's items and publishes its own
//     (as a publisher the invitation made it), confirms a must-read item
//     (the Linux publisher sees the confirmation), retracts its post (gone
//     on Linux), stops on Ctrl+C, misses three items and catches up after
//     a restart.
//  2. install: msiexec /i /qn with NETWORK= and AUTOSTART=1; the files,
//     the registry values, the Apps and Features entry, the Start-menu
//     entry and the firewall rule's netsh command.
//  3. desktop: a logon (wineboot) starts newsdesk.exe from the Run key; it
//     opens on the reader with the preset network and joins the Linux
//     seed; subscribing and opening an item published on Linux, with the
//     keyboard, reaches the publisher as a read; a second start is refused
//     (data directory in use), and so is a second profile's (the port);
//     closing the window leaves Newsdesk in the tray, linked; there, with
//     another program in front, an urgent item opens its window over it
//     and notifies through PowerShell, its text escaped, and nothing breaks
//     when PowerShell fails; the tray menu opens the window again and
//     quits; the data directory and key are under %LOCALAPPDATA%\Newsdesk.
//  4. uninstall: msiexec /x /qn removes the program, its registry values,
//     its Apps and Features and Start-menu entries and its firewall rule,
//     and leaves the user's data.
//
// Screenshots and every program's log are kept in $NEWSDESK_WINE_OUT.
func TestWindows(t *testing.T) {
	h := newHarness(t)
	if err := portFree(desktopPort); err != nil {
		t.Fatalf("port %s, which the desktop app listens on, is taken (%v): make test-windows runs the test in a network namespace of its own", desktopPort, err)
	}
	n := h.linuxNetwork(t)
	step := func(name string, f func(*testing.T)) {
		start := time.Now()
		ok := t.Run(name, f)
		t.Logf("%s: %v", name, time.Since(start).Round(100*time.Millisecond))
		if !ok {
			t.FailNow()
		}
	}
	step("headless", func(t *testing.T) { h.headlessServant(t, n) })
	step("install", h.install)
	step("desktop", func(t *testing.T) { h.desktop(t, n) })
	step("uninstall", h.uninstall)
}

// linuxNet is the Linux side: a seed that is the network's admin and an
// archive, and a member.
type linuxNet struct {
	seed, member api
}

// serve is cli.ServeWithReady as apptest.ServeFunc: the Linux servants
// run in this process.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(apptest.Ready)) error {
	return cli.ServeWithReady(ctx, args, stdout, stderr, func(r cli.Ready) { ready(apptest.Ready{ID: r.ID, Control: r.Control}) })
}

func (h *harness) linuxNetwork(t *testing.T) *linuxNet {
	h.netFile = filepath.Join(h.dir, "network.json")
	var out, errOut bytes.Buffer
	if err := cli.NetworkCommand([]string{"init", "--name", "Wine test", "--out", h.netFile, "--seeds", seedAddr}, &out, &errOut); err != nil {
		t.Fatalf("network init: %v\n%s", err, errOut.String())
	}
	// The seed's key is the admin key: it signs invitations.
	seedDir := filepath.Join(h.dir, "linux-seed")
	if err := os.MkdirAll(seedDir, 0o700); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(h.netFile + ".admin-key")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seedDir, "identity.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	seed := apptest.StartServeIn(t, serve, seedDir, "--network", h.netFile, "--listen", seedAddr, "--archive")
	member := apptest.StartServeIn(t, serve, filepath.Join(h.dir, "linux-member"), "--network", h.netFile, "--subscribe", "it")
	member.WaitAttached(t)
	return &linuxNet{seed: api(seed.Control), member: api(member.Control)}
}

// servant is the Windows headless servant, running.
type servant struct {
	p   *proc
	api api
}

const servantData = `C:\servant`

func (h *harness) startServant(t *testing.T, name string) servant {
	t.Helper()
	s := servant{
		p: h.start(t, name, nil, "wine", winPath(h.headless), "serve", "--listen", winAddr, "--data", servantData,
			"--control", winControl, "--subscribe", "it"),
		api: winControl,
	}
	waitFor(t, network, "the Windows servant attached", func() error {
		if s.p.exited() {
			t.Fatalf("the Windows servant ended:\n%s", lastLines(s.p.output(), 30))
		}
		st, err := s.api.status()
		if err == nil && st.Up == "" {
			err = fmt.Errorf("no uplink")
		}
		return err
	})
	return s
}

// stop stops the servant with Ctrl+C and checks that it shut down cleanly.
func (s servant) stop(t *testing.T) {
	t.Helper()
	s.p.interrupt()
	if code := s.p.wait(quick); code != 0 {
		t.Fatalf("the Windows servant, interrupted, ended with %d:\n%s", code, lastLines(s.p.output(), 30))
	}
	if !strings.Contains(s.p.output(), `msg=stopped`) {
		t.Errorf("the Windows servant's log does not say it stopped:\n%s", lastLines(s.p.output(), 10))
	}
}

// waitTitles waits until a's items in category include want, in order.
func waitTitles(t *testing.T, a api, who, category string, want ...string) {
	t.Helper()
	waitFor(t, network, fmt.Sprintf("%q at %s", want, who), func() error {
		got, err := a.titles(category)
		if err != nil {
			return err
		}
		i := 0
		for _, g := range got {
			if i < len(want) && g == want[i] {
				i++
			}
		}
		if i < len(want) {
			return fmt.Errorf("%s has %q", who, got)
		}
		return nil
	})
}

func (h *harness) headlessServant(t *testing.T, n *linuxNet) {
	// An invitation made by the Linux seed: a publisher in "it".
	var inv struct {
		Code string `json:"code"`
	}
	n.seed.mustPost(t, "/v1/invites", `{"uses":1,"publisher":true,"categories":["it"]}`, http.StatusOK, &inv)
	r := h.mustRun(t, nil, "wine", winPath(h.headless), "join", inv.Code, "--data", servantData, "--name", "Windows servant")
	if !strings.Contains(r.stdout, "joined network") {
		t.Fatalf("join printed %q %q", r.stdout, r.stderr)
	}
	w := h.startServant(t, "servant")
	st, err := w.api.status()
	if err != nil {
		t.Fatal(err)
	}
	winKey := st.Key

	// Both ways. The member takes the Windows servant's items once it
	// holds the definition version that made it a publisher.
	n.seed.publish(t, map[string]any{"category": "it", "title": "From Linux", "body": "Published on Linux."})
	waitTitles(t, w.api, "the Windows servant", "it", "From Linux")
	waitFor(t, network, "the member to hold the definition with the new publisher", func() error {
		ms, err := n.member.status()
		if err == nil && ms.Network.Version < st.Network.Version {
			err = fmt.Errorf("version %d, the Windows servant's is %d", ms.Network.Version, st.Network.Version)
		}
		return err
	})
	fromWin := w.api.publish(t, map[string]any{"category": "it", "title": "From Windows", "body": "Published on Windows."})
	waitTitles(t, n.member, "the Linux member", "it", "From Linux", "From Windows")

	// A must-read item, confirmed on Windows: the Linux publisher sees it.
	mustRead := n.seed.publish(t, map[string]any{"category": "it", "title": "Read and confirm", "body": "Policy.", "mustRead": true})
	waitTitles(t, w.api, "the Windows servant", "it", "Read and confirm")
	w.api.mustPost(t, "/v1/ack", map[string]string{"id": mustRead}, http.StatusNoContent, nil)
	waitFor(t, network, "the confirmation at the Linux publisher", func() error {
		rc, err := n.seed.reach(mustRead)
		if err != nil {
			return err
		}
		if rc.Acknowledged < 1 || slices.ContainsFunc(rc.Pending, func(p struct{ Name, Key string }) bool { return p.Key == winKey }) {
			return fmt.Errorf("reach %+v (Windows key %s)", rc, winKey)
		}
		return nil
	})

	// The Windows servant retracts its post: gone on Linux.
	w.api.mustPost(t, "/v1/retract", map[string]string{"id": fromWin, "reason": "Posted by mistake"}, http.StatusOK, nil)
	waitFor(t, network, "the retraction on Linux", func() error {
		got, err := n.member.titles("it")
		if err == nil && slices.Contains(got, "From Windows") {
			err = fmt.Errorf("the member still lists %q", got)
		}
		return err
	})

	// Stopped, it misses three items; restarted, it holds them.
	w.stop(t)
	for i := 1; i <= 3; i++ {
		n.seed.publish(t, map[string]any{"category": "it", "title": fmt.Sprintf("While away %d", i), "body": "."})
	}
	w = h.startServant(t, "servant-restarted")
	waitTitles(t, w.api, "the restarted Windows servant", "it", "While away 1", "While away 2", "While away 3")
	w.stop(t)
}

func (h *harness) install(t *testing.T) {
	// netsh is a stub under wine that logs its arguments: the firewall
	// rule's command line shows in the install's output.
	r := h.mustRun(t, []string{"WINEDEBUG=fixme+netsh"}, "wine", "msiexec", "/i", winPath(h.msi), "/qn",
		"NETWORK="+winPath(h.netFile), "AUTOSTART=1")
	checkNetsh(t, r, "add", "rule", "name=Newsdesk", "dir=in", "action=allow", "protocol=TCP", "localport=7400",
		"program="+desktopExe, "profile=domain,private")
	for _, f := range []string{"newsdesk.exe", "newsdesk.ico"} {
		fi, err := os.Stat(h.cPath(installDir + `\` + f))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s\\%s: %v", installDir, f, err)
		}
	}
	regs := h.registry(t, regNewsdesk, regRun, regAUMID)
	want := map[string]map[string]any{
		regNewsdesk: {"NetworkDefinition": winPath(h.netFile), "StartMenuShortcut": float64(1)},
		regRun:      {"Newsdesk": `"` + desktopExe + `"`},
		regAUMID:    {"DisplayName": "Newsdesk", "IconUri": installDir + `\newsdesk.ico`},
	}
	for k, vals := range want {
		for name, v := range vals {
			if got := regs[k][name]; got != v {
				t.Errorf(`HKLM\%s %s = %v, want %v`, k, name, got, v)
			}
		}
	}
	entries := h.uninstallEntries(t)
	if len(entries) != 1 {
		t.Fatalf("Apps and Features entries named Newsdesk: %v", entries)
	}
	for _, e := range entries {
		if !strings.HasPrefix(fmt.Sprint(e["UninstallString"]), "MsiExec.exe /X{") || e["DisplayVersion"] == "" {
			t.Errorf("the Apps and Features entry: %v", e)
		}
	}
	if lnk := h.startMenuEntry(t); lnk == "" {
		t.Error("no Start-menu entry Newsdesk.lnk that starts newsdesk.exe")
	} else {
		t.Logf("Start-menu entry: %s", lnk)
	}
}

// registry reads keys under HKEY_LOCAL_MACHINE (nil: missing).
func (h *harness) registry(t *testing.T, keys ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	if err := json.Unmarshal([]byte(h.toolRun(t, append([]string{"reg"}, keys...)...)), &out); err != nil {
		t.Fatalf("wintool reg: %v", err)
	}
	return out
}

func (h *harness) uninstallEntries(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	if err := json.Unmarshal([]byte(h.toolRun(t, "uninstall", "Newsdesk")), &out); err != nil {
		t.Fatalf("wintool uninstall: %v", err)
	}
	return out
}

// startMenuEntry returns the path of the Start-menu shortcut to
// newsdesk.exe, "" when there is none. A per-machine install puts it in
// the common Start menu on Windows; wine's msi resolves ProgramMenuFolder
// to the installing user's, so both are looked at.
func (h *harness) startMenuEntry(t *testing.T) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(h.prefix, "drive_c", "users", "*", "AppData", "Roaming", "Microsoft", "Windows", "Start Menu", "Programs", "Newsdesk.lnk"))
	matches = append(matches, filepath.Join(h.cPath(`C:\ProgramData\Microsoft\Windows\Start Menu\Programs`), "Newsdesk.lnk"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err == nil && (bytes.Contains(b, []byte("newsdesk.exe")) || bytes.Contains(b, utf16le("newsdesk.exe"))) {
			return m
		}
	}
	return ""
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// checkNetsh checks that an msiexec run r ran netsh advfirewall firewall
// with args. wine's netsh is a stub that logs its arguments (with
// WINEDEBUG=fixme+netsh), each as L"…" with backslashes doubled.
func checkNetsh(t *testing.T, r result, args ...string) {
	t.Helper()
	var want []string
	for _, a := range append([]string{"advfirewall", "firewall"}, args...) {
		want = append(want, `L"`+strings.ReplaceAll(a, `\`, `\\`)+`"`)
	}
	if !strings.Contains(r.stderr, strings.Join(want, " ")) {
		t.Errorf("msiexec did not run netsh %s; its output:\n%s", strings.Join(want, " "), lastLines(r.stderr, 20))
	}
}

func (h *harness) uninstall(t *testing.T) {
	r := h.mustRun(t, []string{"WINEDEBUG=fixme+netsh"}, "wine", "msiexec", "/x", winPath(h.msi), "/qn")
	checkNetsh(t, r, "delete", "rule", "name=Newsdesk", "program="+desktopExe)
	if _, err := os.Stat(h.cPath(desktopExe)); !os.IsNotExist(err) {
		t.Errorf("%s after uninstalling: %v", desktopExe, err)
	}
	regs := h.registry(t, regNewsdesk, regRun, regAUMID)
	if regs[regNewsdesk] != nil || regs[regAUMID] != nil || regs[regRun]["Newsdesk"] != nil {
		t.Errorf("registry after uninstalling: %v", regs)
	}
	if e := h.uninstallEntries(t); len(e) != 0 {
		t.Errorf("Apps and Features after uninstalling: %v", e)
	}
	if lnk := h.startMenuEntry(t); lnk != "" {
		t.Errorf("%s after uninstalling", lnk)
	}
	// The user's data stays in the profile.
	for _, f := range []string{"identity.key", "newsdesk.db"} {
		if _, err := os.Stat(filepath.Join(h.dataDir(t), f)); err != nil {
			t.Errorf("the user's data after uninstalling: %v", err)
		}
	}
}

// dataDir is the Linux path of the wine user's %LOCALAPPDATA%\Newsdesk.
func (h *harness) dataDir(t *testing.T) string {
	t.Helper()
	return h.cPath(`C:\users\` + h.user(t) + `\AppData\Local\Newsdesk`)
}

// user is the wine user's name: the profile folder that is not Public.
func (h *harness) user(t *testing.T) string {
	t.Helper()
	entries, err := os.ReadDir(h.cPath(`C:\users`))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "Public" {
			return e.Name()
		}
	}
	t.Fatal("no user profile in the prefix")
	return ""
}
