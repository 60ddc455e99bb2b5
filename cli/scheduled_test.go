package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// "at" in the future schedules the item: the answer names its ID and time,
// GET /v1/scheduled lists it, /v1/items does not, and DELETE cancels it,
// once.
func TestControlPublishAt(t *testing.T) {
	s := startServe(t)
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	code, out := s.Call(t, "POST", "/v1/publish", `{"category":"it","title":"Later","at":"`+at.Format(time.RFC3339)+`"}`)
	if code != http.StatusOK {
		t.Fatalf("publish with at: %d %s", code, out)
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	id, _ := res["id"].(string)
	if len(res) != 2 || id == "" || res["scheduled"] != at.Format(time.RFC3339) {
		t.Fatalf("answer %s, want {id, scheduled: %s}", out, at.Format(time.RFC3339))
	}

	code, out = s.Call(t, "GET", "/v1/scheduled", "")
	var list []scheduledJSON
	if err := json.Unmarshal(out, &list); code != http.StatusOK || err != nil {
		t.Fatalf("GET /v1/scheduled: %d %s %v", code, out, err)
	}
	if len(list) != 1 || list[0].ID != id || list[0].Title != "Later" || list[0].At != at.Format(time.RFC3339) {
		t.Errorf("scheduled %+v", list)
	}
	if code, out := s.Call(t, "GET", "/v1/items?category=it", ""); code != http.StatusOK || strings.Contains(string(out), id) {
		t.Errorf("/v1/items lists the scheduled item: %d %s", code, out)
	}

	if code, out := s.Call(t, "DELETE", "/v1/scheduled/"+id, ""); code != http.StatusOK || string(out) != `{"cancelled":"`+id+`"}`+"\n" {
		t.Errorf("cancel: %d %s", code, out)
	}
	if code, out := s.Call(t, "DELETE", "/v1/scheduled/"+id, ""); code != http.StatusNotFound {
		t.Errorf("cancel again: %d %s, want 404", code, out)
	}
	if code, out := s.Call(t, "DELETE", "/v1/scheduled/nonsense", ""); code != http.StatusBadRequest {
		t.Errorf("cancel nonsense: %d %s, want 400", code, out)
	}
	if code, out := s.Call(t, "GET", "/v1/scheduled", ""); code != http.StatusOK || string(out) != "[]\n" {
		t.Errorf("after cancelling: %d %s", code, out)
	}
}

// A bad "at" is refused with the field and the rule; one about now
// publishes now, with the ordinary answer.
func TestControlPublishAtRefused(t *testing.T) {
	s := startServe(t)
	now := time.Now().UTC()
	hour := now.Add(time.Hour).Format(time.RFC3339)
	for body, want := range map[string]string{
		`{"category":"it","title":"t","at":"soon"}`:                                                                       `{"error":"at: not an RFC 3339 time: \"soon\""}`,
		`{"category":"it","title":"t","at":"` + now.Add(-time.Minute).Format(time.RFC3339) + `"}`:                         `{"error":"at: in the past"}`,
		`{"category":"it","title":"t","at":"` + hour + `","expires":"` + hour + `"}`:                                      `{"error":"expires: not after the publication time"}`,
		`{"category":"it","title":"t","at":"` + hour + `","expires":"` + now.Add(time.Minute).Format(time.RFC3339) + `"}`: `{"error":"expires: not after the publication time"}`,
	} {
		if code, out := s.Call(t, "POST", "/v1/publish", body); code != http.StatusBadRequest || string(out) != want+"\n" {
			t.Errorf("%s: %d %q, want 400 %q", body, code, out, want)
		}
	}
	code, out := s.Call(t, "POST", "/v1/publish", `{"category":"it","title":"t","at":"`+now.Format(time.RFC3339Nano)+`"}`)
	if code != http.StatusOK || !strings.Contains(string(out), `"suppressed"`) || strings.Contains(string(out), `"scheduled"`) {
		t.Errorf("at now: %d %s, want published now", code, out)
	}
	if code, out := s.Call(t, "GET", "/v1/scheduled", ""); code != http.StatusOK || string(out) != "[]\n" {
		t.Errorf("scheduled: %d %s, want none", code, out)
	}
}
