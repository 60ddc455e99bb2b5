package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"newsdesk/storage"
	"newsdesk/trust"
)

// Issue 11, defect 8: N is network-wide. Servants compare partitions (tree
// optimization, slots), which mean nothing between different bases, so a
// servant takes N from the network definition, and `serve --fanout` with
// another value is a usage error that stores nothing.

// networkWithFanout returns the test network's definition with fanout n,
// signed by its admin.
func networkWithFanout(t *testing.T, n int) *trust.SignedNetwork {
	t.Helper()
	def := testNetwork(t).Network.Clone()
	def.Fanout = n
	sn, err := testNetAdmin.SignNetwork(def)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

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
				args = withTestNetwork(t, args)
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

// The servant's N is the definition's; an Options.Fanout equal to it is
// accepted, another one refused.
// Reference: issue 11, defect 8.
func TestOpenFanoutFromDefinition(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		def := networkWithFanout(t, 8)
		for _, fanout := range []int{0, 8} {
			a := sn.open(t, Options{Network: def, Fanout: fanout, Start: true})
			if p := a.Status().Partition; p.N != 8 {
				t.Errorf("Options.Fanout %d in a network of fanout 8: partition %v with %d slots, want 8", fanout, p, p.N)
			}
		}
		a, err := Open(context.Background(), sn.options(Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Network: def, Fanout: 16, Start: true}))
		if err == nil {
			p := a.Status().Partition
			a.Close()
			t.Fatalf("Options.Fanout 16 in a network of fanout 8 was accepted (partition %v with %d slots)", p, p.N)
		}
		if !strings.Contains(err.Error(), "--fanout 16 conflicts") {
			t.Errorf("Open = %v, want a fanout conflict", err)
		}
	})
}

// A new definition that changes the fanout takes effect at once: the
// servant restarts with the new N instead of comparing partitions built on
// another base until its next start.
func TestAdoptedFanoutRestartsServant(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		// No definition given: a new one-computer network with a as its admin.
		a, err := Open(context.Background(), sn.options(Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Start: true}))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if p := a.Status().Partition; p.N != 16 {
			t.Fatalf("a new one-computer network: %d slots, want 16", p.N)
		}
		n := a.Network().Network.Clone()
		n.Version++
		n.Fanout = 4
		next, err := a.Identity().SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.PublishNetwork(next); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the servant to run with fanout 4", func() error {
			if p := a.Status().Partition; p.N != 4 {
				return fmt.Errorf("%d slots", p.N)
			}
			return nil
		})
	})
}
