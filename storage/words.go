package storage

import (
	"bytes"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Terms, as search sees them. Index and query make them with the same
// function, so they always agree.
//
//   - Text is folded first: width (full-width Ａ is A, half-width ｶ is カ),
//     full Unicode case folding (ß is ss, so STRASSE finds Straße), and
//     diacritics after a Latin letter dropped (Müller is muller). Marks on
//     other scripts stay: が and か, or й and и, are different letters.
//   - Words are Unicode word segments (UAX #29) that hold a letter or a
//     digit, so "can't" and "3.14" are one word each, "E-Mail" two.
//   - Scripts written without spaces between words cannot be split into
//     words without a dictionary. Runs of Han, Hiragana, Katakana and
//     Hangul become overlapping bigrams, as Lucene's CJK analyzer does:
//     「会議室で」 gives 会議, 議室, 室で. A single character alone stays a
//     unigram. Hangul is written with spaces, but its words carry
//     particles (회의실에서), so bigrams find a stem inside them. Thai is
//     indexed as bigrams too: UAX #29 has no rule for Thai words (that
//     needs a dictionary), so uniseg returns a Thai run character by
//     character, and single characters as terms would let "ไทย" find any
//     text with those three letters anywhere. Lao, Khmer and Myanmar are
//     written and segmented the same way.
//   - Terms are cut to maxTermBytes at a rune boundary.
const maxTermBytes = 64

// bigramScripts are the scripts whose runs are indexed as bigrams.
var bigramScripts = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// foldCaser is stateless (cases.Fold's documentation), so it is shared.
var foldCaser = cases.Fold()

// tokenizer holds the buffers of one tokenization; tokenizers are pooled
// because the index calls it for every item it adds and search for every
// item it checks.
type tokenizer struct {
	word  []byte // a lower-cased ASCII word
	text  []byte // a folded chunk
	a, b  []byte // folding steps
	iter  norm.Iter
	run   []byte // the current bigram run
	marks []int  // rune starts in run, and len(run) at the end
}

var tokenizers = sync.Pool{New: func() any { return new(tokenizer) }}

// forEachWord calls fn with each term of text (see above) until fn returns
// false. The slice passed to fn is reused; fn must copy what it keeps.
func forEachWord(text string, fn func(w []byte) bool) {
	t := tokenizers.Get().(*tokenizer)
	defer tokenizers.Put(t)
	t.each(text, fn)
}

// fold sets t.text to text folded. ASCII only needs lower-casing, so only
// the stretches with other bytes go through x/text, each with the ASCII
// byte before it: that may be the base of a combining mark. Splitting
// before an ASCII byte that another follows changes nothing: the folds map
// each rune on its own, and normalization combines nothing with an ASCII
// byte that no mark follows.
func (t *tokenizer) fold(text string) {
	out := t.text[:0]
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && (i+1 == len(text) || text[i+1] < utf8.RuneSelf) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] >= utf8.RuneSelf || j+1 < len(text) && text[j+1] >= utf8.RuneSelf) {
			j++
		}
		out = t.foldStretch(out, text[i:j])
		i = j
	}
	t.text = out
}

// foldStretch appends s folded to dst. Each step runs only when its Span
// says it would change something: Han and kana pass all of them as is.
func (t *tokenizer) foldStretch(dst []byte, s string) []byte {
	// Lower-case ASCII here, so that the case fold below need not run
	// over a run of kana for the one Latin capital in it.
	a, b := append(t.a[:0], s...), t.b[:0]
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			a[i] = c + 'a' - 'A'
		}
	}
	if n, _ := width.Fold.Span(a, true); n < len(a) {
		b = appendTransform(b[:0], width.Fold, a)
		a, b = b, a
	}
	if n, _ := foldCaser.Span(a, true); n < len(a) {
		b = appendTransform(b[:0], foldCaser, a)
		a, b = b, a
	}
	if hasLatinMarks(a) {
		b = stripLatinMarks(t.normalize(b[:0], norm.NFD, a))
		a, b = b, a
	}
	t.a, t.b = a, b
	if norm.NFC.QuickSpan(a) == len(a) {
		return append(dst, a...)
	}
	return t.normalize(dst, norm.NFC, a)
}

