package node

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// benchTree is a publisher (the vertex) and subscribers of one category
// on loopback, with per-item delivery bookkeeping.
type benchTree struct {
	pub  *Node
	subs []*Node

	mu      sync.Mutex
	sentAt  map[uint64]time.Time
	missing map[uint64]int // deliveries still to come, per item
	lat     []time.Duration
	done    chan uint64 // items delivered everywhere
}

func benchCore(seeds ...newsnet.ServantID) newsnet.Config {
	c := newsnet.DefaultConfig("")
	c.Seeds = seeds
	c.TickInterval = 20 * time.Millisecond // as newsbench's TCP run
	return c
}

func startBenchTree(b *testing.B, subscribers int) *benchTree {
	b.Helper()
	t := &benchTree{sentAt: map[uint64]time.Time{}, missing: map[uint64]int{}, done: make(chan uint64, 1<<16)}
	start := func(cfg Config) *Node {
		cfg.Listen = "127.0.0.1:0"
		cfg.OnDeliver = t.deliver
		n, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close() })
		return n
	}
	t.pub = start(Config{Protocol: benchCore()})
	for range subscribers {
		s := start(Config{Protocol: benchCore(t.pub.Addr())})
		if err := s.Subscribe("x"); err != nil {
			b.Fatal(err)
		}
		t.subs = append(t.subs, s)
	}
	// Settled when an item reaches every subscriber.
	deadline := time.Now().Add(30 * time.Second)
	for {
		seq := t.publish(b, 0)
		select {
		case <-t.done:
			t.reset()
			return t
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.mu.Lock()
			missing := t.missing[seq]
			t.mu.Unlock()
			b.Fatalf("tree not settled: item %d still missing %d deliveries", seq, missing)
		}
	}
}

func (t *benchTree) deliver(m *newsnet.Multicast) {
	seq := binary.BigEndian.Uint64(m.ID[8:])
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.sentAt[seq]
	if !ok {
		return
	}
	t.lat = append(t.lat, now.Sub(at))
	if t.missing[seq]--; t.missing[seq] == 0 {
		delete(t.missing, seq)
		delete(t.sentAt, seq)
		t.done <- seq
	}
}

func (t *benchTree) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.sentAt)
	clear(t.missing)
	t.lat = t.lat[:0]
	for len(t.done) > 0 {
		<-t.done
	}
}

// publish sends one item of size bytes and returns its sequence number.
func (t *benchTree) publish(b *testing.B, size int) uint64 {
	m := newMsg("x")
	m.Payload = make([]byte, size)
	seq := binary.BigEndian.Uint64(m.ID[8:])
	t.mu.Lock()
	t.sentAt[seq] = time.Now()
	t.missing[seq] = len(t.subs)
	t.mu.Unlock()
	if _, err := t.pub.Publish(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	return seq
}

func (t *benchTree) report(b *testing.B) {
	t.mu.Lock()
	defer t.mu.Unlock()
	slices.Sort(t.lat)
	if len(t.lat) == 0 {
		return
	}
	pct := func(p int) float64 { return float64(t.lat[(len(t.lat)-1)*p/100].Microseconds()) }
	b.ReportMetric(pct(50), "p50-µs")
	b.ReportMetric(pct(99), "p99-µs")
	b.ReportMetric(float64(len(t.lat))/float64(b.N), "deliveries/op")
}

// BenchmarkFanout measures the runtime per published item over a tree of
// loopback servants, all subscribed: allocations per item across every
// node (encoding, queueing, writing, reading, decoding), and the latency
// from Publish to each delivery. "paced" publishes the next item once the
// last one reached everyone; "burst" keeps up to 256 items in flight.
func BenchmarkFanout(b *testing.B) {
	for _, subs := range []int{16, 48} {
		b.Run(fmt.Sprintf("paced/subs=%d", subs), func(b *testing.B) {
			t := startBenchTree(b, subs)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t.publish(b, 1<<10)
				<-t.done
			}
			b.StopTimer()
			t.report(b)
		})
		b.Run(fmt.Sprintf("burst/subs=%d", subs), func(b *testing.B) {
			t := startBenchTree(b, subs)
			b.ReportAllocs()
			b.ResetTimer()
			const window = 256
			inFlight := 0
			for range b.N {
				if inFlight == window {
					<-t.done
					inFlight--
				}
				t.publish(b, 1<<10)
				inFlight++
			}
			for ; inFlight > 0; inFlight-- {
				<-t.done
			}
			b.StopTimer()
			t.report(b)
		})
	}
}
