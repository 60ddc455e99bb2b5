package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Issue 11, defect 5: PUT /v1/subscriptions with more than 4,096
// categories answered 204 and listed them, but the routing information
// could not be encoded ("too many elements: 4104 > 4096"), so nothing went
// upstream. A list larger than the servant can announce is refused with
// 400 (also by App.SetSubscriptions), and one at the limit reaches the
// up-servant whole.
func TestSubscriptionLimit(t *testing.T) {
	if MaxSubscriptions+len(systemCategories)+1 != newsnet.MaxCategories {
		t.Fatalf("MaxSubscriptions %d leaves no room for the system groups and an archive's *", MaxSubscriptions)
	}
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
		if got := a.received(t, b.ID); len(got) != 1 {
			return fmt.Errorf("a received %v from b", got)
		}
		return nil
	})
	for _, tt := range []struct {
		what string
		subs []string
		want string
	}{
		{"4,104 categories", names(4104, "c%04d"), "4104 categories, at most 4093"},
		{"one too many", names(MaxSubscriptions+1, "c%04d"), "at most 4093"},
		{"too many bytes", names(4000, "department-%04d/a-rather-long-team-name"), "bytes"},
	} {
		code, out := b.call(t, "PUT", "/v1/subscriptions", tt.subs)
		var e struct{ Error string }
		if json.Unmarshal(out, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, tt.want) {
			t.Errorf("PUT %s: %d %s; want 400 containing %q", tt.what, code, out, tt.want)
		}
	}
	if code, out := b.call(t, "GET", "/v1/subscriptions", nil); code != http.StatusOK || strings.TrimSpace(string(out)) != `["hr"]` {
		t.Errorf("refused lists changed the subscriptions: %d %s", code, out)
	}

	// At the limit: accepted, and a hears all of it.
	most := names(MaxSubscriptions, "c%04d")
	if code, out := b.call(t, "PUT", "/v1/subscriptions", most); code != http.StatusNoContent {
		t.Fatalf("PUT %d categories: %d %s", len(most), code, out)
	}
	waitForUpTo(t, 20*time.Second, "a to learn b's subscriptions", func() error {
		if got := a.received(t, b.ID); len(got) != len(most) {
			return fmt.Errorf("a received %d categories from b, want %d", len(got), len(most))
		}
		return nil
	})

	app := openApp(t, Options{})
	if err := app.SetSubscriptions(names(MaxSubscriptions+1, "c%04d")); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("App.SetSubscriptions of %d: %v", MaxSubscriptions+1, err)
	}
	if err := app.SetSubscriptions(names(MaxSubscriptions, "c%04d")); err != nil {
		t.Errorf("App.SetSubscriptions of %d: %v", MaxSubscriptions, err)
	}
}
