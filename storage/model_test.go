package storage_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// model is the obviously-correct reference: a map of items, a map of read
// flags and a set of retracted IDs (stored or not), queried by brute force.
type model struct {
	items     map[uuid.UUID]*news.Item
	read      map[uuid.UUID]bool
	retracted map[uuid.UUID]bool
	words     map[uuid.UUID][]string // cache of modelWords(title) + modelWords(body)
}

// visible reports whether a stored item is shown to users.
func (m *model) visible(id uuid.UUID) bool {
	_, ok := m.items[id]
	return ok && !m.retracted[id]
}

func (m *model) sorted(cats []string) []*news.Item {
	var out []*news.Item
	for _, it := range m.items {
		if m.retracted[it.ID] {
			continue
		}
		if len(cats) == 0 || categories.CoveredByAny(cats, it.Category) {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, b *news.Item) int { return bytes.Compare(b.ID[:], a.ID[:]) })
	return out
}

func (m *model) unread() map[string]uint64 {
	out := map[string]uint64{}
	for id, it := range m.items {
		if !m.read[id] && !m.retracted[id] {
			out[it.Category]++
		}
	}
	return out
}

func (m *model) itemCounts() map[string]uint64 {
	out := map[string]uint64{}
	for _, it := range m.items {
		if !m.retracted[it.ID] {
			out[it.Category]++
		}
	}
	return out
}

// modelWords is the search tokenizer written the plain way: fold the whole
// text with x/text, split it with uniseg, and turn runs of the bigram
// scripts into rune pairs.
func modelWords(s string) []string {
	s, _, err := transform.String(transform.Chain(width.Fold, cases.Fold(), norm.NFD), s)
	if err != nil {
		panic(err)
	}
	var kept []rune
	latin := false
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			latin = unicode.Is(unicode.Latin, r)
		} else if latin {
			continue
		}
		kept = append(kept, r)
	}
	s = norm.NFC.String(string(kept))
	cut := func(w string) string {
		for len(w) > 64 {
			_, size := utf8.DecodeLastRuneInString(w)
			w = w[:len(w)-size]
		}
		return w
	}
	var out, other []string
	var run []rune
	flushRun := func() {
		if len(run) == 1 {
			out = append(out, string(run))
		}
		for i := 0; i+1 < len(run); i++ {
			out = append(out, string(run[i:i+2]))
		}
		run = nil
	}
	flushOther := func() {
		w := strings.Join(other, "")
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			out = append(out, cut(w))
		}
		other = nil
	}
	state := -1
	for s != "" {
		var seg string
		seg, s, state = uniseg.FirstWordInString(s, state)
		for _, r := range seg {
			bigram := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
				len(run) > 0 && unicode.In(r, unicode.Common, unicode.Inherited) && unicode.In(r, unicode.Lm, unicode.M)
			if bigram {
				flushOther()
				run = append(run, r)
			} else {
				flushRun()
				other = append(other, string(r))
			}
		}
		flushOther()
	}
	flushRun()
	return out
}

func (m *model) search(q string, cats []string) []*news.Item {
	terms := modelWords(q)
	if len(terms) == 0 {
		return nil
	}
	var out []*news.Item
	for _, it := range m.sorted(cats) {
		words, ok := m.words[it.ID]
		if !ok {
			words = append(modelWords(it.Title), modelWords(it.Body)...)
			if m.words == nil {
				m.words = map[uuid.UUID][]string{}
			}
			m.words[it.ID] = words
		}
		ok = true
		for _, t := range terms {
			if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(w, t) }) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, it)
		}
	}
	return out
}

