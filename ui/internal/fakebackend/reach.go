package fakebackend

import (
	"github.com/google/uuid"

	"newsdesk/app"
)

// Reach answers as the application does (app.ErrNotFound for anything
// but one's own post), with the reach PresetReach set as the network's
// report of it.
func (b *Backend) Reach(id uuid.UUID) (app.Reach, error) {
	r, err := b.App.Reach(id)
	if err != nil {
		return r, err
	}
	b.mu.Lock()
	preset, ok := b.reach[id]
	b.mu.Unlock()
	if !ok {
		return r, nil
	}
	preset.MustRead = r.MustRead
	if !preset.MustRead {
		preset.Pending = nil
	} else if preset.Pending == nil {
		preset.Pending = []app.Reader{}
	}
	return preset, nil
}

// PresetReach sets the reach of the own post id, as a report from the
// network would, and announces it with ReachChanged.
func (b *Backend) PresetReach(id uuid.UUID, r app.Reach) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reach == nil {
		b.reach = map[uuid.UUID]app.Reach{}
	}
	b.reach[id] = r
	select {
	case b.events <- app.Event{Kind: app.ReachChanged, Items: []uuid.UUID{id}}:
	default:
	}
}
