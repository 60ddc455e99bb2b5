package fakebackend

import (
	"context"
	"errors"

	"newsdesk/app"
)

// NetworkCensus answers as the application does: admins only, and only
// once a census has come (PresetCensus).
func (m *Backend) NetworkCensus() (app.Census, error) {
	if !m.IsAdmin() {
		return app.Census{}, app.ErrNotAdmin
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.census == nil {
		return app.Census{}, app.ErrNoCensus
	}
	return *m.census, nil
}

// PartitionCensus answers from the partitions PresetPartition set, for
// admins only; a root without one is not reached.
func (m *Backend) PartitionCensus(_ context.Context, root string) (app.Census, error) {
	if !m.IsAdmin() {
		return app.Census{}, app.ErrNotAdmin
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.partitions[root]
	if !ok {
		return app.Census{}, errors.New("the census of " + root + ": no answer from that servant")
	}
	return c, nil
}

// PresetPartition sets the census the servant root answers with.
func (m *Backend) PresetPartition(root string, c app.Census) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.partitions == nil {
		m.partitions = map[string]app.Census{}
	}
	m.partitions[root] = c
}

// PresetCensus sets the census the network reports.
func (m *Backend) PresetCensus(c app.Census) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.census = &c
}
