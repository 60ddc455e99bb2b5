// Package fakebackend is the UI tests' fake application: it implements
// ui.Backend and ui.TrustBackend in memory, without a store, a servant or
// a network, with Preset methods to set up what a test shows and records
// of what the UI asked. Its checks are app's own rule functions
// (app.CheckSettings, CheckSeeds, CheckSetupSeeds, CheckDisplayName, …),
// not copies. It was ui/demobackend, which the demo mode ran on; the demo
// mode runs the real application over a simulated network now (app/demo).
// Only the UI's tests import it (internal to ui); it does not import the
// UI, so the interface assertions live in the UI's tests. The real
// application (*app.App) is the reference where they differ;
// app/contract_test.go checks it against what the UI relies on.
package fakebackend

import (
	"cmp"
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
	acked map[uuid.UUID]time.Time // must-read items confirmed (ack.go)
	kept  map[uuid.UUID]bool      // items the reader keeps (Keep)

	census     *app.Census             // the network's census (census.go); nil: none yet
	partitions map[string]app.Census   // census answers per partition root (census.go)
	reports    []app.NetworkReport     // must-read posts' reports for admins (reports.go)
	takenPorts map[string]bool         // ports in use by "another program" (listen.go)
	reach      map[uuid.UUID]app.Reach // own posts' reach as the network reported it (reach.go)
	// retracted holds the retractions applied, as the store keeps them:
	// the item stays, out of every list but My posts.
	retracted map[uuid.UUID]*app.Retraction
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
	invites  []demoInvite // invite.go

	// scheduled holds the publications waiting for their time, the first
	// due first (scheduled.go).
	scheduled []*news.Item

	// Attachments (attachments.go): the reader's view per item, the
	// blobs by hash, the states a test set, the OpenBlob calls.
	atts       map[uuid.UUID][]app.Attachment
	blobs      map[string][]byte
	blobStates map[string]blobState
	blobOpens  int
	fetched    []string // FetchBlob's hashes

	events chan app.Event
	closed bool
}

// New returns an empty backend with the default catalog and settings,
// set up (NeedsSetup false) and connected, whose clock is now.
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
		acked:    map[uuid.UUID]time.Time{},
		kept:     map[uuid.UUID]bool{},
		atts:     map[uuid.UUID][]app.Attachment{},

		takenPorts: map[string]bool{},
		catalog:    categories.Default(),
		settings:   app.Settings{Notify: true},
		source:     source,
		status:     app.NetStatus{AppStatus: app.AppStatus{Connected: true, Source: source.String()}},
		events:     make(chan app.Event, 256),
	}
}

// Set-up. Tests give the backend its state with
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
// the event the real application would: ItemsArrived, unless a
// retraction came first (it is stored hidden and nobody hears of it).
func (m *Backend) Ingest(it *news.Item) {
	m.Add(it)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.retracted[it.ID] == nil {
		m.emitLocked(itemsEvent(app.ItemsArrived, it))
	}
}

// itemsEvent is the event of kind k about it, naming it urgent if it is.
func itemsEvent(k app.EventKind, it *news.Item) app.Event {
	ev := app.Event{Kind: k, Categories: []string{it.Category}, Items: []uuid.UUID{it.ID}}
	if it.Urgent && (k == app.ItemsArrived || k == app.ItemsPublished) {
		ev.Urgent = []uuid.UUID{it.ID}
	}
	return ev
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
	m.emitLocked(ev)
}

