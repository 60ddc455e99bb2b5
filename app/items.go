package app

import (
	"context"
	"slices"

	"newsdesk/news"
	"newsdesk/storage"
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
