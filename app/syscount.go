package app

import (
	"sync"

	"newsdesk/network"
	"newsdesk/newsnet"
)

// systemCounts counts the running servant's own publications in the system
// groups (network definitions, retractions). The servant's counters
// include them, so a new network showed "Published 1, Suppressed 1" (its
// first seed's definition, which nobody else was there to receive) before
// anyone posted; the UI's counters are of news, and App.Status takes these
// off. The control API keeps the servant's own.
type systemCounts struct {
	mu         sync.Mutex
	published  uint64
	suppressed uint64
	// queued holds the system publications that wait in the servant's
	// outbox: their later report, when they go out, is no new one.
	queued map[[16]byte]bool
}

// reset starts the count of a new servant, whose outbox holds outbox.
func (c *systemCounts) reset(outbox []*newsnet.Multicast) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.published, c.suppressed = 0, 0
	c.queued = map[[16]byte]bool{}
	for _, m := range outbox {
		if network.IsSystemCategory(m.Category) {
			c.queued[m.ID] = true
		}
	}
}

// report counts one report of the servant on a publication as its
// counters do: Published once per publication, Suppressed when it went
// out on no link.
func (c *systemCounts) report(p newsnet.Published) {
	if !network.IsSystemCategory(p.Category) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case p.Queued:
		c.published++
		c.queued[p.ID] = true
		return
	case c.queued[p.ID]:
		delete(c.queued, p.ID) // out of the outbox: counted when queued
	default:
		c.published++
	}
	if p.Links == 0 {
		c.suppressed++
	}
}

// remove takes the system publications off the servant's counters.
func (c *systemCounts) remove(cs *Counters) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.Published -= min(c.published, cs.Published)
	cs.Suppressed -= min(c.suppressed, cs.Suppressed)
}
