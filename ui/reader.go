package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/categories"
)

// searchDelay is how long typing in the search field must pause before
// the search runs.
const searchDelay = 250 * time.Millisecond

// reader is the reading screen: the sidebar of feeds with unread counts,
// the search field and item list, and the item view.
type reader struct {
	u       *UI
	sidebar *sidebar
	list    *itemList
	view    *itemView
	search  *widget.Entry
	markAll *widget.Button
	empty   *widget.Label // over the list when it has no rows
	heading *widget.Label // the feed shown

	feed      string // sidebar selection; "" for All
	searchDeb debouncer
	counts    map[string]uint64
	countsRef *refresher

	content fyne.CanvasObject
}

func newReader(u *UI) *reader {
	r := &reader{u: u, counts: map[string]uint64{}}
	r.searchDeb = debouncer{w: u.w, delay: searchDelay}
	r.countsRef = &refresher{w: u.w, load: r.loadCounts}
	r.sidebar = newSidebar(r.setFeed)
	r.list = newItemList(u)
	r.list.onOpen = r.open
	r.list.onChanged = r.listChanged
	r.view = newItemView(u)
	r.view.onMarkUnread = r.markUnread

	r.search = widget.NewEntry()
	r.search.SetPlaceHolder(lang.L("Search titles and text (Ctrl+F)"))
	r.search.ActionItem = widget.NewIcon(theme.SearchIcon())
	r.search.OnChanged = func(string) { r.searchDeb.call(r.applyQuery) }
	r.search.OnSubmitted = func(string) {
		r.searchDeb.cancel()
		r.applyQuery()
		r.u.win.Canvas().Focus(r.list)
	}
	r.markAll = widget.NewButtonWithIcon(lang.L("Mark all read"), theme.ConfirmIcon(), r.markAllRead)
	r.empty = widget.NewLabel("")
	r.empty.Alignment = fyne.TextAlignCenter
	r.empty.Wrapping = fyne.TextWrapWord
	r.empty.Importance = widget.LowImportance
	r.heading = widget.NewLabelWithStyle(lang.L("All"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.heading.Truncation = fyne.TextTruncateEllipsis

	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, r.markAll, r.heading),
		r.search,
	)
	listPane := container.NewBorder(top, nil, nil, nil,
		container.NewStack(r.list, container.NewPadded(container.NewVBox(r.empty))))
	feeds := container.NewBorder(widget.NewLabelWithStyle(lang.L("Feeds"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, r.sidebar.list)
	inner := container.NewHSplit(listPane, r.view.content)
	inner.Offset = 0.46
	outer := container.NewHSplit(feeds, inner)
	outer.Offset = 0.17
	r.content = outer
	return r
}

// start loads the first page of All and the unread counts.
func (r *reader) start() {
	r.list.setQuery(r.query())
	r.countsRef.trigger()
}

// query is what the list should show: the selected feed, filtered by the
// search text if there is one.
func (r *reader) query() query {
	q := query{text: strings.TrimSpace(r.search.Text)}
	if r.feed != "" {
		q.cats = []string{r.feed}
	}
	return q
}

func (r *reader) setFeed(id string) {
	r.feed = id
	name := lang.L("All")
	if f, ok := r.sidebar.feed(id); ok {
		name = f.name
	}
	r.heading.SetText(name)
	r.list.setQuery(r.query())
}

// applyQuery runs the search (or shows the feed again when the search
// field was cleared) if it changed.
func (r *reader) applyQuery() {
	q := r.query()
	if q.text == r.list.ls.q.text && slices.Equal(q.cats, r.list.ls.q.cats) {
		return
	}
	r.list.setQuery(q)
}

// focusSearch is the Ctrl+F shortcut.
func (r *reader) focusSearch() {
	r.u.win.Canvas().Focus(r.search)
}

func (r *reader) listChanged() {
	ls := r.list.ls
	r.u.takeover.fromFirstPage(ls)
	switch {
	case len(ls.ids) > 0:
		r.empty.Hide()
		return
	case r.list.failed != nil:
		r.empty.SetText(fmt.Sprintf(lang.L("The items could not be read: %v"), errorText(r.list.failed)))
	case !ls.done:
		r.empty.SetText(lang.L("Loading…"))
	case ls.q.text != "":
		r.empty.SetText(fmt.Sprintf(lang.L("Nothing matches “%s”."), ls.q.text))
	case r.feed == "" && len(r.u.subs) == 0:
		r.empty.SetText(lang.L("No items yet. Choose categories under Subscriptions to receive news."))
	default:
		r.empty.SetText(lang.L("No items yet."))
	}
	r.empty.Show()
}

// open shows an item and marks it read.
func (r *reader) open(row *row) {
	r.view.show(row)
	if row.read {
		return
	}
	id := row.id
	r.list.setRead(id, true)
	r.view.setRead(true)
	r.u.w.Go(func() func() {
		err := r.u.b.MarkRead(id)
		return func() {
			r.u.reportError(lang.L("Marking the item read failed"), err)
			r.countsRef.trigger()
		}
	})
}

func (r *reader) markUnread(id uuid.UUID) {
	r.list.setRead(id, false)
	r.view.setRead(false)
	r.u.w.Go(func() func() {
		err := r.u.b.MarkUnread(id)
		return func() {
			r.u.reportError(lang.L("Marking the item unread failed"), err)
			r.countsRef.trigger()
		}
	})
}

// markAllRead marks the feed read, or in a search the results loaded.
func (r *reader) markAllRead() {
	if q := r.list.ls.q; q.text != "" {
		var ids []uuid.UUID
		for _, id := range r.list.ls.ids {
			if !r.list.ls.rows[id].read {
				ids = append(ids, id)
			}
		}
		r.list.markAllRead(func(string) bool { return true })
		r.u.w.Go(func() func() {
			err := r.u.b.MarkRead(ids...)
			return func() {
				r.u.reportError(lang.L("Marking the items read failed"), err)
				r.countsRef.trigger()
			}
		})
		return
	}
	feed := r.feed
	r.list.markAllRead(func(c string) bool { return feed == "" || categories.Covers(feed, c) })
	if r.view.id != uuid.Nil {
		r.view.setRead(true)
	}
	r.u.w.Go(func() func() {
		err := r.u.b.MarkAllRead(feed)
		return func() {
			r.u.reportError(lang.L("Marking all read failed"), err)
			r.countsRef.trigger()
		}
	})
}

// loadCounts reads the unread counts (background) for the sidebar, the
// tray and the window title.
func (r *reader) loadCounts() func() {
	counts, err := r.u.b.UnreadCounts()
	if err != nil {
		return nil
	}
	return func() {
		r.counts = counts
		r.sidebar.setCounts(counts)
		var total uint64
		for _, n := range counts {
			total += n
		}
		r.u.unreadChanged(total)
	}
}

// subscriptionsChanged rebuilds the sidebar.
func (r *reader) subscriptionsChanged() {
	r.sidebar.setFeeds(feedsFor(r.u.catalog, r.u.subs), r.counts)
	r.listChanged()
}

// itemsChanged applies events about items (arrived, published, read
// state, retracted, purged): the items named, or everything when ids is
// nil.
func (r *reader) itemsChanged(ids []uuid.UUID) {
	r.list.itemsChanged(ids)
	r.countsRef.trigger()
	for _, id := range ids {
		if id == r.view.id {
			r.refreshOpen()
			break
		}
	}
}

// refreshOpen re-reads the read state of the open item.
func (r *reader) refreshOpen() {
	id := r.view.id
	r.u.w.Go(func() func() {
		e, err := r.u.b.Item(id)
		return func() {
			if err == nil && r.view.id == id {
				r.view.setRead(e.Read)
				r.view.setKept(e.Kept)
				r.view.setAcknowledged(e.Acknowledged)
				r.view.attachmentsChanged(e)
				if e.Retracted != nil {
					r.view.markRetracted(e.Retracted)
				}
			}
		}
	})
}
