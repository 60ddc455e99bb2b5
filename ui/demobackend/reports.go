package demobackend

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"

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

// demoReports are the must-read posts of two other publishers: the HR
// policy most have confirmed, and the security training still open for
// many, with a few readers away.
func demoReports(now time.Time) []app.NetworkReport {
	rng := rand.New(rand.NewPCG(5, 6))
	readers := func(n int) []app.Reader {
		out := make([]app.Reader, n)
		for i := range out {
			out[i] = demoReader(rng)
		}
		return out
	}
	confirmed := func(n int, at time.Time) []app.ConfirmedReader {
		out := make([]app.ConfirmedReader, n)
		for i, r := range readers(n) {
			out[i] = app.ConfirmedReader{Reader: r, At: at.Add(time.Duration(i) * 41 * time.Second)}
		}
		return out
	}
	policyAt := now.Add(-26 * time.Hour)
	trainingAt := now.Add(-3 * time.Hour)
	return []app.NetworkReport{
		{Post: uuid.New(), Title: "Security awareness training: due Friday", Category: "it", Author: "Priya Haddad",
			Published: trainingAt, Publisher: "ed25519:demo-it",
			Reach: app.Reach{At: now.Add(-4 * time.Minute), MustRead: true, Subscribers: 412, Delivered: 409, Read: 301,
				Acknowledged: 244, ReportedAcknowledged: 240, ReportedPending: 161, Pending: readers(161),
				Offline:   []app.OfflineReader{{Reader: demoReader(rng), LastSeen: now.Add(-2 * time.Hour)}, {Reader: demoReader(rng), LastSeen: now.Add(-50 * time.Minute)}},
				Confirmed: confirmed(244, trainingAt.Add(5*time.Minute))}},
		{Post: uuid.New(), Title: "Updated travel policy", Category: "hr", Author: "Jonas Lindqvist",
			Published: policyAt, Publisher: "ed25519:demo-hr",
			Reach: app.Reach{At: now.Add(-35 * time.Minute), MustRead: true, Subscribers: 310, Delivered: 310, Read: 305,
				Acknowledged: 301, ReportedAcknowledged: 298, ReportedPending: 9, Pending: readers(9),
				Confirmed: confirmed(301, policyAt.Add(10*time.Minute))}},
	}
}
