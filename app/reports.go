package app

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/trust"
)

// Reports of must-read posts for admins (network/reports.go). As the
// publisher, the application sends a signed summary of a must-read post's
// reach into the reports group when the network reports a change, at most
// once per reportPeriods reach report periods per post: readers confirm over hours and days,
// and an admin needs the state, not every step. As an admin, it joins the
// group and shows the latest summary of every post (NetworkReports).

// reportPeriods is the least time between two summaries of one post, in
// the servant's reach report periods (newsnet.Config.ReportPeriod, 5 s by
// default: 5 minutes).
const reportPeriods = 60

// maxNetworkReports bounds the posts NetworkReports returns.
const maxNetworkReports = 1000

// NetworkReport is the latest reach of a must-read post, as its publisher
// reported it to the admins.
type NetworkReport struct {
	Post      uuid.UUID
	Title     string
	Category  string
	Author    string
	Published time.Time
	// Publisher is the key that signed the post and the report.
	Publisher string
	// Reach is what the publisher's My posts shows (MustRead is set).
	Reach Reach
	// Cut: names were left out to fit the report; the counts are whole.
	Cut bool
}

// NetworkReports returns the latest report of each must-read post that
// reached this servant, newest first. Only admins' servants join the
// reports group, and only admins may read it (ErrNotAdmin).
func (a *App) NetworkReports() ([]NetworkReport, error) {
	if !a.IsAdmin() {
		return nil, ErrNotAdmin
	}
	sums, err := a.net.Reports(maxNetworkReports)
	if err != nil {
		return nil, err
	}
	out := make([]NetworkReport, 0, len(sums))
	for _, s := range sums {
		r := Reach{At: s.At, Subscribers: s.Subscribers, Delivered: s.Delivered, Read: s.Read, Acknowledged: s.Acknowledged,
			ReportedAcknowledged: s.ReportedAcknowledged, ReportedPending: s.ReportedPending,
			UnverifiedAcknowledged: s.UnverifiedAcknowledged, UnverifiedPending: s.UnverifiedPending, MustRead: true,
			Pending: make([]Reader, 0, len(s.Pending))}
		for _, p := range s.Pending {
			r.Pending = append(r.Pending, Reader{Name: p.Name, Key: p.Key})
		}
		for _, o := range s.Offline {
			r.Offline = append(r.Offline, OfflineReader{Reader: Reader{Name: o.Name, Key: o.Key}, LastSeen: o.Time})
		}
		for _, c := range s.Confirmed {
			r.Confirmed = append(r.Confirmed, ConfirmedReader{Reader: Reader{Name: c.Name, Key: c.Key}, At: c.Time})
		}
		out = append(out, NetworkReport{Post: s.Post, Title: s.Title, Category: s.Category, Author: s.Author,
			Published: s.Published, Publisher: s.Publisher, Reach: r, Cut: s.Cut})
	}
	return out, nil
}

// liveAdminGroups is the admin groups this servant joins: all of them
// for an admin's, none for anyone else's (an archive has them through
// newsnet.AllCategories).
func (a *App) liveAdminGroups() []string {
	if a.IsAdmin() {
		return network.AdminCategories
	}
	return nil
}

// reportSender sends the summaries of own must-read posts.
type reportSender struct {
	a        *App
	interval time.Duration

	mu    sync.Mutex
	dirty map[uuid.UUID]bool
	sent  map[uuid.UUID]sentReport
	wake  chan struct{}
}

// sentReport is the last summary sent of a post: when, and its content
// without the report time, so a report that changes nothing is not sent.
type sentReport struct {
	at     time.Time
	digest [32]byte
}

func newReportSender(a *App, interval time.Duration) *reportSender {
	if interval <= 0 {
		interval = reportPeriods * a.tunedProtocol().ReportPeriod
	}
	return &reportSender{a: a, interval: interval, dirty: map[uuid.UUID]bool{}, sent: map[uuid.UUID]sentReport{},
		wake: make(chan struct{}, 1)}
}

