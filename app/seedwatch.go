package app

import (
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// The seed watch (issue 30): an admin's servant remembers when each seed
// was last in the network, as the census names the seeds online, so that
// Admin → Seeds can say which seed has been away for a day. It survives
// restarts (a setting), and is written at most every seedWatchWrite unless
// a seed was seen for the first time.

const (
	keySeedsSeen = "seeds-seen"
	// SeedAwayAfter is how long a listed seed may be out of the network
	// before the admin is told.
	SeedAwayAfter  = 24 * time.Hour
	seedWatchWrite = 10 * time.Minute
)

// SeedAway is a listed seed that has not been in the network for at least
// SeedAwayAfter: LastSeen is when it last was, zero when it never was
// since Watched.
type SeedAway struct {
	Seed     string
	LastSeen time.Time
	Watched  time.Time
}

// seedWatch is the record, loaded on first use.
type seedWatch struct {
	mu      sync.Mutex
	loaded  bool
	Since   time.Time            `json:"since"`
	Seen    map[string]time.Time `json:"seen"`
	written time.Time
}

// watchSeeds notes the seeds online at now and returns the listed seeds
// away for SeedAwayAfter or longer.
func (a *App) watchSeeds(listed, online []string, now time.Time) []SeedAway {
	w := &a.seedWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.loaded {
		w.loaded = true
		if v, ok, err := a.store.Setting(keySeedsSeen); err == nil && ok {
			_ = json.Unmarshal([]byte(v), w) // a damaged record starts afresh
		}
		if w.Since.IsZero() {
			w.Since = now
		}
		if w.Seen == nil {
			w.Seen = map[string]time.Time{}
		}
	}
	first := false
	for _, s := range online {
		if _, ok := w.Seen[s]; !ok {
			first = true
		}
		w.Seen[s] = now
	}
	for s := range w.Seen {
		if !slices.Contains(listed, s) {
			delete(w.Seen, s) // no longer a seed
		}
	}
	if first || now.Sub(w.written) >= seedWatchWrite {
		if b, err := json.Marshal(w); err == nil {
			if err := a.store.SetSetting(keySeedsSeen, string(b)); err != nil {
				a.log.Warn("storing when the seeds were last seen failed", "err", err)
			} else {
				w.written = now
			}
		}
	}
	var away []SeedAway
	for _, s := range listed {
		last := w.Seen[s]
		since := last
		if since.IsZero() {
			since = w.Since
		}
		if now.Sub(since) >= SeedAwayAfter {
			away = append(away, SeedAway{Seed: s, LastSeen: last, Watched: w.Since})
		}
	}
	return away
}
