//go:build unix

package docs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// defaultBlockTimeout bounds one block, from start to its last command. The
// blocks start a few servants each and wait for them over the control API;
// on an idle machine each takes a second or two.
const defaultBlockTimeout = time.Minute

// block is one marked shell block of a document.
type block struct {
	file    string // relative to the repository's top
	line    int    // of the opening fence, 1-based
	text    string // the commands, as written
	timeout time.Duration
}

func (b block) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var (
	markerRE = regexp.MustCompile(`^<!--\s*doctest(\s+[^>]*?)?\s*-->\s*$`)
	fenceRE  = regexp.MustCompile("^```(sh|bash)\\s*$")
	// fenceOpenRE finds the fence of any other code block.
	fenceOpenRE = regexp.MustCompile("^(```+|~~~+)")
	// loopbackRE finds the loopback addresses a block listens on or
	// talks to; their ports are replaced by free ones.
	loopbackRE = regexp.MustCompile(`\b127\.0\.0\.1:(\d{1,5})\b`)
)

// documents lists the Markdown files whose blocks run: the README and
// every document here.
func documents(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, files...)
}

// parseBlocks returns the marked blocks of one Markdown file (path as the
// test sees it, shown as name). A marker that is not followed by a sh or
// bash fence, or a fence that never closes, is an error.
func parseBlocks(path, name string) ([]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out     []block
		lines   []string
		sc      = bufio.NewScanner(f)
		n       int
		pending = -1 // line of a marker waiting for its fence
		timeout time.Duration
		in      *block
		other   string // the fence of an unmarked block we are in, "" outside
	)
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case in != nil:
			if strings.TrimSpace(l) == "```" {
				in.text = strings.Join(lines, "\n") + "\n"
				out = append(out, *in)
				in, lines = nil, nil
				continue
			}
			lines = append(lines, l)
		case other != "":
			// Inside an unmarked block (which may show a marker as an
			// example): only its own fence, or a longer one, closes it.
			if t := strings.TrimSpace(l); strings.HasPrefix(t, other) && strings.Trim(t, other[:1]) == "" {
				other = ""
			}
		case pending >= 0:
			if !fenceRE.MatchString(l) {
				return nil, fmt.Errorf("%s:%d: the doctest marker must stand right before a ```sh fence", name, pending)
			}
			in = &block{file: name, line: n, timeout: timeout}
			pending = -1
		default:
			if f := fenceOpenRE.FindString(l); f != "" {
				other = f
				continue
			}
			m := markerRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			timeout = defaultBlockTimeout
			for _, opt := range strings.Fields(m[1]) {
				v, ok := strings.CutPrefix(opt, "timeout=")
				d, err := time.ParseDuration(v)
				if !ok || err != nil || d <= 0 {
					return nil, fmt.Errorf("%s:%d: doctest marker: unknown option %q (want timeout=DURATION)", name, n, opt)
				}
				timeout = d
			}
			pending = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if in != nil {
		return nil, fmt.Errorf("%s:%d: the block never closes", name, in.line)
	}
	if pending >= 0 {
		return nil, fmt.Errorf("%s:%d: a doctest marker at the end of the file", name, pending)
	}
	return out, nil
}

// The headless binary, built once for all blocks.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// newsdesk builds the headless servant (as make build-headless does) into
// a directory of its own, as "newsdesk", and returns that directory.
func newsdesk(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "newsdesk-doctest-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		exe := "newsdesk"
		if runtime.GOOS == "windows" {
			exe += ".exe"
		}
		// The go command of the toolchain running the test, else PATH's.
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(gobin); err != nil {
			if gobin, err = exec.LookPath("go"); err != nil {
				buildErr = err
				return
			}
		}
		cmd := exec.Command(gobin, "build", "-tags", "headless", "-o", filepath.Join(dir, exe), ".")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the headless servant: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// Ports handed out in this process, so that two blocks running at once
// never get the same one.
var (
	portsMu sync.Mutex
	given   = map[int]bool{}
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !given[p] {
			given[p] = true
			return p
		}
	}
	t.Fatal("no free loopback port")
	return 0
}

// withFreePorts replaces the port of every 127.0.0.1:PORT in text by a free
// one, the same number by the same port, and returns the text and the map
// (port 0 stays: the servant picks one itself).
func withFreePorts(t *testing.T, text string) (string, map[string]int) {
	ports := map[string]int{}
	out := loopbackRE.ReplaceAllStringFunc(text, func(s string) string {
		p := loopbackRE.FindStringSubmatch(s)[1]
		if n, _ := strconv.Atoi(p); n == 0 {
			return s
		}
		if _, ok := ports[p]; !ok {
			ports[p] = freePort(t)
		}
		return "127.0.0.1:" + strconv.Itoa(ports[p])
	})
	return out, ports
}

