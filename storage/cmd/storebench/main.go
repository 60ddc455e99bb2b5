// Command storebench measures the storage package on realistic items and
// prints a Markdown table:
//
//	go run ./storage/cmd/storebench [-n 100000] [-dir DIR]
//
// It reports ingest throughput with group commit against one transaction per
// item (same run, same disk), newest-50 and unread-count latency, search
// latency (median over several queries) against a plain scan, bytes stored
// per item, and the time to open a store of n items and to rebuild its
// search index.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
)

func main() {
	n := flag.Int("n", 100000, "items in the large store")
	perItem := flag.Int("put-each", 1000, "items written one transaction each")
	dirFlag := flag.String("dir", "", "work directory (default: a temporary directory, removed afterwards)")
	flag.Parse()
	log.SetFlags(0)

	dir := *dirFlag
	if dir == "" {
		d, err := os.MkdirTemp("", "storebench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rows := [][3]string{}
	row := func(what, value, note string) {
		rows = append(rows, [3]string{what, value, note})
		fmt.Fprintf(os.Stderr, "%-45s %s\n", what, value)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	src := uuid.New()
	base := time.Now().Add(-time.Duration(*n) * time.Second)
	fmt.Fprintf(os.Stderr, "generating %d items...\n", *n)
	items := make([]*news.Item, *n)
	payload := 0
	for i := range items {
		items[i] = itemgen.Item(rng, src, uint64(i+1), base.Add(time.Duration(i)*time.Second))
		b, _ := items[i].MarshalBinary()
		payload += len(b)
	}

	// Ingest with group commit: every item queued at once, the writer
	// commits whatever is queued per transaction.
	bigDir := dir + "/big"
	s := must(storage.Open(bigDir))
	start := time.Now()
	chans := make([]<-chan error, len(items))
	for i, it := range items {
		chans[i] = s.Ingest(it)
	}
	for _, ch := range chans {
		check(<-ch)
	}
	groupRate := float64(len(items)) / time.Since(start).Seconds()
	row("ingest, group commit", fmt.Sprintf("%.0f items/s", groupRate), fmt.Sprintf("%d items, fsync on", len(items)))

	// One transaction per item: sequential Puts, each waits for its commit.
	each := must(storage.Open(dir + "/each"))
	m := min(*perItem, len(items))
	start = time.Now()
	for _, it := range items[:m] {
		check(each.Put(context.Background(), it))
	}
	eachRate := float64(m) / time.Since(start).Seconds()
	check(each.Close())
	row("ingest, one transaction per item", fmt.Sprintf("%.0f items/s", eachRate), fmt.Sprintf("%d items, fsync on", m))
	row("group commit speed-up", fmt.Sprintf("%.1f×", groupRate/eachRate), "")

	<-s.SearchReady()
	// Mark a third read so unread counts are not trivial.
	ids := make([]uuid.UUID, 0, len(items)/3)
	for i := 0; i < len(items); i += 3 {
		ids = append(ids, items[i].ID)
	}
	_, err := s.MarkRead(ids...)
	check(err)

	row("newest 50, all categories", median(201, func() {
		_, _, err := s.Newest(nil, 50, "")
		check(err)
	}), fmt.Sprintf("median, %d items", len(items)))
	row("newest 50, {sales} (4 categories merged)", median(201, func() {
		_, _, err := s.Newest([]string{"sales"}, 50, "")
		check(err)
	}), "median")
	_, cur, _ := s.Newest([]string{"it"}, 5000, "")
	row("newest 50 of {it} after 5,000 (cursor)", median(201, func() {
		_, _, err := s.Newest([]string{"it"}, 50, cur)
		check(err)
	}), "median")
	row("unread counts", median(201, func() {
		_, err := s.UnreadCounts()
		check(err)
	}), "median; counters, no scan")

	// Search: a spread of queries (common, rare, short, two-word, number,
	// no match); per query the median of 5 runs, then the median over
	// queries.
	queries := []string{
		itemgen.Word(rng), itemgen.Word(rng), "kaka", "rote", "ne", "e", "misa lo", "duvi", "123456", "zzzz",
		strings.Fields(items[len(items)/2].Title)[0],
	}
	var perQuery []time.Duration
	var hits []int
	for _, q := range queries {
		var res []storage.Entry
		perQuery = append(perQuery, medianDur(5, func() {
			var err error
			res, _, err = s.Search(context.Background(), q, nil, 50, "")
			check(err)
		}))
		hits = append(hits, len(res))
	}
	for i, q := range queries {
		fmt.Fprintf(os.Stderr, "  search %-10q %8v  %d hits\n", q, perQuery[i].Round(time.Microsecond), hits[i])
	}
	slices.Sort(perQuery)
	row("search, 50 newest matches", perQuery[len(perQuery)/2].Round(time.Microsecond).String(),
		fmt.Sprintf("median of %d queries (max %v), in-memory word index", len(queries), perQuery[len(perQuery)-1].Round(time.Microsecond)))
	scan := medianDur(3, func() { scanSearch(s, "rote") })
	row("search by full scan (for comparison)", scan.Round(time.Millisecond).String(), "decode + fold + substring over every item")

	used, err := s.Size()
	check(err)
	check(s.Close())
	fi, err := os.Stat(bigDir + "/" + storage.FileName)
	check(err)
	row("store size per item", fmt.Sprintf("%d bytes", used/int64(len(items))),
		fmt.Sprintf("%.1f MB in use, file %.1f MB (bbolt preallocates); encoded item %d bytes on average", float64(used)/1e6, float64(fi.Size())/1e6, payload/len(items)))

	// Open time, then the background index build, and its memory.
	items, chans = nil, nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start = time.Now()
	s = must(storage.Open(bigDir))
	openTime := time.Since(start)
	<-s.SearchReady()
	indexTime := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	row(fmt.Sprintf("open a %d-item store", *n), openTime.Round(time.Microsecond).String(), "until Open returns")
	row("search index ready after open", indexTime.Round(time.Millisecond).String(), "background build; queries other than Search do not wait")
	row("search index memory", fmt.Sprintf("%.0f MB", float64(after.HeapAlloc-before.HeapAlloc)/1e6), "Go heap growth with the index built")
	check(s.Close())

	fmt.Printf("\n%d items (titles ~60 chars, bodies 1-2 KB), %s/%s, %d CPUs, %s\n\n", *n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Println("| measure | result | note |")
	fmt.Println("|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s |\n", r[0], r[1], r[2])
	}
}

// scanSearch is what search would cost without an index: read every item,
// fold its text, look for the query.
func scanSearch(s *storage.Store, q string) int {
	q = strings.ToLower(q)
	found := 0
	cur := storage.Cursor("")
	for {
		page, next, err := s.Newest(nil, 1000, cur)
		check(err)
		for _, e := range page {
			if strings.Contains(strings.ToLower(e.Item.Title), q) || strings.Contains(strings.ToLower(e.Item.Body), q) {
				found++
			}
		}
		if next == "" {
			return found
		}
		cur = next
	}
}

func medianDur(runs int, fn func()) time.Duration {
	d := make([]time.Duration, runs)
	for i := range d {
		start := time.Now()
		fn()
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return d[runs/2]
}

func median(runs int, fn func()) string {
	return medianDur(runs, fn).Round(time.Microsecond / 10).String()
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
