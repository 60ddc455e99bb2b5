// Package fakebackend is the application the UI's tests run on: the real
// one (*app.App), opened on a test's temporary directory over a servant
// with no network behind it (servant.go, through app.Options.StartServant),
// with the test's clock (app.Options.Now) and its events taken as they are
// emitted (app.Options.OnEvent), so that a test finds the event of a call
// queued when the call returns. Reading, read state, publishing,
// scheduling, retraction, network definitions, invitations, settings and
// their rules are the application's own; so is a redemption, made by a
// second application (NewJoiner, Redeem).
//
// What one installation without a network cannot produce is injected, and
// nothing else:
//   - what arrives: Add and Ingest have the servant deliver items, as the
//     network does, through the application's callback;
//   - what the servant finds in the tree: PresetStatus and SetStatus (the
//     status the window shows), SetRemoteSubscriptions (whether a
//     publication is delivered or suppressed);
//   - what only other servants report: the census (census.go), the
//     reports of must-read posts (reports.go), the reach of own posts
//     (reach.go), each answered under the application's rule of who may
//     read it;
//   - what the computer answers: SetProbe, and the ports other programs
//     hold (PresetPortTaken, app.Options.PortHeld: the application binds
//     them to find out, which on a shared computer no test can arrange);
//   - attachments arriving: the servant brings their chunks into the
//     application's store, or gives up on them (attachments.go).
//
// Only the UI's tests import it (internal to ui); it does not import the
// UI, so the interface assertions live in the UI's tests.
package fakebackend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet/node"
	"newsdesk/trust"
)

// Backend is the real application with what a test injects. Its methods
// are the application's, but for those that answer what the test set
// (the other files of this package).
type Backend struct {
	*app.App
	t      testing.TB
	dir    string
	events chan app.Event
	dial   network.Dialer
	// serving: the invitation protocol's connections to this servant
	// (invite.go).
	serving sync.WaitGroup

	mu       sync.Mutex
	at       time.Time                   // the application's clock
	quiet    int                         // > 0: a preset runs, whose events nobody hears
	status   *app.NetStatus              // PresetStatus: Status answers it
	probe    func(addr string) app.Probe // SetProbe
	remote   []string                    // SetRemoteSubscriptions
	sv       *servant                    // the servant running
	censuses map[string]app.Census       // census.go
	reports  []app.NetworkReport         // reports.go
	reach    map[uuid.UUID]app.Reach     // reach.go
	taken    map[string]bool             // PresetPortTaken
}

// New opens the application on a temporary directory of t, set up as the
// admin and seed of a network of its own, "Newsdesk" (version 1, made by
// its key and deployed to it, as `newsdesk serve --network` does), and
// closes it when t ends. Its clock stands at now.
func New(t testing.TB, now time.Time) *Backend {
	t.Helper()
	b := newBackend(t, now, nil)
	id, err := trust.LoadOrCreateIdentity(b.dir)
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Newsdesk", id, []string{Self}, false)
	if err != nil {
		t.Fatal(err)
	}
	b.openSetUp(sn, "Tester")
	return b
}

// openSetUp opens the application on b.dir importing sn, set up with its
// seeds.
func (b *Backend) openSetUp(sn *trust.SignedNetwork, name string) {
	b.open(sn)
	b.quietly(func() error { return b.App.Setup(app.Setup{DisplayName: name, Seeds: sn.Seeds}) })
}

// NewUnset opens the application of a first run, which the wizard sets
// up (NeedsSetup), and closes it when t ends.
func NewUnset(t testing.TB, now time.Time) *Backend {
	t.Helper()
	b := newBackend(t, now, nil)
	b.open(nil)
	return b
}

// newBackend is a Backend not opened yet, whose invitation protocol
// connects with dial (app.Options.DialInvite; nil reaches nobody); the
// application it opens is closed when t ends.
func newBackend(t testing.TB, now time.Time, dial network.Dialer) *Backend {
	t.Helper()
	b := &Backend{t: t, dir: t.TempDir(), at: now, dial: dial, events: make(chan app.Event, 1024),
		taken: map[string]bool{}, censuses: map[string]app.Census{}}
	if b.dial == nil {
		b.dial = func(_ context.Context, addr string) (net.Conn, error) {
			return nil, fmt.Errorf("dial %s: %w", addr, errNoNetwork)
		}
	}
	t.Cleanup(func() {
		if b.App == nil {
			return
		}
		b.serving.Wait()
		if err := b.App.Close(); err != nil {
			t.Errorf("closing the application: %v", err)
		}
	})
	return b
}

