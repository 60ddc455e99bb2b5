package app

import (
	"slices"

	"newsdesk/news"
	"newsdesk/storage"
)

// listPage is the page size of the store walk behind OldestFirst.
const listPage = 500

// OldestFirst returns up to max of the newest items of category and the
// categories below it, oldest (by creation, that is publication) first:
// the control API's /v1/items. The system groups' items are never listed.
func (a *App) OldestFirst(category string, max int) ([]*news.Item, error) {
	var out []*news.Item
	var cur storage.Cursor
	for len(out) < max {
		page, next, err := a.store.Newest([]string{category}, min(listPage, max-len(out)), cur)
		if err != nil {
			return nil, err
		}
		for _, e := range hideSystemEntries(page) {
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
