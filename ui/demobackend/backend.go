// Package demobackend is an in-memory application behind the desktop UI:
// it implements ui.Backend and ui.TrustBackend without a store, a servant
// or a network. The demo mode runs on it (NEWSDESK_DEMO=1, Open and the
// data set in demo.go), and the UI's tests use it as their fake. The
// production UI does not import it; it does not import the UI either (the
// UI's own tests import it), so the interface assertions live in its
// tests. The conformance suite in ui/backendtest runs over it and the real
// application (*app.App), which is the reference where they differ.
package demobackend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Backend is a ui.Backend held in memory. It has no servant: its status,
// probe results and publication outcomes are what its creator sets. It is
// deterministic: time comes from its clock, IDs from the items it is given.
type Backend struct {
	mu    sync.Mutex
	now   func() time.Time
	items []*news.Item // newest (highest ID) first
	byID  map[uuid.UUID]*news.Item
	read  map[uuid.UUID]bool
	// retracted holds the retractions applied, as the store keeps them:
	// the item stays, out of every list but My posts.
	retracted map[uuid.UUID]*storage.Retraction
	catalog   *categories.Catalog
	subs      []string
	seeds     []string
	settings  app.Settings
	status    app.NetStatus
	setup     bool // NeedsSetup
	source    uuid.UUID

	// remoteSubs are the categories someone else in the network subscribes
	// to: publishing elsewhere is Suppressed.
	remoteSubs []string
	// probe answers Probe; nil reports every address unreachable.
	probe func(addr string) app.Probe

	// The installation's key and the network definition it holds
	// (TrustBackend): by default a one-computer network whose admin it is.
	identity *trust.Identity
	network  *trust.SignedNetwork

	events chan app.Event
	closed bool
}

// New returns an empty backend with the default catalog, set up
// (NeedsSetup false) and connected, whose clock is now.
func New(now func() time.Time) *Backend {
	id, err := trust.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	sn, err := trust.NewNetwork("Newsdesk", id, nil, false)
	if err != nil {
		panic(err)
	}
	source := uuid.MustParse("0191a000-0000-7000-8000-00000000beef")
	return &Backend{
		identity: id,
		network:  sn,
		now:      now,
		byID:     map[uuid.UUID]*news.Item{},
		read:     map[uuid.UUID]bool{},
		catalog:  categories.Default(),
		source:   source,
		status:   app.NetStatus{Connected: true, Source: source.String()},
		events:   make(chan app.Event, 256),
	}
}

// Set-up. Tests and the demo data set give the backend its state with
// the methods below. Those named Preset… change it quietly, as if it had
// always been so: no event, no validation.

// Add stores items (any order) as received earlier; it sends no events.
// The backend keeps the items it is given, so a test may still change one
// before the UI reads it.
func (m *Backend) Add(items ...*news.Item) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(items) == 1 && m.byID[items[0].ID] == nil {
		it := items[0]
		i, _ := slices.BinarySearchFunc(m.items, it.ID, func(x *news.Item, id uuid.UUID) int { return -news.CompareIDs(x.ID, id) })
		m.items = slices.Insert(m.items, i, it)
		m.byID[it.ID] = it
		return
	}
	for _, it := range items {
		m.byID[it.ID] = it
	}
	m.items = m.items[:0]
	for _, it := range m.byID {
		m.items = append(m.items, it)
	}
	slices.SortFunc(m.items, func(a, b *news.Item) int { return -news.CompareIDs(a.ID, b.ID) })
}

// Ingest stores an item as if it had arrived from the network and sends
// the event the real application would.
func (m *Backend) Ingest(it *news.Item) {
	m.Add(it)
	m.emit(app.Event{Kind: app.ItemsChanged, Categories: []string{it.Category}, Urgent: it.Urgent, Items: []uuid.UUID{it.ID}})
}

// Items returns the stored items, newest first, retracted ones included:
// the backend's own, which a test may change before the UI reads them.
func (m *Backend) Items() []*news.Item {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.items)
}