// open opens the application on b.dir, importing the definition sn if not
// nil.
func (b *Backend) open(sn *trust.SignedNetwork) {
	b.t.Helper()
	a, err := app.Open(context.Background(), app.Options{
		Kind:      app.KindDesktop,
		DataDir:   b.dir,
		Advertise: Self, // the servant's address: none to work out
		Network:   sn,
		PortHeld:  b.portHeld,
		StartServant: func(cfg node.Config) (app.Servant, error) {
			sv := newServant(b, cfg)
			b.mu.Lock()
			b.sv = sv
			b.mu.Unlock()
			return sv, nil
		},
		Probe:      b.probeAddr,
		DialInvite: b.dial,
		Now:        b.now,
		OnEvent:    b.onEvent,
	})
	if err != nil {
		b.t.Fatalf("opening the application: %v", err)
	}
	b.App = a
}

// errNoNetwork: the tests' servant has no network to reach.
var errNoNetwork = errors.New("the UI's tests have no network")

// now is the application's clock.
func (b *Backend) now() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at
}

// onEvent takes the application's events as it emits them
// (app.Options.OnEvent): passed on to Events, unless a preset makes them.
func (b *Backend) onEvent(ev app.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.quiet > 0 {
		return
	}
	select {
	case b.events <- ev:
	default: // hints: the UI reads again anyway
	}
}

// Events returns the application's events, each as it was emitted.
func (b *Backend) Events() <-chan app.Event { return b.events }

// quietly runs a preset: the application's events of it are not passed
// on, and an error fails the test.
func (b *Backend) quietly(f func() error) {
	b.t.Helper()
	b.mu.Lock()
	b.quiet++
	b.mu.Unlock()
	err := f()
	b.mu.Lock()
	b.quiet--
	b.mu.Unlock()
	if err != nil {
		b.t.Fatalf("preset: %v", err)
	}
}

// Set-up. Tests give the application its state with the methods below.
// Those named Preset… change it quietly, as if it had always been so: no
// event reaches the UI.

// Add stores items (any order) as received earlier: the servant delivers
// them and Add returns once they are stored; nobody hears of them.
func (b *Backend) Add(items ...*news.Item) {
	b.t.Helper()
	b.quietly(func() error { return b.deliver(items) })
}

// Ingest delivers items, in order, as the network does, and returns once
// they are stored, with the application's events of them (ItemsArrived,
// but for one a retraction came before: it is stored hidden) on their way
// to the UI.
func (b *Backend) Ingest(items ...*news.Item) {
	b.t.Helper()
	if err := b.deliver(items); err != nil {
		b.t.Fatal(err)
	}
}

// deliver has the servant deliver items, each at its time of arrival,
// and waits until they are stored (app.App.WaitStored).
func (b *Backend) deliver(items []*news.Item) error {
	for _, it := range items {
		was := b.setAt(cmp.Or(it.Received, b.now()))
		err := b.servant().deliver(it)
		b.setAt(was)
		if err != nil {
			return fmt.Errorf("delivering %q: %w", it.Title, err)
		}
	}
	b.App.WaitStored()
	return nil
}

// Items returns the stored items that are not retracted, newest first.
func (b *Backend) Items() []*news.Item {
	b.t.Helper()
	var out []*news.Item
	var cur app.Cursor
	for {
		es, next, err := b.App.Newest(nil, 500, cur)
		if err != nil {
			b.t.Fatalf("items: %v", err)
		}
		for _, e := range es {
			out = append(out, e.Item)
		}
		if next == "" {
			return out
		}
		cur = next
	}
}

// PresetRead marks items read.
func (b *Backend) PresetRead(ids ...uuid.UUID) {
	b.quietly(func() error { return b.App.MarkRead(ids...) })
}

// setAt sets the clock and returns what it was.
func (b *Backend) setAt(at time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	was := b.at
	b.at = at
	return was
}

// PresetAcknowledged confirms must-read items at at.
func (b *Backend) PresetAcknowledged(at time.Time, ids ...uuid.UUID) {
	was := b.setAt(at)
	defer b.setAt(was)
	for _, id := range ids {
		b.quietly(func() error { _, err := b.App.Acknowledge(id); return err })
	}
}

// PresetSubscriptions replaces the subscriptions.
func (b *Backend) PresetSubscriptions(ids ...string) {
	b.quietly(func() error { return b.App.SetSubscriptions(ids) })
}

