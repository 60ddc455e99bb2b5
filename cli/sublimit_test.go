package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
)

// Issue 11: PUT /v1/subscriptions with more categories than the servant
// can announce is refused with 400, and one at the limit reaches the
// up-servant whole (app's TestSubscriptionLimit checks App.SetSubscriptions).
func TestSubscriptionLimit(t *testing.T) {
	names := func(n int, format string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	a := startServe(t)
	b := startServe(t, "--seeds", a.ID, "--subscribe", "hr")
	waitFor(t, "b attached under a", func() error {
		if got := a.Received(t, b.ID); len(got) != 1 {
			return fmt.Errorf("a received %v from b", got)
		}
		return nil
	})
	for _, tt := range []struct {
		what string
		subs []string
		want string
	}{
		{"4,104 categories", names(4104, "c%04d"), "4104 categories, at most 4092"},
		{"one too many", names(app.MaxSubscriptions+1, "c%04d"), "at most 4092"},
		{"too many bytes", names(4000, "department-%04d/a-rather-long-team-name"), "bytes"},
	} {
		code, out := b.Call(t, "PUT", "/v1/subscriptions", tt.subs)
		var e struct{ Error string }
		if json.Unmarshal(out, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, tt.want) {
			t.Errorf("PUT %s: %d %s; want 400 containing %q", tt.what, code, out, tt.want)
		}
	}
	if code, out := b.Call(t, "GET", "/v1/subscriptions", nil); code != http.StatusOK || strings.TrimSpace(string(out)) != `["hr"]` {
		t.Errorf("refused lists changed the subscriptions: %d %s", code, out)
	}

	// At the limit: accepted, and a hears all of it.
	most := names(app.MaxSubscriptions, "c%04d")
	if code, out := b.Call(t, "PUT", "/v1/subscriptions", most); code != http.StatusNoContent {
		t.Fatalf("PUT %d categories: %d %s", len(most), code, out)
	}
	waitForUpTo(t, 20*time.Second, "a to learn b's subscriptions", func() error {
		if got := a.Received(t, b.ID); len(got) != len(most) {
			return fmt.Errorf("a received %d categories from b, want %d", len(got), len(most))
		}
		return nil
	})
}
