package ui

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// Paging: the first page fills a tall window several times over; later
// pages are fetched when the list scrolls within prefetch rows of the end
// of what is loaded, so scrolling never waits for a page in practice and
// 100,000 items are never loaded at once unless someone scrolls through
// all of them.
const (
	firstPage = 100
	nextPage  = 200
	prefetch  = 60
	// liveLimit: an event naming more items than this re-reads the head
	// of the listing instead of each item.
	liveLimit = 200
)

// itemList is the virtualised item list: a widget.List over the listing's
// index of IDs with fixed-height rows. It is focusable itself (it embeds
// the List, so a tap focuses it) and takes the keyboard: Up and Down move
// the cursor, Page Up/Down, Home and End jump, Enter or Space open the
// item under the cursor. A tap opens the tapped item.
//
// The List's own selection is not used: it is index based and would point
// at the wrong row when items arrive above. The open item and the cursor
// are kept by ID and drawn by the rows.
type itemList struct {
	widget.List
	u       *UI
	ls      *listing
	gen     int // bumped by every new query; stale pages are dropped
	cursor  uuid.UUID
	open    uuid.UUID
	focused bool
	failed  error // the last page load failed; no retry until the next query
	cancel  context.CancelFunc

	pitch float32 // row height plus separator

	onOpen    func(*row) // an item was opened (tap, Enter)
	onChanged func()     // the listing changed (for the empty-state text)
}

func newItemList(u *UI) *itemList {
	l := &itemList{u: u, ls: newListing(query{})}
	l.Length = func() int { return len(l.ls.ids) }
	l.CreateItem = func() fyne.CanvasObject { return newRowView() }
	l.UpdateItem = l.updateRow
	l.OnSelected = func(i widget.ListItemID) {
		l.UnselectAll()
		if i >= 0 && i < len(l.ls.ids) {
			l.openRow(l.ls.ids[i])
		}
	}
	l.ExtendBaseWidget(l)
	l.pitch = newRowView().MinSize().Height + theme.Padding()
	return l
}

func (l *itemList) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(l.ls.ids) {
		return
	}
	id := l.ls.ids[i]
	r := l.ls.rows[id]
	o.(*rowView).set(r, l.u.catalog, l.u.now(), id == l.open, l.focused && id == l.cursor, l.u.awaitsAck(r))
	if i >= len(l.ls.ids)-prefetch {
		l.loadMore()
	}
}

// setQuery replaces what the list shows and loads its first page.
func (l *itemList) setQuery(q query) {
	if l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
	if l.GetScrollOffset() > 0 { // only then is there a scroller to reset
		l.ScrollToTop()
	}
	l.gen++
	l.ls = newListing(q)
	l.failed = nil
	l.cursor = uuid.Nil
	l.Refresh()
	l.loadMore()
	l.changed()
}

func (l *itemList) changed() {
	if l.onChanged != nil {
		l.onChanged()
	}
}

// loadMore fetches the next page in the background unless one is on its
// way or there is none.
func (l *itemList) loadMore() {
	ls := l.ls
	if ls.done || ls.loading || l.failed != nil {
		return
	}
	ls.loading = true
	gen, q, cur := l.gen, ls.q, ls.cur
	n := nextPage
	if ls.fetched == 0 {
		n = firstPage
	}
	ctx := context.Background()
	if q.text != "" {
		ctx, l.cancel = context.WithCancel(ctx)
	}
	b := l.u.b
	l.u.w.Go(func() func() {
		rows, next, err := fetchPage(ctx, b, q, n, cur)
		return func() {
			if gen != l.gen {
				return
			}
			if err != nil {
				ls.loading = false
				if !errors.Is(err, context.Canceled) {
					l.failed = err
				}
				l.changed()
				return
			}
			ls.appendPage(rows, next)
			l.ensureCursor()
			l.Refresh()
			l.changed()
			l.checkMore()
		}
	})
}

// fetchPage runs in the background: one page of the query, as rows, with
// the titles of the items the page's corrections correct.
func fetchPage(ctx context.Context, b Backend, q query, n int, cur app.Cursor) ([]*row, app.Cursor, error) {
	var es []app.Entry
	var next app.Cursor
	var err error
	if q.text == "" {
		es, next, err = b.Newest(q.cats, n, cur)
	} else {
		es, next, err = b.Search(ctx, q.text, q.cats, n, cur)
	}
	if err != nil {
		return nil, "", err
	}
	rows := make([]*row, len(es))
	for i, e := range es {
		rows[i] = rowOf(e)
	}
	resolveCorrections(b, rows)
	return rows, next, nil
}

// resolveCorrections fills correctionOf from the store for corrections
// whose original is not among rows (background).
func resolveCorrections(b Backend, rows []*row) {
	titles := map[uuid.UUID]string{}
	for _, r := range rows {
		titles[r.id] = r.title
	}
	for _, r := range rows {
		if r.supersedes == uuid.Nil {
			continue
		}
		if t, ok := titles[r.supersedes]; ok {
			r.correctionOf = t
		} else if e, err := b.Item(r.supersedes); err == nil {
			r.correctionOf = e.Item.Title
		}
	}
}

// visibleRows returns the index range on screen, as far as the list knows
// its size.
func (l *itemList) visibleRows() (first, end int) {
	off := l.GetScrollOffset()
	first = int(off / l.pitch)
	end = int((off+l.Size().Height)/l.pitch) + 1
	return first, end
}

