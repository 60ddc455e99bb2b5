package ui

import (
	"context"
	"io"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
)

// Backend is everything the window needs from the application: the store's
// queries, the servant's status and the newsroom's publishing. Every method
// is safe for concurrent use and returns without waiting on the network
// (Probe is the exception and takes a context); the UI still calls the ones
// that touch the disk from background goroutines, never from a callback.
type Backend interface {
	// Reading.
	Newest(cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error)
	Search(ctx context.Context, query string, cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error)
	Item(id uuid.UUID) (app.Entry, error)
	UnreadCounts() (map[string]uint64, error)
	MarkRead(ids ...uuid.UUID) error
	MarkUnread(ids ...uuid.UUID) error
	MarkAllRead(category string) error
	// Acknowledge confirms a must-read item ("I have read this"), marks it
	// read and returns when it was confirmed (the first time, when
	// confirmed again); app.ErrNotFound, app.ErrNotMustRead.
	Acknowledge(id uuid.UUID) (time.Time, error)
	// Keep marks an item kept (retention never deletes it) or lets it go
	// again; app.ErrNotFound.
	Keep(id uuid.UUID, keep bool) error

	// Categories and subscriptions.
	Catalog() *categories.Catalog
	SetCatalog(*categories.Catalog) error
	Subscriptions() []string
	SetSubscriptions(ids []string) error

	// Newsroom.
	Publish(d app.Draft) (app.PublishResult, error)
	MyPosts(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error)
	ScheduleBackend // scheduled.go
	ReachBackend    // reach.go

	// Network and administration.
	Status() app.NetStatus
	Seeds() []string
	SetSeeds(addrs []string) error
	Probe(ctx context.Context, addr string) app.Probe

	// First run: NeedsSetup is true until the wizard's Setup succeeded.
	NeedsSetup() bool
	Setup(app.Setup) error
	// ProposeListen proposes where the servant accepts links: listen
	// ("" for the settings' address) when its port is free on this
	// computer, else the next free port; taken reports that listen's
	// port was in use (app.App.ProposeListen). It binds a socket for a
	// moment: call it from a background goroutine.
	ProposeListen(listen string) (proposal string, taken bool)

	// Settings.
	Settings() app.Settings
	SaveSettings(app.Settings) error

	// Events delivers change notifications until the application closes;
	// for items, the kind says what happened (app.ItemsArrived is the only
	// one a desktop notification follows). The UI drains it from one
	// goroutine that applies updates with fyne.Do.
	Events() <-chan app.Event
}

// InviteBackend is what a backend offers when its network is joined by
// invitation codes (issue 13): an admin makes, lists and revokes them, and
// the first-run wizard joins with one. The UI checks for it with a type
// assertion: without it, "Join a network" takes a seed list (a network
// that needs no membership proof). *app.App implements it.
type InviteBackend interface {
	// CreateInvitation makes an invitation (admins only, servant
	// running) and returns it with its code.
	CreateInvitation(app.InviteOptions) (app.Invite, error)
	// Invitations lists the invitations made here, oldest first, without
	// codes.
	Invitations() ([]app.Invite, error)
	// RevokeInvitation ends an invitation at once.
	RevokeInvitation(id string) error
	// JoinByInvitation redeems a code and sets up as a member of its
	// network (s.Seeds ignored); a refusal changes nothing. It waits on
	// the network (bounded): call it from a background goroutine.
	JoinByInvitation(ctx context.Context, code string, s app.Setup) error
}

var _ InviteBackend = (*app.App)(nil)

// AttachmentBackend is what a backend offers when it holds the
// attachments of items (issue 29): their bytes, which the reader shows
// inline or saves, by the blob's hash (app.Attachment.Hash). OpenBlob
// returns app.ErrNotFound for a blob that is not here whole; it reads the
// disk: call it from a background goroutine. The UI checks for it with a
// type assertion: without it, pictures show as missing and files cannot
// be opened. app.BlobOpener is this interface.
type AttachmentBackend interface {
	OpenBlob(hash string) (io.ReadSeekCloser, error)
}

var _ AttachmentBackend = app.BlobOpener(nil)

// BlobFetcher is what a backend offers when it can ask the network for an
// attachment that is not here (app.App.FetchBlob): a file too large to
// come with its item, or one the network failed to deliver. It returns at
// once; the attachment's state changes as it arrives.
type BlobFetcher interface {
	FetchBlob(hash string) error
}

var _ BlobFetcher = (*app.App)(nil)
