package storage

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Words, as search sees them: maximal runs of Unicode letters, digits and
// combining marks, lower-cased rune by rune with unicode.ToLower (the
// mapping strings.ToLower applies), and cut to maxTermBytes at a rune
// boundary. Index and query use the same function, so they always agree.
const maxTermBytes = 64

// queryTerms returns the distinct words of a query.
func queryTerms(q string) []string {
	var terms []string
	var buf []byte
	forEachWord(q, &buf, func(w []byte) bool {
		if !slices.Contains(terms, string(w)) {
			terms = append(terms, string(w))
		}
		return true
	})
	return terms
}

// MatchesQuery reports whether an item with these texts (its title and
// body) matches query by Search's rule: every word of the query occurs
// inside some word of the texts. A query without words matches nothing, as
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

// asciiWord marks the ASCII bytes that belong to words.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// forEachWord calls fn with each folded, truncated word of text until fn
// returns false. The slice passed to fn is reused; fn must copy what it
// keeps. ASCII takes a fast
// path: news text is mostly ASCII, and this loop is a good part of the cost
// of building the index.
func forEachWord(text string, buf *[]byte, fn func(w []byte) bool) {
	i := 0
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		w := (*buf)[:0]
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				w = append(w, c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			w = utf8.AppendRune(w, unicode.ToLower(r))
			i += size
		}
		*buf = w
		if !fn(truncateWord(w)) {
			return
		}
	}
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

// containsAll reports whether every term occurs inside some word of the
// texts: the search rule, applied to one item's text directly.
func containsAll(terms [][]byte, texts ...string) bool {
	found := make([]bool, len(terms))
	left := len(terms)
	var buf []byte
	for _, text := range texts {
		forEachWord(text, &buf, func(w []byte) bool {
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
