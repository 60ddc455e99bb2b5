package app

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
)

// Scheduled publication (news.Item.At). A draft with a publication time
// in the future is not published: it waits in the store's scheduled list
// (storage/scheduled.go), kept across restarts, unnumbered, unsigned and
// unsent, so no other servant knows of it; here it shows only in
// Scheduled (My posts). The scheduler hands each item, once its time has
// come and in the order they are due, to the publishing pipeline
// (PublishItem), which numbers, signs, stores and sends it as any
// publication, with At still the scheduled time. A publisher that was not
// running at that time sends the item when it next starts, and says so:
// a log line, and SentLate in what My posts shows.

const (
	// ScheduleTolerance is how near now a publication time counts as now:
	// a draft whose At is at most this far from the clock is published at
	// once, without At (a script that asks for "now" has a slightly old
	// clock reading by the time it arrives); one further in the past is
	// refused (news.RulePast).
	ScheduleTolerance = 5 * time.Second

	// SentLateAfter is how long after its time a scheduled item may go out
	// and still count as sent on time; later it is marked sent late. It is
	// well above scheduleCheckEvery, so only an app that was not running
	// (or whose computer slept) at the time marks an item late.
	SentLateAfter = time.Minute

	// scheduleCheckEvery is the longest the scheduler sleeps: it wakes at
	// the next item's time, but looks again at least this often so that a
	// computer that slept through that time, or a publication that failed
	// (the servant busy, the key no longer a publisher's), is retried.
	scheduleCheckEvery = 10 * time.Second

	// MaxScheduled bounds the scheduled list: it is read whole on every
	// check.
	MaxScheduled = 1000
)

// ErrTooManyScheduled: the scheduled list holds MaxScheduled items;
// nothing more is scheduled until some go out or are cancelled.
var ErrTooManyScheduled = fmt.Errorf("schedule: %d publications wait already; cancel some or publish now", MaxScheduled)

// Scheduled is an Outcome: the item waits in the scheduled list until its
// publication time (Draft.At).
const Scheduled Outcome = Suppressed + 1

// ScheduledPost is a publication waiting for its time, as My posts shows
// it.
type ScheduledPost struct {
	Item *news.Item // Item.At is when it goes out; not numbered or signed yet
	// Problem says why it did not go out at its time ("" while it waits
	// for its time): it is retried every few seconds until it goes out or
	// is cancelled.
	Problem string
	// Err is that problem as the error it was (nil while it waits), for
	// the interface to say in the reader's language; Problem is its
	// English text, for the command line and the API.
	Err error
}

// SentLate reports whether it, one of this installation's publications as
// My posts lists it, was scheduled and went out more than SentLateAfter
// after its time: the app was not running then, and sent it when it next
// started.
func SentLate(it *news.Item) bool {
	return !it.At.IsZero() && !it.Received.IsZero() && it.Received.Sub(it.At) > SentLateAfter
}

// checkAt checks a new item's publication time against the clock: one in
// the past beyond ScheduleTolerance is refused (news.RulePast), one within
// it is dropped (the item is published now).
func checkAt(it *news.Item, now time.Time) error {
	switch {
	case it.At.IsZero():
	case it.At.Before(now.Add(-ScheduleTolerance)):
		return &news.FieldError{Field: news.FieldAt, Rule: news.RulePast}
	case !it.At.After(now.Add(ScheduleTolerance)):
		it.At = time.Time{}
	}
	return nil
}

// ScheduleItem puts a valid item this installation built itself, with a
// publication time (At) after now, on the scheduled list, where it waits
// for its time (the control API's /v1/publish with "at"; Publish for a
// draft with At). It gets a new ID made from At: lists order items by
// their IDs' times, and an item scheduled for Monday belongs among
// Monday's news. The outcome is Scheduled.
func (a *App) ScheduleItem(it *news.Item) (PublishResult, error) {
	if !it.At.After(a.now()) {
		return PublishResult{}, &news.FieldError{Field: news.FieldAt, Rule: news.RulePast}
	}
	id, err := news.NewID(it.At)
	if err != nil {
		return PublishResult{}, err
	}
	it.ID = id
	if err := it.Validate(); err != nil {
		return PublishResult{}, err
	}
	if _, err := a.checkItemCap(it); err != nil {
		return PublishResult{}, err
	}
	if err := a.sched.add(it); err != nil {
		return PublishResult{}, err
	}
	a.log.Info("publication scheduled", "id", it.ID, "category", it.Category, "at", it.At)
	a.events.emit(Event{Kind: ItemsChanged})
	return PublishResult{ID: it.ID, Outcome: Scheduled}, nil
}

// Scheduled returns this installation's publications that wait for their
// time, the first due first.
func (a *App) Scheduled() ([]ScheduledPost, error) {
	items, err := a.store.Scheduled()
	if err != nil {
		return nil, err
	}
	problems := a.sched.problems()
	out := make([]ScheduledPost, len(items))
	for i, it := range items {
		out[i] = ScheduledPost{Item: it}
		if err := problems[it.ID]; err != nil {
			out[i].Problem, out[i].Err = err.Error(), err
		}
	}
	return out, nil
}

