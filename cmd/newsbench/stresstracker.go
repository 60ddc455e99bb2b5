package main

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// stressPlan is what one run publishes: item k has ID ids[k], category
// cats[k] and source count k+1.
type stressPlan struct {
	ids     [][16]byte
	cats    []string
	index   map[[16]byte]int // read-only once built
	payload []byte           // the same 1 KiB for every item; nobody modifies it
	pubAt   []atomic.Int64   // UnixNano just before Publish was called
}

func newStressPlan(r *rand.Rand, items int) *stressPlan {
	p := &stressPlan{index: make(map[[16]byte]int, items), pubAt: make([]atomic.Int64, items)}
	now := time.Now()
	for k := range items {
		id, err := news.NewID(now)
		if err != nil {
			panic(err) // crypto/rand failed
		}
		p.ids = append(p.ids, id)
		p.index[id] = k
		p.cats = append(p.cats, stressCategories[r.IntN(len(stressCategories))])
	}
	p.payload = make([]byte, 1024)
	for i := range p.payload {
		p.payload[i] = byte(r.IntN(256))
	}
	return p
}

// stressTracker counts every delivery of a run, per servant and item.
type stressTracker struct {
	plan   *stressPlan
	nodes  []*nodeTally // every servant's, the publisher's (subscribed to nothing) first
	want   int
	wanted atomic.Int64 // first deliveries of wanted items
	lastAt atomic.Int64 // UnixNano of the delivery that completed the run
	done   chan struct{}
}

// nodeTally is one servant's deliveries. Its OnDeliver runs on that
// servant's loop goroutine; the mutex is for the final read.
type nodeTally struct {
	mu                               sync.Mutex
	subs                             newsnet.CategorySet
	got                              []uint8 // deliveries per item, saturating
	lat                              []time.Duration
	duplicates, unwanted, outOfOrder int
	lastCount                        uint64
}

func (t *stressTracker) publishedAt(k int, at time.Time) { t.plan.pubAt[k].Store(at.UnixNano()) }

func (t *stressTracker) deliver(nt *nodeTally, m *newsnet.Multicast, now time.Time) {
	k, ok := t.plan.index[m.ID]
	nt.mu.Lock()
	defer nt.mu.Unlock()
	switch {
	case !ok:
		nt.unwanted++
		return
	case nt.got[k] > 0:
		nt.duplicates++
		if nt.got[k] < 255 {
			nt.got[k]++
		}
		return
	}
	nt.got[k] = 1
	if !nt.subs.Matches(m.Category) {
		nt.unwanted++
		return
	}
	if m.Count < nt.lastCount {
		nt.outOfOrder++
	}
	nt.lastCount = max(nt.lastCount, m.Count)
	nt.lat = append(nt.lat, now.Sub(time.Unix(0, t.plan.pubAt[k].Load())))
	if t.wanted.Add(1) == int64(t.want) {
		t.lastAt.Store(now.UnixNano())
		close(t.done)
	}
}

// results sums the tallies: first deliveries of wanted items, duplicates,
// unwanted deliveries, deliveries out of source order, and all latencies.
func (t *stressTracker) results() (delivered, duplicates, unwanted, outOfOrder int, lat []time.Duration) {
	for _, nt := range t.nodes {
		nt.mu.Lock()
		delivered += len(nt.lat)
		duplicates += nt.duplicates
		unwanted += nt.unwanted
		outOfOrder += nt.outOfOrder
		lat = append(lat, nt.lat...)
		nt.mu.Unlock()
	}
	return delivered, duplicates, unwanted, outOfOrder, lat
}
