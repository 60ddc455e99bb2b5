package app

import (
	"slices"
	"time"

	"newsdesk/news"
	"newsdesk/storage"
)

// Item is a news item as the control API shows it. The shape is fixed:
// external tools depend on it.
type Item struct {
	ID       string `json:"id"`       // UUIDv7, chosen by the publisher
	Category string `json:"category"` // the multicast group
	Title    string `json:"title"`
	Body     string `json:"body"`
	Source   string `json:"source"`   // the publishing installation's UUID
	Received string `json:"received"` // when this servant stored it (RFC 3339, UTC)
}

// apiItem converts a stored item to the control API's shape.
func apiItem(it *news.Item) Item {
	return Item{
		ID:       it.ID.String(),
		Category: it.Category,
		Title:    it.Title,
		Body:     it.Body,
		Source:   it.Source.String(),
		Received: it.Received.UTC().Format(time.RFC3339Nano),
	}
}

// maxListedItems bounds a /v1/items answer: the newest this many items of
// the category are listed.
const maxListedItems = 10000

// listPage is the page size of the store walk behind /v1/items.
const listPage = 500

// oldestFirst returns up to max of the newest items of category and the
// categories below it, oldest (by creation, that is publication) first.
// The system groups' items are never listed.
// The answer is never nil, so it encodes as [] rather than null.
func (a *App) oldestFirst(category string, max int) ([]Item, error) {
	out := []Item{}
	var cur storage.Cursor
	for len(out) < max {
		page, next, err := a.store.Newest([]string{category}, min(listPage, max-len(out)), cur)
		if err != nil {
			return nil, err
		}
		for _, e := range hideSystemEntries(page) {
			out = append(out, apiItem(e.Item))
		}
		if next == "" {
			break
		}
		cur = next
	}
	slices.Reverse(out)
	return out, nil
}
