package ui

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

// memBackend is a Backend held in memory: the demo mode's application
// (NEWSDESK_DEMO=1, see demo.go) and the tests' fake. It has no servant;
// its status, probe results and publication outcomes are what its creator
// sets. It is deterministic: time comes from its clock, IDs from the
// items it is given.
type memBackend struct {
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

var (
	_ Backend      = (*memBackend)(nil)
	_ TrustBackend = (*memBackend)(nil)
)

// newMemBackend returns an empty backend with the default catalog, set up
// (NeedsSetup false) and connected, whose clock is now.
func newMemBackend(now func() time.Time) *memBackend {
	id, err := trust.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	sn, err := trust.NewNetwork("Newsdesk", id, nil, false)
	if err != nil {
		panic(err)
	}
	source := uuid.MustParse("0191a000-0000-7000-8000-00000000beef")
	return &memBackend{
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

// add stores items (any order); it does not send events.
func (m *memBackend) add(items ...*news.Item) {
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

// ingest stores an item as if it had arrived from the network and sends
// the event the real application would.
func (m *memBackend) ingest(it *news.Item) {
	m.add(it)
	m.emit(app.Event{Kind: app.ItemsChanged, Categories: []string{it.Category}, Urgent: it.Urgent, Items: []uuid.UUID{it.ID}})
}

// emit sends an event without blocking; a full queue drops it, as the
// events are hints that the UI re-reads anyway.
func (m *memBackend) emit(ev app.Event) {
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
func (m *memBackend) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.events)
	}
	return nil
}

func (m *memBackend) entry(it *news.Item) storage.Entry {
	return storage.Entry{Item: it.Clone(), Read: m.read[it.ID], Retracted: m.retracted[it.ID]}
}

// visible reports whether it shows in lists, searches and counts.
func (m *memBackend) visible(it *news.Item) bool { return m.retracted[it.ID] == nil }

// page walks the items older than cur that keep returns true and returns
// up to n of them with the cursor of the next page.
func (m *memBackend) page(n int, cur storage.Cursor, keep func(*news.Item) bool) ([]storage.Entry, storage.Cursor, error) {
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

func (m *memBackend) Newest(cats []string, n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool { return m.visible(it) && inCats(cats, it) })
}

func (m *memBackend) Search(ctx context.Context, query string, cats []string, n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
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

func (m *memBackend) Item(id uuid.UUID) (storage.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	if !ok {
		return storage.Entry{}, storage.ErrNotFound
	}
	return m.entry(it), nil
}

func (m *memBackend) UnreadCounts() (map[string]uint64, error) {
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

func (m *memBackend) setRead(read bool, ids []uuid.UUID) error {
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

func (m *memBackend) MarkRead(ids ...uuid.UUID) error   { return m.setRead(true, ids) }
func (m *memBackend) MarkUnread(ids ...uuid.UUID) error { return m.setRead(false, ids) }

func (m *memBackend) MarkAllRead(category string) error {
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

func (m *memBackend) Catalog() *categories.Catalog {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.catalog
}

func (m *memBackend) SetCatalog(c *categories.Catalog) error {
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

func (m *memBackend) Subscriptions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.subs)
}

func (m *memBackend) SetSubscriptions(ids []string) error {
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

func (m *memBackend) Publish(d app.Draft) (app.PublishResult, error) {
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
	m.add(it)
	m.mu.Lock()
	m.read[it.ID] = true // one's own post is read
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.ItemsChanged, Categories: []string{it.Category}, Items: []uuid.UUID{it.ID}})
	return app.PublishResult{ID: it.ID, Outcome: outcome}, nil
}

func (m *memBackend) MyPosts(n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool { return it.Source == m.source })
}

func (m *memBackend) Status() app.NetStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// setStatus replaces the status and sends StatusChanged.
func (m *memBackend) setStatus(st app.NetStatus) {
	m.mu.Lock()
	m.status = st
	m.mu.Unlock()
	m.emit(app.Event{Kind: app.StatusChanged})
}

func (m *memBackend) Seeds() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seeds)
}

func (m *memBackend) SetSeeds(addrs []string) error {
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

func (m *memBackend) Probe(ctx context.Context, addr string) app.Probe {
	m.mu.Lock()
	probe := m.probe
	m.mu.Unlock()
	if probe == nil {
		return app.Probe{Addr: addr, Problem: "connection refused"}
	}
	return probe(addr)
}

func (m *memBackend) NeedsSetup() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.setup
}

func (m *memBackend) Setup(s app.Setup) error {
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

func (m *memBackend) Settings() app.Settings {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.settings
	s.NotifyCategories = slices.Clone(s.NotifyCategories)
	return s
}

func (m *memBackend) SaveSettings(s app.Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settings = s
	m.settings.NotifyCategories = slices.Clone(s.NotifyCategories)
	return nil
}

func (m *memBackend) Events() <-chan app.Event { return m.events }

// Retract hides an item as the application does: admins may retract any
// item, this installation its own.
func (m *memBackend) Retract(id uuid.UUID, reason string) error {
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
func (m *memBackend) Identity() *trust.Identity { return m.identity }

// Network returns the definition held.
func (m *memBackend) Network() *trust.SignedNetwork {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.network
}

func (m *memBackend) IsAdmin() bool { return m.Network().IsAdmin(m.identity.Public) }

func (m *memBackend) MayPublish(category string) error {
	return m.Network().MayPublish(m.identity.Public, category)
}

// PublishNetwork adopts a newer version signed by an admin of the one held,
// as the application does: its catalog applies at once, its seeds become
// the stored list.
func (m *memBackend) PublishNetwork(next *trust.SignedNetwork) error {
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

func (m *memBackend) adoptLocked(sn *trust.SignedNetwork) {
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
func (m *memBackend) ImportNetwork(sn *trust.SignedNetwork) error {
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
