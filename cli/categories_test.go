package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"newsdesk/app/apptest"
)

// GET /v1/categories lists the catalog with each category's titles per
// language; an admin's PUT replaces it (titles in any script, language
// tags taken in their canonical form) as the next catalog version in the
// next definition; a stale version is 409, bad titles 400, a member 403.
func TestCategoriesWithTitles(t *testing.T) {
	a := startServe(t, apptest.NoTestNetwork, "--listen", "127.0.0.1:0")
	var cat catalogJSON
	code, raw := a.Call(t, "GET", "/v1/categories", nil)
	if err := json.Unmarshal(raw, &cat); code != http.StatusOK || err != nil || len(cat.Categories) == 0 {
		t.Fatalf("GET: %d %s", code, raw)
	}
	if !strings.Contains(string(raw), `"titles":{}`) {
		t.Errorf("a category without titles: %s", raw)
	}
	base := cat.Version
	for i, c := range cat.Categories {
		switch c.ID {
		case "sales":
			cat.Categories[i].Titles = map[string]string{"de": "Vertrieb", "ja": "営業", "ar": "المبيعات"}
		case "hr":
			cat.Categories[i].Titles = map[string]string{"de-ch": "Personal", "ru": "Кадры"}
		}
	}
	code, raw = a.Call(t, "PUT", "/v1/categories", cat)
	var out struct{ Version, Definition uint64 }
	if err := json.Unmarshal(raw, &out); code != http.StatusOK || err != nil || out.Version != base+1 || out.Definition < 2 {
		t.Fatalf("PUT: %d %s", code, raw)
	}
	code, raw = a.Call(t, "GET", "/v1/categories", nil)
	if code != http.StatusOK || !strings.Contains(string(raw), `"titles":{"ar":"المبيعات","de":"Vertrieb","ja":"営業"}`) ||
		!strings.Contains(string(raw), `"titles":{"de-CH":"Personal","ru":"Кадры"}`) {
		t.Errorf("after PUT: %d %s", code, raw)
	}
	// The same edit again, from the version it started from: 409.
	if code, raw := a.Call(t, "PUT", "/v1/categories", cat); code != http.StatusConflict {
		t.Errorf("a stale version: %d %s", code, raw)
	}
	cat.Version = out.Version
	for name, titles := range map[string]map[string]string{
		"bad tag":     {"x!": "Nope"},
		"control":     {"de": "Ver\ntrieb"},
		"empty title": {"de": ""},
		"twice":       {"de": "a", "DE": "b"},
	} {
		cat.Categories[0].Titles = titles
		if code, raw := a.Call(t, "PUT", "/v1/categories", cat); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, code, raw)
		}
	}
	cat.Categories[0].Titles = nil
	cat.Categories = append(cat.Categories, categoryJSON{ID: "-new", Name: "New"})
	if code, raw := a.Call(t, "PUT", "/v1/categories", cat); code != http.StatusBadRequest || !strings.Contains(string(raw), "letter or a digit") {
		t.Errorf("a new ID against the rule: %d %s", code, raw)
	}

	member := startServe(t, "--listen", "127.0.0.1:0")
	if code, raw := member.Call(t, "PUT", "/v1/categories", catalogJSON{Version: 1}); code != http.StatusForbidden {
		t.Errorf("PUT by a member: %d %s", code, raw)
	}
}
