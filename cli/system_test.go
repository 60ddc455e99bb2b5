package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"newsdesk/network"
)

// /v1/publish refuses the system groups and the categories below them
// (app's TestPublishRefusesSystemGroups checks App.Publish): nothing is
// stored and no count is used.
func TestPublishRefusesSystemGroups(t *testing.T) {
	cats := []string{network.NetworkCategory, network.RetractionCategory, network.NetworkCategory + "/x"}
	s := startServe(t)
	for _, c := range cats {
		code, out := s.Call(t, "POST", "/v1/publish", map[string]string{"category": c, "title": "junk", "body": "x"})
		var e struct{ Error string }
		if json.Unmarshal(out, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, "system group") {
			t.Errorf("POST /v1/publish in %s: %d %s; want 400 naming the system group", c, code, out)
		}
		if items := s.Items(t, c); len(items) != 0 {
			t.Errorf("/v1/items?category=%s lists %+v", c, items)
		}
	}
	_, raw := s.Status(t)
	var st struct{ Counters struct{ Published uint64 } }
	if err := json.Unmarshal(raw, &st); err != nil || st.Counters.Published != 0 {
		t.Errorf("status after refused publications: %s", raw)
	}
}
