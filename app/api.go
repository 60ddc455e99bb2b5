package app

import (
	"time"

	"github.com/google/uuid"

	"newsdesk/newsnet"
)

// The types the desktop UI and the application core exchange. The UI sees
// the application only through these and the ui.Backend interface, never
// sockets or the store.

// Draft is an item a newsroom user is about to publish.
type Draft struct {
	Category   string
	Title      string
	Body       string // Markdown
	Urgent     bool
	Supersedes uuid.UUID // the item this one corrects, or uuid.Nil
}

// Outcome says what became of a publication.
type Outcome int

const (
	// Delivered: sent into the tree toward at least one subscriber.
	Delivered Outcome = iota
	// Queued: this servant is not attached to the tree; the item waits in
	// the outbox (kept across restarts) and goes out on attachment.
	Queued
	// Suppressed: nobody subscribes to the category, so nothing was sent.
	Suppressed
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Queued:
		return "queued until connected"
	case Suppressed:
		return "no subscribers"
	}
	return "unknown"
}

// PublishResult is the answer to a publication.
type PublishResult struct {
	ID      uuid.UUID
	Outcome Outcome
}

// EventKind says what changed.
type EventKind int

const (
	// ItemsChanged: items arrived, were published, or their read state
	// changed; Categories lists the categories touched.
	ItemsChanged EventKind = iota
	// StatusChanged: the servant's place in the tree changed.
	StatusChanged
	// CatalogChanged: the category catalog or the subscriptions changed.
	CatalogChanged
)

// Event tells the UI that something it shows has changed. Events may be
// coalesced; the UI re-reads what it needs.
type Event struct {
	Kind       EventKind
	Categories []string // for ItemsChanged
	Urgent     bool     // an urgent item arrived (ItemsChanged)
	Items      []uuid.UUID
}

// NetStatus is the servant as the network view and the status line show it.
type NetStatus struct {
	newsnet.Status
	Listen    string // the address servant links are accepted on
	Source    string // this installation's ID
	Connected bool   // attached to the tree or its vertex
	Lost      uint64 // needed items no holder could retransmit, over every run (persisted)

	// StoreProblem says why delivered items wait to be stored ("disk
	// full"); "" when none wait. Unstored counts them: they are kept (or
	// fetched again) and stored once the store takes them.
	StoreProblem string
	Unstored     int
}

// Settings are the user's preferences.
type Settings struct {
	DisplayName string
	Listen      string // "host:port" to accept servant links on
	Advertise   string // "host:port" others dial; "" for the listen address
	// NotifyCategories get a desktop notification for every new item;
	// urgent items always notify.
	NotifyCategories []string
	Notify           bool
}

// Probe is the result of a reachability test of one seed address.
type Probe struct {
	Addr    string
	OK      bool
	RTT     time.Duration
	Problem string // when not OK, in words
}

// Setup is what the first-run wizard collects.
type Setup struct {
	DisplayName string
	// NewNetwork starts a new network with this computer as its seed
	// (Seeds is then ignored); otherwise Seeds lists the network's seeds.
	NewNetwork bool
	Seeds      []string
}
