package fakebackend

import (
	"fmt"

	"github.com/google/uuid"

	"newsdesk/app"
)

// Reach answers as the application does: the latest reach of one's own
// post (zero counts until one is preset, as before the network reports),
// app.ErrNotFound for anything else.
func (m *Backend) Reach(id uuid.UUID) (app.Reach, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	if !ok || it.Source != m.source {
		return app.Reach{}, fmt.Errorf("%w: %s is not one of this installation's posts", app.ErrNotFound, id)
	}
	r := m.reach[id]
	r.MustRead = it.MustRead
	if !r.MustRead {
		r.Pending = nil
	} else if r.Pending == nil {
		r.Pending = []app.Reader{}
	}
	return r, nil
}

// PresetReach sets the reach of the own post id, as a report from the
// network would, and announces it with ReachChanged.
func (m *Backend) PresetReach(id uuid.UUID, r app.Reach) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reach == nil {
		m.reach = map[uuid.UUID]app.Reach{}
	}
	m.reach[id] = r
	m.emitLocked(app.Event{Kind: app.ReachChanged, Items: []uuid.UUID{id}})
}
