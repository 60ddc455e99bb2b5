package app

import (
	"testing"
	"time"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// testNetwork is the network the Apps of a test join (apptest.Network).
func testNetwork(t testing.TB) *trust.SignedNetwork { return apptest.Network(t) }

func waitFor(t *testing.T, what string, cond func() error) {
	t.Helper()
	waitForUpTo(t, 10*time.Second, what, cond)
}

// waitForUpTo polls cond until it holds, for at most limit. In a simTest
// the time is virtual, and each check comes once everything due has
// happened.
func waitForUpTo(t *testing.T, limit time.Duration, what string, cond func() error) {
	t.Helper()
	apptest.WaitFor(t, limit, what, func() { settle(t) }, cond)
}
