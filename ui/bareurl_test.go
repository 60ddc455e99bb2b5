package ui

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// The rules of bareurl.go, one test each, on findURLs alone; the same
// rules through the Markdown renderer and the reader are in
// markdown_test.go.

// urlCase is a text and the link texts findURLs should find in it.
type urlCase struct {
	text string
	want []string
}

func checkURLs(t *testing.T, cases []urlCase) {
	t.Helper()
	for _, c := range cases {
		var got []string
		for _, u := range findURLs(c.text) {
			got = append(got, u.Text)
			if u.URL.String() == "" || !strings.EqualFold(u.URL.Scheme, u.Text[:len(u.URL.Scheme)]) {
				t.Errorf("%q: %q leads to %v", c.text, u.Text, u.URL)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: links %q, want %q", c.text, got, c.want)
		}
	}
}

// TestFindURLsHTTPAndHTTPS: http and https URLs in text are found
// wherever a word can start, whatever the case of the scheme, with ports,
// IP addresses, queries, fragments and non-ASCII paths; the span is the
// URL as written.
func TestFindURLsHTTPAndHTTPS(t *testing.T) {
	checkURLs(t, []urlCase{
		{"https://example.com", []string{"https://example.com"}},
		{"see https://example.com/a_b_c?q=1&r=2#top now", []string{"https://example.com/a_b_c?q=1&r=2#top"}},
		{"HTTP://EXAMPLE.COM/X and Https://example.com", []string{"HTTP://EXAMPLE.COM/X", "Https://example.com"}},
		{"two:\thttp://localhost:8080/x\nhttps://192.168.0.1/", []string{"http://localhost:8080/x", "https://192.168.0.1/"}},
		{"v6 http://[2001:db8::1]:80/ ok", []string{"http://[2001:db8::1]:80/"}},
		{"https://de.wikipedia.org/wiki/Straße und https://例え.テスト/パス", []string{"https://de.wikipedia.org/wiki/Straße", "https://例え.テスト/パス"}},
		{"*https://a.example _https://b.example ~https://c.example", []string{"https://a.example", "https://b.example", "https://c.example"}},
		{"https://a.example/?u=https://b.example", []string{"https://a.example/?u=https://b.example"}},
	})
	got := findURLs("see https://example.com/a. ok")
	if len(got) != 1 || got[0].Start != 4 || got[0].End != 25 || got[0].URL.Host != "example.com" {
		t.Errorf("span %+v, want [4, 25) to example.com", got)
	}
}

// TestFindURLsTrailingPunctuation: punctuation that ends a sentence or a
// quotation is not part of the URL; inside it, it is.
func TestFindURLsTrailingPunctuation(t *testing.T) {
	checkURLs(t, []urlCase{
		{"see https://example.com/a.", []string{"https://example.com/a"}},
		{"https://example.com/a?! Really, https://example.com/b, and https://example.com/c;", []string{"https://example.com/a", "https://example.com/b", "https://example.com/c"}},
		{"at https://example.com/a: and https://example.com/b...", []string{"https://example.com/a", "https://example.com/b"}},
		{"'https://example.com/a' or *https://example.com/b* or _https://example.com/c_", []string{"https://example.com/a", "https://example.com/b", "https://example.com/c"}},
		{"https://example.com/a.b,c;d!e?f=g", []string{"https://example.com/a.b,c;d!e?f=g"}},
		{"https://example.com/a/ https://example.com/#x https://example.com/a-", []string{"https://example.com/a/", "https://example.com/#x", "https://example.com/a-"}},
		{"https://example.com/a。 https://example.com/b…", []string{"https://example.com/a", "https://example.com/b"}},
	})
}

// TestFindURLsParentheses: a closing parenthesis or bracket is part of
// the URL when the URL opened it, and left out when it closes text around
// the URL.
func TestFindURLsParentheses(t *testing.T) {
	checkURLs(t, []urlCase{
		{"(https://en.wikipedia.org/wiki/Go_(language))", []string{"https://en.wikipedia.org/wiki/Go_(language)"}},
		{"https://en.wikipedia.org/wiki/Go_(language)", []string{"https://en.wikipedia.org/wiki/Go_(language)"}},
		{"(see https://example.com/a).", []string{"https://example.com/a"}},
		{"(see https://example.com/a)).", []string{"https://example.com/a"}},
		{"[https://example.com/a] [https://example.com/b[1]]", []string{"https://example.com/a", "https://example.com/b[1]"}},
		{"https://example.com/a(b", []string{"https://example.com/a(b"}},
	})
}

// TestFindURLsOtherSchemes: only http and https are linked: not
// javascript:, file:, ftp: or mailto:, not a scheme glued to a word, and
// not www. without a scheme.
func TestFindURLsOtherSchemes(t *testing.T) {
	checkURLs(t, []urlCase{
		{"javascript:alert(1) file:///etc/passwd ftp://example.com mailto:a@example.com data:text/html,x", nil},
		{"javascript:https://example.com xhttps://example.com 1http://example.com", nil},
		{"/https://example.com .https://example.com !https://example.com", nil},
		{"www.example.com and example.com", nil},
		{"httpx://example.com http:/example.com https:example.com", nil},
	})
}

// TestFindURLsMalformed: what does not parse as a URL with a host is not
// linked, and never panics; a URL with a user name is not linked (it
// reads as one site and leads to another).
func TestFindURLsMalformed(t *testing.T) {
	checkURLs(t, []urlCase{
		{"https:// http://", nil},
		{"https://. https://... https://:80 https://-x.example", nil},
		{"http://[::1 http://[::1]x http://[fe80::1%25eth0]/ http://[nothost]/", nil},
		{"https://example.com:abc https://example.com:80:80 https://example.com:x/", nil},
		{"https://good.example@evil.example/ https://user:pw@example.com", nil},
		{"https://exa%2Fmple.com https://a..b%zz", nil},
		{"https://\xff.example", nil},
		{"https://example\xff.com", []string{"https://example"}}, // invalid UTF-8 ends a URL as a space does
		{"https://example.com\\@evil.example/", nil},             // \@ is an escaped @: a user name
	})
}

// TestFindURLsEscapesAndUnicode: a Markdown backslash escape stands for
// the character it escapes; a bidi control, a quotation mark or a
// control character ends the URL.
func TestFindURLsEscapesAndUnicode(t *testing.T) {
	checkURLs(t, []urlCase{
		{`https://example.com/a\_b\_c done`, []string{"https://example.com/a_b_c"}},
		{`https://example.com/a\.`, []string{"https://example.com/a"}},
		{"https://example.com/a\u202egnp.exe", []string{"https://example.com/a"}},
		{"“https://example.com/a” «https://example.com/b»", []string{"https://example.com/a", "https://example.com/b"}},
		{"https://example.com/a\x00b https://example.com/c\u200bd", []string{"https://example.com/a", "https://example.com/c"}},
		{"<https://example.com/a> \"https://example.com/b\"", []string{"https://example.com/b"}},
	})
	got := findURLs(`x https://example.com/a\_b. y`)
	if len(got) != 1 || got[0].Start != 2 || got[0].End != 26 {
		t.Errorf("escaped span %+v, want [2, 26)", got)
	}
}

// TestFindURLsLinear: long texts built to make a careless scanner
// rescan (URLs within malformed URLs, unbalanced parentheses, long
// trailing punctuation) are scanned in time linear in their length: 1 MB
// each take milliseconds; a quadratic scan would take hours.
func TestFindURLsLinear(t *testing.T) {
	const n = 1 << 20
	for _, unit := range []string{
		"https://",
		"https://(",
		"(https://a.example/)",
		")",
		"https://a.example/" + strings.Repeat(")", 64),
		".",
		"https://a.example/\\_",
		"https://a.example/ ",
		"h",
	} {
		text := strings.Repeat(unit, n/len(unit))
		if unit == ")" || unit == "." {
			text = "https://a.example/" + text
		}
		start := time.Now()
		findURLs(text)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q × %d: %v", unit, n/len(unit), d)
		}
	}
}

