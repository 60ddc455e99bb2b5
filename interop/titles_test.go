package interop

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Category titles cross a servant of the previous release, which does not
// know them. This build's admin, attached under a seed of the previous
// release, publishes a catalog with titles; the old seed adopts the
// definition (its signature verifies over the bytes as received), names
// the titles as a feature of a newer release, and, once the admin is gone,
// is the only one to hand the definition to a member of this build that
// joins later: that member verifies it and reads the titles. So the old
// release kept the titles byte for byte and passed them on.
// It needs a release before this one in RELEASES.
func TestCategoryTitlesThroughPreviousRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release from git")
	}
	rs := readReleases(t)
	if len(rs) < 2 {
		t.Skipf("RELEASES has one release (%s, this build): nothing older to run beside it yet", rs[0].version)
	}
	prev := buildRelease(t, rs[len(rs)-2])
	cur, _ := buildAll(t)

	dir := t.TempDir()
	seedID := fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1"))
	def := filepath.Join(dir, "net.json")
	if b, err := exec.Command(cur, "network", "init", "--name", "Titles", "--out", def, "--seeds", seedID, "--open-publishing").CombinedOutput(); err != nil {
		t.Fatalf("network init: %v\n%s", err, b)
	}
	adminData := filepath.Join(dir, "admin")
	key, err := os.ReadFile(def + ".admin-key")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(adminData, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(adminData, "identity.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}

	seed := start(t, prev, "old seed", seedID, def)
	admin := startIn(t, nil, cur, "admin", fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1")), def, adminData, seedID)
	attached(t, admin, seedID)

	var cat struct {
		Version    uint64 `json:"version"`
		Categories []struct {
			ID          string            `json:"id"`
			Name        string            `json:"name"`
			Description string            `json:"description"`
			Titles      map[string]string `json:"titles"`
		} `json:"categories"`
	}
	if err := admin.get(t, "/v1/categories", &cat); err != nil {
		t.Fatal(err)
	}
	for i, c := range cat.Categories {
		if c.ID == "it" {
			cat.Categories[i].Titles = map[string]string{"de": "IT-Dienste", "ja": "情報システム"}
		}
	}
	body, _ := json.Marshal(cat)
	req, _ := http.NewRequest(http.MethodPut, "http://"+admin.control+"/v1/categories", strings.NewReader(string(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var put struct{ Definition uint64 }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &put) != nil || put.Definition < 2 {
		t.Fatalf("PUT /v1/categories: %s %s", resp.Status, out)
	}

	waitFor(t, 60*time.Second, "the old seed to adopt the definition with titles", func() error {
		return holdsDefinition(t, seed, put.Definition, true)
	})
	admin.stop()

	member := start(t, cur, "new member", fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1")), def, seedID)
	attached(t, member, seedID)
	waitFor(t, 60*time.Second, "the new member to get the definition from the old seed", func() error {
		return holdsDefinition(t, member, put.Definition, false)
	})
	var got struct {
		Categories []titledCategory `json:"categories"`
	}
	if err := member.get(t, "/v1/categories", &got); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(got.Categories, func(c titledCategory) bool { return c.ID == "it" })
	if i < 0 || got.Categories[i].Titles["ja"] != "情報システム" || got.Categories[i].Titles["de"] != "IT-Dienste" {
		t.Errorf("the new member's catalog: %+v", got.Categories)
	}
}

// titledCategory is a category as GET /v1/categories lists it, in part.
type titledCategory struct {
	ID     string            `json:"id"`
	Titles map[string]string `json:"titles"`
}

// attached waits until s is attached under up.
func attached(t *testing.T, s *servant, up string) {
	t.Helper()
	waitFor(t, 30*time.Second, s.name+" attached", func() error {
		var st status
		if err := s.get(t, "/v1/status", &st); err != nil {
			return err
		}
		if st.Up != up {
			return fmt.Errorf("up %q", st.Up)
		}
		return nil
	})
}

// holdsDefinition reports an error unless s holds the definition of
// version v; newer: and names categoryTitles as a feature of a newer
// release (s is of a release before titles).
func holdsDefinition(t *testing.T, s *servant, v uint64, newer bool) error {
	t.Helper()
	var st struct {
		Network struct {
			Version       uint64   `json:"version"`
			NewerFeatures []string `json:"newerFeatures"`
		} `json:"network"`
	}
	if err := s.get(t, "/v1/status", &st); err != nil {
		return err
	}
	if st.Network.Version != v {
		return fmt.Errorf("%s holds version %d", s.name, st.Network.Version)
	}
	if has := slices.Contains(st.Network.NewerFeatures, "categoryTitles"); has != newer {
		return fmt.Errorf("%s names the newer features %q", s.name, st.Network.NewerFeatures)
	}
	return nil
}
