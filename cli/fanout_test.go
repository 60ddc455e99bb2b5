package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Issue 11, defect 8: N is network-wide, so `serve --fanout` with a value
// other than the definition's is a usage error that stores nothing (app's
// fanout_test.go checks Open and the adopted fanout).

// keyNetwork is the settings key under which app keeps the network
// definition.
const keyNetwork = "network"

// Reference: issue 11, defect 8.
func TestServeFanoutConflictRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		network bool // --network with the test network (fanout 16); else a new one-computer network
	}{{"imported definition", true}, {"new network", false}} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			args := []string{"--listen", "127.0.0.1:0", "--data", data, "--fanout", "8"}
			if tc.network {
				args = apptest.WithTestNetwork(t, args)
			}
			// A servant that starts stops at once: the test fails, it does
			// not hang.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stderr bytes.Buffer
			err := ServeWithReady(ctx, args, &stderr, &stderr, func(Ready) { cancel() })
			if err == nil || !strings.Contains(err.Error(), "--fanout 8 conflicts") || !strings.Contains(err.Error(), ", 16: N is network-wide") {
				t.Fatalf("serve --fanout 8 in a network of fanout 16 = %v, want a conflict naming both", err)
			}
			var coded interface{ ExitCode() int }
			if !errors.As(err, &coded) || coded.ExitCode() != 2 {
				t.Errorf("error %v does not carry exit code 2", err)
			}
			// Nothing was stored: no definition imported or created.
			st, err := storage.Open(data, storage.ReadOnly())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if v, ok, err := st.Setting(keyNetwork); err != nil || ok && v != "" {
				t.Errorf("the refused start stored a network definition (%v)", err)
			}
		})
	}
}

// Issue 26: `network init --fanout N` writes a definition of fanout N,
// within the bounds every definition is held to (trust.MinFanout to
// trust.MaxFanout); a servant of it runs with that N and refuses another.
func TestNetworkInitFanout(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "flat.json")
	var stdout bytes.Buffer
	if err := NetworkCommand([]string{"init", "--name", "Flat office", "--out", out, "--fanout", "8"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	sn, err := app.ReadNetworkFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil || sn.Fanout != 8 || sn.Version != 1 {
		t.Fatalf("definition: fanout %d, version %d, %v", sn.Fanout, sn.Version, err)
	}
	if !strings.Contains(stdout.String(), "fanout 8") {
		t.Errorf("output %q does not name the fanout", stdout.String())
	}
	s := startServe(t, "--network", out, "--fanout", "8")
	if st, _ := s.Status(t); st.ID == "" {
		t.Fatal("no status")
	}
	s.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = ServeWithReady(ctx, []string{"--listen", "127.0.0.1:0", "--data", s.Data, "--fanout", "16"}, io.Discard, io.Discard, func(Ready) { cancel() })
	if err == nil || !strings.Contains(err.Error(), "conflicts with the fanout of network \"Flat office\", 8") {
		t.Errorf("serve --fanout 16 on a network of fanout 8 = %v", err)
	}

	for _, n := range []string{"1", "257", "0", "-4", "eight"} {
		path := filepath.Join(dir, "bad-"+n+".json")
		err := NetworkCommand([]string{"init", "--name", "x", "--out", path, "--fanout", n}, io.Discard, io.Discard)
		if ec, ok := errors.AsType[usageError](err); !ok || ec.ExitCode() != 2 {
			t.Errorf("network init --fanout %s = %v, want a usage error", n, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("network init --fanout %s wrote %s", n, path)
		}
	}
}
