package cli

import (
	"context"
	"io"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// The tests start `newsdesk serve` in this process (apptest.StartServe)
// and talk to its control API over HTTP, as tools outside do.
type (
	servant       = apptest.Servant
	publishResult = apptest.PublishResult
)

// serveForTest is ServeWithReady as apptest.ServeFunc.
func serveForTest(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(apptest.Ready)) error {
	return ServeWithReady(ctx, args, stdout, stderr, func(r Ready) { ready(apptest.Ready{ID: r.ID, Control: r.Control}) })
}

// startServe runs `newsdesk serve` with args (plus a fresh --data, listen
// and control on 127.0.0.1:0, and the test network) until the test ends.
func startServe(t testing.TB, args ...string) *servant {
	t.Helper()
	return apptest.StartServe(t, serveForTest, args...)
}

// startServeIn is startServe on a given data directory, so that a test can
// stop a servant and start it again on the same data.
func startServeIn(t testing.TB, data string, args ...string) *servant {
	t.Helper()
	return apptest.StartServeIn(t, serveForTest, data, args...)
}

func waitFor(t testing.TB, what string, cond func() error) {
	t.Helper()
	waitForUpTo(t, 10*time.Second, what, cond)
}

// waitForUpTo polls cond until it holds, for at most limit.
func waitForUpTo(t testing.TB, limit time.Duration, what string, cond func() error) {
	t.Helper()
	apptest.WaitFor(t, limit, what, nil, cond)
}
