//go:build linux

package winetest

// The harness: wine through scripts/wine-chroot.sh, a scratch prefix of
// its own, an X server, wintool (packaging/windows/wintool) as the
// Windows-side eyes, and the control APIs of the servants.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Inputs, set by make test-windows (absolute paths).
const (
	envMSI      = "NEWSDESK_WINE_MSI"      // the MSI (make package-windows)
	envHeadless = "NEWSDESK_WINE_HEADLESS" // newsdesk-headless.exe
	envTool     = "NEWSDESK_WINE_TOOL"     // wintool.exe
	envChroot   = "NEWSDESK_WINE_CHROOT"   // scripts/wine-chroot.sh
	envOut      = "NEWSDESK_WINE_OUT"      // where screenshots and logs are kept
)

// Limits. Generous: two cores shared with other work, and wine starting
// Windows processes; each wait polls and returns as soon as its condition
// holds.
const (
	quick   = 30 * time.Second  // a local condition (a window, a file)
	network = 120 * time.Second // a condition across servants
	command = 3 * time.Minute   // one program run to its end
)

type harness struct {
	t       *testing.T
	chroot  string // scripts/wine-chroot.sh
	dir     string // scratch directory under /tmp: Z:\tmp\… to wine
	prefix  string // WINEPREFIX, in dir
	out     string // screenshots and logs, kept
	display string // ":N" once startX ran
	// Copies in dir of the programs under test, and the definition.
	msi, headless, tool, netFile string
	procs                        []*proc
}

