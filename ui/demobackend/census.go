package demobackend

import (
	"time"

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

// demoCensus is a company network of some 2,000 computers, some still on
// the release candidate of the pilot, with one laptop that lost items.
func demoCensus(now time.Time) *app.Census {
	return &app.Census{At: now.Add(-40 * time.Second), Servants: 2043, Seeds: 3, Archives: 2, Leaves: 1288,
		Desktops: 2031, Headless: 12,
		Releases: []app.ReleaseCount{{Release: app.Release, Servants: 1850}, {Release: app.Release + "-rc1", Servants: 193}},
		Lost:     7, LostServants: 1, WorstLost: []app.LostServant{{Servant: "10.3.8.41:7400", Lost: 7}},
		Depth: 4, MostDowns: 16, MostLeaves: 64, MinProtocol: 6, MaxProtocol: 6,
		Subscribers: []app.CategoryCount{{Category: "company", Subscribers: 2031}, {Category: "it", Subscribers: 412},
			{Category: "hr", Subscribers: 310}, {Category: "sales", Subscribers: 288}, {Category: "facilities", Subscribers: 97},
			{Category: "*", Subscribers: 2}}}
}
