package cli

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"newsdesk/storage"
)

// The control API answers a publication that breaks an item rule with 400
// and the rule's message, exactly as before the errors were typed.
func TestControlPublishFieldError(t *testing.T) {
	s := startServe(t)
	for body, want := range map[string]string{
		`{"category":"it","title":"a\nb"}`:              `{"error":"title: control character at byte 1"}`,
		`{"category":"it","title":"t","body":""}`:       "",
		`{"category":"it","title":"t","body":"\u0000"}`: "",
		`{"category":"it","title":"t\u007f"}`:           `{"error":"title: control character at byte 1"}`,
	} {
		code, out := s.Call(t, "POST", "/v1/publish", body)
		switch {
		case want == "" && code != http.StatusOK:
			t.Errorf("%s: %d %s, want 200", body, code, out)
		case want != "" && (code != http.StatusBadRequest || string(out) != want+"\n"):
			t.Errorf("%s: %d %q, want 400 %q", body, code, out, want)
		}
	}
}

// /v1/status reports the persisted total in "lost" and "counters.lost",
// including losses of earlier runs.
func TestServeStatusLostPersisted(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	s := startServeIn(t, data)
	s.Stop()
	st, err := storage.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetLostTotal(5); err != nil {
		t.Fatal(err)
	}
	st.Close()

	s = startServeIn(t, data)
	_, body := s.Status(t)
	var got struct {
		Lost     uint64 `json:"lost"`
		Counters struct {
			Lost uint64 `json:"lost"`
		} `json:"counters"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Lost != 5 || got.Counters.Lost != 5 {
		t.Errorf("status lost %d, counters.lost %d; want 5 and 5", got.Lost, got.Counters.Lost)
	}
}

// "expires" must be an RFC 3339 time after now: 400 otherwise, with the
// field's rule.
func TestControlPublishExpires(t *testing.T) {
	s := startServe(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	for body, want := range map[string]string{
		`{"category":"it","title":"t","expires":"` + future + `"}`: "",
		`{"category":"it","title":"t","expires":"` + past + `"}`:   `{"error":"expires: in the past"}`,
		`{"category":"it","title":"t","expires":"tomorrow"}`:       `{"error":"expires: not an RFC 3339 time: \"tomorrow\""}`,
	} {
		code, out := s.Call(t, "POST", "/v1/publish", body)
		switch {
		case want == "" && code != http.StatusOK:
			t.Errorf("%s: %d %s, want 200", body, code, out)
		case want != "" && (code != http.StatusBadRequest || string(out) != want+"\n"):
			t.Errorf("%s: %d %q, want 400 %q", body, code, out, want)
		}
	}
}