func (m *Backend) emitLocked(ev app.Event) {
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

func (m *Backend) entry(it *news.Item) app.Entry {
	return app.Entry{Item: it.Clone(), Read: m.read[it.ID], Retracted: m.retracted[it.ID], Acknowledged: m.acked[it.ID], Kept: m.kept[it.ID],
		Attachments: m.attachmentsLocked(it.ID)}
}

// visible reports whether it shows in lists, searches and counts.
func (m *Backend) visible(it *news.Item) bool { return m.retracted[it.ID] == nil }

// page walks the items older than cur that keep returns true and returns
// up to n of them with the cursor of the next page.
func (m *Backend) page(n int, cur app.Cursor, keep func(*news.Item) bool) ([]app.Entry, app.Cursor, error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("page size %d, must be positive", n)
	}
	start := 0
	if cur != "" {
		id, err := uuid.Parse(string(cur))
		if err != nil {
			return nil, "", app.ErrBadCursor
		}
		start, _ = slices.BinarySearchFunc(m.items, id, func(it *news.Item, id uuid.UUID) int { return -news.CompareIDs(it.ID, id) })
		if start < len(m.items) && m.items[start].ID == id {
			start++
		}
	}
	var out []app.Entry
	for i := start; i < len(m.items); i++ {
		it := m.items[i]
		if !keep(it) {
			continue
		}
		if len(out) == n {
			return out, app.Cursor(out[n-1].Item.ID.String()), nil
		}
		out = append(out, m.entry(it))
	}
	return out, "", nil
}

func inCats(cats []string, it *news.Item) bool {
	return len(cats) == 0 || categories.CoveredByAny(cats, it.Category)
}

