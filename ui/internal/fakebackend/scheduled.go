package fakebackend

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// Scheduled publications, as the application keeps them (app/schedule.go):
// a draft with At waits, seen by nobody, until its time. The fake
// has no scheduler of its own: what is due goes out when the backend is
// next asked for Scheduled or MyPosts, by its clock.

// schedule puts a checked item on the scheduled list, with an ID of its
// publication time as the application gives it.
func (m *Backend) schedule(it *news.Item) (app.PublishResult, error) {
	id, err := news.NewID(it.At)
	if err != nil {
		return app.PublishResult{}, err
	}
	it.ID = id
	m.mu.Lock()
	if len(m.scheduled) >= app.MaxScheduled {
		m.mu.Unlock()
		return app.PublishResult{}, app.ErrTooManyScheduled
	}
	i, _ := slices.BinarySearchFunc(m.scheduled, it, func(x, y *news.Item) int { return x.At.Compare(y.At) })
	m.scheduled = slices.Insert(m.scheduled, i, it)
	m.emitLocked(app.Event{Kind: app.ItemsChanged})
	m.mu.Unlock()
	return app.PublishResult{ID: it.ID, Outcome: app.Scheduled}, nil
}

// Scheduled lists the publications waiting for their time, the first due
// first, after sending those whose time has come.
func (m *Backend) Scheduled() ([]app.ScheduledPost, error) {
	m.sendDue()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]app.ScheduledPost, len(m.scheduled))
	for i, it := range m.scheduled {
		out[i] = app.ScheduledPost{Item: it.Clone()}
	}
	return out, nil
}

// CancelScheduled takes a publication off the scheduled list;
// app.ErrNotFound when it is not on it.
func (m *Backend) CancelScheduled(id uuid.UUID) error {
	m.sendDue()
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.scheduled, func(it *news.Item) bool { return it.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: scheduled item %s", app.ErrNotFound, id)
	}
	m.scheduled = slices.Delete(m.scheduled, i, i+1)
	m.emitLocked(app.Event{Kind: app.ItemsChanged})
	return nil
}

// sendDue publishes the scheduled items whose time has come, in order.
func (m *Backend) sendDue() {
	now := m.now()
	m.mu.Lock()
	n := 0
	for n < len(m.scheduled) && !m.scheduled[n].At.After(now) {
		n++
	}
	due := slices.Clone(m.scheduled[:n])
	m.scheduled = slices.Delete(m.scheduled, 0, n)
	m.mu.Unlock()
	for _, it := range due {
		it.Received = now
		m.publish(it)
	}
}