// PresetRead marks items read.
func (m *Backend) PresetRead(ids ...uuid.UUID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		m.read[id] = true
	}
}

// PresetSubscriptions replaces the subscriptions.
func (m *Backend) PresetSubscriptions(ids ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subs = slices.Clone(ids)
}

// PresetSettings replaces the settings.
func (m *Backend) PresetSettings(s app.Settings) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settings = s
	m.settings.NotifyCategories = slices.Clone(s.NotifyCategories)
}

// PresetNeedsSetup sets whether the first-run wizard is to run.
func (m *Backend) PresetNeedsSetup(v bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setup = v
}

// PresetStatus replaces the servant's status, as it changes between the
// application's polls.
func (m *Backend) PresetStatus(st app.NetStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status = st
}

// SetStatus replaces the status and sends StatusChanged.
func (m *Backend) SetStatus(st app.NetStatus) {
	m.PresetStatus(st)
	m.emit(app.Event{Kind: app.StatusChanged})
}

// PresetNetwork replaces the network definition held, unchecked.
func (m *Backend) PresetNetwork(sn *trust.SignedNetwork) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.network = sn
}

// SetRemoteSubscriptions sets the categories someone else in the network
// subscribes to: a publication elsewhere is Suppressed while connected.
func (m *Backend) SetRemoteSubscriptions(ids ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.remoteSubs = slices.Clone(ids)
}

// SetProbe sets what Probe answers; nil reports every address unreachable.
func (m *Backend) SetProbe(probe func(addr string) app.Probe) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.probe = probe
}

// Source returns the installation's source ID, the Source of its own posts.
func (m *Backend) Source() uuid.UUID { return m.source }

// emit sends an event without blocking; a full queue drops it, as the
// events are hints that the UI re-reads anyway.
func (m *Backend) emit(ev app.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	select {
	case m.events <- ev:
	default:
	}
}

// Close ends the event stream.
func (m *Backend) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.events)
	}
	return nil
}

func (m *Backend) entry(it *news.Item) storage.Entry {
	return storage.Entry{Item: it.Clone(), Read: m.read[it.ID], Retracted: m.retracted[it.ID]}
}

// visible reports whether it shows in lists, searches and counts.
func (m *Backend) visible(it *news.Item) bool { return m.retracted[it.ID] == nil }

// page walks the items older than cur that keep returns true and returns
// up to n of them with the cursor of the next page.
func (m *Backend) page(n int, cur storage.Cursor, keep func(*news.Item) bool) ([]storage.Entry, storage.Cursor, error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("page size %d, must be positive", n)
	}
	start := 0
	if cur != "" {
		id, err := uuid.Parse(string(cur))
		if err != nil {
			return nil, "", storage.ErrBadCursor
		}
		start, _ = slices.BinarySearchFunc(m.items, id, func(it *news.Item, id uuid.UUID) int { return -news.CompareIDs(it.ID, id) })
		if start < len(m.items) && m.items[start].ID == id {
			start++
		}
	}
	var out []storage.Entry
	for i := start; i < len(m.items); i++ {
		it := m.items[i]
		if !keep(it) {
			continue
		}
		if len(out) == n {
			return out, storage.Cursor(out[n-1].Item.ID.String()), nil
		}
		out = append(out, m.entry(it))
	}
	return out, "", nil
}

func inCats(cats []string, it *news.Item) bool {
	return len(cats) == 0 || categories.CoveredByAny(cats, it.Category)
}

func (m *Backend) Newest(cats []string, n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool { return m.visible(it) && inCats(cats, it) })
}

