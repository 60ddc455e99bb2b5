package network

import (
	"bytes"
	"testing"
	"time"

	"newsdesk/trust"
)

// After a rotation the previous secret is accepted alongside the new one,
// and only until the grace period ends.
func TestSecretsDuringRotation(t *testing.T) {
	a := &Keeper{}
	a.def.Store(&trust.SignedNetwork{Network: trust.Network{Secret: []byte("new")}})
	if got := a.Secrets(); len(got) != 1 || !bytes.Equal(got[0], []byte("new")) {
		t.Fatalf("without a rotation: %q", got)
	}
	a.prevSecret.Store(&rotation{secret: []byte("old"), until: time.Now().Add(time.Minute)})
	if got := a.Secrets(); len(got) != 2 || !bytes.Equal(got[0], []byte("new")) || !bytes.Equal(got[1], []byte("old")) {
		t.Fatalf("during the grace period: %q, want new then old", got)
	}
	a.prevSecret.Store(&rotation{secret: []byte("old"), until: time.Now().Add(-time.Second)})
	if got := a.Secrets(); len(got) != 1 {
		t.Fatalf("after the grace period: %q, want only the new secret", got)
	}
}
