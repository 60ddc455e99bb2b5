package backendtest_test

import (
	"context"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/ui"
	"newsdesk/ui/backendtest"
	"newsdesk/ui/demobackend"
)

// Both backends are what the UI needs, the TrustBackend part included.
var (
	_ ui.Backend      = (*app.App)(nil)
	_ ui.TrustBackend = (*app.App)(nil)
	_ ui.Backend      = (*demobackend.Backend)(nil)
	_ ui.TrustBackend = (*demobackend.Backend)(nil)
)

// TestApp runs the suite over the real application, opened on an empty
// data directory with its servant listening on loopback once Setup starts
// it. Received items go straight into its store, as its servant stores
// what arrives.
func TestApp(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backendtest.Subject {
		a, err := app.Open(context.Background(), app.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() {
			if err := a.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return backendtest.Subject{Backend: a, Receive: func(items ...*news.Item) error {
			for _, it := range items {
				if err := a.Store().Put(context.Background(), it); err != nil {
					return err
				}
			}
			return nil
		}}
	})
}

// TestDemoBackend runs the suite over the in-memory backend, set up as a
// new installation whose servant has not started.
func TestDemoBackend(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backendtest.Subject {
		b := demobackend.New(time.Now)
		b.PresetNeedsSetup(true)
		b.PresetStatus(app.NetStatus{Status: newsnet.Status{Role: newsnet.RoleIdle}, Source: b.Source().String(), Listen: app.DefaultListen})
		t.Cleanup(func() { b.Close() })
		return backendtest.Subject{Backend: b, Receive: func(items ...*news.Item) error {
			for _, it := range items {
				b.Add(it.Clone())
			}
			return nil
		}}
	})
}
