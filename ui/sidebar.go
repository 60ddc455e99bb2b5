package ui

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"newsdesk/categories"
)

// feed is one entry of the sidebar: lang.L("All"), or a subscribed category with
// the categories under it.
type feed struct {
	id     string // category ID; "" for All
	name   string
	level  int // indentation: how many listed ancestors it has
	unread uint64
}

// feedsFor lists the sidebar: All, then every catalog category the
// subscriptions receive, parents before children, indented under the
// listed ancestors.
func feedsFor(cat *categories.Catalog, subs []string) []feed {
	feeds := []feed{{name: lang.L("All")}}
	if cat == nil {
		return feeds
	}
	ids := cat.Expand(subs)
	for _, id := range ids {
		level := 0
		for _, a := range categories.Ancestors(id) {
			if _, ok := slices.BinarySearch(ids, a); ok {
				level++
			}
		}
		feeds = append(feeds, feed{id: id, name: categoryName(cat, id), level: level})
	}
	return feeds
}

// countFeeds sets each feed's unread count from the per-category counts:
// a category counts what is under it, All counts everything.
func countFeeds(feeds []feed, counts map[string]uint64) {
	for i := range feeds {
		var n uint64
		for c, k := range counts {
			if feeds[i].id == "" || categories.Covers(feeds[i].id, c) {
				n += k
			}
		}
		feeds[i].unread = n
	}
}

// sidebar lists the feeds with their unread counts; selecting one shows it.
type sidebar struct {
	list     *widget.List
	feeds    []feed
	selected string
	silent   bool // selecting programmatically: do not report
	onSelect func(id string)
}

func newSidebar(onSelect func(string)) *sidebar {
	s := &sidebar{feeds: []feed{{name: lang.L("All")}}, onSelect: onSelect}
	s.list = widget.NewList(
		func() int { return len(s.feeds) },
		func() fyne.CanvasObject {
			indent := canvas.NewRectangle(color.Transparent)
			name := widget.NewLabel(lang.L("Category name"))
			name.Truncation = fyne.TextTruncateEllipsis
			count := widget.NewLabel("")
			return container.NewBorder(nil, nil, indent, count, name)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			f := s.feeds[i]
			c := o.(*fyne.Container)
			name, indent, count := c.Objects[0].(*widget.Label), c.Objects[1].(*canvas.Rectangle), c.Objects[2].(*widget.Label)
			indent.SetMinSize(fyne.NewSize(float32(f.level*indentStep), 0))
			name.SetText(f.name)
			name.TextStyle.Bold = f.unread > 0
			name.Refresh()
			count.SetText(countText(f.unread))
		},
	)
	s.list.OnSelected = func(i widget.ListItemID) {
		if i < 0 || i >= len(s.feeds) {
			return
		}
		s.selected = s.feeds[i].id
		if !s.silent && s.onSelect != nil {
			s.onSelect(s.selected)
		}
	}
	s.silent = true
	s.list.Select(0)
	s.silent = false
	return s
}

func countText(n uint64) string {
	if n == 0 {
		return ""
	}
	return formatNumber(int64(n))
}

// setFeeds replaces the feeds, keeping counts and the selection where the
// selected feed is still listed; otherwise All is selected (and reported).
func (s *sidebar) setFeeds(feeds []feed, counts map[string]uint64) {
	countFeeds(feeds, counts)
	s.feeds = feeds
	i := slices.IndexFunc(feeds, func(f feed) bool { return f.id == s.selected })
	s.list.Refresh()
	if i < 0 {
		s.list.UnselectAll()
		s.list.Select(0)
		return
	}
	s.silent = true
	s.list.UnselectAll()
	s.list.Select(i)
	s.silent = false
}

// setCounts updates the unread counts.
func (s *sidebar) setCounts(counts map[string]uint64) {
	countFeeds(s.feeds, counts)
	s.list.Refresh()
}

// feed returns the sidebar entry of id.
func (s *sidebar) feed(id string) (feed, bool) {
	i := slices.IndexFunc(s.feeds, func(f feed) bool { return f.id == id })
	if i < 0 {
		return feed{}, false
	}
	return s.feeds[i], true
}