// changed notes that the reach of own must-read posts changed (the
// inbox's goroutine: it never blocks).
func (r *reportSender) changed(ids []uuid.UUID) {
	r.mu.Lock()
	for _, id := range ids {
		r.dirty[id] = true
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run sends what is due until the app stops. Publishing may wait for the
// goroutine that stores deliveries, so it happens here, not where the
// reports arrive.
func (r *reportSender) run() {
	a := r.a
	defer a.bg.Done()
	t := time.NewTimer(r.interval)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-r.wake:
		case <-t.C:
			t.Reset(r.interval)
		}
		r.sendDue(a.now())
	}
}

// sendDue sends a summary of every changed post whose last one is older
// than the interval; the others wait for the timer.
func (r *reportSender) sendDue(now time.Time) {
	r.mu.Lock()
	var due []uuid.UUID
	for id := range r.dirty {
		if s, ok := r.sent[id]; !ok || now.Sub(s.at) >= r.interval {
			due = append(due, id)
			delete(r.dirty, id)
		}
	}
	r.mu.Unlock()
	for _, id := range due {
		s, ok := r.a.summary(id)
		if !ok {
			continue
		}
		digest := summaryDigest(s)
		r.mu.Lock()
		prev, sentBefore := r.sent[id]
		r.mu.Unlock()
		if sentBefore && prev.digest == digest {
			continue
		}
		if err := r.a.net.AnnounceReport(s); err != nil {
			r.a.log.Warn("sending the reach of a must-read post to the admins failed", "id", id, "err", err)
			continue
		}
		r.mu.Lock()
		r.sent[id] = sentReport{at: intervalStart(s, now), digest: digest}
		r.mu.Unlock()
	}
}

// intervalStart is when the interval before a post's next summary starts,
// once s went out at now: at now, unless s knew nothing of the readers yet
// (only how many subscribe: the first reach reports were on their way),
// so that the first summary that knows of them follows at once, not an
// interval later.
func intervalStart(s network.ReachSummary, now time.Time) time.Time {
	if s.Delivered == 0 && s.Acknowledged == 0 && s.ReportedPending == 0 {
		return time.Time{}
	}
	return now
}

// summary is the reach of own must-read post id as admins receive it.
func (a *App) summary(id uuid.UUID) (network.ReachSummary, bool) {
	e, err := a.store.Get(id)
	if err != nil || !e.Item.MustRead || e.Item.Source != a.source || e.Retracted != nil {
		return network.ReachSummary{}, false
	}
	r, err := a.Reach(id)
	if err != nil || r.At.IsZero() {
		return network.ReachSummary{}, false
	}
	it := e.Item
	s := network.ReachSummary{Post: id, Title: it.Title, Category: it.Category, Author: it.Author, Published: it.PublishedAt(),
		Publisher: trust.PublicKeyString(a.identity.Public), At: r.At,
		Subscribers: r.Subscribers, Delivered: r.Delivered, Read: r.Read, Acknowledged: r.Acknowledged,
		ReportedAcknowledged: r.ReportedAcknowledged, ReportedPending: r.ReportedPending,
		UnverifiedAcknowledged: r.UnverifiedAcknowledged, UnverifiedPending: r.UnverifiedPending}
	for _, p := range r.Pending {
		s.Pending = append(s.Pending, network.SummaryReader{Name: p.Name, Key: p.Key})
	}
	for _, o := range r.Offline {
		s.Offline = append(s.Offline, network.SummaryReader{Name: o.Name, Key: o.Key, Time: o.LastSeen})
	}
	for _, c := range r.Confirmed {
		s.Confirmed = append(s.Confirmed, network.SummaryReader{Name: c.Name, Key: c.Key, Time: c.At})
	}
	return s, true
}

// summaryDigest is a digest of s without its report time.
func summaryDigest(s network.ReachSummary) [32]byte {
	s.At = time.Time{}
	b, _ := json.Marshal(s) // plain data: it marshals
	return sha256.Sum256(b)
}
