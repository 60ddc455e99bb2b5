package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/uuid"

	"newsdesk/app"
)

// maxBatch bounds how many queued events one UI update takes.
const maxBatch = 256

// bridge is the one goroutine that reads the backend's events. It takes
// whatever has queued up as one batch and applies it on the UI thread with
// fyne.Do, so a burst of arrivals costs one update, not one per item. It
// ends when the event channel closes or the UI is closed.
func (u *UI) bridge() {
	events := u.b.Events()
	for {
		var batch []app.Event
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			batch = append(batch, ev)
		case <-u.done:
			return
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-events:
				if !ok {
					break drain
				}
				batch = append(batch, ev)
			default:
				break drain
			}
		}
		fyne.Do(func() { u.handleEvents(batch) })
	}
}

// ticker refreshes the status every few seconds and the list's relative
// times every minute.
func (u *UI) ticker() {
	t := time.NewTicker(u.opts.tick)
	defer t.Stop()
	perMinute := max(1, int(time.Minute/u.opts.tick))
	for n := 1; ; n++ {
		select {
		case <-t.C:
			minute := n%perMinute == 0
			fyne.Do(func() { u.tick(minute) })
		case <-u.done:
			return
		}
	}
}

// tick re-reads what changes without an event: the network view's
// counters while it is shown, and once a minute the status line and the
// list's relative times ("5 min ago"). Nothing is re-read or redrawn more
// often while nothing is shown that needs it: an idle desktop should cost
// next to nothing.
func (u *UI) tick(minute bool) {
	if minute || u.detailsOpen || u.showing(u.network.content) {
		u.statusRef.trigger()
	}
	if minute {
		u.reader.list.Refresh()
	}
}

// handleEvents applies a batch of events on the UI thread: each kind of
// change is re-read once, however many events announced it. Only items
// that arrived from the network go to the notifier.
func (u *UI) handleEvents(evs []app.Event) {
	if !u.running {
		return
	}
	var ids, arrived, urgent []uuid.UUID
	items, all, posts, status, catalog, invites, reports := false, false, false, false, false, false, false
	var reach []uuid.UUID
	reachAll := false
	// Items confirmed, retracted or expired elsewhere may leave the
	// urgent window.
	var changed []uuid.UUID
	changedAll := false
	for _, ev := range evs {
		if ev.Kind.AboutItems() {
			items = true
			if len(ev.Items) == 0 {
				all = true
			}
			ids = append(ids, ev.Items...)
		}
		switch ev.Kind {
		case app.ItemsArrived:
			arrived = append(arrived, ev.Items...)
			urgent = append(urgent, ev.Urgent...)
		case app.ItemsPublished, app.ItemsRetracted, app.ItemsChanged:
			posts = true // My posts shows neither arrivals nor read state
		}
		switch ev.Kind {
		case app.ReadStateChanged, app.ItemsRetracted, app.ItemsChanged:
			changed = append(changed, ev.Items...)
			changedAll = changedAll || ev.Items == nil
		case app.StatusChanged:
			status = true
		case app.CatalogChanged:
			catalog = true
		case app.ReachChanged:
			reach = append(reach, ev.Items...)
			reachAll = reachAll || ev.Items == nil
		case app.InvitationsChanged:
			invites = true
		case app.ReportsChanged:
			reports = true
		}
	}
	if len(arrived) > 0 || len(urgent) > 0 {
		u.notifier.arrived(arrived, urgent)
	}
	if len(urgent) > 0 {
		u.takeover.arrived(urgent)
	}
	if changedAll {
		changed = nil
	}
	if len(changed) > 0 || changedAll {
		u.takeover.changed(changed)
	}
	if items {
		if all {
			ids = nil
		}
		u.reader.itemsChanged(ids)
	}
	if posts {
		u.posts.itemsChanged()
	}
	if reachAll {
		reach = nil
	}
	if reach != nil || reachAll {
		u.posts.reach.changed(reach)
	}
	if status {
		u.statusRef.trigger()
	}
	if catalog {
		u.catalogRef.trigger()
	}
	if status || catalog {
		u.rolesRef.trigger() // a new network definition may change the roles
	}
	if invites && u.showing(u.invites.content) {
		u.invites.load() // else when the screen is shown
	}
	if reports && u.showing(u.reports.content) {
		u.reports.load() // else when the screen is shown
	}
}