func (m *model) after(source uuid.UUID, count uint64) []*news.Item {
	var out []*news.Item
	for _, it := range m.items {
		if it.Source == source && it.SourceCount > count {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, b *news.Item) int {
		if a.SourceCount != b.SourceCount {
			return int(a.SourceCount - b.SourceCount)
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return out
}

var modelCatSets = [][]string{nil, {"sales"}, {"it", "sales/emea"}, {"salesforce"}, {"sales/emea/uk"}, {"hr", "company", "sales/apac"}, {"nothing"}}

// modelPinned is pinned in TestModel's store: purges never take its items.
var modelPinned = "sales/emea"

var modelQueries = []string{"mail", "MAIL", "e-mail", "box", "strasse", "straße", "STRASSE", "ärger", "ÄRG", "école", "ECOLE", "ωmega", "ΩMEGA", "q3 mail", "2025", "v2", "patch security", "zz", "   ", "!!", "naïve", "ol", "öl", "Ö", "report mail budget",
	"会議室", "会議", "会社", "室", "説明会 会議室", "行います", "ｶﾞｲﾄﾞ", "ガイド", "かいど", "ＡＢＣ", "abc", "muller", "MÜLLER", "ß",
	"회의실", "회사", "ประชุม", "ห้อง", "北京", "开会讨论"}

func TestModel(t *testing.T) {
	// Small thresholds, so the search index also switches posting lists to
	// bitsets and compacts tombstones at this size.
	defer storage.SetIndexThresholds(8, 20)()
	rng := rand.New(rand.NewPCG(2025, 6))
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir, storage.NoSync(), storage.WithPinned(modelPinned))
	m := &model{items: map[uuid.UUID]*news.Item{}, read: map[uuid.UUID]bool{}, retracted: map[uuid.UUID]bool{}}
	var all []*news.Item // everything ever generated, for duplicates and re-ingest
	counts := map[uuid.UUID]uint64{}
	batches := 30
	if testing.Short() {
		batches = 5
	}
	for batch := range batches {
		// Inserts: a burst through Ingest (group commit), with duplicates
		// of stored and of purged items mixed in.
		var pending []<-chan error
		for range 40 + rng.IntN(80) {
			var it *news.Item
			switch r := rng.IntN(10); {
			case r < 8 || len(all) == 0:
				src := testSources[rng.IntN(len(testSources))]
				counts[src]++
				it = randomItem(t, rng, counts[src])
				it.Source = src
				all = append(all, it)
			default:
				it = all[rng.IntN(len(all))].Clone()
				it.Received = it.Received.Add(time.Minute) // a duplicate's own received time is ignored
			}
			if _, ok := m.items[it.ID]; !ok {
				m.items[it.ID] = it
				delete(m.read, it.ID)
			}
			pending = append(pending, s.Ingest(it))
		}
		for _, ch := range pending {
			if err := <-ch; err != nil {
				t.Fatal(err)
			}
		}
		// Mark read / unread, including IDs that are not stored.
		keys := slices.Collect(maps.Keys(m.items))
		slices.SortFunc(keys, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
		for range 3 {
			var sel []uuid.UUID
			for range rng.IntN(30) {
				sel = append(sel, keys[rng.IntN(len(keys))])
			}
			sel = append(sel, uuid.Must(news.NewID(time.Now())))
			read := rng.IntN(3) > 0
			want := 0
			seen := map[uuid.UUID]bool{}
			for _, id := range sel {
				if m.visible(id) && !seen[id] && m.read[id] != read {
					want++
				}
				seen[id] = true
				if m.visible(id) {
					m.read[id] = read
				}
			}
			var got int
			var err error
			if read {
				got, err = s.MarkRead(sel...)
			} else {
				got, err = s.MarkUnread(sel...)
			}
			if err != nil || got != want {
				t.Fatalf("batch %d: mark read=%v changed %d, want %d (err %v)", batch, read, got, want, err)
			}
		}
		if rng.IntN(3) == 0 {
			cat := []string{"", "sales", "it", "sales/emea", "salesforce"}[rng.IntN(5)]
			want := 0
			for id, it := range m.items {
				if (cat == "" || categories.Covers(cat, it.Category)) && !m.read[id] && !m.retracted[id] {
					m.read[id] = true
					want++
				}
			}
			if got, err := s.MarkAllRead(cat); err != nil || got != want {
				t.Fatalf("batch %d: MarkAllRead(%q) = %d, %v; want %d", batch, cat, got, err, want)
			}
		}
		// Retract: stored items (visible or already retracted), items
		// purged or generated but never stored (tombstones; the duplicate
		// path above may deliver them later), and items made up here
		// that arrive in a later batch.
		for range rng.IntN(12) {
			var id uuid.UUID
			switch r := rng.IntN(10); {
			case r < 6 && len(keys) > 0:
				id = keys[rng.IntN(len(keys))]
			case r < 8:
				id = all[rng.IntN(len(all))].ID
			default:
				src := testSources[rng.IntN(len(testSources))]
				counts[src]++
				it := randomItem(t, rng, counts[src])
				it.Source = src
				all = append(all, it)
				id = it.ID
			}
			_, stored := m.items[id]
			want := stored && !m.retracted[id]
			m.retracted[id] = true
			hidden, err := s.Retract(storage.Retraction{ItemID: id, Reason: "retracted in batch " + fmt.Sprint(batch)})
			if err != nil || hidden != want {
				t.Fatalf("batch %d: Retract(%s) = %v, %v; want %v", batch, short(id), hidden, err, want)
			}
		}
		// Purge the oldest part now and then.
		if rng.IntN(3) == 0 && len(m.items) > 0 {
			recv := make([]time.Time, 0, len(m.items))
			for _, it := range m.items {
				recv = append(recv, it.Received)
			}
			slices.SortFunc(recv, time.Time.Compare)
			cutoff := recv[rng.IntN(len(recv)*9/10+1)] // up to 90 %: enough to compact the index
			want := 0
			for id, it := range m.items {
				if it.Received.Before(cutoff) && !categories.Covers(modelPinned, it.Category) {
					delete(m.items, id)
					delete(m.read, id)
					want++
				}
			}
			if got, err := s.Purge(cutoff); err != nil || got != want {
				t.Fatalf("batch %d: Purge = %d, %v; want %d", batch, got, err, want)
			}
		}
		// Reopen now and then: the search index is rebuilt from the file.
		if batch%4 == 3 {
			storagetest.CheckAndClose(t, s, dir)
			s = storagetest.MustOpenDir(t, dir, storage.NoSync(), storage.WithPinned(modelPinned))
		}
		compareWithModel(t, batch, s, m, rng)
	}
}

func compareWithModel(t *testing.T, batch int, s *storage.Store, m *model, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	check := func(what string, got []storage.Entry, want []*news.Item) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("batch %d: %s: %d items, model %d", batch, what, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Item.ID != w.ID || g.Read != m.read[w.ID] || g.Item.Title != w.Title || g.Item.Body != w.Body ||
				g.Item.Category != w.Category || !g.Item.Received.Equal(w.Received) || !g.Item.Created.Equal(w.Created) ||
				g.Item.SourceCount != w.SourceCount || g.Item.Urgent != w.Urgent {
				t.Fatalf("batch %d: %s: item %d is %s (read %v), model %s (read %v)", batch, what, i, short(g.Item.ID), g.Read, short(w.ID), m.read[w.ID])
			}
		}
	}
	// Newest-N: walk every page.
	for _, cats := range modelCatSets {
		n := []int{1, 3, 7, 50}[rng.IntN(4)]
		var got []storage.Entry
		cur := storage.Cursor("")
		for pages := 0; ; pages++ {
			page, next, err := s.Newest(cats, n, cur)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > n || (next != "" && len(page) != n) {
				t.Fatalf("batch %d: page of %d with n=%d, next %q", batch, len(page), n, next)
			}
			got = append(got, page...)
			if next == "" {
				break
			}
			cur = next
		}
		check("newest "+strings.Join(cats, ","), got, m.sorted(cats))
	}
	// Counters.
	if got, err := s.UnreadCounts(); err != nil || !maps.Equal(got, m.unread()) {
		t.Fatalf("batch %d: unread counts %v, model %v (%v)", batch, got, m.unread(), err)
	}
	if got, err := s.ItemCounts(); err != nil || !maps.Equal(got, m.itemCounts()) {
		t.Fatalf("batch %d: item counts %v, model %v (%v)", batch, got, m.itemCounts(), err)
	}
	// Search, with and without a category filter, all pages, under each
	// query plan: posting lists only, text checks (with a budget that
	// sometimes runs out mid-walk), and the cost-based choice.
	mode := batch % 3
	defer storage.SetSearchPlan(mode, []int{2000, 2000, 5}[mode]+rng.IntN(3))()
	for _, q := range modelQueries {
		cats := modelCatSets[rng.IntN(len(modelCatSets))]
		if rng.IntN(2) == 0 {
			cats = nil
		}
		n := []int{2, 10, 1000}[rng.IntN(3)]
		var got []storage.Entry
		cur := storage.Cursor("")
		for {
			page, next, err := s.Search(ctx, q, cats, n, cur)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page...)
			if next == "" {
				break
			}
			cur = next
		}
		check(fmt.Sprintf("search %q in %v, plan %d", q, cats, mode), got, m.search(q, cats))
	}
	// Catch-up by source.
	for _, src := range testSources {
		after := uint64(rng.IntN(40))
		got, err := s.ItemsAfter(src, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := m.after(src, after)
		entries := make([]storage.Entry, len(got))
		for i, it := range got {
			entries[i] = storage.Entry{Item: it, Read: m.read[it.ID]}
		}
		check("items after", entries, want)
		if lim, _ := s.ItemsAfter(src, after, 2); len(lim) != min(2, len(want)) {
			t.Fatalf("batch %d: ItemsAfter limit 2 returned %d", batch, len(lim))
		}
		var high uint64
		for _, it := range m.after(src, 0) {
			high = max(high, it.SourceCount)
		}
		if got, _ := s.HighestStoredCount(src); got != high {
			t.Fatalf("batch %d: HighestStoredCount = %d, model %d", batch, got, high)
		}
	}
	// Get: some stored, some not.
	for id, it := range m.items {
		e, err := s.Get(id)
		if err != nil || e.Item.Title != it.Title || e.Read != m.read[id] || (e.Retracted != nil) != m.retracted[id] {
			t.Fatalf("batch %d: Get(%s) = %+v, %v", batch, short(id), e, err)
		}
		if rng.IntN(4) == 0 {
			break
		}
	}
	// Retraction records outlive their items.
	for id := range m.retracted {
		if r, err := s.Retracted(id); err != nil || r == nil || r.ItemID != id {
			t.Fatalf("batch %d: Retracted(%s) = %+v, %v", batch, short(id), r, err)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatalf("batch %d: %v", batch, err)
	}
}