func (m *Backend) Search(ctx context.Context, query string, cats []string, n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return nil, "", errors.New("search: empty query")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool {
		if !m.visible(it) || !inCats(cats, it) || ctx.Err() != nil {
			return false
		}
		text := strings.ToLower(it.Title + " " + it.Body)
		for _, w := range words {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
}

func (m *Backend) Item(id uuid.UUID) (storage.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	if !ok {
		return storage.Entry{}, storage.ErrNotFound
	}
	return m.entry(it), nil
}

func (m *Backend) UnreadCounts() (map[string]uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]uint64{}
	for _, it := range m.items {
		if !m.read[it.ID] && m.visible(it) {
			out[it.Category]++
		}
	}
	return out, nil
}

func (m *Backend) setRead(read bool, ids []uuid.UUID) error {
	m.mu.Lock()
	var cats []string
	var changed []uuid.UUID
	for _, id := range ids {
		it, ok := m.byID[id]
		if !ok || m.read[id] == read {
			continue
		}
		if read {
			m.read[id] = true
		} else {
			delete(m.read, id)
		}
		cats = append(cats, it.Category)
		changed = append(changed, id)
	}
	m.mu.Unlock()
	if len(changed) > 0 {
		m.emit(app.Event{Kind: app.ItemsChanged, Categories: cats, Items: changed})
	}
	return nil
}

func (m *Backend) MarkRead(ids ...uuid.UUID) error   { return m.setRead(true, ids) }
func (m *Backend) MarkUnread(ids ...uuid.UUID) error { return m.setRead(false, ids) }

func (m *Backend) MarkAllRead(category string) error {
	m.mu.Lock()
	var ids []uuid.UUID
	for _, it := range m.items {
		if (category == "" || categories.Covers(category, it.Category)) && !m.read[it.ID] {
			ids = append(ids, it.ID)
		}
	}
	m.mu.Unlock()
	return m.setRead(true, ids)
}

func (m *Backend) Catalog() *categories.Catalog {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.catalog
}

func (m *Backend) SetCatalog(c *categories.Catalog) error {
	m.mu.Lock()
	if c.Version() <= m.catalog.Version() {
		m.mu.Unlock()
		return fmt.Errorf("catalog version %d is not newer than %d", c.Version(), m.catalog.Version())
	}
	m.catalog = c
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.CatalogChanged})
	return nil
}

func (m *Backend) Subscriptions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.subs)
}

func (m *Backend) SetSubscriptions(ids []string) error {
	for _, id := range ids {
		if err := categories.ValidateID(id); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.subs = categories.Minimize(ids)
	m.status.Subscriptions = newsnet.NewCategorySet(m.subs...)
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.CatalogChanged})
	return nil
}

func (m *Backend) Publish(d app.Draft) (app.PublishResult, error) {
	if err := m.MayPublish(d.Category); err != nil {
		return app.PublishResult{}, err
	}
	m.mu.Lock()
	now := m.now()
	it, err := news.NewItem(d.Category, d.Title, d.Body, m.settings.DisplayName, m.source, now)
	if err != nil {
		m.mu.Unlock()
		return app.PublishResult{}, err
	}
	it.Urgent = d.Urgent
	it.Supersedes = d.Supersedes
	it.Received = now
	var outcome app.Outcome
	switch {
	case !m.status.Connected:
		outcome = app.Queued
	case !categories.CoveredByAny(m.remoteSubs, d.Category):
		outcome = app.Suppressed
		m.status.Counters.Suppressed++
	default:
		outcome = app.Delivered
	}
	m.status.Counters.Published++
	m.mu.Unlock()
	m.Add(it)
	m.mu.Lock()
	m.read[it.ID] = true // one's own post is read
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.ItemsChanged, Categories: []string{it.Category}, Items: []uuid.UUID{it.ID}})
	return app.PublishResult{ID: it.ID, Outcome: outcome}, nil
}

func (m *Backend) MyPosts(n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool { return it.Source == m.source })
}

func (m *Backend) Status() app.NetStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

func (m *Backend) Seeds() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seeds)
}

func (m *Backend) SetSeeds(addrs []string) error {
	for _, a := range addrs {
		if _, err := newsnet.ParseServantID(a); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.seeds = slices.Clone(addrs)
	m.mu.Unlock()
	return nil
}

func (m *Backend) Probe(ctx context.Context, addr string) app.Probe {
	m.mu.Lock()
	probe := m.probe
	m.mu.Unlock()
	if probe == nil {
		return app.Probe{Addr: addr, Problem: "connection refused"}
	}
	return probe(addr)
}

func (m *Backend) NeedsSetup() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.setup
}

