package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// worker runs the UI's background work. Every call to it, and every
// function it runs on the UI thread, happens on the UI thread; only work
// itself runs elsewhere. Tests substitute a worker that runs everything in
// order on the test goroutine, so they need no sleeps.
type worker interface {
	// Go runs work off the UI thread (it may block on the disk or the
	// network); the function work returns, if not nil, then runs on the UI
	// thread to apply the result.
	Go(work func() func())
	// After runs f on the UI thread once d has passed.
	After(d time.Duration, f func())
}

// goWorker is the production worker: a goroutine per job, results through
// fyne.Do.
type goWorker struct{}

func (goWorker) Go(work func() func()) {
	go func() {
		if apply := work(); apply != nil {
			fyne.Do(apply)
		}
	}()
}

func (goWorker) After(d time.Duration, f func()) {
	time.AfterFunc(d, func() { fyne.Do(f) })
}

// debouncer runs the last of a burst of calls once the burst has been quiet
// for its delay. It is used from the UI thread only.
type debouncer struct {
	w     worker
	delay time.Duration
	gen   int
}

func (d *debouncer) call(f func()) {
	d.gen++
	gen := d.gen
	d.w.After(d.delay, func() {
		if gen == d.gen {
			f()
		}
	})
}

// cancel drops a pending call.
func (d *debouncer) cancel() { d.gen++ }

// refresher runs a background load at most once at a time: a trigger while
// one is running marks it dirty, and it runs once more when the first ends.
// Bursts of events so cost at most two loads. UI thread only.
type refresher struct {
	w           worker
	load        func() func() // runs in the background, returns the apply
	busy, dirty bool
}

func (r *refresher) trigger() {
	if r.busy {
		r.dirty = true
		return
	}
	r.busy = true
	r.w.Go(func() func() {
		apply := r.load()
		return func() {
			if apply != nil {
				apply()
			}
			r.busy = false
			if r.dirty {
				r.dirty = false
				r.trigger()
			}
		}
	})
}

// latest sends values to a background setter one at a time, dropping the
// ones overtaken by a newer value while a call was in flight (the
// subscription check boxes: only the last state matters). UI thread only.
type latest[T any] struct {
	w       worker
	set     func(T) error // runs in the background
	done    func(T, error)
	busy    bool
	pending *T
}

func (l *latest[T]) send(v T) {
	if l.busy {
		l.pending = &v
		return
	}
	l.busy = true
	l.w.Go(func() func() {
		err := l.set(v)
		return func() {
			l.busy = false
			if l.pending != nil {
				next := *l.pending
				l.pending = nil
				l.send(next)
				return // only the newest outcome is reported
			}
			if l.done != nil {
				l.done(v, err)
			}
		}
	})
}
