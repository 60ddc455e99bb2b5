package app

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/trust"
	"time"
)

// listPage is the page size of the store walk behind OldestFirst and
// SearchOldestFirst.
const listPage = 500

// OldestFirst returns up to max of the newest items of category and the
// categories below it, oldest (by creation, that is publication) first:
// the control API's /v1/items. The system groups' items are never listed.
func (a *App) OldestFirst(category string, max int) ([]*news.Item, error) {
	return oldestFirst(max, func(n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
		return a.store.Newest([]string{category}, n, cur)
	})
}

// SearchOldestFirst returns up to max of the newest items that Search
// finds for query in category and below it ("" for all), oldest first:
// the control API's /v1/items?q=. The system groups' items are never
// listed, as in Search.
func (a *App) SearchOldestFirst(ctx context.Context, query, category string, max int) ([]*news.Item, error) {
	var cats []string
	if category != "" {
		cats = []string{category}
	}
	return oldestFirst(max, func(n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error) {
		return a.store.Search(ctx, query, cats, n, cur)
	})
}

// oldestFirst pages through a newest-first list until it has max items
// other than the system groups', and reverses them.
func oldestFirst(max int, page func(n int, cur storage.Cursor) ([]storage.Entry, storage.Cursor, error)) ([]*news.Item, error) {
	var out []*news.Item
	var cur storage.Cursor
	for len(out) < max {
		entries, next, err := page(min(listPage, max-len(out)), cur)
		if err != nil {
			return nil, err
		}
		for _, e := range hideSystemEntries(entries) {
			out = append(out, e.Item)
		}
		if next == "" {
			break
		}
		cur = next
	}
	slices.Reverse(out)
	return out, nil
}

// Entry is one item as the UI lists it: the item, whether it was read
// here, and its retraction.
type Entry struct {
	Item *news.Item
	Read bool
	// Retracted is set for an item hidden by a retraction; nil for a
	// visible item.
	Retracted *Retraction
	// Acknowledged is when the reader confirmed this must-read item
	// (news.Item.MustRead, App.Acknowledge); zero if not yet.
	Acknowledged time.Time
	// Kept: the reader keeps this item (App.Keep), so retention never
	// deletes it.
	Kept bool
	// Attachments lists the item's pictures and files in manifest order,
	// each with whether it is here (attachments.go).
	Attachments []Attachment
}

// Retraction says why and when an item was retracted here.
type Retraction struct {
	ItemID uuid.UUID
	Reason string    // one line, may be empty; shown instead of the item
	At     time.Time // when this installation applied it
	// Expired: hidden by the item's own expiry (news.Item.Expires), not
	// by a signed retraction; Reason is then "expired".
	Expired bool
}

// MatchesQuery reports whether texts match a search query by the store's
// rule (Search): every word of the query inside some word of the texts.
func MatchesQuery(query string, texts ...string) bool { return storage.MatchesQuery(query, texts...) }

// Cursor is an opaque position in a list the UI pages through (Newest,
// Search, MyPosts): "" is the start, and a later page is asked for with
// the cursor the previous one returned; "" returned means no more.
type Cursor string

// entryView converts a stored entry for the UI: the item's body without
// its manifest (the signed item in the store keeps it), and its
// attachments with whether each is here.
func (a *App) entryView(e storage.Entry) Entry {
	v := Entry{Item: e.Item, Read: e.Read, Acknowledged: e.Acknowledged, Kept: e.Kept}
	if e.Item != nil {
		v.Attachments = a.attachmentViews(e.Item)
		v.Item = textOnly(e.Item)
	}
	if r := e.Retracted; r != nil {
		v.Retracted = &Retraction{ItemID: r.ItemID, Reason: r.Reason, At: r.At, Expired: r.Expired}
	}
	return v
}

// MaxRetractionReason is the longest reason, in characters, a retraction
// carries.
const MaxRetractionReason = trust.MaxRetractionReasonRunes

var (
	// ErrNotFound: no such item (Item), or not one the UI is shown.
	ErrNotFound = storage.ErrNotFound
	// ErrBadCursor: a cursor the list was not given by its backend.
	ErrBadCursor = storage.ErrBadCursor
)
