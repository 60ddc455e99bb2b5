//go:build !headless

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"newsdesk/app"
	"newsdesk/install"
	"newsdesk/trust"
)

// firstRunDir returns a fresh data directory whose servant will listen on
// loopback (the desktop app's default is 0.0.0.0:7400).
func firstRunDir(t *testing.T) string {
	t.Helper()
	return firstRunDirListening(t, "127.0.0.1:0")
}

// firstRunDirListening is firstRunDir with the servant listening on listen.
func firstRunDirListening(t *testing.T, listen string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	a, err := app.Open(context.Background(), app.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SaveSettings(app.Settings{Listen: listen, Notify: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFirstRunPreset: a network definition beside the executable is
// imported at first run and the servant started, so the window opens on
// the news, not the wizard (ui.ShowMain shows the wizard while the backend
// NeedsSetup; ui's TestTwoCores checks that a set-up backend shows none).
// UI goroutines and Fyne's test driver do not mix outside package ui (its
// tests run the UI's work synchronously), so the window is not opened here.
func TestFirstRunPreset(t *testing.T) {
	env, sn := presetEnv(t)
	application, err := openApplication(context.Background(), env, firstRunDir(t), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { application.Close() }) // after the UI's Cleanup
	if got := application.Network().ID; got != sn.ID {
		t.Fatalf("network %s, want the preset's %s", got, sn.ID)
	}
	if application.Addr() == "" {
		t.Fatal("the servant did not start")
	}
	if application.NeedsSetup() {
		t.Fatal("the wizard would show although a preset was imported") // ui.ShowMain asks NeedsSetup
	}
}

// TestFirstRunPresetPortTaken: a first start from a preset whose port is
// taken (another program's, or on Windows another signed-in user's
// Newsdesk's: seen under wine) does not call the preset unusable: it sets
// up on the next free port and says so (issue 26: two profiles on one
// computer).
func TestFirstRunPresetPortTaken(t *testing.T) {
	env, sn := presetEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := firstRunDirListening(t, ln.Addr().String())
	application, err := openApplication(context.Background(), env, dir, false)
	if err != nil {
		t.Fatalf("first start with the port taken: %v", err)
	}
	defer application.Close()
	if application.NeedsSetup() || application.Network().ID != sn.ID || application.Addr() == "" {
		t.Fatalf("the preset was not set up: setup needed %v, network %s", application.NeedsSetup(), application.Network().ID)
	}
	if m := application.Status().PortMoved; m == nil || m.From != ln.Addr().String() || application.Settings().Listen != m.To {
		t.Errorf("the move off the taken port is not said: %+v, listening on %s", m, application.Settings().Listen)
	}
}

// presetEnv returns an Env whose executable's directory holds a preset
// network definition, and the definition.
func presetEnv(t *testing.T) (install.Env, *trust.SignedNetwork) {
	t.Helper()
	exeDir := t.TempDir()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Acme news", admin, []string{"127.0.0.1:9"}, false)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(exeDir, install.PresetName), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return install.Env{GOOS: "linux", ExeDir: exeDir}, sn
}

// TestFirstRunWithoutPreset: without a preset the wizard asks.
func TestFirstRunWithoutPreset(t *testing.T) {
	env := install.Env{GOOS: "linux", ExeDir: t.TempDir()}
	for _, p := range install.PresetCandidates(env) {
		if _, err := os.Stat(p); err == nil {
			t.Skipf("this computer has a preset network definition (%s)", p)
		}
	}
	application, err := openApplication(context.Background(), env, firstRunDir(t), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { application.Close() }) // after the UI's Cleanup
	if !application.NeedsSetup() {
		t.Fatal("no wizard at first run without a preset")
	}
	if application.Addr() != "" {
		t.Fatal("the servant started before the wizard ran")
	}
	// A desktop keeps items for a time someone chose, not forever by
	// omission: the year of app.DesktopRetention until the reader picks.
	if got := application.Settings().Retention; got != app.DesktopRetention {
		t.Errorf("a new desktop keeps items %v, want %v", got, app.DesktopRetention)
	}
}