// FuzzFindURLs: on any text findURLs does not panic and returns ordered,
// disjoint spans within the text, each starting with http:// or https://,
// with no white space or control character, leading to an http or https
// URL with a host.
func FuzzFindURLs(f *testing.F) {
	for _, s := range []string{
		"see https://example.com/a.", "(https://en.wikipedia.org/wiki/Go_(language))",
		"http://[::1]:80/", `https://a\_b\`, "https://a@b", "javascript:https://x", "https://例え.テスト/",
		"https://a.example/\u202e", "HTTPS://X.Y/))]]", "https://:", "https://%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := 0
		for _, u := range findURLs(text) {
			if u.Start < last || u.End <= u.Start || u.End > len(text) {
				t.Fatalf("span [%d, %d) after %d in %d bytes", u.Start, u.End, last, len(text))
			}
			last = u.End
			raw := text[u.Start:u.End]
			if !hasPrefixFold(raw, "http://") && !hasPrefixFold(raw, "https://") {
				t.Fatalf("span %q", raw)
			}
			if !utf8.ValidString(u.Text) || strings.ContainsFunc(u.Text, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsGraphic(r) }) {
				t.Fatalf("link text %q", u.Text)
			}
			if u.URL == nil || (u.URL.Scheme != "http" && u.URL.Scheme != "https") || u.URL.Hostname() == "" || u.URL.User != nil {
				t.Fatalf("%q leads to %v", u.Text, u.URL)
			}
		}
	})
}
