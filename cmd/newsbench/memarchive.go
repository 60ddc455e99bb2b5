package main

import (
	"sync"
	"time"

	"newsdesk/newsnet"
)

// memArchive is the publisher's store: what it published, by source and
// count, as the app's store keeps it (without history, Tops or Prev; the
// core looks items up again to send a link what it withheld, or to answer
// a retransmission request). It keeps no catch-up history.
type memArchive struct {
	mu   sync.Mutex
	msgs map[memKey]*newsnet.Multicast
}

type memKey struct {
	source string
	count  uint64
}

var _ newsnet.Archive = (*memArchive)(nil)

// put stores m before it is published, as the app stores and numbers a
// publication before handing it to the servant.
func (a *memArchive) put(source string, m *newsnet.Multicast) {
	stored := &newsnet.Multicast{ID: m.ID, Category: m.Category, Source: source, Count: m.Count, Payload: m.Payload}
	a.mu.Lock()
	a.msgs[memKey{source, m.Count}] = stored
	a.mu.Unlock()
}

// Lookup implements newsnet.Archive.
func (a *memArchive) Lookup(source string, count uint64) *newsnet.Multicast {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.msgs[memKey{source, count}]
}

// CatchUp implements newsnet.Archive: the publisher is no archive servant.
func (a *memArchive) CatchUp(newsnet.CategorySet, map[string]uint64, time.Time, int) []*newsnet.Multicast {
	return nil
}
