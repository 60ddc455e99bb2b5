package storage

import (
	"bytes"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
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
//     character, which would lose the order of the letters.
//   - Terms are cut to maxTermBytes at a rune boundary.
const maxTermBytes = 64

// bigramScripts are the scripts whose runs are indexed as bigrams.
var bigramScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai}

// foldCaser is stateless (cases.Fold's documentation), so it is shared.
var foldCaser = cases.Fold()

// tokenizer holds the buffers of one tokenization; tokenizers are pooled
// because the index calls it for every item it adds and search for every
// item it checks.
type tokenizer struct {
	text  []byte // folded text
	nfd   []byte
	run   []byte // the current bigram run
	marks []int  // rune starts in run, and len(run) at the end
}

var tokenizers = sync.Pool{New: func() any { return new(tokenizer) }}

// forEachWord calls fn with each term of text (see above) until fn returns
// false. The slice passed to fn is reused; fn must copy what it keeps.
func forEachWord(text string, fn func(w []byte) bool) {
	t := tokenizers.Get().(*tokenizer)
	defer tokenizers.Put(t)
	t.fold(text)
	t.each(fn)
}

// fold sets t.text to text folded.
func (t *tokenizer) fold(text string) {
	t.text = t.text[:0]
	ascii := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t.text = append(t.text, c)
	}
	if ascii {
		return
	}
	s := foldCaser.String(width.Fold.String(text))
	t.nfd = stripLatinMarks(norm.NFD.AppendString(t.nfd[:0], s))
	t.text = norm.NFC.Append(t.text[:0], t.nfd...)
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

// each calls fn with the terms of t.text.
func (t *tokenizer) each(fn func(w []byte) bool) {
	t.run, t.marks = t.run[:0], t.marks[:0]
	b, state := t.text, -1
	for len(b) > 0 {
		var seg []byte
		seg, b, state = uniseg.FirstWord(b, state)
		if !t.segment(seg, fn) {
			return
		}
	}
	t.flush(fn)
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