// WaitScheduledAtStart returns once the scheduler's first pass after Open
// is over: what came due while the app was not running has gone out, or
// failed to and waits in Scheduled for its retry. For a caller that reads
// My posts or the schedule next: the UI's tests.
func (a *App) WaitScheduledAtStart() { <-a.sched.startPassDone }

// CancelScheduled takes a scheduled publication off the list: it is never
// sent, and nobody else ever knew of it. ErrNotFound when it is not
// waiting (it went out meanwhile: retract it instead, or it was cancelled
// already).
func (a *App) CancelScheduled(id uuid.UUID) error {
	if err := a.sched.cancel(id); err != nil {
		return err
	}
	a.log.Info("scheduled publication cancelled", "id", id)
	a.events.emit(Event{Kind: ItemsChanged})
	return nil
}

// scheduler sends scheduled items when they are due (run).
type scheduler struct {
	a    *App
	wake chan struct{} // (1) the list changed: look at the next time again
	// startPassDone is closed once the first pass after Open (what came
	// due while the app was not running) is over (WaitScheduledAtStart).
	startPassDone chan struct{}

	// mu serialises a pass over the due items with adding and cancelling,
	// so an item is either sent or cancelled, never both.
	mu sync.Mutex
	// failed holds why due items did not go out, until they do or are
	// cancelled.
	failed map[uuid.UUID]error
}

func newScheduler(a *App) *scheduler {
	return &scheduler{a: a, wake: make(chan struct{}, 1), startPassDone: make(chan struct{}), failed: map[uuid.UUID]error{}}
}

func (s *scheduler) add(it *news.Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.a.store.Scheduled()
	if err != nil {
		return err
	}
	if len(list) >= MaxScheduled {
		return ErrTooManyScheduled
	}
	if err := s.a.store.ScheduledPush(it); err != nil {
		return err
	}
	wake(s.wake)
	return nil
}

func (s *scheduler) cancel(id uuid.UUID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.a.store.ScheduledRemove(id); err != nil {
		return err
	}
	delete(s.failed, id)
	wake(s.wake)
	return nil
}

func (s *scheduler) problems() map[uuid.UUID]error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.failed)
}

// run sends what is due now (what came due while the app was not running
// goes out at once), then sleeps until the next item's time, at most
// scheduleCheckEvery, until Close.
func (s *scheduler) run() {
	defer s.a.bg.Done()
	s.sendDue(true)
	close(s.startPassDone)
	for {
		t := time.NewTimer(s.nextWait())
		select {
		case <-s.a.stop:
			t.Stop()
			return
		case <-s.wake:
			t.Stop()
		case <-t.C:
		}
		s.sendDue(false)
	}
}

// nextWait is how long to sleep: until the first item's time, but never
// longer than scheduleCheckEvery. An item due already failed in the pass
// just made and is retried scheduleCheckEvery later.
func (s *scheduler) nextWait() time.Duration {
	list, err := s.a.store.Scheduled()
	if err != nil || len(list) == 0 {
		return scheduleCheckEvery
	}
	d := list[0].At.Sub(s.a.now())
	if d <= 0 || d > scheduleCheckEvery {
		return scheduleCheckEvery
	}
	return d
}

// sendDue sends every item whose time has come, in the order they are due.
// atStart: the app has just started, and what is due went out late
// because the app was not running.
func (s *scheduler) sendDue(atStart bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.a.store.Scheduled()
	if err != nil {
		if !errors.Is(err, storage.ErrClosed) {
			s.a.log.Warn("reading the scheduled publications failed", "err", err)
		}
		return
	}
	now := s.a.now()
	for _, it := range list {
		if it.At.After(now) {
			return
		}
		select {
		case <-s.a.stop: // closing: the rest go out at the next start
			return
		default:
		}
		if err := s.send(it, now, atStart); err != nil {
			if s.failed[it.ID] == nil {
				s.a.log.Warn("a scheduled publication could not go out; it is retried", "id", it.ID, "at", it.At, "err", err)
			}
			s.failed[it.ID] = err
		}
	}
}

// send publishes one due item and takes it off the list. An item stored
// already went out before a crash took the app down between publishing it
// and taking it off: it is only taken off.
func (s *scheduler) send(it *news.Item, now time.Time, atStart bool) error {
	a := s.a
	sent, err := a.store.Has(it.ID)
	if err != nil {
		return err
	}
	if !sent {
		if err := a.MayPublish(it.Category); err != nil {
			return &NotAllowedError{Category: it.Category, Err: err}
		}
		if _, err := a.PublishItem(it.Clone()); err != nil {
			return err
		}
		late := now.Sub(it.At)
		switch {
		case late > SentLateAfter && atStart:
			a.log.Warn("scheduled publication sent late at start: the app was not running at its time",
				"id", it.ID, "at", it.At, "late", late.Round(time.Second))
		case late > SentLateAfter:
			a.log.Warn("scheduled publication sent late", "id", it.ID, "at", it.At, "late", late.Round(time.Second))
		default:
			a.log.Info("scheduled publication sent", "id", it.ID, "at", it.At)
		}
		if it.ExpiredAt(now, 0) {
			a.log.Warn("scheduled publication sent after its expiry: it is hidden everywhere", "id", it.ID, "expires", it.Expires)
		}
	}
	delete(s.failed, it.ID)
	return a.store.ScheduledRemove(it.ID)
}
