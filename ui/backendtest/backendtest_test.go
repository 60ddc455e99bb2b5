package backendtest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
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

	_ ui.InviteBackend = (*app.App)(nil)
	_ ui.InviteBackend = (*demobackend.Backend)(nil)

	_ ui.AudienceBackend = (*app.App)(nil)
	_ ui.AudienceBackend = (*demobackend.Backend)(nil)
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
		}, Arrive: arriveFromPeer(t, a)}
	})
}

// arriveFromPeer is the Arrive of a: a second application, the admin
// of a network of its own, which a joins on first use (importing its
// definition and setting up with it as the seed) publishes the draft once
// it knows that a subscribes to the category, so the item reaches a over a
// real link on loopback, as items from the network do.
func arriveFromPeer(t *testing.T, a *app.App) func(app.Draft) (uuid.UUID, error) {
	var peer *app.App
	return func(d app.Draft) (uuid.UUID, error) {
		if testing.Short() {
			t.Skip("real servants on loopback")
		}
		if peer == nil {
			p, err := app.Open(context.Background(), app.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Start: true})
			if err != nil {
				return uuid.Nil, err
			}
			t.Cleanup(func() {
				if err := p.Close(); err != nil {
					t.Errorf("closing the peer: %v", err)
				}
			})
			if err := p.Setup(app.Setup{DisplayName: "Newsroom", NewNetwork: true}); err != nil {
				return uuid.Nil, err
			}
			if err := a.ImportNetwork(p.Network()); err != nil {
				return uuid.Nil, err
			}
			if err := a.Setup(app.Setup{DisplayName: "Reader", Seeds: []string{p.Addr()}}); err != nil {
				return uuid.Nil, err
			}
			peer = p
		}
		// Until the peer has a's routing information, it would suppress the
		// item. Polling the other core's status, as a test of real links must.
		for deadline := time.Now().Add(20 * time.Second); !wants(peer.Status(), a.Addr(), d.Category); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				return uuid.Nil, fmt.Errorf("the peer never learnt that %s subscribes to %s: %+v", a.Addr(), d.Category, peer.Status().Links)
			}
		}
		r, err := peer.Publish(d)
		if err == nil && r.Outcome != app.Delivered {
			err = fmt.Errorf("the peer's publication was %v", r.Outcome)
		}
		return r.ID, err
	}
}

// wants reports whether st has a link to peer that receives category.
func wants(st app.NetStatus, peer, category string) bool {
	for _, l := range st.Links {
		if l.Peer == peer && l.Carries(category) {
			return true
		}
	}
	return false
}

// TestDemoBackend runs the suite over the in-memory backend, set up as a
// new installation whose servant has not started.
func TestDemoBackend(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backendtest.Subject {
		b := demobackend.New(time.Now)
		b.PresetNeedsSetup(true)
		b.PresetStatus(app.NetStatus{Role: app.RoleIdle, AppStatus: app.AppStatus{Source: b.Source().String(), Listen: app.DefaultListen}})
		t.Cleanup(func() { b.Close() })
		count := uint64(0)
		return backendtest.Subject{Backend: b, Receive: func(items ...*news.Item) error {
			for _, it := range items {
				b.Add(it.Clone())
			}
			return nil
		}, Arrive: func(d app.Draft) (uuid.UUID, error) {
			now := time.Now()
			id, err := news.NewID(now)
			if err != nil {
				return uuid.Nil, err
			}
			count++
			b.Ingest(&news.Item{
				ID: id, Category: d.Category, Title: d.Title, Body: d.Body, Urgent: d.Urgent, Supersedes: d.Supersedes,
				Author: "Newsroom", Source: peerSource, SourceCount: count, Created: now, Received: now,
			})
			return id, nil
		}}
	})
}

// peerSource is the installation the demo backend's arrivals come from.
var peerSource = uuid.MustParse("0191a000-0000-7000-8000-0000000000aa")
