package fakebackend

import (
	"slices"

	"newsdesk/app"
)

// NetworkReports answers the reports PresetReports set to an admin, else
// as the application does (app.ErrNotAdmin, or none yet).
func (b *Backend) NetworkReports() ([]app.NetworkReport, error) {
	b.mu.Lock()
	rs := slices.Clone(b.reports)
	b.mu.Unlock()
	if rs == nil || !b.IsAdmin() {
		return b.App.NetworkReports()
	}
	return rs, nil
}

// PresetReports sets the reports of must-read posts that reached the
// admin.
func (b *Backend) PresetReports(rs []app.NetworkReport) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reports = slices.Clone(rs)
}
