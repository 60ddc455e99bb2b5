package ui

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// bigFake holds n items over several categories, one a minute.
func bigFake(t testing.TB, n int) *fake {
	b := newFake(t)
	cats := []string{"company", "hr", "it", "sales/emea", "sales/apac"}
	src := uuid.MustParse("0191a000-0000-7000-8000-000000000001")
	items := make([]*news.Item, n)
	for i := range items {
		at := testNow.Add(-time.Duration(i) * time.Minute)
		items[i] = &news.Item{
			ID: news.IDAt(at, uint64(i)), Category: cats[i%len(cats)], Title: fmt.Sprintf("Item %d", i),
			Body: "Body", Author: "Author", Source: src, Created: at, Received: at,
		}
	}
	b.Add(items...)
	return b
}

// scrollToEnd scrolls the list to the bottom until every page is loaded
// and returns how many scrolls it took.
func scrollToEnd(h *harness) int {
	l := h.u.reader.list
	n := 0
	for !l.ls.done {
		l.ScrollToBottom()
		h.sync()
		n++
		if n > 10000 {
			h.t.Fatal("the list never reached its end")
		}
	}
	l.ScrollToBottom()
	h.sync()
	return n
}

// TestHundredThousandItems: with 100,000 stored items the first screen
// fetches one page, not the store; scrolling to the end pages through
// everything in order, each item once. The times are logged, not
// asserted.
func TestHundredThousandItems(t *testing.T) {
	const n = 100000
	b := bigFake(t, n)
	start := time.Now()
	h := newHarness(t, b)
	firstPaint := time.Since(start)
	l := h.u.reader.list
	if b.fetched > firstPage || b.newestCalls != 1 {
		t.Errorf("first screen fetched %d entries in %d calls, want at most %d in 1", b.fetched, b.newestCalls, firstPage)
	}
	if len(l.ls.ids) != firstPage || !hasLabel(l, "Item 0") {
		t.Errorf("first screen: %d rows loaded", len(l.ls.ids))
	}
	_, end := l.visibleRows()
	t.Logf("first paint of %d items: %v, %d entries fetched, %d rows on screen", n, firstPaint, b.fetched, end)

	// Scrolling a screen down fetches nothing more.
	l.ScrollToOffset(l.pitch * 10)
	h.sync()
	if b.newestCalls != 1 {
		t.Errorf("scrolling within the first page fetched %d more pages", b.newestCalls-1)
	}

	if testing.Short() {
		return
	}
	start = time.Now()
	scrolls := scrollToEnd(h)
	scroll := time.Since(start)
	if len(l.ls.ids) != n || b.fetched != n {
		t.Fatalf("at the end: %d rows, %d fetched, want %d", len(l.ls.ids), b.fetched, n)
	}
	for i := 1; i < len(l.ls.ids); i++ {
		if news.CompareIDs(l.ls.ids[i-1], l.ls.ids[i]) <= 0 {
			t.Fatalf("rows %d and %d out of order", i-1, i)
		}
	}
	if !hasLabel(l, fmt.Sprintf("Item %d", n-1)) {
		t.Error("the last item is not on screen at the end")
	}
	t.Logf("scrolled to the end in %v: %d jumps to the bottom (%v each, a new screen of rows and a page of %d), %d pages",
		scroll, scrolls, scroll/time.Duration(scrolls), nextPage, b.newestCalls)
}

// BenchmarkListingMemory measures what 100,000 loaded rows cost: the rows
// (no bodies), the ID index and the ID map, reported as bytes per row and
// MB in all. (The heap of a whole test run is no measure: the test driver
// never cleans Fyne's renderer cache, which the real driver does as it
// paints.) Titles and names are shared with the fake store's strings here.
func BenchmarkListingMemory(bm *testing.B) {
	const n = 100000
	b := bigFake(bm, n)
	es, _, _ := b.Backend.Newest(nil, n, "")
	var used int64
	for bm.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ls := newListing(query{})
		for i := 0; i < n; i += nextPage {
			rows := make([]*row, 0, nextPage)
			for _, e := range es[i:min(i+nextPage, n)] {
				rows = append(rows, rowOf(e))
			}
			ls.appendPage(rows, "more")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		used = int64(after.HeapAlloc) - int64(before.HeapAlloc)
		if len(ls.ids) != n {
			bm.Fatalf("%d rows loaded, want %d", len(ls.ids), n)
		}
		runtime.KeepAlive(ls)
	}
	bm.ReportMetric(float64(used)/n, "B/row")
	bm.ReportMetric(float64(used)/(1<<20), "MB")
	runtime.KeepAlive(es)
}

// BenchmarkFirstPaint100k: the reading screen over 100,000 items, from
// ShowMain to the first page on screen.
func BenchmarkFirstPaint100k(bm *testing.B) {
	b := bigFake(bm, 100000)
	for bm.Loop() {
		newHarness(bm, b)
	}
}

// BenchmarkScrollToEnd100k: paging through 100,000 items by jumping to the
// bottom of the list until the last page is loaded.
func BenchmarkScrollToEnd100k(bm *testing.B) {
	b := bigFake(bm, 100000)
	for bm.Loop() {
		bm.StopTimer()
		h := newHarness(bm, b)
		bm.StartTimer()
		scrollToEnd(h)
	}
}
