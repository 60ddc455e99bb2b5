package app

import (
	"fmt"
	"strings"
	"testing"

	"newsdesk/network"
	"newsdesk/newsnet"
)

// Issue 11, defect 5: PUT /v1/subscriptions with more than 4,096
// categories answered 204 and listed them, but the routing information
// could not be encoded ("too many elements: 4104 > 4096"), so nothing went
// upstream. A list larger than the servant can announce is refused with
// 400 (also by App.SetSubscriptions), and one at the limit reaches the
// up-servant whole.
func TestSubscriptionLimit(t *testing.T) {
	if MaxSubscriptions+len(network.SystemCategories)+len(network.AdminCategories)+1 != newsnet.MaxCategories {
		t.Fatalf("MaxSubscriptions %d leaves no room for the system and admin groups and an archive's *", MaxSubscriptions)
	}
	names := func(n int, format string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	// PUT /v1/subscriptions: cli's TestSubscriptionLimit.
	app := openApp(t, Options{})
	if err := app.SetSubscriptions(names(MaxSubscriptions+1, "c%04d")); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("App.SetSubscriptions of %d: %v", MaxSubscriptions+1, err)
	}
	if err := app.SetSubscriptions(names(MaxSubscriptions, "c%04d")); err != nil {
		t.Errorf("App.SetSubscriptions of %d: %v", MaxSubscriptions, err)
	}
}