// TestBlocksParse checks the markers themselves, so that a marker that no
// longer runs anything is found even where the blocks cannot run.
func TestBlocksParse(t *testing.T) {
	total := 0
	for _, path := range documents(t) {
		bs, err := parseBlocks(path, strings.TrimPrefix(path, "../"))
		if err != nil {
			t.Error(err)
		}
		total += len(bs)
	}
	if total == 0 {
		t.Error("no marked blocks found: the documents' commands are not checked at all")
	}
}

// TestMarkedBlocksRun runs every marked block of the documents with the
// headless binary first in PATH as newsdesk, in a fresh directory each.
func TestMarkedBlocksRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the blocks are POSIX shell")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: ", err)
	}
	_, curlErr := exec.LookPath("curl")
	var blocks []block
	for _, path := range documents(t) {
		bs, err := parseBlocks(path, strings.TrimPrefix(path, "../"))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	bin := newsdesk(t)
	for _, b := range blocks {
		t.Run(b.name(), func(t *testing.T) {
			if curlErr != nil && strings.Contains(b.text, "curl ") {
				t.Skip("the block uses curl, which is not installed")
			}
			t.Parallel()
			runBlock(t, bash, bin, b)
		})
	}
}

// runBlock runs b with bash -e in a temporary directory and fails with the
// block's text and output when it exits non-zero or overruns its timeout.
// Whatever the block left running in the background is stopped.
func runBlock(t *testing.T, bash, bin string, b block) {
	dir := t.TempDir()
	script, ports := withFreePorts(t, b.text)
	out, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()

	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "LANG=C.UTF-8")
	cmd.Stdin = nil
	// A file, not a pipe: background servants keep it open after bash
	// exits, and Wait must not wait for them.
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so that the servants it starts with & can be
	// stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	runErr := cmd.Run()
	if cmd.Process != nil {
		stopGroup(t, cmd.Process.Pid)
	}
	elapsed := time.Since(start).Round(time.Millisecond)
	if runErr == nil {
		if testing.Verbose() {
			output, _ := os.ReadFile(out.Name())
			t.Logf("ran in %v; output (last lines):\n%s", elapsed, indent(lastLines(string(output), 20)))
		} else {
			t.Logf("ran in %v", elapsed)
		}
		return
	}
	why := "failed: " + runErr.Error()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = fmt.Sprintf("did not finish within %v", b.timeout)
	}
	output, _ := os.ReadFile(out.Name())
	var pm []string
	for from, to := range ports {
		pm = append(pm, fmt.Sprintf("%s→%d", from, to))
	}
	slices.Sort(pm)
	t.Errorf("%s: the block %s (after %v; ports %s):\n\n%s\noutput (last lines):\n%s",
		b.name(), why, elapsed, strings.Join(pm, " "), indent(b.text), indent(lastLines(string(output), 60)))
}

// stopGroup ends the process group pgid: SIGTERM, so servants close their
// stores, then SIGKILL for whatever is left after a grace period.
func stopGroup(t *testing.T, pgid int) {
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("process group %d still running after SIGTERM; killing it", pgid)
	syscall.Kill(-pgid, syscall.SIGKILL)
	for range 100 {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = append([]string{"…"}, l[len(l)-n:]...)
	}
	return strings.Join(l, "\n")
}

func TestParseBlocks(t *testing.T) {
	doc := "text\n<!-- doctest -->\n```sh\necho one\necho two\n```\n\n```sh\nnot marked\n```\n" +
		"````\n<!-- doctest -->\n```sh\nan example of a marked block, in an unmarked one\n```\n````\n" +
		"<!-- doctest timeout=2m -->\n```bash\necho three\n```\n"
	path := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	bs, err := parseBlocks(path, "x.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].text != "echo one\necho two\n" || bs[0].line != 3 || bs[0].timeout != defaultBlockTimeout ||
		bs[1].text != "echo three\n" || bs[1].timeout != 2*time.Minute || bs[1].line != 18 {
		t.Fatalf("parsed %+v", bs)
	}
	for _, bad := range []string{
		"<!-- doctest -->\ntext\n",
		"<!-- doctest -->\n```go\nx\n```\n",
		"<!-- doctest -->\n```sh\nnever closed\n",
		"<!-- doctest timeout=soon -->\n```sh\nx\n```\n",
		"<!-- doctest -->\n",
	} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parseBlocks(path, "x.md"); err == nil {
			t.Errorf("%q parsed without an error", bad)
		}
	}
}

func TestWithFreePorts(t *testing.T) {
	in := "serve --listen 127.0.0.1:7400 --seeds 127.0.0.1:7400,127.0.0.1:7401 --control 127.0.0.1:0\ncurl 127.0.0.1:74000x"
	out, ports := withFreePorts(t, in)
	if len(ports) != 2 {
		t.Fatalf("ports %v", ports)
	}
	a, b := strconv.Itoa(ports["7400"]), strconv.Itoa(ports["7401"])
	want := "serve --listen 127.0.0.1:" + a + " --seeds 127.0.0.1:" + a + ",127.0.0.1:" + b + " --control 127.0.0.1:0\ncurl 127.0.0.1:74000x"
	if out != want {
		t.Fatalf("got  %q\nwant %q", out, want)
	}
}
