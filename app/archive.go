package app

import (
	"cmp"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
)

// storeArchive is the store as the protocol core's archive (newsnet.Archive):
// it answers retransmission and catch-up requests from what this
// installation keeps. Lookup runs on the node's loop goroutine, CatchUp on
// a reader of its own (catch-up pages are read off the loop); both only
// read the local store, which is safe to read from several goroutines.
type storeArchive struct {
	store *storage.Store
	log   *slog.Logger
}

var _ newsnet.Archive = (*storeArchive)(nil)

// historyWindow bounds the histories attached to catch-up answers (the
// core's default window).
var historyWindow = newsnet.DefaultConfig("").HistoryWindow

// catchUpPage is how many items of one source a catch-up reads at a time.
const catchUpPage = 512

// Lookup implements newsnet.Archive: the stored item of source with count,
// as its multicast message (without a history: the requester classified the
// gap already).
func (s *storeArchive) Lookup(source string, count uint64) *newsnet.Multicast {
	src, err := uuid.Parse(source)
	if err != nil || count == 0 {
		return nil
	}
	items, err := s.store.ItemsAfter(src, count-1, 1)
	if err != nil {
		s.log.Warn("archive lookup failed", "source", source, "count", count, "err", err)
		return nil
	}
	if len(items) == 0 || items[0].SourceCount != count {
		return nil
	}
	m, err := multicastOf(items[0])
	if err != nil {
		s.log.Warn("archive lookup: stored item does not encode", "id", items[0].ID, "err", err)
		return nil
	}
	return m
}

// CatchUp implements newsnet.Archive. For each source the requester
// follows, the stored items from its next count on; for every other source,
// the items from the first one created since the time (item IDs are
// UUIDv7, so the store's newest-first walk finds them without a scan). At
// most limit items, by source, then count.
//
// Each answer carries a history of the source's stored items before it, as
// far back as they are contiguous within this answer: the requester then
// skips the counts of categories it does not need instead of asking for
// their categories first.
func (s *storeArchive) CatchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	if limit <= 0 || len(cats) == 0 {
		return nil
	}
	// Where to start, per source: the followed sources' next counts, and
	// for the others the lowest count created since the time.
	start := make(map[uuid.UUID]uint64, len(known))
	for src, next := range known {
		if id, err := uuid.Parse(src); err == nil && next > 0 {
			start[id] = next
		}
	}
	for id, first := range s.sinceCounts(cats, known, since) {
		start[id] = first
	}

	var out []*newsnet.Multicast
	sources := slices.SortedFunc(maps.Keys(start), func(a, b uuid.UUID) int { return cmp.Compare(a.String(), b.String()) })
	for _, src := range sources {
		if len(out) >= limit {
			break
		}
		out = s.appendSource(out, src, start[src], cats, limit)
	}
	return out
}

// sinceCounts finds, for the sources not in known, the lowest count of a
// stored item of cats created since the time.
func (s *storeArchive) sinceCounts(cats newsnet.CategorySet, known map[string]uint64, since time.Time) map[uuid.UUID]uint64 {
	var ids []string // nil: every category
	if !cats.Has(newsnet.AllCategories) {
		for _, c := range cats {
			if categories.ValidateID(c) == nil {
				ids = append(ids, c)
			}
		}
		if len(ids) == 0 {
			return nil
		}
	}
	first := map[uuid.UUID]uint64{}
	var cur storage.Cursor
	for {
		page, next, err := s.store.Newest(ids, catchUpPage, cur)
		if err != nil {
			s.log.Warn("catch-up: listing items failed", "err", err)
			return first
		}
		for _, e := range page {
			it := e.Item
			if news.IDTime(it.ID).Before(since) {
				return first
			}
			if _, followed := known[it.Source.String()]; followed || it.SourceCount == 0 {
				continue
			}
			if f, ok := first[it.Source]; !ok || it.SourceCount < f {
				first[it.Source] = it.SourceCount
			}
		}
		if next == "" {
			return first
		}
		cur = next
	}
}

// appendSource appends the stored items of src from count from on whose
// category cats matches, each with the history and the chain (Lasts) of
// the items read before it, until out holds limit items. Both describe
// only what was read without a hole, so they are exact; the chain is
// complete when the read started at the source's first count.
func (s *storeArchive) appendSource(out []*newsnet.Multicast, src uuid.UUID, from uint64, cats newsnet.CategorySet, limit int) []*newsnet.Multicast {
	var (
		hist      []uint32 // short IDs of the contiguous items read so far, oldest first
		chains    newsnet.Chains
		complete  = from <= 1
		lastCount uint64
		after     = from - 1
	)
	for len(out) < limit {
		items, err := s.store.ItemsAfter(src, after, catchUpPage)
		if err != nil {
			s.log.Warn("catch-up: reading a source failed", "source", src, "err", err)
			return out
		}
		for _, it := range items {
			if lastCount != 0 && it.SourceCount != lastCount+1 || lastCount == 0 && it.SourceCount != from {
				hist = hist[:0] // a hole: what came before is not known
				chains.Reset()
				complete = false
			}
			lastCount = it.SourceCount
			if cats.Matches(it.Category) {
				m, err := multicastOf(it)
				if err != nil {
					s.log.Warn("catch-up: stored item does not encode", "id", it.ID, "err", err)
					hist = hist[:0]
					chains.Reset()
					complete = false
					continue
				}
				m.History = historyRuns(hist)
				m.Lasts, m.LastsComplete = chains.Lasts(), complete
				out = append(out, m)
				if len(out) >= limit {
					return out
				}
			}
			hist = append(hist, newsnet.ShortID(it.Category))
			if over := len(hist) - historyWindow; over > 0 {
				hist = append(hist[:0], hist[over:]...)
			}
			chains.Add(it.Category, it.SourceCount)
		}
		if len(items) < catchUpPage {
			return out
		}
		after = items[len(items)-1].SourceCount
	}
	return out
}

// historyRuns encodes short IDs (oldest first) as the newest-first,
// run-length encoded history of the message that follows them.
func historyRuns(shorts []uint32) []newsnet.HistoryRun {
	var out []newsnet.HistoryRun
	for i := len(shorts) - 1; i >= 0; i-- {
		if n := len(out); n > 0 && out[n-1].Short == shorts[i] {
			out[n-1].Len++
			continue
		}
		out = append(out, newsnet.HistoryRun{Short: shorts[i], Len: 1})
	}
	return out
}
