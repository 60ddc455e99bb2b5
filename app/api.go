package app

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"newsdesk/newsnet"
)

// The types the desktop UI and the application exchange. The UI sees
// the application only through these and the ui.Backend interface, never
// sockets or the store.

// Draft is an item a newsroom user is about to publish.
type Draft struct {
	Category   string
	Title      string
	Body       string // Markdown
	Urgent     bool
	Supersedes uuid.UUID // the item this one corrects, or uuid.Nil
	// Expires, when set, hides the item everywhere from then on; it must
	// lie in the future.
	Expires time.Time
	// At, when set, publishes the item at that time instead of now
	// (schedule.go): it must not lie in the past, and Expires must come
	// after it.
	At time.Time
	// MustRead asks every reader to confirm having read it (Acknowledge).
	MustRead bool
	// Audience, when set, limits the item to servants whose advertised
	// address lies in one of these network ranges (news.ParseAudience).
	Audience []netip.Prefix
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
	case Scheduled:
		return "scheduled"
	}
	return "unknown"
}

// PublishResult is the answer to a publication.
type PublishResult struct {
	ID      uuid.UUID
	Outcome Outcome
}

// EventKind says what changed, and for items what happened to them, so
// that the UI can refresh what it shows and decide whom to tell without
// guessing: only ItemsArrived is news for a notification.
type EventKind int

const (
	// ItemsChanged: items changed in a way that is nobody's news (expired
	// items were purged). Items nil: anything shown may have changed.
	ItemsChanged EventKind = iota
	// StatusChanged: the servant's place in the tree changed.
	StatusChanged
	// CatalogChanged: the category catalog or the subscriptions changed.
	CatalogChanged
	// ItemsArrived: items from the network were stored and are listed,
	// unread: someone else's publications, never this installation's own
	// and never one retracted before it came. Urgent names the urgent
	// ones. A notification is about these and nothing else.
	ItemsArrived
	// ItemsPublished: this installation published items (Publish); they
	// are stored, listed, read, and in My posts. Urgent names the urgent
	// ones.
	ItemsPublished
	// ReadStateChanged: items were marked read or unread (MarkRead,
	// MarkUnread, MarkAllRead), acknowledged (Acknowledge), or kept or
	// let go (Keep). Items nil: any of Categories (nil: of any category)
	// may have changed.
	ReadStateChanged
	// ItemsRetracted: a retraction hid items (here or from the network):
	// out of every list, search and count; My posts shows one's own as
	// retracted.
	ItemsRetracted
	// ReachChanged: the network reported new reach totals of own
	// publications (Items; App.Reach).
	ReachChanged
	// InvitationsChanged: this servant decided a redemption of one of its
	// invitations, so their uses may have changed (App.Invitations).
	InvitationsChanged
	// ReportsChanged: a publisher's report of a must-read post reached
	// this admin's servant (App.NetworkReports).
	ReportsChanged
)

var eventKindNames = [...]string{
	ItemsChanged:     "ItemsChanged",
	StatusChanged:    "StatusChanged",
	CatalogChanged:   "CatalogChanged",
	ItemsArrived:     "ItemsArrived",
	ItemsPublished:   "ItemsPublished",
	ReadStateChanged: "ReadStateChanged",
	ItemsRetracted:   "ItemsRetracted",
	ReachChanged:     "ReachChanged",

	InvitationsChanged: "InvitationsChanged",
	ReportsChanged:     "ReportsChanged",
}

func (k EventKind) String() string {
	if k >= 0 && int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// AboutItems reports whether events of kind k are about items, and so
// carry Categories and Items.
func (k EventKind) AboutItems() bool {
	switch k {
	case ItemsChanged, ItemsArrived, ItemsPublished, ReadStateChanged, ItemsRetracted:
		return true
	}
	return false
}

// Event tells the UI that something it shows has changed. Events of one
// kind may be coalesced, never events of different kinds: an arrival is
// never folded into a read-state change. The UI re-reads what it needs.
type Event struct {
	Kind EventKind
	// Categories are the categories of the items concerned; nil: any.
	Categories []string
	// Items are the items concerned; nil: too many to name (or, for
	// ItemsChanged and MarkAllRead's ReadStateChanged, not known), so the
	// UI re-reads everything it shows.
	Items []uuid.UUID
	// Urgent names the urgent items among them (ItemsArrived,
	// ItemsPublished), also when Items is nil; at most maxEventItems.
	Urgent []uuid.UUID
}

// ServantStatus is the servant's whole status with what the application
// adds to it: the control API (package cli) and the tests read it. The UI
// reads NetStatus (views.go), made from it.
type ServantStatus struct {
	newsnet.Status
	AppStatus
}

// AppStatus is what the application adds to the servant's status.
type AppStatus struct {
	Listen    string // the address servant links are accepted on
	Source    string // this installation's ID
	Connected bool   // attached to the tree or its vertex
	Lost      uint64 // needed items no holder could retransmit, over every run (persisted)

	// StoreProblem says why delivered items wait to be stored ("disk
	// full"); "" when none wait. Unstored counts them: they are kept (or
	// fetched again) and stored once the store takes them.
	StoreProblem string
	Unstored     int

	// Moved is the last change of the advertised address (the laptop
	// moved to another network), nil when none in this run.
	Moved *AddressChange

	// Release is this build's; NewerRelease the newest release newer
	// than it that a neighbour runs ("" when none was seen in this run).
	Release, NewerRelease string
	// NewerNetwork lists the features of a newer release that the network
	// definition carries (kept and passed on, unused here).
	NewerNetwork []string

	// PortMoved is set when the start found the listen port in use and
	// moved to a free one (Options.MovePortIfTaken).
	PortMoved *PortMove

	// Alone is set while this servant is the vertex of a network of its
	// own although it should be attached below a seed (firstseed.go):
	// items of others do not reach it then.
	Alone *Alone

	// Evicted is what the storage quota removed last (quota.go), nil
	// when it never removed anything.
	Evicted *Eviction
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
	// Retention is how long items are kept after they arrived; 0 keeps
	// them forever. Kept items and must-read items not yet confirmed
	// stay whatever their age.
	Retention time.Duration
	// StorageQuota bounds the bytes the received items take (quota.go):
	// beyond it the oldest go first, kept and unconfirmed must-read items
	// stay. 0 is the default (DefaultStorageQuota), NoStorageQuota none.
	StorageQuota int64
	// Language is the desktop interface's language as a BCP 47 tag
	// ("de", "ja"); "" follows the system's. The UI knows which it
	// offers; the application only keeps the choice.
	Language string
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
	// Listen, when not "", is the "host:port" to accept servant links on
	// (the first run's port choice, App.ProposeListen); it must be free on
	// this computer. "" keeps the settings' address.
	Listen string
}
