package app

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage/storagetest"
	"newsdesk/trust"
)

// limitedNetwork is an open-publishing network with the default
// publishing limits (the test network lifts them).
func limitedNetwork(t *testing.T) *trust.SignedNetwork {
	t.Helper()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Limited", admin, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// relayOf is a Keeper as a relay's, holding sn, with its clock at *now.
func relayOf(t *testing.T, sn *trust.SignedNetwork, now *time.Time) *network.Keeper {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	k, err := network.New(network.Config{Store: storagetest.MustOpen(t), Identity: id, Log: slog.New(slog.DiscardHandler),
		Host: nopHost{}, Import: sn, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type nopHost struct{}

func (nopHost) Announce(string, string, string) (string, error) { return "", nil }
func (nopHost) ApplyCatalog(*trust.SignedNetwork) error         { return nil }
func (nopHost) StoreSeeds([]string) error                       { return nil }
func (nopHost) Adopted(_, _ *trust.SignedNetwork)               {}
func (nopHost) Reauthenticate()                                 {}
func (nopHost) Retracted(string, uuid.UUID)                     {}

// An honest publisher whose every item passed the entry check is never
// refused at a relay: neither by one that sees each item as it is
// published, nor by one that gets three days of them at once in any order
// and twice over (a catch-up after being away, repairs, other paths).
// The publisher publishes as fast as the entry check lets it, at random:
// single items, bursts, items of every size, and a batch of scheduled items
// all due at one time and sent late at a start. Reference: issue 32, "a
// relay's rate window cannot reject an honest publisher's burst that was
// accepted at entry".
func TestEntryAcceptedNeverRefusedAtRelay(t *testing.T) {
	sn := limitedNetwork(t)
	a := openApp(t, Options{Network: sn})
	rng := rand.New(rand.NewPCG(32, 1))
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	start := now
	live := relayOf(t, sn, &now)
	var accepted []*newsnet.Multicast
	var count uint64
	refusedAtEntry := 0
	publish := func(at time.Time, size int) {
		t.Helper()
		created := now
		if !at.IsZero() {
			created = at.Add(-24 * time.Hour) // written a day before
		}
		it, err := news.NewItem("general", "Item", strings.Repeat("x", size), "Desk", a.source, created)
		if err != nil {
			t.Fatal(err)
		}
		it.At = at
		err = a.checkLimits(it, now)
		var le *LimitError
		switch {
		case errors.As(err, &le):
			refusedAtEntry++
			return
		case err != nil:
			t.Fatal(err)
		}
		count++
		it.SourceCount = count
		if err := trust.SignItem(a.identity, it); err != nil {
			t.Fatal(err)
		}
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		if r := live.Verify(m); r != "" {
			t.Fatalf("item %d (published %s, %d bytes) accepted at entry, refused by a live relay: %s", count, it.PublishedAt().Format(time.TimeOnly), len(m.Payload), r)
		}
		accepted = append(accepted, m)
	}
	// Scheduled for 09:00 on the second day, 150 items, sent late at a
	// start at 09:40 and retried as the entry check allows.
	due := start.Add(25 * time.Hour)
	scheduled := 150
	days := 3
	if testing.Short() {
		days = 2
	}
	for now.Before(start.Add(time.Duration(days) * 24 * time.Hour)) {
		switch r := rng.Float64(); {
		case r < 0.05: // a burst
			for range 1 + rng.IntN(80) {
				publish(time.Time{}, 200+rng.IntN(3000))
			}
		case r < 0.10:
			publish(time.Time{}, 20_000+rng.IntN(news.MaxBodyBytes-21_000))
		default:
			publish(time.Time{}, 200+rng.IntN(5000))
		}
		if scheduled > 0 && now.After(due.Add(40*time.Minute)) {
			for scheduled > 0 {
				before := refusedAtEntry
				publish(due, 500)
				if refusedAtEntry > before {
					break
				}
				scheduled--
			}
		}
		now = now.Add(time.Duration(rng.ExpFloat64() * float64(20*time.Second)))
	}
	if refusedAtEntry == 0 || len(accepted) < days*24*trust.DefaultItemsPerHour*9/10 {
		t.Fatalf("%d accepted, %d refused at entry: the publisher did not press the limits", len(accepted), refusedAtEntry)
	}
	// A relay away for the three days gets all of it at once, shuffled,
	// twice.
	away := relayOf(t, sn, &now)
	for round := range 2 {
		rng.Shuffle(len(accepted), func(i, j int) { accepted[i], accepted[j] = accepted[j], accepted[i] })
		for _, m := range accepted {
			if r := away.Verify(m); r != "" {
				t.Fatalf("round %d: item %d accepted at entry, refused in a catch-up: %s", round, m.Count, r)
			}
		}
	}
	if scheduled > 0 {
		t.Logf("%d of the scheduled items still wait: their hour is full", scheduled)
	}
	t.Logf("%d items accepted at entry over %d days, %d refusals at entry", len(accepted), days, refusedAtEntry)
}

// The entry check survives a restart: the app reads its own recent items
// back, so stopping and starting does not refill the burst.
func TestEntryLimitAcrossRestart(t *testing.T) {
	sn := limitedNetwork(t)
	dir := t.TempDir()
	a := openApp(t, Options{Network: sn, DataDir: dir})
	r := sn.Limits.Rate()
	for i := range r.BurstItems {
		if _, err := a.Publish(Draft{Category: "general", Title: "Item", Body: "body"}); err != nil {
			t.Fatalf("item %d of the burst: %v", i, err)
		}
	}
	_, err := a.Publish(Draft{Category: "general", Title: "One too many", Body: "body"})
	var le *LimitError
	if !errors.As(err, &le) || le.Reason != trust.RateLimited || le.RetryAfter <= 0 || !errors.Is(err, trust.RateLimited) {
		t.Fatalf("beyond the burst: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), Options{Network: sn, DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Publish(Draft{Category: "general", Title: "After the restart", Body: "body"}); !errors.As(err, &le) {
		t.Fatalf("after a restart: %v, want the limit still reached", err)
	}
}
