package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// GET /v1/reports on an admin's servant: a publisher who joined by
// invitation posts a must-read item, one of two readers confirms, and
// the admin reads the post's report, with the publisher's key and the
// readers by name; a member is refused.
func TestReportsAPI(t *testing.T) {
	fastReports(t)
	addr := apptest.FreeAddr(t)
	admin := startServe(t, apptest.NoTestNetwork, "--listen", addr, "--seeds", addr)
	join := func(invite string, args ...string) *servant {
		t.Helper()
		code, body := admin.Call(t, http.MethodPost, "/v1/invites", invite)
		var created inviteCreated
		if code != http.StatusOK || json.Unmarshal(body, &created) != nil {
			t.Fatalf("POST /v1/invites = %d %s", code, body)
		}
		dir := filepath.Join(t.TempDir(), "data")
		var out, errOut strings.Builder
		if err := JoinCommand(context.Background(), []string{created.Code, "--data", dir}, &out, &errOut); err != nil {
			t.Fatalf("join: %v\n%s", err, errOut.String())
		}
		s := startServeIn(t, dir, append([]string{apptest.NoTestNetwork}, args...)...)
		s.WaitAttached(t)
		return s
	}
	pub := join(`{"uses":1,"expires":"1h","publisher":true,"categories":["hr"]}`)
	readers := []*servant{
		join(`{"uses":1,"expires":"1h","publisher":false,"categories":[]}`, "--subscribe", "hr"),
		join(`{"uses":1,"expires":"1h","publisher":false,"categories":[]}`, "--subscribe", "hr"),
	}
	pub.WaitRoute(t, "hr")
	code, out := pub.Call(t, http.MethodPost, "/v1/publish", `{"category":"hr","title":"New travel policy","mustRead":true}`)
	var res struct{ ID string }
	if code != http.StatusOK || json.Unmarshal(out, &res) != nil {
		t.Fatalf("publish: %d %s", code, out)
	}
	keyOf := func(s *servant) string {
		var st struct{ Key string }
		_, body := s.Call(t, http.MethodGet, "/v1/status", nil)
		if err := json.Unmarshal(body, &st); err != nil || st.Key == "" {
			t.Fatalf("status: %v %s", err, body)
		}
		return st.Key
	}
	waitForUpTo(t, 60*time.Second, "the post at the first reader", func() error {
		if code, out := readers[0].Call(t, http.MethodPost, "/v1/ack", `{"id":"`+res.ID+`"}`); code != http.StatusNoContent {
			return fmt.Errorf("ack: %d %s", code, out)
		}
		return nil
	})
	var got struct {
		Reports []reportJSON `json:"reports"`
	}
	waitForUpTo(t, 90*time.Second, "the admin's report of the post", func() error {
		code, body := admin.Call(t, http.MethodGet, reportsPath, nil)
		if code != http.StatusOK {
			return fmt.Errorf("%d %s", code, body)
		}
		if err := json.Unmarshal(body, &got); err != nil {
			return err
		}
		if len(got.Reports) != 1 {
			return fmt.Errorf("%s", body)
		}
		r := got.Reports[0]
		if r.Acknowledged != 1 || r.Pending == nil || len(*r.Pending) != 1 || len(r.Confirmed) != 1 {
			return fmt.Errorf("%s", body)
		}
		return nil
	})
	r := got.Reports[0]
	if r.Post != res.ID || r.Title != "New travel policy" || r.Category != "hr" || r.Publisher != keyOf(pub) || r.At.IsZero() ||
		r.Confirmed[0].Key != keyOf(readers[0]) || (*r.Pending)[0].Key != keyOf(readers[1]) || r.Subscribers != 2 {
		t.Errorf("report %+v", r)
	}
	if code, body := readers[0].Call(t, http.MethodGet, reportsPath, nil); code != http.StatusForbidden {
		t.Errorf("a member's GET /v1/reports = %d %s, want 403", code, body)
	}
}
