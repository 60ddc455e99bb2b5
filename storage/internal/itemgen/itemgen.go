// Package itemgen makes realistic news items for storage tests and
// benchmarks: titles of about 60 characters and bodies of 1-2 KB of
// word-like text with a skewed (Zipf-like) vocabulary, a sprinkling of
// numbers (ticket numbers, amounts) and Markdown.
package itemgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// Categories are the categories items are spread over.
var Categories = []string{"company", "it", "hr", "facilities", "sales", "sales/emea", "sales/americas", "sales/apac"}

var syllables = []string{"ka", "ro", "mi", "te", "sa", "lo", "ne", "vi", "du", "pe", "an", "or", "qu", "is", "el", "ba"}

// Word returns a made-up word. Words are drawn from a 50,000-word
// vocabulary with Zipf's law (s = 1.1), the rank-frequency shape of natural
// language: a few hundred words make up half of any text, and most of the
// vocabulary is rare. About one word in a hundred is a number (ticket
// numbers, amounts), which, as in real news, adds a long tail of distinct
// terms.
func Word(rng *rand.Rand) string {
	if rng.IntN(100) == 0 {
		return strconv.Itoa(rng.IntN(1000000))
	}
	n := int(zipf(rng).Uint64())
	var b strings.Builder
	for {
		b.WriteString(syllables[n%len(syllables)])
		n /= len(syllables)
		if n == 0 {
			break
		}
	}
	return b.String()
}

// zipf returns the Zipf generator bound to rng (one per generator, since a
// rand.Zipf keeps its source). Generators may run in several goroutines,
// each with its own rng.
func zipf(rng *rand.Rand) *rand.Zipf {
	zipfMu.Lock()
	defer zipfMu.Unlock()
	z, ok := zipfs[rng]
	if !ok {
		z = rand.NewZipf(rng, 1.1, 1, 49999)
		zipfs[rng] = z
	}
	return z
}

var (
	zipfMu sync.Mutex
	zipfs  = map[*rand.Rand]*rand.Zipf{}
)

// Text returns about n bytes of words; markdown adds some emphasis and
// paragraph breaks.
func Text(rng *rand.Rand, n int, markdown bool) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			if markdown && rng.IntN(40) == 0 {
				b.WriteString(".\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		w := Word(rng)
		if markdown && rng.IntN(30) == 0 {
			w = "**" + w + "**"
		}
		b.WriteString(w)
	}
	return b.String()
}

// Item returns a valid item in a random category from source with the given
// communication count, created at now.
func Item(rng *rand.Rand, source uuid.UUID, count uint64, now time.Time) *news.Item {
	title := Text(rng, 55+rng.IntN(10), false)
	if len(title) > 80 {
		title = title[:80]
	}
	it, err := news.NewItem(Categories[rng.IntN(len(Categories))], strings.ToUpper(title[:1])+title[1:],
		Text(rng, 1000+rng.IntN(1000), true), "Newsroom", source, now)
	if err != nil {
		panic(err) // the generator only makes valid items
	}
	it.SourceCount = count
	it.Urgent = rng.IntN(50) == 0
	return it
}
