package ui

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// The urgent takeover: an urgent item that arrives opens in front of
// everything, in a window of its own, also while the main window is
// hidden in the tray. One window steps through the urgent items, oldest
// first, saying "1 of 3", rather than piling up a window per item: a burst
// of alerts is one thing to deal with, and none is covered by another.
// "Dismiss" (or closing the window) moves on and marks the item read; the
// window closes after the last one. An item that is also must-read stays
// until it is confirmed: closing the window is refused and only "I have
// read this" moves on. Urgent must-read items that came while the app was
// not running, and are not confirmed yet, open the window on start. The
// window follows what happens elsewhere: an item it shows or holds that is
// confirmed elsewhere (the item view's banner, the control API), retracted
// or expired leaves it at the event that says so, and the window moves on
// or closes. A plain urgent item read elsewhere stays until dismissed:
// marking a whole category read should not make an alert vanish unseen.

func takeoverTitle() string { return lang.L("Urgent — Newsdesk") }

var takeoverSize = fyne.NewSize(640, 480)

// takeover is the urgent items' window and its queue. UI thread only.
type takeover struct {
	u     *UI
	win   fyne.Window // nil while closed
	queue []app.Entry // the shown item first
	seen  map[uuid.UUID]bool
	busy  bool // a confirmation is being stored
	// startDone: the first page of the list was looked through (fromFirstPage).
	startDone bool

	heading *widget.Label
	title   *widget.Label
	meta    *widget.Label
	body    *markdownText
	prompt  *widget.Label // the must-read prompt
	refused *widget.Label // why the window did not close
	confirm *widget.Button
	dismiss *widget.Button
	content fyne.CanvasObject
}

func newTakeover(u *UI) *takeover {
	t := &takeover{
		u: u, seen: map[uuid.UUID]bool{},
		heading: widget.NewLabel(lang.L("URGENT")),
		title:   widget.NewLabel(""),
		meta:    widget.NewLabel(""),
		body:    newMarkdownText(),
		prompt:  wrappedLabel(ackPrompt(), widget.WarningImportance),
		refused: wrappedLabel(lang.L("This item stays open until you confirm that you have read it."), widget.DangerImportance),
	}
	t.heading.Importance = widget.DangerImportance
	t.heading.TextStyle.Bold = true
	t.title.Wrapping = fyne.TextWrapWord
	t.title.SizeName = theme.SizeNameSubHeadingText
	t.title.TextStyle.Bold = true
	t.meta.Wrapping = fyne.TextWrapWord
	t.meta.Importance = widget.LowImportance
	t.prompt.TextStyle.Bold = true
	t.confirm = widget.NewButtonWithIcon(ackButton(), theme.ConfirmIcon(), t.doConfirm)
	t.confirm.Importance = widget.HighImportance
	t.dismiss = widget.NewButtonWithIcon(lang.L("Dismiss"), theme.CancelIcon(), t.doDismiss)
	t.dismiss.Importance = widget.HighImportance
	header := container.NewVBox(
		container.NewHBox(widget.NewIcon(theme.NewErrorThemedResource(theme.WarningIcon())), t.heading),
		t.title, t.meta, widget.NewSeparator(),
	)
	footer := container.NewVBox(widget.NewSeparator(), t.prompt, t.refused,
		container.NewHBox(t.confirm, t.dismiss))
	t.content = container.NewPadded(container.NewBorder(header, footer, nil, nil,
		container.NewVScroll(container.NewPadded(t.body))))
	return t
}

// takesOver reports whether e opens the window: an urgent item, not
// retracted and not one's own, that awaits confirmation (must-read) or,
// otherwise, came since the window opened and is unread.
func (t *takeover) takesOver(e app.Entry) bool {
	it := e.Item
	switch {
	case !it.Urgent || e.Retracted != nil || t.u.isOwn(rowOf(e)):
		return false
	case it.MustRead:
		return e.Acknowledged.IsZero()
	}
	return !e.Read && !it.Received.Before(t.u.started)
}

// arrived takes the urgent items an event named; each is considered once.
func (t *takeover) arrived(ids []uuid.UUID) {
	var load []uuid.UUID
	for _, id := range ids {
		if !t.seen[id] {
			t.seen[id] = true
			load = append(load, id)
		}
	}
	if len(load) == 0 {
		return
	}
	b := t.u.b
	t.u.w.Go(func() func() {
		var es []app.Entry
		for _, id := range load {
			if e, err := b.Item(id); err == nil {
				es = append(es, e)
			}
		}
		return func() { t.add(es) }
	})
}

// fromFirstPage looks for urgent must-read items that wait for
// confirmation (they came while the app was not running) among the rows of
// the reading list's first page of every category, the newest items, once
// after the start: the list has read them anyway, so the start costs no
// extra walk through the store.
func (t *takeover) fromFirstPage(ls *listing) {
	if t == nil || t.startDone || ls.q.text != "" || len(ls.q.cats) > 0 || ls.fetched == 0 && !ls.done {
		return
	}
	t.startDone = true
	var ids []uuid.UUID
	for _, id := range slices.Backward(ls.ids) { // oldest first
		if r := ls.rows[id]; r.urgent && t.u.awaitsAck(r) {
			ids = append(ids, id)
		}
	}
	t.arrived(ids)
}

