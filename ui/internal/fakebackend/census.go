package fakebackend

import (
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

// PresetCensus sets the census the network reports.
func (m *Backend) PresetCensus(c app.Census) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.census = &c
}
