package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// The source is made once (0600, bound to the key) and then read back
// unchanged; a damaged file is an error, not silently replaced; a source
// the key does not own (from before sources were bound, or after the key
// was replaced) is replaced by a bound one.
func TestInstallationSource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := prepareDataDir(dir); err != nil {
		t.Fatal(err)
	}
	id, err := trust.LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	src, made, err := installationSource(dir, id.Public, false, log)
	if err != nil || !made || !trust.SourceOwnedBy(src, id.Public) {
		t.Fatalf("first run: %s, %v; want a source the key owns", src, err)
	}
	again, made, err := installationSource(dir, id.Public, false, log)
	if err != nil || made || again != src {
		t.Fatalf("second run: %s, %v; want %s", again, err, src)
	}
	path := filepath.Join(dir, InstallationIDFile)
	for p, mode := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode(), err, mode)
		}
	}
	fresh, _, err := installationSource(dir, id.Public, true, log)
	if err != nil || fresh == src || !trust.SourceOwnedBy(fresh, id.Public) {
		t.Fatalf("fresh: %s, %v; want a new source the key owns", fresh, err)
	}

	legacy := uuid.New()
	os.WriteFile(path, []byte(legacy.String()+"\n"), 0o600)
	bound, _, err := installationSource(dir, id.Public, false, log)
	if err != nil || bound == legacy || !trust.SourceOwnedBy(bound, id.Public) {
		t.Fatalf("legacy source: %s, %v; want a new bound source", bound, err)
	}

	os.WriteFile(path, []byte("not a uuid\n"), 0o600)
	if _, _, err := installationSource(dir, id.Public, false, log); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged ID file: %v", err)
	}
}

// Issue 11, defect 2: a missing or empty store next to an existing source
// file refuses to start (it would number items from 1 again under the same
// source); --reset-store sets the damaged file aside and starts under a new
// source, so no count is reused. A first start, and a start after `newsdesk
// key`, are not damage.
func TestDamagedStoreRefusedUntilReset(t *testing.T) {
	for _, damage := range []string{"empty", "missing"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := trust.LoadOrCreateIdentity(dir); err != nil { // as `newsdesk key` does
				t.Fatal(err)
			}
			opts := Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t)}
			a, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatalf("first start after `newsdesk key`: %v", err)
			}
			old := a.Source()
			r, err := a.Publish(Draft{Category: "it", Title: "Numbered 1"})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			db := apptest.DamageStore(t, dir, damage)

			_, err = Open(context.Background(), opts)
			if !errors.Is(err, ErrDamagedInstallation) || !strings.Contains(err.Error(), damage) || !strings.Contains(err.Error(), "--reset-store") {
				t.Fatalf("Open with the store %s = %v, want ErrDamagedInstallation naming --reset-store", damage, err)
			}
			// serve refuses it too: cli's TestServeRefusesDamagedStore.
			if fi, err := os.Stat(db); damage == "empty" && (err != nil || fi.Size() != 0) || damage == "missing" && err == nil {
				t.Fatalf("a refused start changed the store: %v, %v", fi, err)
			}

			opts.ResetStore = true
			a, err = Open(context.Background(), opts)
			if err != nil {
				t.Fatalf("Open with ResetStore: %v", err)
			}
			defer a.Close()
			if a.Source() == old || !trust.SourceOwnedBy(a.Source(), a.Identity().Public) {
				t.Errorf("after the reset the source is %s (was %s): counts would be reused", a.Source(), old)
			}
			if _, err := a.Item(r.ID); err == nil {
				t.Error("the reset store holds the old item")
			}
			aside, _ := filepath.Glob(db + ".damaged-*")
			if want := map[string]int{"empty": 1, "missing": 0}[damage]; len(aside) != want {
				t.Errorf("set aside: %v, want %d file(s)", aside, want)
			}
		})
	}
}

// --reset-store on an intact store refuses rather than discarding it, so a
// flag left in a service definition cannot wipe the store at every start.
func TestResetStoreRefusesIntactStore(t *testing.T) {
	dir := t.TempDir()
	opts := Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t)}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	src := a.Source()
	a.Close()
	opts.ResetStore = true
	if _, err := Open(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "intact") {
		t.Fatalf("ResetStore on an intact store = %v, want a refusal", err)
	}
	opts.ResetStore = false
	a, err = Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Source() != src {
		t.Errorf("source changed from %s to %s", src, a.Source())
	}
}

// An installation that takes a new source on an intact store (from before
// sources were bound to keys, or after identity.key was replaced) starts
// its chains afresh: the per-category counts of its last publications were
// the old source's, and the core would link the new source's first items
// to counts it never sent.
func TestNewSourceStartsOwnLastAfresh(t *testing.T) {
	dir := t.TempDir()
	opts := Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t)}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := a.Publish(Draft{Category: "it", Title: "Before"}); err != nil {
			t.Fatal(err)
		}
	}
	if last, _ := a.ownLast(); last["it"] != 3 {
		t.Fatalf("own last %v, want it: 3", last)
	}
	a.Close()
	// A source from before the binding: a random UUID.
	if err := os.WriteFile(filepath.Join(dir, InstallationIDFile), []byte(uuid.NewString()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err = Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if last, err := a.ownLast(); err != nil || len(last) != 0 {
		t.Errorf("own last under the new source %v, %v; want none", last, err)
	}
	r, err := a.Publish(Draft{Category: "it", Title: "After"})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := a.Item(r.ID); err != nil || e.Item.SourceCount != 1 || e.Item.Source != a.Source() {
		t.Errorf("first item under the new source: %+v, %v; want count 1", e.Item, err)
	}
}