func (m *Backend) Setup(s app.Setup) error {
	if strings.TrimSpace(s.DisplayName) == "" {
		return errors.New("display name: required")
	}
	m.mu.Lock()
	m.setup = false
	m.settings.DisplayName = s.DisplayName
	if s.NewNetwork {
		m.seeds = []string{string(m.status.ID)}
	} else {
		m.seeds = slices.Clone(s.Seeds)
	}
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.StatusChanged})
	return nil
}

func (m *Backend) Settings() app.Settings {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.settings
	s.NotifyCategories = slices.Clone(s.NotifyCategories)
	return s
}

func (m *Backend) SaveSettings(s app.Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settings = s
	m.settings.NotifyCategories = slices.Clone(s.NotifyCategories)
	return nil
}

func (m *Backend) Events() <-chan app.Event { return m.events }

// Retract hides an item as the application does: admins may retract any
// item, this installation its own.
func (m *Backend) Retract(id uuid.UUID, reason string) error {
	if err := news.CheckLine("reason", reason, trust.MaxRetractionReasonRunes); err != nil {
		return err
	}
	admin := m.IsAdmin()
	m.mu.Lock()
	it, ok := m.byID[id]
	switch {
	case !ok:
		m.mu.Unlock()
		return app.ErrItemNotFound
	case !admin && it.Source != m.source:
		m.mu.Unlock()
		return &app.NotAuthorizedError{ItemID: id, Err: trust.NotAuthorized}
	case m.retracted[id] != nil:
		m.mu.Unlock()
		return nil
	}
	if m.retracted == nil {
		m.retracted = map[uuid.UUID]*storage.Retraction{}
	}
	m.retracted[id] = &storage.Retraction{ItemID: id, Reason: reason, At: m.now()}
	cat := it.Category
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.ItemsChanged, Categories: []string{cat}, Items: []uuid.UUID{id}})
	return nil
}

// Identity returns the installation's key pair.
func (m *Backend) Identity() *trust.Identity { return m.identity }

// Network returns the definition held.
func (m *Backend) Network() *trust.SignedNetwork {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.network
}

func (m *Backend) IsAdmin() bool { return m.Network().IsAdmin(m.identity.Public) }

func (m *Backend) MayPublish(category string) error {
	return m.Network().MayPublish(m.identity.Public, category)
}

// PublishNetwork adopts a newer version signed by an admin of the one held,
// as the application does: its catalog applies at once, its seeds become
// the stored list.
func (m *Backend) PublishNetwork(next *trust.SignedNetwork) error {
	m.mu.Lock()
	if err := m.network.Accept(next); err != nil {
		m.mu.Unlock()
		return err
	}
	m.adoptLocked(next)
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.StatusChanged})
	m.emit(app.Event{Kind: app.CatalogChanged})
	return nil
}

func (m *Backend) adoptLocked(sn *trust.SignedNetwork) {
	m.network = sn
	if sn.Catalog != nil && sn.Catalog.Version() >= m.catalog.Version() {
		m.catalog = sn.Catalog
	}
	if len(sn.Seeds) > 0 {
		m.seeds = slices.Clone(sn.Seeds)
	}
}

// ImportNetwork takes a deployed definition: a newer version of the
// network held, or before setup another network's.
func (m *Backend) ImportNetwork(sn *trust.SignedNetwork) error {
	if err := trust.VerifySelfSigned(sn); err != nil {
		return err
	}
	cur := m.Network()
	if sn.ID == cur.ID {
		if sn.Version == cur.Version {
			return nil
		}
		return m.PublishNetwork(sn)
	}
	m.mu.Lock()
	if !m.setup {
		m.mu.Unlock()
		return fmt.Errorf("%w: this installation belongs to %q", trust.ErrOtherNetwork, cur.Name)
	}
	m.catalog = categories.Default() // the new network's catalog replaces it whatever its version
	m.adoptLocked(sn)
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.StatusChanged})
	m.emit(app.Event{Kind: app.CatalogChanged})
	return nil
}
