package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// myPosts lists what this installation published, newest first, paged like
// the item list, each with its reach (reach.go), "Publish a correction" and
// "Retract…"; a retracted post stays listed, marked, with neither.
type myPosts struct {
	u       *UI
	rows    []*row
	cur     app.Cursor
	done    bool
	loading bool
	stale   bool // items changed while the list was not on screen
	gen     int
	list    *widget.List
	empty   *widget.Label
	content fyne.CanvasObject

	scheduled *scheduledPosts // above the list (scheduled.go)
	reach     *postReach      // each post's reach (reach.go)
}

// postRow is one row: title and details, and the correction and retract
// buttons.
type postRow struct {
	title, meta      *widget.Label
	correct, retract *widget.Button
	reach            *reachPicture
	pending          *widget.Button // must-read posts: who has not confirmed
	box              fyne.CanvasObject
}

func newMyPosts(u *UI) *myPosts {
	p := &myPosts{u: u, empty: widget.NewLabel(lang.L("You have not published anything yet. Write an item under Compose."))}
	p.empty.Importance = widget.LowImportance
	p.empty.Wrapping = fyne.TextWrapWord
	rows := map[fyne.CanvasObject]*postRow{}
	p.list = widget.NewList(
		func() int { return len(p.rows) },
		func() fyne.CanvasObject {
			r := &postRow{title: widget.NewLabel("Title"), meta: widget.NewLabel("Category · time")}
			r.title.Truncation = fyne.TextTruncateEllipsis
			r.title.TextStyle.Bold = true
			r.meta.Truncation = fyne.TextTruncateEllipsis
			r.meta.SizeName = theme.SizeNameCaptionText
			r.meta.Importance = widget.LowImportance
			r.correct = widget.NewButtonWithIcon(lang.L("Publish a correction"), theme.DocumentCreateIcon(), nil)
			r.retract = widget.NewButtonWithIcon(lang.L("Retract…"), theme.DeleteIcon(), nil)
			r.retract.Importance = widget.LowImportance
			r.reach = newReachPicture()
			r.pending = widget.NewButtonWithIcon(lang.L("Not confirmed…"), theme.AccountIcon(), nil)
			r.pending.Importance = widget.LowImportance
			// The picture first, so that the pictures of all rows form a
			// column whatever buttons a row has.
			r.box = container.NewBorder(nil, nil, container.NewPadded(r.reach),
				container.NewCenter(container.NewHBox(r.pending, r.correct, r.retract)),
				container.New(&linesLayout{overlap: 2 * theme.InnerPadding()}, r.title, r.meta))
			rows[r.box] = r
			return r.box
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			r, it := rows[o], p.rows[i]
			r.title.SetText(it.title)
			meta := categoryName(p.u.catalog, it.category) + " · " + fullTime(it.created) + " (" + relTime(it.created, p.u.now()) + ")"
			if it.urgent {
				meta = lang.L("URGENT") + " · " + meta
			}
			if it.supersedes != uuid.Nil {
				meta = lang.L("Correction") + " · " + meta
			}
			if it.sentLate {
				meta = sentLateNote(it.created) + " · " + meta
			}
			if it.retracted {
				meta = lang.L("Retracted") + " · " + meta
				if it.retraction != "" {
					meta += " · " + it.retraction
				}
				r.correct.Disable()
			} else {
				r.correct.Enable()
			}
			if p.u.mayRetract(it) {
				r.retract.Show()
			} else {
				r.retract.Hide()
			}
			id, title := it.id, it.title
			reach, known := p.reach.get(id)
			if note := reachNote(reach); known && note != "" {
				meta += " · " + note
			}
			r.meta.SetText(meta)
			r.reach.set(reach, known)
			if known && reach.MustRead && !it.retracted {
				r.pending.SetText(pendingLabel(reach))
				r.pending.OnTapped = func() { p.u.showPending(title, reach) }
				r.pending.Show()
			} else {
				r.pending.Hide()
			}
			r.correct.OnTapped = func() { p.startCorrection(id) }
			r.retract.OnTapped = func() { p.u.confirmRetract(id, title, p.reload) }
			if i >= len(p.rows)-prefetch {
				p.loadMore()
			}
		},
	)
	p.list.OnSelected = func(widget.ListItemID) { p.list.UnselectAll() }
	p.scheduled = newScheduledPosts(u)
	p.reach = newPostReach(u, p.reachShown)
	p.content = container.NewBorder(p.scheduled.content, nil, nil, nil, container.NewStack(p.list, container.NewPadded(container.NewVBox(p.empty))))
	return p
}

// reachShown refreshes the row of post id once its reach arrived.
func (p *myPosts) reachShown(id uuid.UUID) {
	for i, r := range p.rows {
		if r.id == id {
			p.list.RefreshItem(i)
			return
		}
	}
}

// reload reads the list again from the start.
func (p *myPosts) reload() {
	p.gen++
	p.rows, p.cur, p.done, p.loading = nil, "", false, false
	p.list.Refresh()
	p.loadMore()
	p.scheduled.reload()
}

// itemsChanged: one's own items were published or retracted, or expired
// items purged. The list is re-read now if it is on screen, else when it
// is shown.
func (p *myPosts) itemsChanged() {
	if p.u.showing(p.content) {
		p.reload()
	} else {
		p.stale = true
	}
}

// shown is called when the list comes on screen.
func (p *myPosts) shown() {
	if p.stale {
		p.stale = false
		p.reload()
	}
}

func (p *myPosts) loadMore() {
	if p.done || p.loading {
		return
	}
	p.loading = true
	gen, cur := p.gen, p.cur
	n := nextPage
	if cur == "" {
		n = firstPage
	}
	p.u.w.Go(func() func() {
		es, next, err := p.u.b.MyPosts(n, cur)
		return func() {
			if gen != p.gen {
				return
			}
			p.loading = false
			if err != nil {
				p.done = true
				p.empty.SetText(lang.L("Your posts could not be read: ") + errorText(err))
				p.empty.Show()
				return
			}
			for _, e := range es {
				p.rows = append(p.rows, rowOf(e))
			}
			p.cur, p.done = next, next == ""
			p.empty.Hidden = len(p.rows) > 0
			p.empty.Refresh()
			p.list.Refresh()
		}
	})
}

// startCorrection reads the post and opens it as a correction draft.
func (p *myPosts) startCorrection(id uuid.UUID) {
	p.u.w.Go(func() func() {
		e, err := p.u.b.Item(id)
		return func() {
			if err != nil {
				p.u.reportError(lang.L("The post could not be read"), err)
				return
			}
			p.u.compose.correct(e)
		}
	})
}