// normalize appends src in form f to dst. It goes through t.iter because
// Form.Append allocates its buffer of a few hundred bytes on every call.
func (t *tokenizer) normalize(dst []byte, f norm.Form, src []byte) []byte {
	t.iter.Init(f, src)
	for !t.iter.Done() {
		dst = append(dst, t.iter.Next()...)
	}
	return dst
}

// appendTransform appends src transformed by tr to dst.
func appendTransform(dst []byte, tr transform.Transformer, src []byte) []byte {
	tr.Reset()
	for {
		dst = slices.Grow(dst, len(src)+utf8.UTFMax)
		nDst, nSrc, err := tr.Transform(dst[len(dst):cap(dst)], src, true)
		dst, src = dst[:len(dst)+nDst], src[nSrc:]
		if err != transform.ErrShortDst {
			// Done, or an error the folds do not return; keep the
			// rest unfolded rather than lose it.
			return append(dst, src...)
		}
	}
}

// hasLatinMarks reports whether s has a Latin letter outside ASCII (which
// may decompose into a letter and marks) or a nonspacing mark after a Latin
// letter: whether stripLatinMarks would change its decomposition.
func hasLatinMarks(s []byte) bool {
	latin := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		i += size
		if r < utf8.RuneSelf {
			latin = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
			continue
		}
		if unicode.Is(unicode.Mn, r) {
			if latin {
				return true
			}
			continue
		}
		if latin = unicode.Is(unicode.Latin, r); latin {
			return true
		}
	}
	return false
}

