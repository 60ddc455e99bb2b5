package node

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

// countingHandler is a slog.Handler that keeps every record, shared by the
// loggers derived from it (Logger.With).
type countingHandler struct {
	mu   *sync.Mutex
	recs *[]slog.Record
}

func newCountingHandler() countingHandler {
	return countingHandler{mu: &sync.Mutex{}, recs: new([]slog.Record)}
}

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h countingHandler) WithGroup(string) slog.Handler            { return h }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.recs = append(*h.recs, r.Clone())
	return nil
}

// refusalLines counts the "refusing connection" lines and sums the counts
// of the summary lines.
func (h countingHandler) refusalLines() (lines int, summaries int, summed uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range *h.recs {
		switch r.Message {
		case "refusing connection":
			lines++
		case "refused connections not logged (one line per address per period)":
			summaries++
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "count" {
					summed += a.Value.Uint64()
				}
				return true
			})
		}
	}
	return lines, summaries, summed
}

// badHellos opens k connections to addr that each send an HTTP request
// instead of the newsnet hello.
func badHellos(t *testing.T, addr string, k int) {
	t.Helper()
	for range k {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		c.Close()
	}
}

func refusedHellos(n *Node, want uint64) func() error {
	return func() error {
		if got := n.SecurityStats()[refusedHello]; got != want {
			return fmt.Errorf("%d hello refusals, want %d", got, want)
		}
		return nil
	}
}

// A flood of bad handshakes from one address writes one log line per
// period, and a summary per period counts the refusals not logged: every
// refusal is either logged or counted in a summary, and still counted in
// SecurityStats.
// Reference: issue 11 (3,175 WARN lines in 30 s under a connection flood).
func TestRefusedHandshakeFloodLogBounded(t *testing.T) {
	t.Run("one line per minute", func(t *testing.T) {
		h := newCountingHandler()
		n := startNode(t, Config{Protocol: fastCore(), Logger: slog.New(h)})
		const flood = 300
		badHellos(t, string(n.Addr()), flood)
		waitFor(t, 20*time.Second, "every bad hello refused", refusedHellos(n, flood))
		if lines, _, _ := h.refusalLines(); lines != 1 {
			t.Errorf("%d bad hellos from one address within a minute wrote %d lines, want 1", flood, lines)
		}
	})
	t.Run("summaries", func(t *testing.T) {
		const every = 300 * time.Millisecond
		h := newCountingHandler()
		n := startNode(t, Config{Protocol: fastCore(), Logger: slog.New(h), refusalLogEvery: every})
		start := time.Now()
		var sent uint64
		for time.Since(start) < 4*every {
			badHellos(t, string(n.Addr()), 20)
			sent += 20
			time.Sleep(every / 10)
		}
		waitFor(t, 20*time.Second, "every bad hello refused", refusedHellos(n, sent))
		elapsed := time.Since(start)
		waitFor(t, 20*time.Second, "the refusals not logged summed up", func() error {
			if lines, _, summed := h.refusalLines(); uint64(lines)+summed != sent {
				return fmt.Errorf("%d lines + %d in summaries, want %d", lines, summed, sent)
			}
			return nil
		})
		lines, summaries, _ := h.refusalLines()
		if limit := int(elapsed/every) + 2; lines > limit || summaries > limit {
			t.Errorf("%d bad hellos in %v wrote %d lines and %d summaries, want at most %d each (one per %v)",
				sent, elapsed, lines, summaries, limit, every)
		}
	})
}

// The limit itself: one line per address per period, other addresses
// independent, a summary per period of what was not logged, addresses
// forgotten after a period, and at most refusalLogAddrs remembered.
func TestRefusalLog(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRefusalLog(time.Minute, t0)
	if !r.allow("10.0.0.1", t0) {
		t.Fatal("first refusal not logged")
	}
	for i := range 1000 {
		if r.allow("10.0.0.1", t0.Add(time.Duration(i)*50*time.Millisecond)) {
			t.Fatalf("refusal %d within the minute logged", i)
		}
	}
	if !r.allow("10.0.0.2", t0.Add(time.Second)) || r.allow("10.0.0.2", t0.Add(2*time.Second)) {
		t.Error("a second address is not limited on its own")
	}
	if _, _, ok := r.summary(t0.Add(59 * time.Second)); ok {
		t.Error("summary before the period ended")
	}
	if quiet, from, ok := r.summary(t0.Add(time.Minute)); !ok || quiet != 1001 || from != 2 {
		t.Errorf("summary = %d from %d (%v), want 1001 from 2", quiet, from, ok)
	}
	if !r.allow("10.0.0.1", t0.Add(time.Minute)) {
		t.Error("no line a minute after the last one")
	}
	if quiet, _, ok := r.summary(t0.Add(2 * time.Minute)); ok {
		t.Errorf("summary of a quiet period: %d", quiet)
	}
	if len(r.addrs) != 0 {
		t.Errorf("%d addresses remembered after a quiet period", len(r.addrs))
	}
	t1 := t0.Add(3 * time.Minute)
	for i := range refusalLogAddrs + 10 {
		ok := r.allow(fmt.Sprintf("10.1.%d.%d", i/256, i%256), t1)
		if ok != (i < refusalLogAddrs) {
			t.Fatalf("address %d: logged %v", i, ok)
		}
	}
	if quiet, _, _ := r.summary(t1.Add(time.Minute)); quiet != 10 {
		t.Errorf("refusals beyond the addresses remembered: %d counted, want 10", quiet)
	}
	for _, tc := range []struct {
		peer    string
		inbound bool
		want    string
	}{{"10.0.0.1:51234", true, "10.0.0.1"}, {"[2001:db8::1]:40000", true, "2001:db8::1"}, {"10.0.0.1:7400", false, "10.0.0.1:7400"}} {
		if got := refusalKey(tc.peer, tc.inbound); got != tc.want {
			t.Errorf("refusalKey(%q, %v) = %q, want %q", tc.peer, tc.inbound, got, tc.want)
		}
	}
}
