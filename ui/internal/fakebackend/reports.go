package fakebackend

import (
	"slices"

	"newsdesk/app"
)

// NetworkReports answers as the application does: admins only, the
// reports set by PresetReports, newest first.
func (m *Backend) NetworkReports() ([]app.NetworkReport, error) {
	if !m.IsAdmin() {
		return nil, app.ErrNotAdmin
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reports), nil
}

// PresetReports sets the reports of must-read posts that reached the
// admin.
func (m *Backend) PresetReports(rs []app.NetworkReport) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reports = slices.Clone(rs)
}
