package node

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// heapWatch samples the heap in use until stopped and keeps the peak.
type heapWatch struct {
	stop chan struct{}
	done sync.WaitGroup
	base uint64
	peak uint64
}

func watchHeap() *heapWatch {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &heapWatch{stop: make(chan struct{}), base: ms.HeapInuse, peak: ms.HeapInuse}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			w.peak = max(w.peak, ms.HeapInuse)
		}
	}()
	return w
}

func (w *heapWatch) growth() uint64 {
	close(w.stop)
	w.done.Wait()
	return w.peak - w.base
}

// A member running a modified servant asks its up-servant for 512 items of
// 60 KB per request, of forty sources, and catch-up pages fifty at a time,
// sends reach reports ten at a time, and reads nothing. The up-servant's memory stays bounded, it keeps
// answering its API and its honest member, and it closes the flooding
// member's link and refuses its joins.
func TestFloodingMemberBounded(t *testing.T) {
	const sources, items, size = 40, 512, 60 << 10
	arch := newMemArchive()
	payload := make([]byte, size)
	for s := range sources {
		for k := range items {
			m := newMsg("news")
			m.Source, m.Count, m.Payload = fmt.Sprintf("src-%02d", s), uint64(k+1), payload
			arch.put(m)
		}
	}
	log := newTestLog(t)
	core := fastCore()
	core.LinkTimeout = 4 * time.Second // heartbeats that must keep flowing through the flood
	core.Archive = copyingArchive{arch}
	v := startNode(t, Config{Protocol: core, Logger: log})
	if err := v.Subscribe(newsnet.AllCategories); err != nil {
		t.Fatal(err)
	}
	honest := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log})
	waitFor(t, 10*time.Second, "honest member attached", func() error {
		if st := honest.Status(); st.Up != v.Addr() {
			return fmt.Errorf("up = %q", st.Up)
		}
		return nil
	})

	heap := watchHeap()
	const flooder = newsnet.ServantID("127.0.0.1:9")
	c := dialRaw(t, v.Addr())
	c.hello()
	c.join(flooder)
	c.SetDeadline(time.Time{})
	var slowest time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the flood: never reads again
		defer wg.Done()
		trail := []newsnet.ServantID{flooder}
		counts := make([]uint64, items)
		for i := range counts {
			counts[i] = uint64(i + 1)
		}
		for round := 0; round < 20; round++ {
			for s := range sources {
				if newsnet.WriteFrame(c, &newsnet.Recover{Source: fmt.Sprintf("src-%02d", s), Counts: counts, Trail: trail}) != nil {
					return // closed by the servant
				}
			}
			for range 50 {
				if newsnet.WriteFrame(c, &newsnet.CatchUp{Categories: newsnet.NewCategorySet("news"), Trail: trail}) != nil {
					return
				}
			}
			for range 10 { // reach reports far beyond an honest rate
				if newsnet.WriteFrame(c, &newsnet.ReachReport{HasCensus: true, Census: []newsnet.CategoryCount{{Category: "news", Count: 500}}}) != nil {
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	waitFor(t, 30*time.Second, "the flooding member closed and refused", func() error {
		start := time.Now()
		st := v.Status()
		slowest = max(slowest, time.Since(start))
		for _, b := range st.Misconduct.Banned {
			if b == flooder {
				return nil
			}
		}
		return fmt.Errorf("misconduct %+v, counters waited %d refused %d pages %d", st.Misconduct,
			st.Counters.RequestsWaited, st.Counters.RequestsRefused, st.Counters.PagesRead)
	})
	c.Close()
	wg.Wait()
	grown := heap.growth()
	t.Logf("heap grew by at most %d MB; slowest status call %v", grown>>20, slowest)
	if grown > 300<<20 {
		t.Errorf("heap grew by %d MB under the flood, want less than 300", grown>>20)
	}
	if st := honest.Status(); st.Up != v.Addr() {
		t.Errorf("honest member lost its up-servant during the flood: up = %q", st.Up)
	}
	st := v.Status()
	if st.Counters.PagesRead > 2*20 {
		t.Errorf("%d catch-up pages read for one member's 1,000 requests", st.Counters.PagesRead)
	}
	// Its joins are refused while the ban lasts.
	again := dialRaw(t, v.Addr())
	again.hello()
	if err := newsnet.WriteFrame(again, &newsnet.JoinRequest{From: flooder}); err != nil {
		t.Fatal(err)
	}
	again.expectClosed("a banned member's join")
}
