package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Retention: how long an installation keeps the items it received. A
// server-less network has no archive to go back to for years, so each
// desktop decides for itself; what it decides must be a choice someone
// made, not "forever" by omission.

// DesktopRetention is how long the desktop app keeps items unless the
// reader chooses otherwise (Settings.Retention). A year covers a full
// business cycle (last year's announcement of this year's event, the
// policy that came out last spring) while the store, and the search
// index the app holds in memory for it, stop growing after a year instead
// of growing for as long as the computer is used. What the reader wants
// longer they keep (Keep), and a must-read item stays until confirmed.
const DesktopRetention = 365 * 24 * time.Hour

// Bounds of Settings.Retention (0, forever, aside).
const (
	MinRetention = 24 * time.Hour
	MaxRetention = 100 * 365 * 24 * time.Hour
)

// keyRetentionChosen is set once the reader chose a retention of their
// own, which a default never overrides.
const keyRetentionChosen = "retention-chosen"

// applyDefaultRetention sets Options.DefaultRetention as the retention of
// a store whose reader never chose one and which keeps items forever (an
// archive's retention, say, stays).
func (a *App) applyDefaultRetention() error {
	d := a.opts.DefaultRetention
	if d <= 0 {
		return nil
	}
	chosen, _, err := a.store.Setting(keyRetentionChosen)
	if err != nil || chosen == "true" {
		return err
	}
	cur, err := a.store.Retention()
	if err != nil || cur != 0 {
		return err
	}
	a.log.Info("items are kept for the default retention", "days", int(d.Hours()/24))
	return a.store.SetRetention(d)
}

// CheckRetention validates Settings.Retention: 0 (forever), or
// MinRetention to MaxRetention.
func CheckRetention(d time.Duration) error {
	if d != 0 && (d < MinRetention || d > MaxRetention) {
		return fmt.Errorf("retention: %v, want 0 (forever) or %d to %d days", d, int(MinRetention.Hours()/24), int(MaxRetention.Hours()/24))
	}
	return nil
}

// saveRetention stores a retention the reader chose, and purges what it
// no longer keeps soon after (the monitor's goroutine).
func (a *App) saveRetention(d time.Duration) error {
	cur, err := a.store.Retention()
	if err != nil || cur == d {
		return err
	}
	if err := a.store.SetRetention(d); err != nil {
		return err
	}
	if err := a.store.SetSetting(keyRetentionChosen, "true"); err != nil {
		return err
	}
	select {
	case a.purgeNow <- struct{}{}:
	default: // one is asked for already
	}
	return nil
}

// Keep marks item id as kept by the reader, or lets it go again: a kept
// item is never deleted by retention. An item not stored (or of a system
// group) is ErrNotFound.
func (a *App) Keep(id uuid.UUID, keep bool) error {
	e, err := a.Item(id)
	if err != nil {
		return err
	}
	if e.Kept == keep {
		return nil
	}
	if err := a.store.SetKept(id, keep); err != nil {
		if errors.Is(err, ErrNotFound) {
			return err
		}
		return fmt.Errorf("keeping item %s: %w", id, err)
	}
	a.events.emit(Event{Kind: ReadStateChanged, Categories: []string{e.Item.Category}, Items: []uuid.UUID{id}})
	return nil
}
