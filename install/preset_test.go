package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"newsdesk/app"
	"newsdesk/trust"
)

// appTarget sets up a real application, as gui.go's presetTarget does.
type appTarget struct{ *app.App }

func (t appTarget) Setup(name string, seeds []string) error {
	return t.App.Setup(app.Setup{DisplayName: name, Seeds: seeds})
}

// definition writes a signed network definition with seeds to a file in
// dir and returns it with its path.
func definition(t *testing.T, dir, name string, seeds []string) (*trust.SignedNetwork, string) {
	t.Helper()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork(name, admin, seeds, false)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, PresetName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return sn, p
}

// openApp opens an application in a fresh data directory, listening on
// loopback only.
func openApp(t *testing.T, dir string) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), app.Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestApplyPresetFirstRun: at first run the first existing candidate is
// imported and the installation joins through its seeds under the given
// name, so the wizard has nothing left to ask; it stays so after a restart,
// and a later preset changes nothing.
func TestApplyPresetFirstRun(t *testing.T) {
	root := t.TempDir()
	// The seed is a closed port on loopback: joining needs no peer.
	sn, preset := definition(t, filepath.Join(root, "etc"), "Acme news", []string{"127.0.0.1:9"})
	data := filepath.Join(root, "data")
	a := openApp(t, data)
	if !a.NeedsSetup() {
		t.Fatal("a fresh data directory does not need setting up")
	}
	missing := filepath.Join(root, "exe", PresetName)
	used, err := ApplyPreset(appTarget{a}, []string{missing, preset}, "Ann Smith")
	if err != nil || used != preset {
		t.Fatalf("ApplyPreset = %q, %v; want %q", used, err, preset)
	}
	check := func(a *app.App) {
		t.Helper()
		if a.NeedsSetup() {
			t.Fatal("still needs setting up: the wizard would show")
		}
		if got := a.Network(); got.ID != sn.ID || got.Version != sn.Version {
			t.Fatalf("network %q %s v%d, want the preset's %s v%d", got.Name, got.ID, got.Version, sn.ID, sn.Version)
		}
		if got := a.Seeds(); !slices.Equal(got, sn.Seeds) {
			t.Fatalf("seeds %q, want the preset's %q", got, sn.Seeds)
		}
		if got := a.Settings().DisplayName; got != "Ann Smith" {
			t.Fatalf("display name %q", got)
		}
	}
	check(a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	a = openApp(t, data)
	check(a)
	// Set up already: another preset is not even read.
	_, other := definition(t, filepath.Join(root, "other"), "Other", []string{"127.0.0.1:9"})
	if used, err := ApplyPreset(appTarget{a}, []string{other}, "Bob"); used != "" || err != nil {
		t.Fatalf("ApplyPreset on a set-up installation = %q, %v", used, err)
	}
	check(a)
}

// TestApplyPresetNone: without a preset nothing happens and the wizard
// runs as before.
func TestApplyPresetNone(t *testing.T) {
	root := t.TempDir()
	a := openApp(t, filepath.Join(root, "data"))
	used, err := ApplyPreset(appTarget{a}, []string{filepath.Join(root, "nothing.json")}, "Ann")
	if used != "" || err != nil {
		t.Fatalf("ApplyPreset = %q, %v", used, err)
	}
	if !a.NeedsSetup() {
		t.Fatal("set up without a preset")
	}
}

// TestApplyPresetRefused: a preset that exists but cannot be used is an
// error naming it, and the installation is left to be set up.
func TestApplyPresetRefused(t *testing.T) {
	root := t.TempDir()
	garbage := filepath.Join(root, "garbage.json")
	if err := os.WriteFile(garbage, []byte(`{"not": "a definition"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, noSeeds := definition(t, filepath.Join(root, "noseeds"), "Lonely", nil)
	sn, forged := definition(t, filepath.Join(root, "forged"), "Acme", []string{"127.0.0.1:9"})
	// Signed by its admin, then changed: the signature no longer holds.
	doc, _ := sn.Marshal()
	doc = []byte(strings.Replace(string(doc), "127.0.0.1:9", "127.0.0.1:8", 1))
	if err := os.WriteFile(forged, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, want string }{
		{"not a definition", garbage, garbage},
		{"no seeds", noSeeds, "lists no seeds"},
		{"signature broken", forged, "importing the network definition " + forged},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := openApp(t, t.TempDir())
			used, err := ApplyPreset(appTarget{a}, []string{c.path}, "Ann")
			if err == nil || used != c.path || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ApplyPreset = %q, %v; want an error with %q", used, err, c.want)
			}
			if !a.NeedsSetup() {
				t.Fatal("set up from a refused preset")
			}
		})
	}
}
