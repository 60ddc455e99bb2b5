package storage_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// testVocabulary mixes plain words, words that contain others ("mail",
// "e-mail", "mailbox"), and non-ASCII words with case pairs, so searches
// exercise substring and Unicode folding, and scripts written without
// spaces (runs of several of those words, joined, are whole sentences).
var testVocabulary = strings.Fields(`
	mail mailbox e-mail email report reports quarterly forecast budget office
	server outage network printer meeting agenda holiday parking canteen
	release update security patch password badge training Straße STRASSE
	Ärger ärgerlich ÉCOLE école Ωmega ωmega naïve Zürich 2025 q3 v2 alpha beta
	ÖL öl Müller MULLER ＡＢＣ abc
	新しい勤怠システムの説明会は午後三時から会議室Aで行います。 会社 会議 ガイド ｶﾞｲﾄﾞﾗｲﾝ がいど
	我们明天在北京开会讨论预算。 내일 회의실에서 예산을 논의합니다. พรุ่งนี้เราจะประชุมที่ห้องใหญ่`)

var testCategories = []string{"company", "it", "hr", "sales", "sales/emea", "sales/emea/uk", "sales/apac", "salesforce"}

// sources used by generated items.
var testSources = []uuid.UUID{
	uuid.MustParse("00000000-0000-4000-8000-000000000001"),
	uuid.MustParse("00000000-0000-4000-8000-000000000002"),
	uuid.MustParse("00000000-0000-4000-8000-000000000003"),
}

func words(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = testVocabulary[rng.IntN(len(testVocabulary))]
	}
	return strings.Join(w, " ")
}

// randomItem makes a valid item created at a random time in 2025 and
// received a little later.
func randomItem(tb testing.TB, rng *rand.Rand, count uint64) *news.Item {
	tb.Helper()
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))
	it, err := news.NewItem(
		testCategories[rng.IntN(len(testCategories))],
		words(rng, 1+rng.IntN(6)),
		words(rng, rng.IntN(40))+"\n\n*"+words(rng, 3)+"*",
		"Author "+words(rng, 1),
		testSources[rng.IntN(len(testSources))],
		created,
	)
	if err != nil {
		tb.Fatal(err)
	}
	it.SourceCount = count
	it.Urgent = rng.IntN(10) == 0
	it.Received = created.Add(time.Duration(rng.Int64N(int64(time.Hour))))
	return it
}

func mustOpen(t testing.TB, opts ...storage.Option) *storage.Store {
	t.Helper()
	return storagetest.MustOpen(t, opts...)
}

func ids(entries []storage.Entry) []uuid.UUID {
	out := make([]uuid.UUID, len(entries))
	for i, e := range entries {
		out[i] = e.Item.ID
	}
	return out
}

func short(id uuid.UUID) string { return fmt.Sprintf("%x", id[:6]) }
