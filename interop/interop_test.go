// Package interop runs servants of different builds together on TCP: this
// build, and a build of the next wire version (tag wirenext: it speaks
// versions 5 to 9, and at 9 every Ping carries one more field, which this
// build would refuse). A company upgrades one computer at a time, so a
// network always runs mixed: links between the two run at version 8, links
// between two of the next build at 9, and items cross both.
package interop

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// builds are the two headless programs, built once per test binary.
var builds struct {
	once      sync.Once
	cur, next string
	err       error
}

// buildAll builds this build and the next wire version into dir. The Go
// build cache keeps both, so a later run takes seconds.
func buildAll(t *testing.T) (cur, next string) {
	t.Helper()
	builds.once.Do(func() {
		dir, err := os.MkdirTemp("", "newsdesk-interop-")
		if err != nil {
			builds.err = err
			return
		}
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		build := func(out string, args ...string) error {
			cmd := exec.Command(goTool, append(append([]string{"build"}, args...), "-o", out, "..")...)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go build %v: %v\n%s", args, err, b)
			}
			return nil
		}
		builds.cur, builds.next = filepath.Join(dir, "newsdesk-cur"), filepath.Join(dir, "newsdesk-next")
		if builds.err = build(builds.cur, "-tags", "headless"); builds.err != nil {
			return
		}
		builds.err = build(builds.next, "-tags", "headless,wirenext", "-ldflags", "-X newsdesk/app.Release=0.3.0-next")
	})
	if builds.err != nil {
		t.Fatal(builds.err)
	}
	return builds.cur, builds.next
}

// servant is one `newsdesk serve` process.
type servant struct {
	name, id, control string
	log               *apptest.SyncBuffer // its output, written by exec's goroutine
	stop              func()              // interrupts it and waits for it to end; once
}

type link struct {
	Peer    string `json:"peer"`
	Up      bool   `json:"up"`
	Version int    `json:"version"`
	Release string `json:"release"`
}

type status struct {
	Role         string `json:"role"`
	Up           string `json:"up"`
	Release      string `json:"release"`
	Links        []link `json:"links"`
	NewerRelease string `json:"newerRelease"`
	Counters     struct {
		PeriodicFrames int `json:"periodicFrames"`
	} `json:"counters"`
}

type item struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Body        string `json:"body"`
	NewerFormat int    `json:"newerFormat"`
}