// checkMore loads another page when what is loaded does not reach past the
// screen by prefetch rows (a page whose items were all hidden corrections
// adds no rows, so no row update would ask).
func (l *itemList) checkMore() {
	if _, end := l.visibleRows(); len(l.ls.ids) < end+prefetch {
		l.loadMore()
	}
}

// itemsChanged re-reads the given items (all when ids is empty) and merges
// them into the listing: new items appear in place, read state and
// corrections are applied, and the rows on screen stay where they are.
func (l *itemList) itemsChanged(ids []uuid.UUID) {
	gen, q, b := l.gen, l.ls.q, l.u.b
	l.u.w.Go(func() func() {
		fresh := map[uuid.UUID]*row{}
		var gone []uuid.UUID
		if len(ids) == 0 || len(ids) > liveLimit {
			rows, _, err := fetchPage(context.Background(), b, q, firstPage, "")
			if err != nil {
				return nil
			}
			for _, r := range rows {
				fresh[r.id] = r
			}
		} else {
			var rows []*row
			for _, id := range ids {
				e, err := b.Item(id)
				switch {
				case errors.Is(err, app.ErrNotFound), err == nil && e.Retracted != nil:
					gone = append(gone, id)
				case err == nil:
					r := rowOf(e)
					rows = append(rows, r)
					fresh[id] = r
				}
			}
			resolveCorrections(b, rows)
		}
		return func() {
			if gen == l.gen {
				l.merge(fresh, gone)
			}
		}
	})
}

func (l *itemList) merge(fresh map[uuid.UUID]*row, gone []uuid.UUID) {
	first, _ := l.visibleRows()
	var top uuid.UUID
	if first < len(l.ls.ids) {
		top = l.ls.ids[first]
	}
	if !l.ls.merge(fresh, gone) {
		return
	}
	// Keep the rows on screen in place when items arrive above them,
	// unless the list is at its top, where new items should show.
	if off := l.GetScrollOffset(); off > 0 && top != uuid.Nil {
		if i := l.ls.index(top); i >= 0 && i != first {
			l.ScrollToOffset(off + float32(i-first)*l.pitch)
		}
	}
	l.Refresh()
	l.changed()
	// The open item has been corrected meanwhile: show the correction.
	if c := l.ls.hidden[l.open]; c != uuid.Nil {
		if _, ok := l.ls.rows[c]; ok {
			l.openRow(c)
		}
	}
}

// row returns the loaded row of id, or nil.
func (l *itemList) row(id uuid.UUID) *row { return l.ls.rows[id] }

// refreshRow redraws the row of id if it is loaded.
func (l *itemList) refreshRow(id uuid.UUID) {
	if i := l.ls.index(id); i >= 0 {
		l.RefreshItem(i)
	}
}

// openRow makes id the open item and the cursor, and reports it.
func (l *itemList) openRow(id uuid.UUID) {
	old, oldCursor := l.open, l.cursor
	l.open, l.cursor = id, id
	l.refreshRow(old)
	l.refreshRow(oldCursor)
	l.refreshRow(id)
	if r := l.ls.rows[id]; r != nil && l.onOpen != nil {
		l.onOpen(r)
	}
}

// setRead changes the read state shown for id (the backend call is the
// caller's).
func (l *itemList) setRead(id uuid.UUID, read bool) {
	if r := l.ls.rows[id]; r != nil && r.read != read {
		r.read = read
		l.refreshRow(id)
	}
}

// markAllRead shows every loaded row that category covers ("" all) read.
func (l *itemList) markAllRead(covers func(category string) bool) {
	for _, r := range l.ls.rows {
		if covers(r.category) {
			r.read = true
		}
	}
	l.Refresh()
}

// TypedKey moves the cursor and opens items; see itemList.
func (l *itemList) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyDown:
		l.moveCursor(1)
	case fyne.KeyUp:
		l.moveCursor(-1)
	case fyne.KeyPageDown:
		l.moveCursor(l.pageRows())
	case fyne.KeyPageUp:
		l.moveCursor(-l.pageRows())
	case fyne.KeyHome:
		l.moveCursor(-len(l.ls.ids))
	case fyne.KeyEnd:
		l.moveCursor(len(l.ls.ids))
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		if l.ls.index(l.cursor) >= 0 {
			l.openRow(l.cursor)
		}
	}
}

// TypedRune ignores text: the list has no type-ahead.
func (l *itemList) TypedRune(rune) {}

// FocusGained shows the cursor.
func (l *itemList) FocusGained() {
	l.focused = true
	l.ensureCursor()
	l.refreshRow(l.cursor)
}

// ensureCursor puts a cursor that is not on a loaded row on the open item,
// or else the first row on screen.
func (l *itemList) ensureCursor() {
	if l.ls.index(l.cursor) >= 0 {
		return
	}
	l.cursor = l.open
	if l.ls.index(l.cursor) < 0 && len(l.ls.ids) > 0 {
		first, _ := l.visibleRows()
		l.cursor = l.ls.ids[min(first, len(l.ls.ids)-1)]
	}
}

// FocusLost hides the cursor.
func (l *itemList) FocusLost() {
	l.focused = false
	l.refreshRow(l.cursor)
}

func (l *itemList) pageRows() int {
	first, end := l.visibleRows()
	return max(1, end-first-2)
}

func (l *itemList) moveCursor(d int) {
	n := len(l.ls.ids)
	if n == 0 {
		return
	}
	l.ensureCursor()
	i := min(max(l.ls.index(l.cursor)+d, 0), n-1)
	old := l.cursor
	l.cursor = l.ls.ids[i]
	l.refreshRow(old)
	l.ScrollTo(i)
	l.refreshRow(l.cursor)
}
