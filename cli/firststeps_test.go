package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// readmeHeadless are a seed operator's first steps as the README once
// gave them and issue 26 quotes them. docs/operations.md ("A network from
// one headless servant") shows them today, and docs_test runs that block
// with the built binary; this runs them in-process, where the servants'
// logs and status can be looked at.
const readmeHeadless = `
newsdesk serve --listen 127.0.0.1:17700 --data s0 --control 127.0.0.1:17780
newsdesk invite create --data s0
newsdesk join CODE --data s1
newsdesk serve --data s1 --listen 127.0.0.1:17701
`

// Issue 26: the README's headless steps lead into one network. Each line
// runs through the entry point main gives it (Serve, InviteCommand,
// JoinCommand) in a fresh working directory, with the README's ports
// swapped for free ones (other tests run beside this one) and CODE for
// the code `invite create` printed. The joined servant attaches below
// the first, neither says it is alone, and once it subscribes it receives
// what the first publishes.
func TestReadmeHeadlessSteps(t *testing.T) {
	t.Chdir(t.TempDir())
	ports := map[string]string{}
	for _, p := range []string{"127.0.0.1:17700", "127.0.0.1:17701", "127.0.0.1:17780"} {
		ports[p] = apptest.FreeAddr(t)
	}
	var (
		code     string
		servants = map[string]*apptest.Servant{} // by --data
	)
	for line := range strings.Lines(strings.TrimSpace(readmeHeadless)) {
		line = strings.TrimSpace(line)
		for from, to := range ports {
			line = strings.ReplaceAll(line, from, to)
		}
		line = strings.ReplaceAll(line, "CODE", code)
		args := strings.Fields(line)
		if args[0] != "newsdesk" {
			t.Fatalf("step %q is not a newsdesk command", line)
		}
		var out, errOut bytes.Buffer
		var err error
		switch args[1] {
		case "serve":
			servants[flagValue(args, "--data")] = startServeArgs(t, args[2:])
		case "invite":
			err = InviteCommand(context.Background(), args[2:], &out, &errOut)
			code = strings.TrimSpace(out.String())
		case "join":
			err = JoinCommand(context.Background(), args[2:], &out, &errOut)
		default:
			t.Fatalf("step %q: no entry point for %q", line, args[1])
		}
		if err != nil {
			t.Fatalf("step %q: %v\n%s%s", line, err, out.String(), errOut.String())
		}
	}
	s0, s1 := servants["s0"], servants["s1"]

	waitForUpTo(t, 20*time.Second, "the joined servant below the first", func() error {
		var st struct {
			Downs, Leaves []string
			Alone         *struct{ Seeds []string }
		}
		_, body := s0.Call(t, http.MethodGet, "/v1/status", nil)
		if err := json.Unmarshal(body, &st); err != nil {
			return err
		}
		if st.Alone != nil {
			return fmt.Errorf("the first servant says it is alone: %s", body)
		}
		if !slices.Contains(st.Downs, s1.ID) && !slices.Contains(st.Leaves, s1.ID) {
			return fmt.Errorf("%s not below %s: %s", s1.ID, s0.ID, body)
		}
		return nil
	})
	// The first servant lists the joined one as soon as it accepted it;
	// the joined servant logs its attach once it has read the answer.
	waitFor(t, "the joined servant's log says it attached", func() error {
		if log := s1.Log.String(); !strings.Contains(log, "attached under "+s0.ID) || strings.Contains(log, "alone") {
			return fmt.Errorf("the joined servant's log does not say it attached under %s, or says it is alone:\n%s", s0.ID, log)
		}
		return nil
	})

	// Beyond the README: a reader of the joined servant gets the news.
	s1.Stop()
	reader := startServeArgs(t, []string{"--data", "s1", "--listen", ports["127.0.0.1:17701"], "--control", "127.0.0.1:0", "--subscribe", "it"})
	reader.WaitAttached(t)
	s0.WaitRoute(t, "it")
	s0.Publish(t, "it", "Welcome aboard", "")
	waitFor(t, "the item at the joined servant", func() error {
		if got := reader.Titles(t, "it"); !slices.Equal(got, []string{"Welcome aboard"}) {
			return fmt.Errorf("it has %q", got)
		}
		return nil
	})
}

// Issue 26: `newsdesk invite create` on a network that lists no seed (a
// fresh servant on port 0 is not made one: its address changes at every
// start) is refused, saying why and what to do.
func TestInviteCreateRefusedWithoutSeed(t *testing.T) {
	s := startServe(t, apptest.NoTestNetwork)
	var out, errOut bytes.Buffer
	err := InviteCommand(context.Background(), []string{"create", "--data", s.Data}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "lists no seed") || !strings.Contains(err.Error(), "--listen HOST:PORT") {
		t.Fatalf("invite create on a seedless network: %v (printed %q)", err, out.String())
	}
	if out.Len() != 0 {
		t.Errorf("a code was printed: %q", out.String())
	}
}

// flagValue is the value following name in args, "" when absent.
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// startServeArgs runs `newsdesk serve` with exactly args until the test
// ends (apptest.StartServeIn adds flags of its own).
func startServeArgs(t *testing.T, args []string) *apptest.Servant {
	t.Helper()
	log := &apptest.SyncBuffer{}
	s := &apptest.Servant{Data: flagValue(args, "--data"), Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Ready, 1)
	done := make(chan error, 1)
	go func() { done <- ServeWithReady(ctx, args, io.Discard, log, func(r Ready) { ready <- r }) }()
	select {
	case r := <-ready:
		s.Ready = apptest.Ready{ID: r.ID, Control: r.Control}
	case err := <-done:
		cancel()
		t.Fatalf("serve %q = %v before it was ready; log:\n%s", args, err, log)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatalf("serve %q not ready after 20s; log:\n%s", args, log)
	}
	stopped := false
	s.Stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("serve %q returned %v", args, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serve %q did not return 10s after its context was cancelled", args)
		}
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("log of serve %q:\n%s", args, log)
		}
	})
	return s
}
