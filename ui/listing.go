package ui

import (
	"fyne.io/fyne/v2/lang"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
)

// row is what the item list keeps of one item: the fields a row shows, not
// the body, so 100,000 loaded rows stay small.
type row struct {
	id           uuid.UUID
	title        string
	category     string
	author       string
	created      time.Time
	urgent, read bool
	supersedes   uuid.UUID
	correctionOf string    // title of the item it corrects, when known
	source       uuid.UUID // the publishing installation
	retracted    bool      // hidden by a retraction (shown in My posts only)
	retraction   string    // its reason, may be empty
	expired      bool      // hidden by its own expiry, not a retraction
	// sentLate: a scheduled post of this installation's that went out
	// late (app.SentLate); only My posts shows it.
	sentLate     bool
	mustRead     bool      // readers confirm it (mustread.go)
	acknowledged time.Time // when the reader here confirmed it; zero if not
	audience     string    // the item's audience as audienceText writes it (a string keeps row comparable); "": everyone
	kept         bool      // the reader keeps it: retention never deletes it
}

func rowOf(e app.Entry) *row {
	it := e.Item
	r := &row{
		id: it.ID, title: it.Title, category: it.Category, author: it.Author,
		created: it.PublishedAt(), urgent: it.Urgent, read: e.Read, supersedes: it.Supersedes,
		source: it.Source, sentLate: app.SentLate(it), mustRead: it.MustRead, acknowledged: e.Acknowledged,
		audience: audienceText(it.Audience), kept: e.Kept,
	}
	if e.Retracted != nil {
		r.retracted, r.retraction, r.expired = true, e.Retracted.Reason, e.Retracted.Expired
	}
	if it.Newer != 0 && strings.TrimSpace(r.title) == "" {
		r.title = newerItemTitle()
	}
	return r
}

// An item of a newer release's format shows its title (kept where every
// release reads it) and, instead of its text, one line that says why.
func newerItemTitle() string { return lang.L("An item of a newer Newsdesk") }
func newerItemBody() string {
	return lang.L("*This item needs a newer Newsdesk.* Once this computer runs the newer version, it shows the item here.")
}

// query is what a listing lists: the newest items of some categories, or
// the results of a search in them.
type query struct {
	cats []string // nil: every category
	text string   // "": newest first
}

func (q query) covers(category string) bool {
	return len(q.cats) == 0 || categories.CoveredByAny(q.cats, category)
}

// listing is the loaded part of a query's result, newest first: an index
// of IDs (what widget.List walks) and their rows. It is loaded a page at a
// time as the list scrolls toward its end. A correction takes the place of
// the item it corrects, which is never listed.
//
// A listing is owned by the UI thread.
type listing struct {
	q       query
	ids     []uuid.UUID
	rows    map[uuid.UUID]*row
	hidden  map[uuid.UUID]uuid.UUID // corrected item → its correction
	titles  map[uuid.UUID]string    // titles of corrected items, for "Correction of …"
	cur     app.Cursor
	done    bool // the last page has been loaded
	loading bool
	fetched int // entries received from the backend, hidden ones included
}

func newListing(q query) *listing {
	return &listing{
		q: q, rows: map[uuid.UUID]*row{},
		hidden: map[uuid.UUID]uuid.UUID{}, titles: map[uuid.UUID]string{},
	}
}

// oldest is the ID of the last loaded row, or Nil.
func (l *listing) oldest() uuid.UUID {
	if len(l.ids) == 0 {
		return uuid.Nil
	}
	return l.ids[len(l.ids)-1]
}

// appendPage adds a page of rows that continues the listing.
func (l *listing) appendPage(rows []*row, next app.Cursor) {
	l.fetched += len(rows)
	l.cur, l.done, l.loading = next, next == "", false
	for _, r := range rows {
		l.noteCorrection(r)
	}
	for _, r := range rows {
		if _, ok := l.rows[r.id]; ok || l.hidden[r.id] != uuid.Nil {
			if l.hidden[r.id] != uuid.Nil {
				l.titles[r.id] = r.title
				l.fillCorrectionOf(r)
			}
			continue
		}
		l.rows[r.id] = r
		l.ids = append(l.ids, r.id)
	}
}

// noteCorrection records that r corrects an earlier item and removes that
// item if it is listed.
func (l *listing) noteCorrection(r *row) {
	if r.supersedes == uuid.Nil {
		return
	}
	l.hidden[r.supersedes] = r.id
	if r.correctionOf == "" {
		r.correctionOf = l.titles[r.supersedes]
	}
	if old, ok := l.rows[r.supersedes]; ok {
		if r.correctionOf == "" {
			r.correctionOf = old.title
		}
		l.titles[old.id] = old.title
		i := l.position(old.id)
		l.ids = slices.Delete(l.ids, i, i+1)
		delete(l.rows, old.id)
	}
}

// fillCorrectionOf gives the correction of the corrected item r its title.
func (l *listing) fillCorrectionOf(r *row) {
	if c, ok := l.rows[l.hidden[r.id]]; ok && c.correctionOf == "" {
		c.correctionOf = r.title
	}
}

// position returns where id belongs in the newest-first index.
func (l *listing) position(id uuid.UUID) int {
	i, _ := slices.BinarySearchFunc(l.ids, id, func(x, id uuid.UUID) int { return -news.CompareIDs(x, id) })
	return i
}

// inRange reports whether an item with this ID belongs in the loaded part:
// newer than the oldest loaded row, or anywhere once everything is loaded.
func (l *listing) inRange(id uuid.UUID) bool {
	return l.done || len(l.ids) > 0 && news.CompareIDs(id, l.oldest()) > 0
}

// merge applies fresh copies of items: rows present are updated, items
// that belong to the query and the loaded range are inserted, items gone
// are removed, and corrections replace what they correct. It reports
// whether anything changed.
func (l *listing) merge(fresh map[uuid.UUID]*row, gone []uuid.UUID) bool {
	changed := false
	for _, id := range gone {
		if _, ok := l.rows[id]; ok {
			l.ids = slices.Delete(l.ids, l.position(id), l.position(id)+1)
			delete(l.rows, id)
			changed = true
		}
	}
	// Newest first, so a correction is seen before what it corrects.
	ids := make([]uuid.UUID, 0, len(fresh))
	for id := range fresh {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return -news.CompareIDs(a, b) })
	for _, id := range ids {
		r := fresh[id]
		if old, ok := l.rows[id]; ok {
			if r.correctionOf == "" {
				r.correctionOf = old.correctionOf
			}
			if *old != *r {
				*old = *r
				changed = true
			}
			continue
		}
		if l.hidden[id] != uuid.Nil {
			l.titles[id] = r.title
			l.fillCorrectionOf(r)
			continue
		}
		if l.q.text != "" || !l.q.covers(r.category) || !l.inRange(id) {
			continue
		}
		l.noteCorrection(r)
		i := l.position(id)
		l.ids = slices.Insert(l.ids, i, id)
		l.rows[id] = r
		changed = true
	}
	return changed
}

// index returns the index of id in the listing, or -1.
func (l *listing) index(id uuid.UUID) int {
	if _, ok := l.rows[id]; !ok {
		return -1
	}
	return l.position(id)
}
