package ui

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"newsdesk/news"
)

// Bare URLs through the Markdown renderer (markdownSegments, which the
// reader and the compose preview use): the rules of bareurl.go in their
// Markdown context, and a tap on a linked URL in the reader.

// segLinks returns the links in segs as "text -> URL".
func segLinks(segs []widget.RichTextSegment) []string {
	var out []string
	var rec func([]widget.RichTextSegment)
	rec = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch x := s.(type) {
			case *widget.HyperlinkSegment:
				out = append(out, x.Text+" -> "+x.URL.String())
			case *widget.ListSegment:
				rec(x.Items)
			case *widget.ParagraphSegment:
				rec(x.Texts)
			}
		}
	}
	rec(segs)
	return out
}

// self returns the links that show their own URL.
func self(urls ...string) []string {
	var out []string
	for _, u := range urls {
		out = append(out, u+" -> "+u)
	}
	return out
}

func checkRendered(t *testing.T, body string, links []string, texts ...string) {
	t.Helper()
	segs := markdownSegments(body)
	if got := segLinks(segs); !slices.Equal(got, links) {
		t.Errorf("%q: links\n %q, want\n %q", body, got, links)
	}
	all := segmentText(segs)
	for _, s := range texts {
		if !strings.Contains(all, s) {
			t.Errorf("%q: text %q lacks %q", body, all, s)
		}
	}
}

// TestMarkdownLinksBareURLs: a bare http or https URL in a paragraph, a
// list item or a quotation becomes a link showing the URL, underscores
// and all; the text around it is kept.
func TestMarkdownLinksBareURLs(t *testing.T) {
	checkRendered(t, "Slides at https://intranet.example.com/town_hall_2026.pdf today.\n\n"+
		"- item https://a.example/x\n- two\n\n> quoted https://b.example/\n\nHTTP://C.EXAMPLE:8080/p?x=1&y=2",
		append(self("https://intranet.example.com/town_hall_2026.pdf", "https://a.example/x", "https://b.example/"),
			"HTTP://C.EXAMPLE:8080/p?x=1&y=2 -> http://C.EXAMPLE:8080/p?x=1&y=2"),
		"Slides at |https://intranet.example.com/town_hall_2026.pdf| today.", "item |https://a.example/x", "two", "quoted ")
	// Across a line break the text keeps its space.
	checkRendered(t, "see https://a.example/x\nand more", self("https://a.example/x"), "see |https://a.example/x| |and more")
}

// TestMarkdownBareURLTrailingPunctuation: punctuation after a URL stays
// text, a closing parenthesis only when the URL did not open it; the
// parenthesis before the link is not followed by a space.
func TestMarkdownBareURLTrailingPunctuation(t *testing.T) {
	checkRendered(t, "See https://example.com/a. Or (https://en.wikipedia.org/wiki/Go_(language)), or (see https://example.com/b).",
		self("https://example.com/a", "https://en.wikipedia.org/wiki/Go_(language)", "https://example.com/b"),
		"See |https://example.com/a|. Or (|https://en.wikipedia.org/wiki/Go_(language)|), or (see |https://example.com/b|).")
}

// TestMarkdownBareURLsInCodeStayLiteral: URLs in code spans, fenced and
// indented code blocks are shown as written, not linked.
func TestMarkdownBareURLsInCodeStayLiteral(t *testing.T) {
	checkRendered(t, "Run `curl https://a.example/x_y` or see https://b.example/.\n\n```\nhttps://c.example/\n```\n\n    https://d.example/\n",
		self("https://b.example/"),
		"curl https://a.example/x_y", "https://c.example/", "https://d.example/")
}

// TestMarkdownExplicitLinksNotDoubleLinked: the text of an explicit link
// is not linked again, even when it is a URL; an autolink <…> is a link
// (Fyne alone drops it); an autolink or explicit link to another scheme
// shows its text.
func TestMarkdownExplicitLinksNotDoubleLinked(t *testing.T) {
	checkRendered(t, "[https://a.example/](https://b.example/) [the report](https://c.example/r), "+
		"(<https://d.example/x_y>) <ops@example.com> <ftp://e.example/f> [x](javascript:alert(1)) <javascript:alert(2)>",
		append([]string{"https://a.example/ -> https://b.example/", "the report -> https://c.example/r"},
			append(self("https://d.example/x_y"), "ops@example.com -> mailto:ops@example.com")...),
		"(|https://d.example/x_y|)", "ftp://e.example/f", "javascript:alert(2)")
	checkRendered(t, "Write to <ops@example.com>.", []string{"ops@example.com -> mailto:ops@example.com"}, "Write to |ops@example.com|.")
}

// TestMarkdownOtherSchemesNotLinked: other schemes are never linked,
// www. without a scheme stays text, and so does an http URL glued to
// another scheme or word.
func TestMarkdownOtherSchemesNotLinked(t *testing.T) {
	checkRendered(t, "javascript:alert(1) file:///etc/passwd ftp://example.com/f www.example.com mailto:a@example.com "+
		"javascript:https://evil.example/ !https://img.example/ and https://ok.example/",
		self("https://ok.example/"),
		"javascript:alert(1) file:///etc/passwd ftp://example.com/f www.example.com")
}

