package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
// build: an old seed with a new member and a new seed with an old member,
// plain, audience and must-read items and retractions each way.
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
			return s.holds(t, ids...)
		})
	}
	// Each side publishes for an audience that holds both (loopback) and
	// for one that holds neither, a must-read item, and retracts its plain
	// item: the other side shows the first, never the second, confirms the
	// must-read item (the publisher's relays count it) and drops the
	// retracted one.
	for _, pair := range [][2]*servant{{seed, member}, {member, seed}} {
		from, to := pair[0], pair[1]
		inside := from.publishWith(t, `"title":"for loopback","audience":["127.0.0.0/8"]`)
		outside := from.publishWith(t, `"title":"for an office elsewhere","audience":["10.99.0.0/16"]`)
		mustRead := from.publishWith(t, `"title":"read this","mustRead":true`)
		waitFor(t, 30*time.Second, to.name+" to hold what "+from.name+" sent it", func() error {
			return to.holds(t, inside, mustRead)
		})
		if to.has(t, outside) {
			t.Errorf("%s holds the item for an audience it is outside of", to.name)
		}
		if code, body := to.post(t, "/v1/ack", fmt.Sprintf(`{"id":%q}`, mustRead)); code != http.StatusNoContent {
			t.Errorf("ack on %s: %d %s", to.name, code, body)
		}
		waitFor(t, 60*time.Second, from.name+" to hear of the confirmation", func() error {
			var r struct {
				Reported int `json:"reportedAcknowledged"`
			}
			if err := from.get(t, "/v1/reach?id="+mustRead, &r); err != nil {
				return err
			}
			if r.Reported < 1 {
				return fmt.Errorf("%+v", r)
			}
			return nil
		})
		own := ids[0]
		if from == member {
			own = ids[1]
		}
		if code, body := from.post(t, "/v1/retract", fmt.Sprintf(`{"id":%q,"reason":"test"}`, own)); code != http.StatusOK {
			t.Fatalf("retract on %s: %d %s", from.name, code, body)
		}
		waitFor(t, 30*time.Second, to.name+" to drop the retracted item", func() error {
			if to.has(t, own) {
				return fmt.Errorf("still holds %s", own)
			}
			return nil
		})
	}
}

// publishWith publishes in "it" with the JSON fields given (title among them).
func (s *servant) publishWith(t *testing.T, fields string) string {
	t.Helper()
	code, body := s.post(t, "/v1/publish", fmt.Sprintf(`{"category":"it","body":"from %s",%s}`, s.name, fields))
	var out struct {
		ID string `json:"id"`
	}
	if code != http.StatusOK || json.Unmarshal(body, &out) != nil {
		t.Fatalf("publish %s on %s: %d %s", fields, s.name, code, body)
	}
	return out.ID
}

// post sends a JSON body to the control API.
func (s *servant) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post("http://"+s.control+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// holds reports an error unless every id is among the items of "it".
func (s *servant) holds(t *testing.T, ids ...string) error {
	t.Helper()
	for _, id := range ids {
		if !s.has(t, id) {
			return fmt.Errorf("%s does not hold %s", s.name, id)
		}
	}
	return nil
}

// has reports whether item id is among the items of "it".
func (s *servant) has(t *testing.T, id string) bool {
	t.Helper()
	var items []item
	if err := s.get(t, "/v1/items?category=it", &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}
