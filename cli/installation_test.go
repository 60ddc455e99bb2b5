package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"newsdesk/app"
	"newsdesk/app/apptest"
)

// Issue 11, defect 2: serve refuses a missing or empty store next to an
// existing source file, and leaves the store as it is (app's
// TestDamagedStoreRefusedUntilReset checks Open and the reset).
func TestServeRefusesDamagedStore(t *testing.T) {
	for _, damage := range []string{"empty", "missing"} {
		t.Run(damage, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			s := startServeIn(t, dir)
			s.Publish(t, "it", "Numbered 1", "")
			s.Stop()
			db := apptest.DamageStore(t, dir, damage)
			err := ServeWithReady(context.Background(), []string{"--listen", "127.0.0.1:0", "--data", dir}, io.Discard, io.Discard, nil)
			if !errors.Is(err, app.ErrDamagedInstallation) {
				t.Fatalf("serve with the store %s = %v, want ErrDamagedInstallation", damage, err)
			}
			if fi, err := os.Stat(db); damage == "empty" && (err != nil || fi.Size() != 0) || damage == "missing" && err == nil {
				t.Fatalf("a refused start changed the store: %v, %v", fi, err)
			}
		})
	}
}

// serve --reset-store needs the network definition, which was in the store:
// without it the empty store would start a network of its own.
func TestServeResetStoreNeedsNetwork(t *testing.T) {
	_, err := parseServeArgs([]string{"--listen", "127.0.0.1:0", "--data", t.TempDir(), "--reset-store"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--network") {
		t.Fatalf("--reset-store without --network = %v, want a usage error naming --network", err)
	}
	cfg, err := parseServeArgs([]string{"--listen", "127.0.0.1:0", "--data", t.TempDir(), "--reset-store", "--network", "net.json"}, io.Discard)
	if err != nil || !cfg.reset {
		t.Fatalf("--reset-store --network: %+v, %v", cfg, err)
	}
}
