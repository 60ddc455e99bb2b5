package app

import (
	"newsdesk/newsnet"
)

// The node's callbacks. They run on the node's loop goroutine: they only
// hand work to the inbox and never block.

func (a *App) onDeliver(m *newsnet.Multicast) {
	a.inbox.deliver(m, a.now())
}

// WaitStored returns once what the servant delivered before the call is
// stored (or held to store again, when the store refused it) and
// announced: its events emitted, so Options.OnEvent has heard them. For a
// servant of the caller's own (Options.StartServant) whose deliveries the
// caller reads next: the UI's tests.
func (a *App) WaitStored() { a.inbox.flush() }

func (a *App) onProgress(source string, next uint64) {
	a.inbox.progress(source, next)
}

// onPublished hears every report of the servant on a publication: those
// that PublishBatch returns too, and those of publications that waited in
// its outbox and went out later.
func (a *App) onPublished(p newsnet.Published) {
	a.sysCounts.report(p)
	if !p.Queued {
		a.pub.wentOut(p.Count) // out of the outbox
	}
}

func (a *App) onLost(l newsnet.Lost) {
	a.log.Warn("items could not be recovered", "source", l.Source, "items", l.N, "total", l.Total)
	a.inbox.lost(l.Total)
}
