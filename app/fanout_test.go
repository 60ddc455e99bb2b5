package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"newsdesk/app/apptest"
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
	sn, err := apptest.NetworkAdmin(t).SignNetwork(def)
	if err != nil {
		t.Fatal(err)
	}
	return sn
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
