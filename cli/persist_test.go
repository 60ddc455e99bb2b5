package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/newsnet"
	"newsdesk/storage"
)

// Tests of `newsdesk serve` on its store: what survives a restart, what
// waits in the outbox, and what an archive seed hands to a servant that
// was away (issue 4).

// fastReconnect caps the connector's backoff for the servants a test
// starts, so a servant whose seed comes up late finds it within a second.
func fastReconnect(t *testing.T) {
	tuneServe(t, func(c *newsnet.Config) { c.BackoffMax = time.Second })
}

// tuneServe sets serveTune for the servants a test starts, and puts the
// old one back when the test ends.
func tuneServe(t *testing.T, tune func(*newsnet.Config)) {
	old := serveTune
	serveTune = tune
	t.Cleanup(func() { serveTune = old })
}

// storedCounts opens a stopped servant's store read-only and returns the
// counts of the stored items of source, in count order.
func storedCounts(t *testing.T, data string, source string) []uint64 {
	t.Helper()
	st, err := storage.Open(data, storage.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.ItemsAfter(uuid.MustParse(source), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, it := range items {
		out = append(out, it.SourceCount)
	}
	return out
}

// Items received and published survive a restart of the servant, and so do
// its subscriptions: a restart without --subscribe uses the stored ones.
func TestServeItemsSurviveRestart(t *testing.T) {
	a := startServe(t, "--subscribe", "hr")
	bData := filepath.Join(t.TempDir(), "b")
	b := startServeIn(t, bData, "--seeds", a.ID, "--subscribe", "it")
	waitFor(t, "a to learn b's subscriptions", func() error {
		if got := a.Received(t, b.ID); !slices.Equal(got, []string{"it"}) {
			return fmt.Errorf("a received %v from b", got)
		}
		return nil
	})
	for _, title := range []string{"First", "Second"} {
		if r := a.Publish(t, "it", title, "body of "+title); r.Suppressed || r.Queued {
			t.Fatalf("publish %s: %+v", title, r)
		}
	}
	r := b.Publish(t, "hr/payroll", "Payday", "Friday")
	waitFor(t, "the items on b and a", func() error {
		if got := b.Titles(t, "it"); !slices.Equal(got, []string{"First", "Second"}) {
			return fmt.Errorf("b lists %v", got)
		}
		if got := a.Titles(t, "hr"); !slices.Equal(got, []string{"Payday"}) {
			return fmt.Errorf("a lists %v", got)
		}
		return nil
	})
	before := b.Items(t, "it")

	b.Stop()
	b2 := startServeIn(t, bData, "--seeds", a.ID)
	if got := b2.Items(t, "it"); !slices.Equal(got, before) {
		t.Errorf("after the restart b lists %+v, before %+v", got, before)
	}
	if got := b2.Items(t, "hr"); len(got) != 1 || got[0].ID != r.ID {
		t.Errorf("b's own item after the restart: %+v", got)
	}
	if st, _ := b2.Status(t); !slices.Equal(st.Subscriptions, []string{"it"}) {
		t.Errorf("subscriptions after a restart without --subscribe: %v", st.Subscriptions)
	}
}

// A second servant on a data directory in use fails at once with a clear
// error, and the first one keeps running.
func TestServeDataDirInUse(t *testing.T) {
	a := startServe(t)
	start := time.Now()
	var stderr apptest.SyncBuffer
	err := Serve(context.Background(), []string{"--listen", "127.0.0.1:0", "--data", a.Data}, &stderr, &stderr)
	if err == nil || !strings.Contains(err.Error(), "data directory in use by another newsdesk") {
		t.Fatalf("second Serve = %v, want the in-use error", err)
	}
	if !errors.Is(err, app.ErrInUse) || !errors.Is(err, storage.ErrInUse) {
		t.Errorf("error %v does not wrap ErrInUse and storage.ErrInUse", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the second instance took %v to fail, want about a second at most", d)
	}
	a.Status(t) // still serving
}

// Publishing while not attached answers queued; the items wait in the
// outbox, across a restart, and reach a subscriber once the seed is up.
// Reference: issue 4, "Catch-up and outbox".
func TestServeQueuedUntilAttached(t *testing.T) {
	fastReconnect(t)
	seed := apptest.FreeAddr(t)
	pData := filepath.Join(t.TempDir(), "p")
	p := startServeIn(t, pData, "--seeds", seed)

	code, raw := p.Call(t, "POST", "/v1/publish", map[string]string{"category": "it", "title": "One", "body": "queued"})
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); code != http.StatusOK || err != nil {
		t.Fatalf("publish: %d %s", code, raw)
	}
	if string(fields["queued"]) != "true" || string(fields["suppressed"]) != "false" || len(fields["id"]) < 10 {
		t.Fatalf("publish while the seed is down = %s, want queued and not suppressed", raw)
	}

	// Restart while queued: the outbox is in the store.
	p.Stop()
	p = startServeIn(t, pData) // the stored seeds
	if r := p.Publish(t, "it", "Two", "also queued"); !r.Queued {
		t.Fatalf("publish after the restart = %+v, want queued", r)
	}

	s := startServe(t, "--listen", seed, "--archive")
	c := startServe(t, "--seeds", seed, "--subscribe", "it")
	waitForUpTo(t, 20*time.Second, "the queued items on the subscriber", func() error {
		if got := c.Titles(t, "it"); !slices.Equal(got, []string{"One", "Two"}) {
			return fmt.Errorf("c lists %v", got)
		}
		return nil
	})
	// The archive may get them a moment after the subscriber (through it).
	waitFor(t, "the queued items on the archive", func() error {
		if got := s.Titles(t, "it"); !slices.Equal(got, []string{"One", "Two"}) {
			return fmt.Errorf("the archive lists %v", got)
		}
		return nil
	})
	// Sent means gone from the outbox: a restart of the publisher sends
	// nothing twice (the subscriber would drop a copy anyway, so look at
	// the store).
	pSource := statusSource(t, p)
	p.Stop()
	st, err := storage.Open(pData, storage.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	queued, err := st.Outbox()
	st.Close()
	if err != nil || len(queued) != 0 {
		t.Errorf("outbox after sending: %d entries, %v", len(queued), err)
	}
	if got := storedCounts(t, pData, pSource); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("the publisher's stored counts: %v, want [1 2]", got)
	}
}

func statusSource(t *testing.T, s *servant) string {
	t.Helper()
	st, _ := s.Status(t)
	return st.Source
}

// Servants stopped while items are published receive them after
// restarting, from an archive seed, in publish order and exactly once; a
// publisher's count is never reused across its restart.
// Reference: issue 4, "TCP: servants stopped while items are published
// receive them after restarting".
func TestServeCatchUpFromArchive(t *testing.T) {
	fastReconnect(t)
	s := startServe(t, "--archive")
	pData := filepath.Join(t.TempDir(), "p")
	p := startServeIn(t, pData, "--seeds", s.ID)
	cData := filepath.Join(t.TempDir(), "c")
	c := startServeIn(t, cData, "--seeds", s.ID, "--subscribe", "it")
	p.WaitAttached(t)
	c.WaitAttached(t)
	s.WaitRoute(t, "it") // c lies beyond one of the archive's links
	p.WaitRoute(t, "it")
	p.Publish(t, "it", "it-0", "before c stops")
	waitFor(t, "the first item on c", func() error {
		if got := c.Titles(t, "it"); !slices.Equal(got, []string{"it-0"}) {
			return fmt.Errorf("c lists %v", got)
		}
		return nil
	})

	c.Stop()
	want := []string{"it-0"}
	const n = 12
	for i := 1; i <= n; i++ {
		if i == n/2 {
			// The publisher restarts half-way: its count continues.
			p.Stop()
			p = startServeIn(t, pData)
			p.WaitAttached(t)
			p.WaitRoute(t, "it") // the archive's "*"
		}
		title := fmt.Sprintf("it-%d", i)
		p.Publish(t, "it", title, "while c is away")
		want = append(want, title)
		if i%3 == 0 {
			// Items c does not need, between the ones it does.
			p.Publish(t, "hr", fmt.Sprintf("hr-%d", i), "")
		}
	}
	waitFor(t, "everything on the archive", func() error {
		if got := s.Titles(t, "it"); !slices.Equal(got, want) {
			return fmt.Errorf("s lists %v", got)
		}
		return nil
	})

	c = startServeIn(t, cData)
	waitForUpTo(t, 20*time.Second, "the missed items on c", func() error {
		if got := c.Titles(t, "it"); !slices.Equal(got, want) {
			return fmt.Errorf("c lists %v", got)
		}
		return nil
	})
	if got := c.Titles(t, "hr"); len(got) != 0 {
		t.Errorf("c received items of a category it does not subscribe to: %v", got)
	}
	source := statusSource(t, p)
	p.Stop()
	c.Stop()
	all := storedCounts(t, pData, source)
	if len(all) != n+1+n/3 {
		t.Errorf("the publisher stored %d items, want %d", len(all), n+1+n/3)
	}
	for i := 1; i < len(all); i++ {
		if all[i] != all[i-1]+1 {
			t.Fatalf("the publisher's counts are not consecutive across its restart: %v", all)
		}
	}
	got := storedCounts(t, cData, source)
	if len(got) != len(want) || slices.ContainsFunc(got[1:], func(k uint64) bool { return slices.Contains(got[:len(got)-1], k) && k == 0 }) {
		t.Errorf("c stored %d items of the publisher (counts %v), want %d", len(got), got, len(want))
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("c's stored counts of the publisher repeat: %v", got)
		}
	}
}

// /v1/status reports needed items that could not be recovered at the top
// level, as "lost".
func TestServeStatusLost(t *testing.T) {
	a := startServe(t)
	_, raw := a.Status(t)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fields["lost"], []byte("0")) {
		t.Errorf(`status "lost" = %s, want 0: %s`, fields["lost"], raw)
	}
}