// PresetSettings replaces the settings; an unset listen address is the
// application's default.
func (b *Backend) PresetSettings(s app.Settings) {
	s.Listen = cmp.Or(s.Listen, app.DefaultListen)
	b.quietly(func() error { return b.App.SaveSettings(s) })
}

// PresetNetwork makes the installation hold the definition sn: a newer
// version of the network held, as deployed (app.App.ImportNetwork), or
// another network's, which only a fresh installation can join: the
// application is opened again on a new directory with this
// installation's key, importing sn, and set up with its seeds, with the
// settings and subscriptions it had. Only before items are added.
func (b *Backend) PresetNetwork(sn *trust.SignedNetwork) {
	b.t.Helper()
	if sn.ID == b.App.Network().ID {
		b.quietly(func() error { return b.App.ImportNetwork(sn) })
		return
	}
	if len(b.Items()) > 0 || b.NeedsSetup() {
		b.t.Fatal("PresetNetwork of another network before setup or after items were added")
	}
	set, subs := b.App.Settings(), b.App.Subscriptions()
	key, err := os.ReadFile(filepath.Join(b.dir, trust.IdentityFile))
	if err == nil {
		err = b.App.Close()
	}
	b.dir = b.t.TempDir()
	if err == nil {
		err = os.WriteFile(filepath.Join(b.dir, trust.IdentityFile), key, 0o600)
	}
	if err != nil {
		b.t.Fatal(err)
	}
	b.openSetUp(sn, set.DisplayName)
	b.PresetSettings(set)
	b.PresetSubscriptions(subs...)
}

// ReopenAt closes the application and opens it again on its directory
// at the time at, as after the computer was off, and returns once the
// posts scheduled for a time that passed meanwhile have gone out (late);
// nobody hears of them.
func (b *Backend) ReopenAt(at time.Time) {
	b.t.Helper()
	if err := b.App.Close(); err != nil {
		b.t.Fatal(err)
	}
	b.setAt(at)
	b.quietly(func() error {
		b.open(nil)
		b.App.WaitScheduledAtStart()
		list, err := b.App.Scheduled()
		if err == nil && len(list) > 0 && !list[0].Item.At.After(at) {
			err = fmt.Errorf("%q, due, did not go out", list[0].Item.Title)
		}
		return err
	})
}

// PresetStatus makes Status answer st, as the servant's state changes
// between the application's polls.
func (b *Backend) PresetStatus(st app.NetStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status = &st
}

// SetStatus is PresetStatus, announced with StatusChanged.
func (b *Backend) SetStatus(st app.NetStatus) {
	b.PresetStatus(st)
	select {
	case b.events <- app.Event{Kind: app.StatusChanged}:
	default:
	}
}

// Status answers what PresetStatus set, else the application's status.
func (b *Backend) Status() app.NetStatus {
	b.mu.Lock()
	st := b.status
	b.mu.Unlock()
	if st != nil {
		return *st
	}
	return b.App.Status()
}

// network is what the servant finds in the network: whether it is in
// the tree (as PresetStatus says, else yes), and what someone elsewhere
// subscribes to.
func (b *Backend) network() (connected bool, remote []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.status == nil || b.status.Connected, b.remote
}

// SetRemoteSubscriptions sets the categories someone else in the network
// subscribes to: a publication elsewhere is Suppressed while connected.
func (b *Backend) SetRemoteSubscriptions(ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remote = slices.Clone(ids)
}

// servant returns the servant running now.
func (b *Backend) servant() *servant {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sv
}

// SetProbe sets what Probe answers for an address; nil answers for the
// servant's own address only.
func (b *Backend) SetProbe(probe func(addr string) app.Probe) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probe = probe
}

// PresetPortTaken makes ports ("7400") held by another program on this
// computer (app.Options.PortHeld).
func (b *Backend) PresetPortTaken(ports ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range ports {
		b.taken[p] = true
	}
}

func (b *Backend) portHeld(addr string) bool {
	_, port, _ := net.SplitHostPort(addr)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.taken[port]
}

// probeAddr is the application's probe (app.Options.Probe).
func (b *Backend) probeAddr(_ context.Context, addr string) app.Probe {
	b.mu.Lock()
	probe := b.probe
	b.mu.Unlock()
	switch {
	case probe != nil:
		return probe(addr)
	case addr == Self:
		return app.Probe{Addr: addr, OK: true} // the servant answers itself
	}
	return app.Probe{Addr: addr, Problem: "connection refused", Kind: app.ProbeRefused}
}
