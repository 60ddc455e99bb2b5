package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Issue 15, audiences, on TCP: servants listen on loopback addresses of
// two /24s (127.0.1.x and 127.0.2.x) under a seed on 127.0.0.1. An item
// for 127.0.1.0/24 is stored by the servants there and by no other; an
// item for everyone, published after it, reaches everyone, so the others
// had every chance to store the first.
func TestServeAudienceStoredOnlyInside(t *testing.T) {
	seed := startServe(t, "--listen", "127.0.0.1:0", "--subscribe", "it")
	var inside, outside []*servant
	for _, host := range []string{"127.0.1.2", "127.0.1.3", "127.0.2.2", "127.0.2.3"} {
		s := startServe(t, "--listen", host+":0", "--seeds", seed.ID, "--subscribe", "it")
		if strings.HasPrefix(host, "127.0.1.") {
			inside = append(inside, s)
		} else {
			outside = append(outside, s)
		}
	}
	for _, s := range append(slices.Clone(inside), outside...) {
		s.WaitAttached(t)
	}
	seed.WaitRoute(t, "it")

	code, out := seed.Call(t, "POST", "/v1/publish",
		`{"category":"it","title":"office only","audience":["127.0.1.0/24"]}`)
	if code != http.StatusOK {
		t.Fatalf("publish with audience: %d %s", code, out)
	}
	var office publishResult
	if err := json.Unmarshal(out, &office); err != nil {
		t.Fatal(err)
	}
	seed.Publish(t, "it", "everyone", "")
	for _, s := range append(slices.Clone(inside), outside...) {
		waitFor(t, s.ID+" to store the item for everyone", func() error {
			if !slices.Contains(s.Titles(t, "it"), "everyone") {
				return fmt.Errorf("titles %v", s.Titles(t, "it"))
			}
			return nil
		})
	}
	for _, s := range inside {
		var items []struct {
			ID       string   `json:"id"`
			Audience []string `json:"audience"`
		}
		_, body := s.Call(t, "GET", "/v1/items?category=it", nil)
		if err := json.Unmarshal(body, &items); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(items, func(it struct {
			ID       string   `json:"id"`
			Audience []string `json:"audience"`
		}) bool {
			return it.ID == office.ID
		})
		if i < 0 || fmt.Sprint(items[i].Audience) != "[127.0.1.0/24]" {
			t.Errorf("%s inside the audience: items %s", s.ID, body)
		}
	}
	for _, s := range outside {
		if titles := s.Titles(t, "it"); slices.Contains(titles, "office only") {
			t.Errorf("%s outside the audience stored the office item: %v", s.ID, titles)
		}
	}
}

// A malformed or empty audience is refused with 400 and a message that
// says what is wrong.
func TestControlPublishAudienceRefused(t *testing.T) {
	s := startServe(t)
	for body, want := range map[string]string{
		`{"category":"it","title":"t","audience":[]}`:                `no network ranges`,
		`{"category":"it","title":"t","audience":["10.1.4.0"]}`:      `10.1.4.0\" is not a network range in CIDR notation`,
		`{"category":"it","title":"t","audience":["berlin"]}`:        `berlin\" is not a network range`,
		`{"category":"it","title":"t","audience":["10.1.4.0/33"]}`:   `not a network range`,
		`{"category":"it","title":"t","audience":"10.1.4.0/24"}`:     `audience`,
		`{"category":"it","title":"t","audience":["10.1.4.0/24"]}`:   "",
		`{"category":"it","title":"t","audience":["2001:db8::/48"]}`: "",
	} {
		code, out := s.Call(t, "POST", "/v1/publish", body)
		switch {
		case want == "" && code != http.StatusOK:
			t.Errorf("%s: %d %s, want 200", body, code, out)
		case want != "" && (code != http.StatusBadRequest || !strings.Contains(string(out), want)):
			t.Errorf("%s: %d %s, want 400 naming %q", body, code, out, want)
		}
	}
}