// TestMarkdownMalformedURLs: malformed URLs are not linked and do not
// break the rest of the body, nor do Markdown constructs around URLs that
// goldmark reads in surprising ways; no placeholder is ever shown.
func TestMarkdownMalformedURLs(t *testing.T) {
	checkRendered(t, "https:// http://[::1 https://\xff https://a@b.example <https://> https://x.example:abc/ "+
		"`x-newsdesk-0-0` https://ok.example/",
		self("https://ok.example/"), "::1", "https://a@b.example", "x-newsdesk-0-0")
	for _, body := range []string{
		"<https://[>", "https://a.example/\\", "*https://a.example/*b*", "[https://a.example/](", "``https://a.example/`",
		"`a`https://a.example/`b`", "*a https://x.example/*b* c*", "[see https://x.example/a]b c](https://y.example/)",
		strings.Repeat("`", 40) + " https://a.example/",
	} {
		if all := segmentText(markdownSegments(body)); strings.Contains(all, "x-newsdesk-") {
			t.Errorf("%q: placeholder shown: %q", body, all)
		}
	}
}

// TestMarkdownLongBody: 1 MB bodies full of URLs, code and unbalanced
// brackets render in well under a second per MB (no quadratic scan); in
// the first, every URL is linked.
func TestMarkdownLongBody(t *testing.T) {
	para := "See https://example.com/a_b_(c). `https://code.example/` **bold** [x](https://l.example/) (https://p.example/) [*\n\n"
	for i, body := range []string{
		strings.Repeat(para, (1<<20)/len(para)),
		strings.Repeat("https://a.example/ (https://a.example/_(x)_ [[*_ <https://b.example/> `c` ", (1<<20)/70),
		strings.Repeat("https://", (1<<20)/8),
		strings.Repeat("(", 1<<20) + "https://a.example/" + strings.Repeat(")", 1<<20),
	} {
		start := time.Now()
		segs := markdownSegments(body)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("body %d: 1 MB rendered in %v", i, d)
		}
		if got, want := len(segLinks(segs)), 3*strings.Count(body, "\n\n"); i == 0 && got != want {
			t.Errorf("%d links, want %d", got, want)
		}
	}
}

// FuzzMarkdownSegments: on any body the renderer does not panic, never
// shows a placeholder, and every link it shows leads to http, https or
// mailto.
func FuzzMarkdownSegments(f *testing.F) {
	for _, s := range []string{
		"see https://example.com/a.", "(https://en.wikipedia.org/wiki/Go_(language))", "<https://a.example/> <a@b.c>",
		"`https://a/` https://b.example/", "*https://a.example/*b*", "> q https://a.example/\n- i https://b.example/",
		"[https://a.example/](https://b.example/)", "`a`https://a.example/`b`", "[see https://x.example/a]b c](https://y.example/)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		segs := markdownSegments(body)
		if all := segmentText(segs); strings.Count(all, "x-newsdesk-") > strings.Count(body, "x-newsdesk-") {
			t.Fatalf("%q: placeholder shown: %q", body, all)
		}
		for _, l := range segLinks(segs) {
			_, target, _ := strings.Cut(l, " -> ")
			u, err := url.Parse(target)
			if err != nil || !allowedScheme(u.Scheme) {
				t.Fatalf("%q: link %q", body, l)
			}
		}
	})
}

// urlApp records the URLs the app is asked to open.
type urlApp struct {
	fyne.App
	opened []string
}

func (a *urlApp) OpenURL(u *url.URL) error { a.opened = append(a.opened, u.String()); return nil }

// TestReaderOpensBareURL: in the reader, a bare URL in the item body is a
// hyperlink; tapping it opens the URL in the browser. The compose preview
// links it too.
func TestReaderOpensBareURL(t *testing.T) {
	b := readerFake(t, func(its []*news.Item) { its[0].Body = "Slides: https://intranet.example.com/town_hall_2026.pdf." })
	h := newHarness(t, b)
	opener := &urlApp{App: fyne.CurrentApp()}
	fyne.SetCurrentApp(opener)
	h.tap(rowTappable(t, h.u.reader.list, "Quarterly results"))

	const want = "https://intranet.example.com/town_hall_2026.pdf"
	link := find(h.u.reader.view.body, func(l *widget.Hyperlink) bool { return l.Text == want })
	if link == nil {
		t.Fatalf("no link %q in the body: %q", want, segmentText(h.u.reader.view.body.Segments))
	}
	test.TapAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2))
	if !slices.Equal(opener.opened, []string{want}) {
		t.Errorf("opened %q, want %q", opener.opened, want)
	}

	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.SelectIndex(0)
	h.sync()
	c := h.u.compose
	h.typeInto(c.body, "Agenda: https://intranet.example.com/agenda_v2")
	h.advance(previewDelay)
	if got := segLinks(c.preview.Segments); !slices.Equal(got, self("https://intranet.example.com/agenda_v2")) {
		t.Errorf("preview links %q", got)
	}
}