func (s *servant) get(t *testing.T, path string, v any) error {
	t.Helper()
	resp, err := http.Get("http://" + s.control + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (s *servant) publish(t *testing.T, title string) string {
	t.Helper()
	body := fmt.Sprintf(`{"category":"it","title":%q,"body":"from %s"}`, title, s.name)
	resp, err := http.Post("http://"+s.control+"/v1/publish", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID string `json:"id"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("publish on %s: %s", s.name, resp.Status)
	}
	return out.ID
}

// freePort returns a port free on every one of hosts.
func freePort(t *testing.T, hosts ...string) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", hosts[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		free := true
		var held []net.Listener
		for _, h := range hosts[1:] {
			l, err := net.Listen("tcp", fmt.Sprintf("%s:%d", h, port))
			if err != nil {
				free = false
				break
			}
			held = append(held, l)
		}
		ln.Close()
		for _, l := range held {
			l.Close()
		}
		if free {
			return port
		}
	}
	t.Fatal("no port free on every address")
	return 0
}

// start runs bin serve for a servant at id joining seeds.
func start(t *testing.T, bin, name, id, def string, seeds ...string) *servant {
	t.Helper()
	return startWith(t, nil, bin, name, id, def, seeds...)
}

// startWith is start with env added to the servant's environment.
func startWith(t *testing.T, env []string, bin, name, id, def string, seeds ...string) *servant {
	t.Helper()
	return startIn(t, env, bin, name, id, def, filepath.Join(t.TempDir(), name), seeds...)
}

// startIn is startWith with the data directory data.
func startIn(t *testing.T, env []string, bin, name, id, def, data string, seeds ...string) *servant {
	t.Helper()
	s := &servant{name: name, id: id, control: fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1")), log: &apptest.SyncBuffer{}}
	args := []string{"serve", "--network", def, "--listen", id, "--data", data,
		"--subscribe", "it", "--control", s.control}
	if len(seeds) > 0 {
		args = append(args, "--seeds", strings.Join(seeds, ","))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("log of %s (%s):\n%s", name, id, s.log)
		}
	})
	return s
}

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
		time.Sleep(100 * time.Millisecond)
	}
}

// A chain of servants down the tree, this build and the next alternating,
// with two of the next build at its end:
//
//	s0 (this) ─ s1 (next) ─ s2 (this) ─ s3 (next) ─ s4 (next)
//
// The addresses nest (127.0.0.1, then 127.1.0.1, 127.1.0.17 and two ports
// of 127.1.0.18), so that every servant's partition lies strictly inside
// its up-servant's and the chain stays as built. Links between the builds
// run at version 8, s3–s4 at 9; items published at both ends and in the
// middle reach every servant once, and each servant names its neighbours'
// releases. s4 writes its items in the next build's item format, which
// this build relays, stores and shows as needing a newer Newsdesk.
func TestMixedVersionsChain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	cur, next := buildAll(t)
	port := freePort(t, "127.0.0.1", "127.1.0.1", "127.1.0.17", "127.1.0.18")
	port2 := freePort(t, "127.1.0.18")
	ids := []string{
		fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.1.0.1:%d", port), fmt.Sprintf("127.1.0.17:%d", port),
		fmt.Sprintf("127.1.0.18:%d", port), fmt.Sprintf("127.1.0.18:%d", port2),
	}
	bins := []string{cur, next, cur, next, next}
	def := filepath.Join(t.TempDir(), "net.json")
	if b, err := exec.Command(cur, "network", "init", "--name", "Mixed", "--out", def, "--seeds", ids[0], "--open-publishing").CombinedOutput(); err != nil {
		t.Fatalf("network init: %v\n%s", err, b)
	}
	var ss []*servant
	for i, id := range ids {
		var seeds []string
		if i > 0 {
			seeds = []string{ids[i-1]}
		}
		var env []string
		if i == len(ids)-1 {
			env = []string{"NEWSDESK_NEXT_FORMAT=1"} // s4 writes its items in the next format
		}
		s := startWith(t, env, bins[i], fmt.Sprintf("s%d", i), id, def, seeds...)
		ss = append(ss, s)
		if i == 0 {
			continue
		}
		waitFor(t, 30*time.Second, s.name+" attached under "+ids[i-1], func() error {
			var st status
			if err := s.get(t, "/v1/status", &st); err != nil {
				return err
			}
			if st.Role != "attached" || st.Up != ids[i-1] {
				return fmt.Errorf("role %s up %q", st.Role, st.Up)
			}
			return nil
		})
	}
	// The links' versions and the releases named.
	wantVersion := map[[2]int]int{{0, 1}: 8, {1, 2}: 8, {2, 3}: 8, {3, 4}: 9}
	for pair, v := range wantVersion {
		var st status
		if err := ss[pair[1]].get(t, "/v1/status", &st); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(st.Links, func(l link) bool { return l.Up })
		if i < 0 {
			t.Fatalf("%s has no uplink: %+v", ss[pair[1]].name, st.Links)
		}
		l := st.Links[i]
		wantRel := "0.2.0"
		if bins[pair[0]] == next {
			wantRel = "0.3.0-next"
		}
		if l.Version != v || l.Release != wantRel {
			t.Errorf("link %s–%s: version %d, release %q; want %d, %q", ss[pair[0]].name, ss[pair[1]].name, l.Version, l.Release, v, wantRel)
		}
	}
	waitFor(t, 30*time.Second, "s2 to mention the newer release", func() error {
		var st status
		if err := ss[2].get(t, "/v1/status", &st); err != nil {
			return err
		}
		if st.NewerRelease != "0.3.0-next" {
			return fmt.Errorf("newerRelease %q", st.NewerRelease)
		}
		return nil
	})

	var published []string
	for _, k := range []int{0, 2, 4, 3} {
		for j := range 5 {
			published = append(published, ss[k].publish(t, fmt.Sprintf("item %d from %s", j, ss[k].name)))
		}
	}
	for _, s := range ss {
		waitFor(t, 30*time.Second, "every item on "+s.name, func() error {
			var items []item
			if err := s.get(t, "/v1/items?category=it", &items); err != nil {
				return err
			}
			seen := map[string]int{}
			for _, it := range items {
				seen[it.ID]++
			}
			for _, id := range published {
				if seen[id] != 1 {
					return fmt.Errorf("item %s held %d times (%d items in all)", id, seen[id], len(items))
				}
			}
			if len(items) != len(published) {
				return fmt.Errorf("%d items, want %d", len(items), len(published))
			}
			return nil
		})
	}
	// s4 wrote its items in format 3, which only the next build reads:
	// this build's servants keep them by their envelope (the title, and
	// "needs a newer Newsdesk"), the next build's read them whole, also
	// s1, which got them through s2 of this build.
	for i, s := range ss {
		var items []item
		if err := s.get(t, "/v1/items?category=it", &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if !strings.HasSuffix(it.Title, "from s4") {
				if it.NewerFormat != 0 || it.Body == "" {
					t.Errorf("%s holds %q as format %d, body %q", s.name, it.Title, it.NewerFormat, it.Body)
				}
				continue
			}
			wantFormat, wantBody := 3, ""
			if bins[i] == next {
				wantFormat, wantBody = 0, "from s4"
			}
			if it.NewerFormat != wantFormat || it.Body != wantBody {
				t.Errorf("%s holds %q of s4 as format %d, body %q; want %d, %q", s.name, it.Title, it.NewerFormat, it.Body, wantFormat, wantBody)
			}
		}
	}
	// Pings at version 8 go between s3 and s4 whenever their link idles
	// (every second), and any frame encoded at the wrong version would
	// have closed its link: the chain holds as built.
	// Let heartbeats go: a Ping goes over a link idle for a second, at
	// version 8 from s4 to s3 and at 7 from s1 to s0. One encoded at the
	// wrong version would close its link, and the servant would attach
	// again.
	for _, k := range []int{1, 4} {
		waitFor(t, 30*time.Second, "heartbeats from "+ss[k].name, func() error {
			var st status
			if err := ss[k].get(t, "/v1/status", &st); err != nil {
				return err
			}
			if st.Counters.PeriodicFrames < 5 {
				return fmt.Errorf("%d periodic frames", st.Counters.PeriodicFrames)
			}
			return nil
		})
	}
	for i := 1; i < len(ss); i++ {
		var st status
		if err := ss[i].get(t, "/v1/status", &st); err != nil {
			t.Fatal(err)
		}
		if st.Up != ids[i-1] {
			t.Errorf("%s is under %q now, want %s", ss[i].name, st.Up, ids[i-1])
		}
		if n := strings.Count(ss[i].log.String(), "attached under"); n != 1 {
			t.Errorf("%s attached %d times: its links did not hold", ss[i].name, n)
		}
	}
}