// stripLatinMarks removes, in place, the nonspacing marks of decomposed
// text that follow a Latin letter.
func stripLatinMarks(b []byte) []byte {
	out := b[:0]
	latin := false
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unicode.Is(unicode.Mn, r) {
			if !latin {
				out = append(out, b[i:i+size]...)
			}
		} else {
			latin = unicode.Is(unicode.Latin, r)
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// Byte classes for cutting text into chunks (see each).
const (
	byteOther = iota // punctuation that may join words, and bytes of non-ASCII runes
	byteWord         // ASCII letters and digits
	byteHard         // hard separators
)

// byteClass classifies every byte. A hard separator is an ASCII byte at
// which UAX #29 always ends a word, whatever comes before, as long as an
// ASCII byte or the end of the text follows (a combining mark after it
// would attach to it): space, most punctuation, but not "'", ".", ":",
// ",", ";" or "_", which join letters or digits on both sides. The rules
// are not copied here: uniseg is asked, for each byte between two letters
// and between two digits.
var byteClass = func() (t [256]uint8) {
	for c := range utf8.RuneSelf {
		if isWordRune(rune(c)) {
			t[c] = byteWord
			continue
		}
		t[c] = byteHard
		for _, x := range []string{"a", "1"} {
			for _, y := range []string{"a", "1"} {
				w, rest, state := uniseg.FirstWordInString(x+string(rune(c))+y, -1)
				if w != x {
					t[c] = byteOther
				}
				if w, _, _ = uniseg.FirstWordInString(rest, state); w != string(rune(c)) {
					t[c] = byteOther
				}
			}
		}
	}
	return t
}()

// each calls fn with the terms of text.
//
// uniseg and x/text made tokenizing ASCII text nine times slower than the
// split at non-letters before them, so text is first cut at hard
// separators into chunks, and a chunk of ASCII letters and
// digits alone, most of news text, is a word that only needs lower-casing.
// Other chunks are folded and segmented one by one. Cutting at a hard
// separator changes neither: no word-break rule looks across it, and
// folding an ASCII byte before an ASCII byte depends on nothing around it.
func (t *tokenizer) each(text string, fn func(w []byte) bool) {
	t.run, t.marks = t.run[:0], t.marks[:0]
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && byteClass[text[j]] == byteWord {
			j++
		}
		if hardAt(text, j) {
			if j > i {
				w := append(t.word[:0], text[i:min(j, i+maxTermBytes)]...)
				for k := range w {
					w[k] |= 'a' - 'A' // lower-cases a letter, keeps a digit
				}
				t.word = w
				if !fn(w) {
					return
				}
			}
			i = j + 1
			continue
		}
		for !hardAt(text, j) {
			j++
		}
		if !t.chunk(text[i:j], fn) {
			return
		}
		i = j + 1
	}
}

// hardAt reports whether text ends before i or has a hard separator at i
// (one followed by an ASCII byte or the end).
func hardAt(text string, i int) bool {
	return i >= len(text) || byteClass[text[i]] == byteHard && (i+1 == len(text) || text[i+1] < utf8.RuneSelf)
}

// chunk folds and segments one chunk of text and passes on its terms.
func (t *tokenizer) chunk(s string, fn func(w []byte) bool) bool {
	t.fold(s)
	b, state := t.text, -1
	// Folding often leaves one plain word ("Müller" is muller).
	if !slices.ContainsFunc(b, func(c byte) bool { return byteClass[c] != byteWord }) {
		return fn(truncateWord(b))
	}
	for len(b) > 0 {
		var seg []byte
		seg, b, state = uniseg.FirstWord(b, state)
		if !t.segment(seg, fn) {
			return false
		}
	}
	return t.flush(fn)
}

// segment passes on the words of one word segment. A segment may hold a
// bigram run and other letters (ExtendNumLet joins them: "abc_カナ"), and a
// run goes on across segments, since UAX #29 puts a boundary after every
// ideograph.
func (t *tokenizer) segment(seg []byte, fn func(w []byte) bool) bool {
	start, word := 0, false // the part of seg outside bigram runs
	for i := 0; i < len(seg); {
		r, size := rune(seg[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(seg[i:])
		}
		if r >= utf8.RuneSelf && t.inRun(r) {
			if i > start && word && !fn(truncateWord(seg[start:i])) {
				return false
			}
			t.marks = append(t.marks, len(t.run))
			t.run = append(t.run, seg[i:i+size]...)
			i += size
			start, word = i, false
			continue
		}
		if len(t.run) > 0 && !t.flush(fn) {
			return false
		}
		if !word {
			word = isWordRune(r)
		}
		i += size
	}
	if len(seg) > start && word {
		return fn(truncateWord(seg[start:]))
	}
	return true
}

// inRun reports whether r belongs to a bigram run: a letter of a bigram
// script, or a mark or modifier letter of no script that continues one
// (the prolonged sound mark ー, the combining voiced sound mark).
func (t *tokenizer) inRun(r rune) bool {
	if unicode.IsOneOf(bigramScripts, r) {
		return true
	}
	return len(t.run) > 0 && unicode.In(r, unicode.Common, unicode.Inherited) && unicode.In(r, unicode.Lm, unicode.M)
}

// flush passes on the bigrams of the current run.
func (t *tokenizer) flush(fn func(w []byte) bool) bool {
	n := len(t.marks)
	if n == 0 {
		return true
	}
	t.marks = append(t.marks, len(t.run))
	ok := true
	if n == 1 {
		ok = fn(t.run)
	}
	for i := 0; ok && i+1 < n; i++ {
		ok = fn(t.run[t.marks[i]:t.marks[i+2]])
	}
	t.run, t.marks = t.run[:0], t.marks[:0]
	return ok
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// truncateWord cuts w to at most maxTermBytes at a rune boundary.
func truncateWord(w []byte) []byte {
	if len(w) <= maxTermBytes {
		return w
	}
	i := maxTermBytes
	for i > 0 && !utf8.RuneStart(w[i]) {
		i--
	}
	return w[:i]
}

// queryTerms returns the distinct terms of a query.
func queryTerms(q string) []string {
	var terms []string
	forEachWord(q, func(w []byte) bool {
		if !slices.Contains(terms, string(w)) {
			terms = append(terms, string(w))
		}
		return true
	})
	return terms
}

// MatchesQuery reports whether an item with these texts (its title and
// body) matches query by Search's rule: every term of the query occurs
// inside some term of the texts. A query without terms matches nothing, as
// in Search. It checks the rule directly, without the index: for models of
// Search such as the UI's in-memory backend.
func MatchesQuery(query string, texts ...string) bool {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return false
	}
	bs := make([][]byte, len(terms))
	for i, t := range terms {
		bs[i] = []byte(t)
	}
	return containsAll(bs, texts...)
}

// containsAll reports whether every term occurs inside some term of the
// texts: the search rule, applied to one item's text directly.
func containsAll(terms [][]byte, texts ...string) bool {
	found := make([]bool, len(terms))
	left := len(terms)
	for _, text := range texts {
		forEachWord(text, func(w []byte) bool {
			for i, q := range terms {
				if !found[i] && bytes.Contains(w, q) {
					found[i] = true
					left--
				}
			}
			return left > 0
		})
		if left == 0 {
			return true
		}
	}
	return false
}
