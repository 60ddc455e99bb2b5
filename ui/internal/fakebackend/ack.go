package fakebackend

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
)

// Acknowledge confirms a must-read item as the application does: once, at
// the backend's clock, marking it read and announcing it with
// ReadStateChanged; unknown and retracted items are app.ErrNotFound, plain
// ones app.ErrNotMustRead.
func (m *Backend) Acknowledge(id uuid.UUID) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	switch {
	case !ok || !m.visible(it):
		return time.Time{}, fmt.Errorf("%w: item %s", app.ErrNotFound, id)
	case !it.MustRead:
		return time.Time{}, fmt.Errorf("%w: item %s", app.ErrNotMustRead, id)
	}
	if at, ok := m.acked[id]; ok {
		return at, nil
	}
	at := m.now()
	m.acked[id] = at
	m.read[id] = true
	m.emitLocked(app.Event{Kind: app.ReadStateChanged, Categories: []string{it.Category}, Items: []uuid.UUID{id}})
	return at, nil
}

// PresetAcknowledged records items as confirmed at at.
func (m *Backend) PresetAcknowledged(at time.Time, ids ...uuid.UUID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		m.acked[id] = at
		m.read[id] = true
	}
}

// Keep marks an item kept, or lets it go, as the application does,
// announcing a change with ReadStateChanged; an unknown item is
// app.ErrNotFound.
func (m *Backend) Keep(id uuid.UUID, keep bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.byID[id]
	if !ok {
		return fmt.Errorf("%w: item %s", app.ErrNotFound, id)
	}
	if m.kept[id] == keep {
		return nil
	}
	if keep {
		m.kept[id] = true
	} else {
		delete(m.kept, id)
	}
	m.emitLocked(app.Event{Kind: app.ReadStateChanged, Categories: []string{it.Category}, Items: []uuid.UUID{id}})
	return nil
}