// checkCats refuses a category selection with an invalid ID, as the store
// does.
func checkCats(cats []string) error {
	for _, c := range cats {
		if err := categories.ValidateID(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *Backend) Newest(cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	if err := checkCats(cats); err != nil {
		return nil, "", fmt.Errorf("newest: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.page(n, cur, func(it *news.Item) bool { return m.visible(it) && inCats(cats, it) })
}

func (m *Backend) Search(ctx context.Context, query string, cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	if err := checkCats(cats); err != nil {
		return nil, "", fmt.Errorf("search: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The store's rule: every word of the query inside some word of the
	// title or body; a query without words finds nothing.
	return m.page(n, cur, func(it *news.Item) bool {
		return m.visible(it) && inCats(cats, it) && ctx.Err() == nil && app.MatchesQuery(query, it.Title, it.Body)
	})
}

func (m *Backend) Item(id uuid.UUID) (app.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	if !ok {
		return app.Entry{}, app.ErrNotFound
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

// setRead changes the read state as the store does: unknown IDs and
// retracted items are left alone.
func (m *Backend) setRead(read bool, ids []uuid.UUID) error {
	m.mu.Lock()
	var cats []string
	var changed []uuid.UUID
	for _, id := range ids {
		it, ok := m.byID[id]
		if !ok || m.read[id] == read || !m.visible(it) {
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
		m.emit(app.Event{Kind: app.ReadStateChanged, Categories: cats, Items: changed})
	}
	return nil
}

func (m *Backend) MarkRead(ids ...uuid.UUID) error   { return m.setRead(true, ids) }
func (m *Backend) MarkUnread(ids ...uuid.UUID) error { return m.setRead(false, ids) }

func (m *Backend) MarkAllRead(category string) error {
	if category != "" {
		if err := categories.ValidateID(category); err != nil {
			return fmt.Errorf("mark all read: %w", err)
		}
	}
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

// SetCatalog takes a catalog at least as new as the one held.
func (m *Backend) SetCatalog(c *categories.Catalog) error {
	if c == nil {
		return errors.New("catalog: nil")
	}
	m.mu.Lock()
	if c.Version() < m.catalog.Version() {
		m.mu.Unlock()
		return fmt.Errorf("catalog: version %d is older than the current version %d", c.Version(), m.catalog.Version())
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

// SetSubscriptions stores the subscriptions sorted and without
// duplicates, after the application's checks: category IDs, and for one
// not subscribed yet and not in the catalog the rule for new IDs.
func (m *Backend) SetSubscriptions(ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := app.CheckNewSubscriptionsIn(m.catalog, m.subs, ids); err != nil {
		return err
	}
	subs := sortedSet(ids)
	m.subs = subs
	m.status.Subscriptions = categories.Minimize(subs)
	m.emitLocked(app.Event{Kind: app.CatalogChanged})
	return nil
}

// sortedSet sorts and de-duplicates, never returning nil.
func sortedSet(ids []string) []string {
	s := append([]string{}, ids...)
	slices.Sort(s)
	return slices.Compact(s)
}

// Publish checks a draft as the application does (the category, the item
// rules, then the network's permission), stores it as this installation's
// next post, read, and reports what a servant in the state set would do:
// queue it when not connected, suppress it when nobody elsewhere
// subscribes (SetRemoteSubscriptions), deliver it otherwise.
func (m *Backend) Publish(d app.Draft) (app.PublishResult, error) {
	if err := app.CheckDraftCategory(m.Catalog(), d.Category); err != nil {
		return app.PublishResult{}, err
	}
	now := m.now()
	id, err := news.NewID(now)
	if err != nil {
		return app.PublishResult{}, err
	}
	it := &news.Item{
		ID: id, Category: d.Category, Title: d.Title, Body: d.Body, Author: m.Settings().DisplayName,
		Source: m.source, Created: now, Received: now, Urgent: d.Urgent, Supersedes: d.Supersedes,
		Expires: d.Expires, At: d.At, MustRead: d.MustRead, Audience: news.CanonicalAudience(d.Audience),
	}
	if err := app.CheckSchedule(it, now); err != nil {
		return app.PublishResult{}, err
	}
	// The item is checked with its manifest, as the application checks
	// it: a picture's reference needs the attachment it names.
	check := *it
	var err2 error
	var atts []news.Attachment
	if check.Body, atts, err2 = app.PrepareAttachments(d.Body, d.Attachments); err2 != nil {
		return app.PublishResult{}, err2
	}
	// And against the network's attachment cap of the category.
	if err := app.AttachmentLimit(m.Network().Limits, d.Category, atts); err != nil {
		return app.PublishResult{}, err
	}
	if err := check.Validate(); err != nil {
		return app.PublishResult{}, err
	}
	if err := m.MayPublish(d.Category); err != nil {
		return app.PublishResult{}, &app.NotAllowedError{Category: d.Category, Err: err}
	}
	// The manifest follows the text the rules measured, as the
	// application appends it.
	m.mu.Lock()
	it.Body += m.storeAttachmentsLocked(id, d.Attachments)
	m.mu.Unlock()
	if !it.At.IsZero() {
		return m.schedule(it)
	}
	return m.publish(it), nil
}

// publish numbers a valid item of this installation, stores it and
// reports what a servant in the state set would do with it.
func (m *Backend) publish(it *news.Item) app.PublishResult {
	m.mu.Lock()
	for _, own := range m.items {
		if own.Source == m.source {
			it.SourceCount = max(it.SourceCount, own.SourceCount)
		}
	}
	it.SourceCount++
	var outcome app.Outcome
	switch {
	case !m.status.Connected:
		outcome = app.Queued
	case !categories.CoveredByAny(m.remoteSubs, it.Category):
		outcome = app.Suppressed
		m.status.Counters.Suppressed++
	default:
		outcome = app.Delivered
	}
	m.status.Counters.Published++
	m.read[it.ID] = true // one's own post is read
	m.mu.Unlock()
	m.Add(it)
	m.emit(itemsEvent(app.ItemsPublished, it))
	return app.PublishResult{ID: it.ID, Outcome: outcome}
}

func (m *Backend) MyPosts(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	m.sendDue()
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

// SetSeeds stores the list with spaces trimmed; it refuses an address
// that is not host:port and one listed twice.
func (m *Backend) SetSeeds(addrs []string) error {
	if err := app.CheckSeeds(addrs); err != nil {
		return err
	}
	seeds := make([]string, len(addrs))
	for i, a := range addrs {
		seeds[i] = strings.TrimSpace(a)
	}
	m.mu.Lock()
	m.seeds = seeds
	m.mu.Unlock()
	return nil
}

// Probe answers as SetProbe said, once addr is an address at all.
func (m *Backend) Probe(ctx context.Context, addr string) app.Probe {
	if err := app.CheckAddress(addr); err != nil {
		return app.Probe{Addr: addr, Problem: "not an address: " + err.Error(), Kind: app.ProbeBadAddress}
	}
	m.mu.Lock()
	probe := m.probe
	m.mu.Unlock()
	if probe == nil {
		return app.Probe{Addr: addr, Problem: "connection refused", Kind: app.ProbeRefused}
	}
	return probe(addr)
}

func (m *Backend) NeedsSetup() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.setup
}

// Setup stores what the wizard collected. There is no servant to start: a
// new network's seed is this servant's address (the status's ID, else the
// advertised or listen address).
func (m *Backend) Setup(s app.Setup) error {
	if err := app.CheckDisplayName(s.DisplayName, true); err != nil {
		return err
	}
	if err := m.checkListen(s.Listen); err != nil {
		return err
	}
	if err := app.CheckSetupSeeds(s); err != nil {
		return err
	}
	self := m.Settings()
	m.mu.Lock()
	m.setup = false
	m.settings.DisplayName = strings.TrimSpace(s.DisplayName)
	if s.Listen != "" {
		m.settings.Listen = s.Listen
	}
	if s.NewNetwork {
		addr := cmp.Or(m.status.ID, self.Advertise, self.Listen)
		m.seeds = []string{addr}
	} else {
		m.seeds = slices.Clone(s.Seeds)
	}
	m.emitLocked(app.Event{Kind: app.StatusChanged})
	m.mu.Unlock()
	return nil
}

// Settings returns the settings; an unset listen address is
// app.DefaultListen, as in the application.
func (m *Backend) Settings() app.Settings {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.settings
	s.NotifyCategories = slices.Clone(s.NotifyCategories)
	s.Listen = cmp.Or(s.Listen, app.DefaultListen)
	return s
}

// SaveSettings checks and stores the settings as the application does:
// the display name trimmed, the notification categories sorted without
// duplicates.
func (m *Backend) SaveSettings(s app.Settings) error {
	if err := app.CheckSettings(s); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settings = s
	m.settings.DisplayName = strings.TrimSpace(s.DisplayName)
	m.settings.NotifyCategories = sortedSet(s.NotifyCategories)
	return nil
}

func (m *Backend) Events() <-chan app.Event { return m.events }

// Retract hides an item as the application does: admins may retract any
// item, even one not here yet (it arrives hidden), this installation its
// own. The earlier versions a correction corrects go with it, as far as
// this installation may retract them. Retracting again changes nothing.
func (m *Backend) Retract(id uuid.UUID, reason string) error {
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return fmt.Errorf("retracting %s: %w", id, app.ErrBadItemID)
	}
	reason = strings.TrimSpace(reason)
	if err := news.CheckLine("reason", reason, app.MaxRetractionReason); err != nil {
		return err
	}
	admin := m.IsAdmin()
	m.mu.Lock()
	var versions []*news.Item // id and the versions it corrects, newest first
	for next := id; next != uuid.Nil && len(versions) < maxCorrectionChain; {
		it, ok := m.byID[next]
		if !ok {
			break
		}
		versions = append(versions, it)
		next = it.Supersedes
	}
	may := func(it *news.Item) bool { return admin || it.Source == m.source }
	switch {
	case len(versions) == 0 && !admin:
		m.mu.Unlock()
		return fmt.Errorf("retracting %s: %w", id, app.ErrItemNotFound)
	case len(versions) == 0:
		m.retractLocked(id, reason)
		m.mu.Unlock()
		return nil
	case !may(versions[0]):
		m.mu.Unlock()
		return &app.NotAuthorizedError{ItemID: id, Err: trust.NotAuthorized}
	}
	var hidden []*news.Item
	for _, it := range versions {
		if m.retracted[it.ID] == nil && may(it) {
			m.retractLocked(it.ID, reason)
			hidden = append(hidden, it)
		}
	}
	for _, it := range hidden {
		m.emitLocked(itemsEvent(app.ItemsRetracted, it))
	}
	m.mu.Unlock()
	return nil
}

// maxCorrectionChain bounds the walk through corrections of corrections.
const maxCorrectionChain = 100

func (m *Backend) retractLocked(id uuid.UUID, reason string) {
	if m.retracted == nil {
		m.retracted = map[uuid.UUID]*app.Retraction{}
	}
	m.retracted[id] = &app.Retraction{ItemID: id, Reason: reason, At: m.now()}
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
