package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// Issue 26: the desktop keeps items for DesktopRetention unless the reader
// chose otherwise; a choice (forever included) survives restarts and new
// defaults, and an archive's retention is not replaced.
func TestDefaultRetention(t *testing.T) {
	dir := t.TempDir()
	open := func(opts Options) *App {
		t.Helper()
		opts.DataDir, opts.Network = dir, testNetwork(t)
		a, err := Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := open(Options{DefaultRetention: DesktopRetention})
	if got := a.Settings().Retention; got != DesktopRetention {
		t.Errorf("a new desktop keeps items %v, want %v", got, DesktopRetention)
	}
	s := a.Settings()
	s.Retention = 0 // forever, chosen
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	a.Close()
	a = open(Options{DefaultRetention: DesktopRetention})
	if got := a.Settings().Retention; got != 0 {
		t.Errorf("the reader's choice of forever became %v after a restart", got)
	}
	for _, bad := range []time.Duration{time.Hour, -time.Hour, 200 * 365 * 24 * time.Hour} {
		s.Retention = bad
		if err := a.SaveSettings(s); err == nil {
			t.Errorf("retention %v accepted", bad)
		}
	}
	a.Close()

	arch := openApp(t, Options{Archive: true, DefaultRetention: DesktopRetention})
	if got := arch.Settings().Retention; got != ArchiveRetention {
		t.Errorf("an archive keeps items %v, want %v", got, ArchiveRetention)
	}
}

// Issue 26: a shorter retention chosen in the settings purges what it no
// longer keeps at once, but never an item the reader keeps or a must-read
// item not yet confirmed.
func TestRetentionPurgesButKeeps(t *testing.T) {
	a := openApp(t, Options{DefaultRetention: DesktopRetention})
	src := uuid.New()
	put := func(n uint64, title string, age time.Duration, mustRead bool) uuid.UUID {
		t.Helper()
		at := time.Now().Add(-age)
		it, err := news.NewItem("it", title, "body", "Author", src, at)
		if err != nil {
			t.Fatal(err)
		}
		it.SourceCount, it.Received, it.MustRead = n, at, mustRead
		if err := a.store.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		return it.ID
	}
	const day = 24 * time.Hour
	old := put(1, "Old news", 60*day, false)
	kept := put(2, "Old news worth keeping", 60*day, false)
	pending := put(3, "Old policy to confirm", 60*day, true)
	recent := put(4, "Recent news", 2*day, false)
	if err := a.Keep(kept, true); err != nil {
		t.Fatal(err)
	}
	s := a.Settings()
	s.Retention = 30 * day
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the old item purged", func() error {
		if _, err := a.Item(old); err == nil {
			return fmt.Errorf("%s still stored", old)
		}
		return nil
	})
	for _, id := range []uuid.UUID{kept, pending, recent} {
		if _, err := a.Item(id); err != nil {
			t.Errorf("item %s purged: %v", id, err)
		}
	}
}
