package storage

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage/internal/itemgen"
)

func TestForEachWord(t *testing.T) {
	got := terms("Hello, WORLD! E-Mail über ÜBER Straße ΩMEGA naïve x2 __ " + strings.Repeat("ab", 40) + " " + strings.Repeat("é", 70))
	want := []string{"hello", "world", "e", "mail", "uber", "uber", "strasse", "ωmega", "naive", "x2", strings.Repeat("ab", 32), strings.Repeat("e", 64)}
	if !slices.Equal(got, want) {
		t.Errorf("words = %q\nwant %q", got, want)
	}
	// A combining mark on a Latin letter goes, as the precomposed letter's.
	if got := terms("nai\u0308ve"); !slices.Equal(got, []string{"naive"}) {
		t.Errorf("combining: %q", got)
	}
}

// TestMatchesQuery: the exported rule is Search's: every query word inside
// some word of the title or body, case folded; no words, no match.
func TestMatchesQuery(t *testing.T) {
	for _, c := range []struct {
		query, title, body string
		want               bool
	}{
		{"mail", "E-Mail down", "", true},
		{"MAIL down", "E-Mail down", "", true},
		{"e-mail,", "Mail for everyone", "", true}, // the words "e" and "mail"
		{"mail printer", "E-Mail down", "", false},
		{"mail printer", "E-Mail down", "The printer too.", true},
		{"email", "E-Mail down", "", false},
		{"straße", "Straßenbahn", "", true},
		{"", "anything", "", false},
		{" ,;", "anything", "", false},
	} {
		if got := MatchesQuery(c.query, c.title, c.body); got != c.want {
			t.Errorf("MatchesQuery(%q, %q, %q) = %v", c.query, c.title, c.body, got)
		}
	}
}

// TestIndexCompaction removes most documents, checks results before and
// after the compaction against brute force, and checks the compaction really
// happened.
func TestIndexCompaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := []string{"alpha", "beta", "gamma", "delta", "alphabet", "zeta", "eta"}
	d := newIndexData()
	type doc struct {
		id   uuid.UUID
		text string
		cat  string
	}
	var docs []doc
	for i := range 5000 {
		var w []string
		for range 1 + rng.IntN(5) {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		id, _ := news.NewID(news.IDTime(uuid.Nil).AddDate(30, 0, i))
		dc := doc{id: id, text: strings.Join(w, " "), cat: []string{"a", "a/b", "c"}[i%3]}
		docs = append(docs, dc)
		d.apply([]indexOp{{doc: indexDoc{id: dc.id, category: dc.cat, title: dc.text}}})
	}
	alive := map[uuid.UUID]bool{}
	for _, dc := range docs {
		alive[dc.id] = true
	}
	brute := func(q string, cats []string) []uuid.UUID {
		var out []uuid.UUID
		for i := len(docs) - 1; i >= 0; i-- {
			dc := docs[i]
			if alive[dc.id] && strings.Contains(dc.text, q) && (cats == nil || slices.Contains(cats, dc.cat)) {
				out = append(out, dc.id)
			}
		}
		return out
	}
	query := func(q string, cats []string) []uuid.UUID {
		ids, _ := d.search([]string{q}, cats, uuid.Max, len(docs)+1, nil)
		return ids
	}
	compare := func(stage string) {
		for _, q := range []string{"alpha", "eta", "bet", "zeta", "omega"} {
			for _, cats := range [][]string{nil, {"a/b"}} {
				if got, want := query(q, cats), brute(q, cats); !slices.Equal(got, want) {
					t.Fatalf("%s: %q in %v: %d results, want %d", stage, q, cats, len(got), len(want))
				}
			}
		}
	}
	compare("before removals")
	// Remove in two steps so that compaction triggers in the second.
	var ops []indexOp
	for i, dc := range docs {
		if i%4 != 0 {
			ops = append(ops, indexOp{remove: true, doc: indexDoc{id: dc.id}})
			delete(alive, dc.id)
		}
		if i == len(docs)/3 {
			d.apply(ops)
			ops = nil
			if d.dead == 0 {
				t.Fatalf("compacted too early")
			}
			compare("with tombstones")
		}
	}
	d.apply(ops)
	if d.dead != 0 || len(d.docs) != len(alive) {
		t.Fatalf("not compacted: %d dead, %d docs, %d alive", d.dead, len(d.docs), len(alive))
	}
	compare("after compaction")
	// Re-adding a removed document works and is found.
	d.apply([]indexOp{{doc: indexDoc{id: docs[1].id, category: docs[1].cat, title: docs[1].text}}})
	alive[docs[1].id] = true
	compare("after re-adding")
}

func benchDocs(n int) []indexDoc {
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make([]indexDoc, n)
	for i := range docs {
		it := itemgen.Item(rng, uuid.New(), 1, time.Now())
		docs[i] = indexDoc{id: it.ID, category: it.Category, title: it.Title, body: it.Body}
	}
	return docs
}

// BenchmarkTokenize: splitting and folding one realistic body.
func BenchmarkTokenize(b *testing.B) {
	docs := benchDocs(1000)
	words, i := 0, 0
	for b.Loop() {
		forEachWord(docs[i%len(docs)].body, func([]byte) bool { words++; return true })
		i++
	}
	b.ReportMetric(float64(words)/float64(b.N), "words/op")
}

// BenchmarkIndexAdd: adding one realistic item to an index that grows to
// 20,000 items (then starts over).
func BenchmarkIndexAdd(b *testing.B) {
	docs := benchDocs(20000)
	d := newIndexData()
	i := 0
	for b.Loop() {
		if i%len(docs) == 0 {
			d = newIndexData()
		}
		d.add(docs[i%len(docs)])
		i++
	}
}

// TestDensePostings grows posting lists across the switch to bitsets, one
// document at a time, and checks every query against brute force, including
// the moments the document count is a multiple of 64.
func TestDensePostings(t *testing.T) {
	d := newIndexData()
	var ids []uuid.UUID
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 * 1024 {
		id, _ := news.NewID(base.Add(time.Duration(i) * time.Second))
		ids = append(ids, id)
		text := "common"
		if i%3 == 0 {
			text += " third"
		}
		d.apply([]indexOp{{doc: indexDoc{id: id, category: "a", title: text}}})
		if i%61 == 0 || i%64 == 63 || i == 3*1024-1 {
			for _, q := range []string{"common", "third", "mon"} {
				got, err := d.search([]string{q}, nil, uuid.Max, i+2, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				for j := 0; j <= i; j++ {
					if q != "third" || j%3 == 0 {
						want++
					}
				}
				if len(got) != want || got[0] != ids[i-(i%3)*btoi(q == "third")] {
					t.Fatalf("after %d docs: %q found %d, want %d", i+1, q, len(got), want)
				}
			}
		}
	}
	if tid, _ := d.dict.lookup([]byte("common")); d.posts[tid].bits == nil {
		t.Errorf("common word did not become dense")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