// add queues the entries that take over, and opens the window.
func (t *takeover) add(es []app.Entry) {
	before := len(t.queue)
	for _, e := range es {
		if t.takesOver(e) {
			t.queue = append(t.queue, e)
		}
	}
	switch {
	case len(t.queue) == before:
	case t.win == nil:
		t.open()
	default:
		t.show() // the count changed
		t.win.RequestFocus()
	}
}

// open shows the window in front of everything with the first item.
func (t *takeover) open() {
	w := t.u.app.NewWindow(takeoverTitle())
	w.SetContent(t.content)
	w.Resize(takeoverSize)
	w.CenterOnScreen()
	w.SetCloseIntercept(t.closeRequested)
	t.win = w
	t.show()
	w.Show()
	keepInFront(w)
	w.RequestFocus()
}

// needsConfirm reports whether the shown item waits for "I have read this".
func (t *takeover) needsConfirm() bool {
	return len(t.queue) > 0 && t.queue[0].Item.MustRead && t.queue[0].Acknowledged.IsZero()
}

// show fills the window with the first queued item.
func (t *takeover) show() {
	e := t.queue[0]
	it := e.Item
	heading := lang.L("URGENT")
	if n := len(t.queue); n > 1 {
		heading += fmt.Sprintf(lang.L(" · 1 of %d"), n)
	}
	t.heading.SetText(heading)
	t.title.SetText(it.Title)
	meta := categoryName(t.u.catalog, it.Category) + " · " + fullTime(it.PublishedAt())
	if it.Author != "" {
		meta = fmt.Sprintf(lang.L("By %s"), it.Author) + " · " + meta
	}
	t.meta.SetText(meta)
	t.u.setMarkdown(t.body, it.Body)
	t.refused.Hide()
	if t.needsConfirm() {
		t.prompt.Show()
		t.confirm.Show()
		t.confirm.Enable()
		t.dismiss.Hide()
	} else {
		t.prompt.Hide()
		t.confirm.Hide()
		t.dismiss.Show()
	}
}

// closeRequested is the window's close button: Dismiss, unless the item
// waits for confirmation.
func (t *takeover) closeRequested() {
	if t.needsConfirm() {
		t.refused.Show()
		t.win.RequestFocus()
		return
	}
	t.doDismiss()
}

// doDismiss marks the shown item read and moves on.
func (t *takeover) doDismiss() {
	if len(t.queue) == 0 || t.needsConfirm() {
		return
	}
	id := t.queue[0].Item.ID
	t.u.w.Go(func() func() {
		err := t.u.b.MarkRead(id)
		return func() { t.u.reportError(lang.L("Marking the item read failed"), err) }
	})
	t.next()
}

// doConfirm stores the confirmation of the shown item, then moves on.
func (t *takeover) doConfirm() {
	if t.busy || !t.needsConfirm() {
		return
	}
	id := t.queue[0].Item.ID
	t.busy = true
	t.confirm.Disable()
	t.u.acknowledge(id, func(_ time.Time, err error) {
		t.busy = false
		if len(t.queue) == 0 || t.queue[0].Item.ID != id {
			return
		}
		switch {
		case errors.Is(err, app.ErrNotFound), errors.Is(err, app.ErrNotMustRead):
			// Retracted (or expired) meanwhile: nothing left to confirm.
		case err != nil:
			t.confirm.Enable() // to try again; the status line says why
			return
		}
		t.next()
	})
}

// next drops the shown item and shows the one after, or closes the window.
func (t *takeover) next() {
	t.queue = t.queue[1:]
	if len(t.queue) > 0 {
		t.show()
		return
	}
	t.close()
}

// close closes the window, with nothing left to show.
func (t *takeover) close() {
	t.queue = nil
	t.win.Close()
	t.win = nil
}

// changed re-reads the items the window holds among ids (nil: all of
// them) after an event said they changed, and lets go of those that no
// longer take over (stillTakesOver).
func (t *takeover) changed(ids []uuid.UUID) {
	var load []uuid.UUID
	for _, e := range t.queue {
		if ids == nil || slices.Contains(ids, e.Item.ID) {
			load = append(load, e.Item.ID)
		}
	}
	if len(load) == 0 {
		return
	}
	b := t.u.b
	t.u.w.Go(func() func() {
		gone := map[uuid.UUID]bool{}
		for _, id := range load {
			e, err := b.Item(id)
			if errors.Is(err, app.ErrNotFound) || err == nil && !stillTakesOver(e) {
				gone[id] = true
			}
		}
		return func() { t.drop(gone) }
	})
}

// stillTakesOver reports whether an item the window holds stays in it:
// not retracted or expired (hidden), and, if must-read, not confirmed.
func stillTakesOver(e app.Entry) bool {
	return e.Retracted == nil && (!e.Item.MustRead || e.Acknowledged.IsZero())
}

// drop takes the items gone out of the window: it shows the next one,
// or the same with the new count, or closes.
func (t *takeover) drop(gone map[uuid.UUID]bool) {
	if len(gone) == 0 || t.win == nil {
		return
	}
	before := len(t.queue)
	t.queue = slices.DeleteFunc(t.queue, func(e app.Entry) bool { return gone[e.Item.ID] })
	switch {
	case len(t.queue) == before:
	case len(t.queue) == 0:
		t.close()
	default:
		t.show()
	}
}
