package network

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage/storagetest"
	"newsdesk/trust"
)

// limitNet is a relay's Keeper on a network with one publisher, whose
// items the tests build and sign as a modified servant would: no entry
// check on the way.
type limitNet struct {
	k      *Keeper
	pub    *trust.Identity
	source uuid.UUID
	count  uint64
	now    time.Time
}

func newLimitNet(t *testing.T, limits trust.PublishLimits) *limitNet {
	t.Helper()
	admin, pub := newIdentity(t), newIdentity(t)
	sn, err := trust.NewNetwork("Limits", admin, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n := sn.Network.Clone()
	n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newsroom", Key: pub.Public})
	n.Limits = limits
	if sn, err = admin.SignNetwork(n); err != nil {
		t.Fatal(err)
	}
	src, err := trust.NewSource(pub.Public)
	if err != nil {
		t.Fatal(err)
	}
	ln := &limitNet{pub: pub, source: src, now: time.Date(2026, 12, 4, 12, 30, 0, 0, time.UTC)}
	k, err := New(Config{Store: storagetest.MustOpen(t), Identity: newIdentity(t), Log: slog.New(slog.DiscardHandler),
		Host: &quietHost{}, Import: sn, Now: func() time.Time { return ln.now }})
	if err != nil {
		t.Fatal(err)
	}
	ln.k = k
	return ln
}

// item is the publisher's next item, published at, with a body of size
// bytes, as the multicast message that carries it.
func (ln *limitNet) item(t *testing.T, at time.Time, size int) *newsnet.Multicast {
	t.Helper()
	return ln.multicast(t, "news", "Item", strings.Repeat("x", size), at)
}

// multicast is the publisher's next item of category, signed, as the
// multicast message that carries it.
func (ln *limitNet) multicast(t *testing.T, category, title, body string, at time.Time) *newsnet.Multicast {
	t.Helper()
	ln.count++
	it, err := news.NewItem(category, title, body, "", ln.source, at)
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = ln.count
	if err := trust.SignItem(ln.pub, it); err != nil {
		t.Fatal(err)
	}
	payload, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return &newsnet.Multicast{ID: it.ID, Category: it.Category, Source: it.Source.String(), Count: it.SourceCount, Payload: payload}
}

// A relay refuses a flood from a publisher key that skipped the entry
// check: beyond twice the hour's ceiling of the key's items are
// rateLimited, counted for the source, and refused again when they come
// again. Issue 32: 17,472 items in 20 s were all accepted.
func TestRelayRefusesFlood(t *testing.T) {
	ln := newLimitNet(t, trust.PublishLimits{})
	ceil, _ := trust.PublishLimits{}.Rate().HourCeiling()
	allowed := trust.RelayTolerance * ceil
	var refused []*newsnet.Multicast
	for i := range 1000 {
		m := ln.item(t, ln.now.Add(time.Duration(i)*time.Millisecond), 1000)
		switch r := ln.k.Verify(m); {
		case i < allowed && r != "":
			t.Fatalf("item %d refused within the limit: %s", i, r)
		case i >= allowed && r != string(trust.RateLimited):
			t.Fatalf("item %d of a flood: %q, want rateLimited", i, r)
		case r != "":
			refused = append(refused, m)
		}
	}
	if r := ln.k.Verify(refused[0]); r != string(trust.RateLimited) {
		t.Errorf("a refused item again: %q", r)
	}
	got := ln.k.RateLimited()
	if len(got) != 1 || got[0].Source != ln.source || got[0].Items != uint64(len(refused)+1) || got[0].Publisher != "Newsroom" {
		t.Fatalf("per-source counts %+v, want %d items of %s", got, len(refused)+1, ln.source)
	}
	// The counts survive a restart.
	if err := ln.k.SaveRateLimited(); err != nil {
		t.Fatal(err)
	}
	k2 := &Keeper{store: ln.k.store, log: ln.k.log}
	if err := k2.loadRateLimited(); err != nil {
		t.Fatal(err)
	}
	if got := k2.RateLimited(); len(got) != 1 || got[0].Items != uint64(len(refused)+1) {
		t.Fatalf("after a restart: %+v", got)
	}

	// Dating the flood ahead gains nothing: counted in the current hour.
	if r := ln.k.Verify(ln.item(t, ln.now.Add(48*time.Hour), 1000)); r != string(trust.RateLimited) {
		t.Errorf("an item dated two days ahead: %q", r)
	}
	// An item dated ahead and counted now is not counted again in its own
	// hour when it comes again then.
	ahead := newLimitNet(t, trust.PublishLimits{})
	ahead.pub, ahead.source, ahead.now = ln.pub, ln.source, ln.now
	ahead.k = rekey(t, ln, ahead)
	var early []*newsnet.Multicast
	for i := range allowed {
		m := ln.item(t, ln.now.Add(2*time.Hour+time.Duration(i)*time.Second), 1000)
		if r := ahead.k.Verify(m); r != "" {
			t.Fatalf("item %d dated ahead: %q", i, r)
		}
		early = append(early, m)
	}
	ahead.now = ahead.now.Add(2 * time.Hour)
	for _, m := range early {
		if r := ahead.k.Verify(m); r != "" {
			t.Fatalf("item %d again in its own hour: %q", m.Count, r)
		}
	}
	// Dating it back beyond the hours kept: one bucket for all of them,
	// a day of ceilings, then refused.
	old := ln.now.Add(-400 * 24 * time.Hour)
	accepted := 0
	for i := range 24*ceil + 100 {
		if ln.k.Verify(ln.item(t, old.Add(time.Duration(i)*time.Minute), 100)) == "" {
			accepted++
		}
	}
	if accepted != 24*ceil {
		t.Errorf("old-dated flood: %d accepted, want %d", accepted, 24*ceil)
	}
	// Bytes count too: a few items of the largest size fill an hour.
	ln.now = ln.now.Add(3 * time.Hour)
	_, ceilBytes := trust.PublishLimits{}.Rate().HourCeiling()
	big := 0
	for ln.k.Verify(ln.item(t, ln.now, news.MaxBodyBytes-1000)) == "" {
		big++
	}
	if max := int(trust.RelayTolerance * ceilBytes / (news.MaxBodyBytes - 1000)); big > max || big < max-1 {
		t.Errorf("%d large items passed, want about %d", big, max)
	}
}

// A category's byte cap is enforced at relays.
func TestRelayRefusesOversizeItem(t *testing.T) {
	ln := newLimitNet(t, trust.PublishLimits{CategoryItemBytes: map[string]int{"news": 2048}})
	if r := ln.k.Verify(ln.item(t, ln.now, 1000)); r != "" {
		t.Fatalf("small item: %q", r)
	}
	if r := ln.k.Verify(ln.item(t, ln.now, 4000)); r != string(trust.TooLarge) {
		t.Fatalf("item beyond the cap: %q", r)
	}
}

// An honest publisher's burst that the entry check let through is never
// refused at a relay, whatever the path: live, again as duplicates, and
// as a catch-up after a day away (items of many hours at once, in any
// order); nor is a month of a busy newsroom caught up after a month away.
func TestRelayAcceptsHonestBurstAndCatchUp(t *testing.T) {
	ln := newLimitNet(t, trust.PublishLimits{})
	r := trust.PublishLimits{}.Rate()
	start := ln.now
	// A day at the entry limit: a full burst, then one item every
	// 3600/ItemsPerHour seconds, for 24 hours (more than any newsroom).
	var day []*newsnet.Multicast
	at := start.Add(-24 * time.Hour)
	for range r.BurstItems {
		day = append(day, ln.item(t, at, 2000))
	}
	step := time.Hour / time.Duration(r.ItemsPerHour)
	for at = at.Add(step); at.Before(start); at = at.Add(step) {
		day = append(day, ln.item(t, at, 2000))
	}
	// Live at a relay: each item as it is published.
	for _, m := range day {
		if reason := ln.k.Verify(m); reason != "" {
			t.Fatalf("live item %d: %s", m.Count, reason)
		}
	}
	// The same items again (repair, another path).
	for _, m := range day {
		if reason := ln.k.Verify(m); reason != "" {
			t.Fatalf("duplicate %d: %s", m.Count, reason)
		}
	}
	// Another relay, away for the day, catches all of it up at once,
	// newest first.
	away := newLimitNet(t, trust.PublishLimits{})
	away.pub, away.source, away.now = ln.pub, ln.source, start
	away.k = rekey(t, ln, away)
	for i := len(day) - 1; i >= 0; i-- {
		if reason := away.k.Verify(day[i]); reason != "" {
			t.Fatalf("catch-up item %d: %s", day[i].Count, reason)
		}
	}
	// A month of a busy newsroom (300 items a day, one every two minutes
	// over ten hours) caught up at once.
	fresh := newLimitNet(t, trust.PublishLimits{})
	fresh.now = start
	fresh.k = rekey(t, ln, fresh)
	for d := 30; d > 0; d-- {
		for i := range 300 {
			m := ln.item(t, start.Add(-time.Duration(d)*24*time.Hour+time.Duration(i)*2*time.Minute), 2000)
			if reason := fresh.k.Verify(m); reason != "" {
				t.Fatalf("catch-up of a month, day -%d item %d: %s", d, i, reason)
			}
		}
	}
}

// rekey returns a fresh Keeper for to's store holding ln's definition.
func rekey(t *testing.T, ln, to *limitNet) *Keeper {
	t.Helper()
	k, err := New(Config{Store: storagetest.MustOpen(t), Identity: newIdentity(t), Log: slog.New(slog.DiscardHandler),
		Host: &quietHost{}, Import: ln.k.Definition(), Now: func() time.Time { return to.now }})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The book's memory is bounded over all keys: beyond maxBookItems the
// least recently seen key is forgotten (which only makes it more
// lenient), never the key being counted.
func TestRateBookBounded(t *testing.T) {
	defer func(n int) { maxBookItems = n }(maxBookItems)
	maxBookItems = 100
	var b rateBook
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	r := trust.PublishLimits{}.Rate()
	keys := make([][]byte, 3)
	for i := range keys {
		keys[i] = make([]byte, 32)
		keys[i][0] = byte(i + 1)
	}
	for i := range 60 {
		for _, k := range keys[:2] {
			if !b.admit(k, uuid.New(), now.Add(-time.Duration(i)*time.Hour), 100, r, now) {
				t.Fatalf("item %d refused", i)
			}
		}
	}
	if b.items > maxBookItems || len(b.keys) > 2 {
		t.Fatalf("%d items remembered for %d keys, bound %d", b.items, len(b.keys), maxBookItems)
	}
	for i := range 50 {
		b.admit(keys[2], uuid.New(), now.Add(-time.Duration(i)*time.Hour), 100, r, now)
	}
	if b.items > maxBookItems || b.keys[string(keys[2])] == nil {
		t.Fatalf("%d items remembered; the key being counted kept: %v", b.items, b.keys[string(keys[2])] != nil)
	}
	total := 0
	for _, kb := range b.keys {
		total += len(kb.seen) + len(kb.oldIDs)
	}
	if total != b.items {
		t.Errorf("book says %d items, keys hold %d", b.items, total)
	}
}

// report is the publisher's next reach summary, published at, as the
// multicast message that carries it.
func (ln *limitNet) report(t *testing.T, at time.Time) *newsnet.Multicast {
	t.Helper()
	body, err := MarshalSummary(ReachSummary{Post: uuid.New(), Title: "Policy", Category: "news", Publisher: trust.PublicKeyString(ln.pub.Public)})
	if err != nil {
		t.Fatal(err)
	}
	return ln.multicast(t, ReportsCategory, "Reach", body, at)
}

// Reach summaries have a budget of their own at relays: a publisher that
// used up its items still reports, its reports leave its items' budget
// alone, and a flood of reports is refused beyond their own ceiling.
func TestRelayReportBudget(t *testing.T) {
	ln := newLimitNet(t, trust.PublishLimits{})
	ceil, _ := trust.PublishLimits{}.Rate().HourCeiling()
	for i := range trust.RelayTolerance * ceil {
		if r := ln.k.Verify(ln.item(t, ln.now.Add(time.Duration(i)*time.Millisecond), 100)); r != "" {
			t.Fatalf("item %d: %s", i, r)
		}
	}
	if r := ln.k.Verify(ln.item(t, ln.now, 100)); r != string(trust.RateLimited) {
		t.Fatalf("an item beyond the limit: %q", r)
	}
	reportCeil, _ := reportRate.HourCeiling()
	for i := range trust.RelayTolerance * reportCeil {
		if r := ln.k.Verify(ln.report(t, ln.now.Add(time.Duration(i)*time.Millisecond))); r != "" {
			t.Fatalf("report %d of a publisher at its item limit: %q", i, r)
		}
	}
	if r := ln.k.Verify(ln.report(t, ln.now)); r != string(trust.RateLimited) {
		t.Errorf("a report beyond the reports' own limit: %q", r)
	}
}