// newHarness skips unless make test-windows set the inputs; from there on
// every problem fails the test.
func newHarness(t *testing.T) *harness {
	if os.Getenv(envMSI) == "" {
		t.Skip("run by make test-windows, which builds the MSI and sets " + envMSI)
	}
	h := &harness{t: t, chroot: os.Getenv(envChroot), out: os.Getenv(envOut)}
	for _, v := range []string{envMSI, envHeadless, envTool, envChroot, envOut} {
		if os.Getenv(v) == "" {
			t.Fatalf("%s is not set (make test-windows sets it)", v)
		}
	}
	if err := os.MkdirAll(h.out, 0o755); err != nil {
		t.Fatal(err)
	}
	// wine sees /tmp at the same path (drive Z:), so the scratch
	// directory is there whatever TMPDIR says.
	dir, err := os.MkdirTemp("/tmp", "newsdesk-wine-")
	if err != nil {
		t.Fatal(err)
	}
	h.dir, h.prefix = dir, filepath.Join(dir, "prefix")
	t.Cleanup(h.cleanup)
	copyTo := func(env, name string) string {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(os.Getenv(env))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h.msi = copyTo(envMSI, "Newsdesk.msi")
	h.headless = copyTo(envHeadless, "newsdesk-headless.exe")
	h.tool = copyTo(envTool, "wintool.exe")

	// A fresh prefix: a Windows of its own, nothing of an earlier run.
	start := time.Now()
	if _, err := h.run(command, nil, "wineboot", "-i"); err != nil {
		t.Fatalf("creating the wine prefix: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.prefix, "drive_c", "windows")); err != nil {
		t.Fatalf("wineboot made no prefix: %v", err)
	}
	t.Logf("wine prefix %s created in %v", h.prefix, time.Since(start).Round(time.Second))
	return h
}

// cleanup ends every process of the run, wine's and the X server, and
// removes the scratch directory (the prefix is most of a gigabyte).
func (h *harness) cleanup() {
	for _, p := range h.procs {
		p.kill()
	}
	if h.prefix != "" {
		ctx, cancel := context.WithTimeout(context.Background(), quick)
		h.command(ctx, nil, "wineserver", "-k").Run()
		cancel()
	}
	for _, p := range h.procs {
		p.wait(quick)
	}
	if h.t.Failed() {
		h.t.Logf("logs and screenshots: %s", h.out)
	}
	os.RemoveAll(h.dir)
}

// winPath is a Linux path under /tmp as a Windows program sees it.
func winPath(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }

// cPath is the Linux path of a path on the prefix's drive C:.
func (h *harness) cPath(win string) string {
	rest, ok := strings.CutPrefix(win, `C:\`)
	if !ok {
		h.t.Fatalf("cPath(%q): not on C:", win)
	}
	return filepath.Join(append([]string{h.prefix, "drive_c"}, strings.Split(rest, `\`)...)...)
}

// command is args run in the chroot, with the prefix, the display and the
// variables env (NAME=value, set inside the chroot).
func (h *harness) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	if len(env) > 0 {
		args = append(append([]string{"env"}, env...), args...)
	}
	cmd := exec.CommandContext(ctx, h.chroot, args...)
	cmd.Env = append(os.Environ(), "WINEPREFIX="+h.prefix)
	if h.display != "" {
		cmd.Env = append(cmd.Env, "DISPLAY="+h.display)
	}
	cmd.Dir = h.dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// result is what a program that ran to its end printed, and how it ended.
type result struct {
	stdout, stderr string
	code           int
}

// run runs args in the chroot to their end, within limit. Output goes to
// files, not pipes: a Windows program may leave a child holding them (a
// desktop process, wineserver).
func (h *harness) run(limit time.Duration, env []string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := h.command(ctx, env, args...)
	var files [2]*os.File
	for i := range files {
		f, err := os.CreateTemp(h.dir, "out-")
		if err != nil {
			return result{}, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		files[i] = f
	}
	cmd.Stdout, cmd.Stderr = files[0], files[1]
	err := cmd.Run()
	var r result
	for i, s := range []*string{&r.stdout, &r.stderr} {
		b, _ := os.ReadFile(files[i].Name())
		*s = string(b)
	}
	r.code = cmd.ProcessState.ExitCode()
	if err != nil {
		return r, fmt.Errorf("%s: %w\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, r.stdout, lastLines(r.stderr, 30))
	}
	return r, nil
}

// mustRun is run, failing the test on an error or a non-zero exit.
func (h *harness) mustRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r, err := h.run(command, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// proc is a program started in the chroot that runs beside the test. Its
// output goes to NAME.log in the output directory.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func (h *harness) start(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, log: filepath.Join(h.out, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = h.command(context.Background(), env, args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	h.procs = append(h.procs, p)
	return p
}

// exited reports whether p has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to limit for p to end and returns its exit code (-1 when
// it has not ended, or ended by a signal).
func (p *proc) wait(limit time.Duration) int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		return -1
	}
}

// interrupt sends p what Ctrl+C sends: wine turns SIGINT into a console
// control event, which Go delivers as os.Interrupt.
func (p *proc) interrupt() { p.cmd.Process.Signal(os.Interrupt) }

func (p *proc) kill() {
	if !p.exited() {
		p.cmd.Process.Kill()
	}
}

// output is what p has written so far.
func (p *proc) output() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitFor polls cond until it holds, for at most limit, and fails the test
// with cond's last error then.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %v", limit, what, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// The X server and the desktop.

// startX starts an Xvfb in the chroot on a display number it picks itself
// (-displayfd), so that runs side by side do not collide.
func (h *harness) startX(t *testing.T) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: "xvfb", log: filepath.Join(h.out, "xvfb.log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = h.command(context.Background(), nil, "Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	p.cmd.Stdout, p.cmd.Stderr, p.cmd.ExtraFiles = f, f, []*os.File{w}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	go func() {
		p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	h.procs = append(h.procs, p)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
		r.Close()
	}()
	select {
	case n := <-line:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb did not say its display (%q); log:\n%s", n, p.output())
		}
		h.display = ":" + n
	case <-time.After(quick):
		t.Fatalf("Xvfb did not start; log:\n%s", p.output())
	}
}

// x runs xdotool with args.
func (h *harness) x(t *testing.T, args ...string) string {
	t.Helper()
	return h.mustRun(t, nil, append([]string{"xdotool"}, args...)...).stdout
}

// click clicks button at a point of the screen.
func (h *harness) click(t *testing.T, x, y int32, button int) {
	t.Helper()
	h.x(t, "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", fmt.Sprint(button))
}

// shot saves the rectangle r (left, top, right, bottom) of the screen as
// NAME.png in the output directory, and checks that it shows something
// (a window that failed to draw is one flat colour).
func (h *harness) shot(t *testing.T, name string, r [4]int32) string {
	t.Helper()
	tmp := filepath.Join(h.dir, name+".png")
	geom := fmt.Sprintf("%dx%d+%d+%d", r[2]-r[0], r[3]-r[1], r[0], r[1])
	h.mustRun(t, nil, "sh", "-c", `xwd -root | convert xwd:- -crop "$0" +repage "$1"`, geom, tmp)
	colours := strings.TrimSpace(h.mustRun(t, nil, "convert", tmp, "-format", "%k", "info:").stdout)
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(h.out, name+".png")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(colours); n < 16 {
		t.Errorf("%s shows %s colours: nothing drawn", out, colours)
	}
	return out
}

// window is one top-level window as wintool reports it.
type window struct {
	Title      string   `json:"title"`
	Class      string   `json:"class"`
	PID        uint32   `json:"pid"`
	Visible    bool     `json:"visible"`
	Foreground bool     `json:"foreground"`
	Topmost    bool     `json:"topmost"`
	Rect       [4]int32 `json:"rect"`
	Client     [4]int32 `json:"client"`
}

// tool runs wintool with args and returns what it printed.
func (h *harness) toolRun(t *testing.T, args ...string) string {
	t.Helper()
	return h.mustRun(t, nil, append([]string{"wine", winPath(h.tool)}, args...)...).stdout
}

// windows lists the visible top-level windows.
func (h *harness) windows(t *testing.T) []window {
	t.Helper()
	var all, out []window
	if err := json.Unmarshal([]byte(h.toolRun(t, "windows")), &all); err != nil {
		t.Fatalf("wintool windows: %v", err)
	}
	for _, w := range all {
		if w.Visible {
			out = append(out, w)
		}
	}
	return out
}

// waitWindow waits for a visible window that match accepts.
func (h *harness) waitWindow(t *testing.T, what string, match func(window) bool) window {
	t.Helper()
	var found window
	waitFor(t, quick, what, func() error {
		ws := h.windows(t)
		for _, w := range ws {
			if match(w) {
				found = w
				return nil
			}
		}
		return fmt.Errorf("visible windows: %+v", ws)
	})
	return found
}

// unixPIDs lists the processes of this run's prefix whose command line
// (as wine shows a Windows program's) starts with cmdline.
func (h *harness) unixPIDs(cmdline string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.HasPrefix(cl, []byte(cmdline)) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, []byte("\x00WINEPREFIX="+h.prefix+"\x00")) {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether a Linux process exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// The control API.

// api is a servant's control API address.
type api string

func (a api) call(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, "http://"+string(a)+path, r)
	if err != nil {
		return 0, nil, err
	}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// get decodes the answer of a GET that must be 200 into v.
func (a api) get(path string, v any) error {
	code, body, err := a.call(http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, code, body)
	}
	return json.Unmarshal(body, v)
}

// mustPost posts body and decodes the answer, which must be want, into v
// (nil: ignored).
func (a api) mustPost(t *testing.T, path string, body any, want int, v any) {
	t.Helper()
	code, out, err := a.call(http.MethodPost, path, body)
	if err != nil || code != want {
		t.Fatalf("POST %s %v at %s = %d %s, %v; want %d", path, body, a, code, out, err, want)
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			t.Fatalf("POST %s: %v in %s", path, err, out)
		}
	}
}

// status is the part of /v1/status the test reads.
type status struct {
	ID    string `json:"id"`
	Up    string `json:"up"`
	Key   string `json:"key"`
	Links []struct {
		Peer     string   `json:"peer"`
		Received []string `json:"received"`
	} `json:"links"`
	Network struct {
		Version uint64 `json:"version"`
	} `json:"network"`
}

func (a api) status() (status, error) {
	var s status
	err := a.get("/v1/status", &s)
	return s, err
}

// item is the part of an item of /v1/items the test reads.
type item struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func (a api) titles(category string) ([]string, error) {
	var items []item
	if err := a.get("/v1/items?category="+category, &items); err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out, nil
}

// reach is GET /v1/reach's answer.
type reach struct {
	Subscribers, Delivered, Read, Acknowledged int
	Pending                                    []struct{ Name, Key string }
}

func (a api) reach(id string) (reach, error) {
	var r reach
	err := a.get("/v1/reach?id="+id, &r)
	return r, err
}

// publish publishes and returns the item's ID.
func (a api) publish(t *testing.T, p map[string]any) string {
	t.Helper()
	var r struct {
		ID string `json:"id"`
	}
	a.mustPost(t, "/v1/publish", p, http.StatusOK, &r)
	return r.ID
}

// portFree reports whether nothing listens on the loopback port.
func portFree(port string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return err
	}
	return ln.Close()
}

var errNotYet = errors.New("not yet")
