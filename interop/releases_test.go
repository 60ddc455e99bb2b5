package interop

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// release is one line of ../RELEASES.
type release struct {
	version, wire, commit string
}

// readReleases reads ../RELEASES: the releases in order, oldest first.
func readReleases(t *testing.T) []release {
	t.Helper()
	f, err := os.Open("../RELEASES")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs []release
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("RELEASES: %q is not \"release wire commit\"", line)
		}
		rs = append(rs, release{fields[0], fields[1], fields[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rs
}

// buildRelease builds r's headless program from its commit, in a
// temporary git worktree; the Go build cache keeps what it compiled.
func buildRelease(t *testing.T, r release) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if b, err := exec.Command("git", "-C", "..", "worktree", "add", "--detach", src, r.commit).CombinedOutput(); err != nil {
		t.Fatalf("checking out %s (%s): %v\n%s", r.version, r.commit, err, b)
	}
	t.Cleanup(func() { exec.Command("git", "-C", "..", "worktree", "remove", "--force", src).Run() })
	bin := filepath.Join(dir, "newsdesk-"+r.version)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", "headless", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", r.version, err, b)
	}
	return bin
}

// RELEASES names every release with its wire versions, the last one this
// build's: its wire range is the one this build speaks.
func TestReleasesFile(t *testing.T) {
	rs := readReleases(t)
	if len(rs) == 0 {
		t.Fatal("RELEASES lists no release")
	}
	last := rs[len(rs)-1]
	cur, _ := buildAll(t)
	out, err := exec.Command(cur, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("newsdesk version: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("Newsdesk %s, protocol %s", last.version, last.wire); !strings.Contains(string(out), want) {
		t.Errorf("newsdesk version says %q; RELEASES' last line wants %q", strings.TrimSpace(string(out)), want)
	}
}

// The previous release, built from its commit, in one network with this
// build: an old seed with a new member and a new seed with an old member.
// It needs a release before this one in RELEASES; until there is one the
// test says so and stops.
func TestAgainstPreviousRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release from git")
	}
	rs := readReleases(t)
	if len(rs) < 2 {
		t.Skipf("RELEASES has one release (%s, this build): nothing older to run beside it yet", rs[0].version)
	}
	prev := buildRelease(t, rs[len(rs)-2])
	cur, _ := buildAll(t)
	for _, pair := range [][2]string{{prev, cur}, {cur, prev}} {
		runPair(t, pair[0], pair[1])
	}
}

// runPair runs a seed of one build and a member of another, and checks
// that items cross both ways.
func runPair(t *testing.T, seedBin, memberBin string) {
	t.Helper()
	port := freePort(t, "127.0.0.1")
	seedID := fmt.Sprintf("127.0.0.1:%d", port)
	def := filepath.Join(t.TempDir(), "net.json")
	if b, err := exec.Command(seedBin, "network", "init", "--name", "Pair", "--out", def, "--seeds", seedID, "--open-publishing").CombinedOutput(); err != nil {
		t.Fatalf("network init: %v\n%s", err, b)
	}
	seed := start(t, seedBin, "seed", seedID, def)
	member := start(t, memberBin, "member", fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1")), def, seedID)
	waitFor(t, 30*time.Second, "the member attached", func() error {
		var st status
		if err := member.get(t, "/v1/status", &st); err != nil {
			return err
		}
		if st.Up != seedID {
			return fmt.Errorf("up %q", st.Up)
		}
		return nil
	})
	ids := []string{seed.publish(t, "from the seed"), member.publish(t, "from the member")}
	for _, s := range []*servant{seed, member} {
		waitFor(t, 30*time.Second, "both items on "+s.name, func() error {
			var items []item
			if err := s.get(t, "/v1/items?category=it", &items); err != nil {
				return err
			}
			if len(items) != len(ids) {
				return fmt.Errorf("%d items", len(items))
			}
			return nil
		})
	}
}
