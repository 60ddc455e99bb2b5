package ui

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A bare URL is an http or https URL written as plain text, without
// Markdown link syntax. The reader links it as chat and mail clients do:
//
//   - it starts with http:// or https:// (any case) at the start of a run
//     of text, after white space, an opening bracket or quotation mark, or
//     one of * _ ~ " ' — so "javascript:https://…", "xhttps://…" and
//     "!https://…" (which would read as an image) are not linked;
//   - it runs to white space, a control or format character (a bidi
//     override, say), one of < > " ` or a Unicode quotation mark; a
//     backslash escape (\_) stands for the character it escapes, any
//     other backslash ends the URL;
//   - trailing punctuation (? ! . , : ; * _ ~ ' and Unicode punctuation)
//     is not part of it, nor is a closing ) or ] that has no opening one
//     in the URL: "(see https://example.com/a)." links
//     https://example.com/a, "(https://en.wikipedia.org/wiki/Go_(language))"
//     links …/Go_(language);
//   - what remains must parse as a URL with a host name or an IP address,
//     an optional numeric port, and no user name: "https://a@b" reads as
//     one site and leads to another, so it stays plain text.
//
// A run whose first URL is malformed is left plain to its end, so every
// byte is looked at a fixed number of times: the scan is linear in the
// length of the text. www.example.com without a scheme stays plain text:
// guessing http or https is not the reader's business.

// urlSpan is a bare URL found in text.
type urlSpan struct {
	Start, End int      // text[Start:End] is the URL as written
	Text       string   // what the reader shows: the URL with backslash escapes resolved
	URL        *url.URL // where the link leads
}

// findURLs returns the bare URLs in text (a run of Markdown inline text,
// code excluded), in order.
func findURLs(text string) []urlSpan {
	var out []urlSpan
	for i := 0; i < len(text); {
		c := text[i]
		if (c != 'h' && c != 'H') || !urlStarts(text, i) {
			i++
			continue
		}
		end, plain, escapes := scanURL(text, i)
		if n := trimURL(plain); n > 0 {
			if u := validURL(plain[:n]); u != nil {
				raw := n // plain[:n] as written: an escaped character is two bytes
				for _, e := range escapes {
					if e < n {
						raw++
					}
				}
				out = append(out, urlSpan{Start: i, End: i + raw, Text: plain[:n], URL: u})
			}
		}
		i = end // what follows a malformed URL up to its end stays plain
	}
	return out
}

// urlStarts reports whether a bare URL starts at text[i].
func urlStarts(text string, i int) bool {
	rest := text[i:]
	if !hasPrefixFold(rest, "http://") && !hasPrefixFold(rest, "https://") {
		return false
	}
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r) || strings.ContainsRune("*_~\"'", r) || unicode.In(r, unicode.Ps, unicode.Pi)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// scanURL reads the URL candidate starting at text[i]: it returns where
// the candidate ends in text, the candidate with backslash escapes
// resolved, and the offsets in plain of the escaped characters.
func scanURL(text string, i int) (end int, plain string, escapes []int) {
	var b []byte // plain, once an escape makes it differ from text
	j := i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if r == '\\' {
			if j+1 < len(text) && isASCIIPunct(text[j+1]) && !endsURL(rune(text[j+1])) {
				if b == nil {
					b = []byte(text[i:j])
				}
				escapes = append(escapes, len(b))
				b = append(b, text[j+1])
				j += 2
				continue
			}
			break
		}
		if r == utf8.RuneError && size <= 1 || endsURL(r) {
			break
		}
		if b != nil {
			b = append(b, text[j:j+size]...)
		}
		j += size
	}
	if b == nil {
		return j, text[i:j], nil
	}
	return j, string(b), escapes
}

// endsURL reports whether r cannot be part of a bare URL.
func endsURL(r rune) bool {
	switch {
	case r == '<' || r == '>' || r == '"' || r == '`':
		return true
	case r < utf8.RuneSelf:
		return r <= ' ' || r == 0x7f
	}
	return unicode.IsSpace(r) || !unicode.IsGraphic(r) || unicode.In(r, unicode.Pi, unicode.Pf)
}

// isASCIIPunct reports whether a backslash escapes c (CommonMark's ASCII
// punctuation).
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// trimURL returns the length of u without its trailing punctuation.
func trimURL(u string) int {
	parens := strings.Count(u, ")") - strings.Count(u, "(")
	brackets := strings.Count(u, "]") - strings.Count(u, "[")
	n := len(u)
	for n > 0 {
		r, size := utf8.DecodeLastRuneInString(u[:n])
		switch {
		case r == ')' && parens > 0:
			parens--
		case r == ']' && brackets > 0:
			brackets--
		case r == ')' || r == ']':
			return n // balanced: part of the URL
		case strings.ContainsRune(trailingPunct, r), r >= utf8.RuneSelf && unicode.IsPunct(r):
		default:
			return n
		}
		n -= size
	}
	return 0
}

// trailingPunct ends a sentence or quotes rather than ends a URL.
const trailingPunct = "?!.,:;*_~'\\\""

// validURL parses s as the target of a bare link, or returns nil.
func validURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil {
		return nil
	}
	if strings.Contains(s, `\`) { // a browser reads it as /, url.Parse does not
		return nil
	}
	host := u.Hostname()
	if host == "" || strings.HasSuffix(u.Host, ":") {
		return nil
	}
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return nil
		}
		return u
	}
	for k, r := range host {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
		case k > 0 && (r == '-' || r == '.' || r == '_' || unicode.IsMark(r)):
		default:
			return nil
		}
	}
	return u
}
