package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"newsdesk/app/apptest"
	"newsdesk/storage"
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
