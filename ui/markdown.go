package ui

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Item bodies come from other computers, so their Markdown is rendered
// with no image fetched (an image URI could name a local file or make the
// reader fetch from a tracking server): only the item's own attachments
// show as pictures (markdown_images.go); and only http, https and mailto
// links are clickable; any other link shows as its text.
//
// Besides explicit links, bare http and https URLs in text are linked
// (the rules are in bareurl.go), and so are <…> autolinks, which Fyne's
// renderer would drop: both show the URL itself as the link text. URLs in
// code spans and code blocks stay literal, as does the text of an explicit
// link; text in headings and emphasis is not linked (Fyne flattens those
// to plain text, explicit links included).
//
// Fyne's renderer cannot be extended, and it splits text at _ and * into
// pieces (markdown_spaces.go joins the pieces of text again, but a URL
// must be found whole), so the URLs are found first, on goldmark's syntax
// tree of the body (the parser Fyne uses), and each is replaced in the
// body by a placeholder: a code span with an unguessable text (code spans
// bind before links and emphasis; a placeholder link would not do: in a
// paragraph with many unmatched [, goldmark misses some links). The
// placeholders in Fyne's segments are then replaced by the links. If
// Fyne's segments do not have exactly those placeholders, in order
// (removing a URL's * or _ let emphasis swallow one, say), the body is
// rendered without the added links, as before them.

// addedLink is a bare URL or an autolink, replacing body[start:end].
type addedLink struct {
	start, end int
	text       string   // shown
	url        *url.URL // nil: not clickable, shown as text
	// joined: the link follows text with no space between; Fyne appends
	// a space to a text segment followed by a code span, which is removed.
	joined bool
}

// maxFence bounds the backticks around a placeholder, which must be more
// than the longest run in the body: a body with a run of maxFence or more
// gets no added links (each placeholder would grow it by two such runs).
const maxFence = 16

// placeholders stand for the added links in the rewritten body.
type placeholders struct {
	prefix string // of the placeholder texts: "x-newsdesk-NONCE-", then the link's index
	fence  string // the backticks around a placeholder, a run that is not in the body
	links  []addedLink
}

// newPlaceholders returns the links of body and their placeholders, or
// nil when there are none.
func newPlaceholders(body string) *placeholders {
	var links []addedLink
	for _, l := range findLinks(body) {
		// A backtick next to the placeholder would lengthen its fence: a
		// URL right after `code` is left as text.
		if (l.start == 0 || body[l.start-1] != '`') && (l.end == len(body) || body[l.end] != '`') {
			links = append(links, l)
		}
	}
	if len(links) == 0 {
		return nil
	}
	longest, run := 0, 0
	for i := range len(body) {
		if body[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if longest >= maxFence {
		return nil
	}
	return &placeholders{
		prefix: "x-newsdesk-" + strconv.FormatUint(rand.Uint64(), 36) + "-",
		fence:  strings.Repeat("`", longest+1),
		links:  links,
	}
}

// rewrite returns body with the links replaced by their placeholders.
func (p *placeholders) rewrite(body string) string {
	var b strings.Builder
	last := 0
	for i, l := range p.links {
		b.WriteString(body[last:l.start])
		b.WriteString(p.fence + p.prefix + strconv.Itoa(i) + p.fence)
		last = l.end
	}
	b.WriteString(body[last:])
	return b.String()
}

// index returns the index of the link that s stands for.
func (p *placeholders) index(s widget.RichTextSegment) (int, bool) {
	t, ok := s.(*widget.TextSegment)
	if p == nil || !ok || t.Style != widget.RichTextStyleCodeInline || !strings.HasPrefix(t.Text, p.prefix) {
		return 0, false
	}
	i, err := strconv.Atoi(t.Text[len(p.prefix):])
	return i, err == nil && i >= 0 && i < len(p.links)
}

// inOrder reports whether the placeholders in segs are numbered *next,
// *next+1, … in order, advancing *next past them.
func (p *placeholders) inOrder(segs []widget.RichTextSegment, next *int) bool {
	for _, s := range segs {
		if i, ok := p.index(s); ok {
			if i != *next {
				return false
			}
			*next++
			continue
		}
		switch v := s.(type) {
		case *widget.ListSegment:
			if !p.inOrder(v.Items, next) {
				return false
			}
		case *widget.ParagraphSegment:
			if !p.inOrder(v.Texts, next) {
				return false
			}
		}
	}
	return true
}

// markdownSegments parses body and returns the sanitised segments, its
// pictures shown as their alt text (markdown_images.go).
func markdownSegments(body string) []widget.RichTextSegment {
	return markdownBody(body, nil)
}

// markdownBody parses body and returns the sanitised segments, with the
// pictures pics has in place of their references (nil: none).
func markdownBody(body string, pics pictureSet) []widget.RichTextSegment {
	body = withAttDefinitions(stripManifest(body))
	// A fresh RichText has no renderer, so parsing here loads nothing.
	if p := newPlaceholders(body); p != nil {
		rewritten := p.rewrite(body)
		segs := widget.NewRichTextFromMarkdown(rewritten).Segments
		if next := 0; p.inOrder(segs, &next) && next == len(p.links) {
			spaceInlineText(rewritten, segs)
			return sanitize(segs, p, newImageZip(rewritten, segs, pics))
		}
	}
	segs := widget.NewRichTextFromMarkdown(body).Segments
	spaceInlineText(body, segs) // markdown_spaces.go
	return sanitize(segs, nil, newImageZip(body, segs, pics))
}

// setMarkdown renders body into rt, sanitised, its links opened by u
// (links.go).
func (u *UI) setMarkdown(rt *markdownText, body string) {
	rt.Segments = markdownSegments(body)
	u.openLinksHere(rt.Segments)
	rt.Refresh()
}

// sanitize replaces images (imgs says by what) and strips links to other
// schemes from segs, and puts the links in place of their placeholders p
// (nil: none).
func sanitize(segs []widget.RichTextSegment, p *placeholders, imgs *imageZip) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs)) // a picture may add a segment
	for _, s := range segs {
		if i, ok := p.index(s); ok {
			l := p.links[i]
			if l.joined && len(out) > 0 {
				if t, ok := out[len(out)-1].(*widget.TextSegment); ok {
					t.Text = strings.TrimSuffix(t.Text, " ")
				}
			}
			if l.url == nil {
				out = append(out, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: l.text})
			} else {
				out = append(out, &widget.HyperlinkSegment{Alignment: fyne.TextAlignLeading, Text: l.text, URL: l.url})
			}
			continue
		}
		switch v := s.(type) {
		case *widget.ImageSegment:
			r := imgs.replace(v)
			if _, pic := r.(*pictureSegment); pic && len(out) > 0 && out[len(out)-1].Inline() {
				// A picture after text starts a line of its own.
				out = append(out, &widget.TextSegment{Style: widget.RichTextStyleParagraph})
			}
			out = append(out, r)
		case *widget.HyperlinkSegment:
			if v.URL == nil || !allowedScheme(v.URL.Scheme) {
				out = append(out, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: v.Text})
				continue
			}
			out = append(out, v)
		case *widget.ListSegment:
			v.Items = sanitize(v.Items, p, imgs)
			out = append(out, v)
		case *widget.ParagraphSegment:
			v.Texts = sanitize(v.Texts, p, imgs)
			out = append(out, v)
		default:
			out = append(out, s)
		}
	}
	return out
}

func allowedScheme(s string) bool {
	switch strings.ToLower(s) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// findLinks returns the bare URLs and autolinks of body that the reader
// links, in order.
func findLinks(body string) []addedLink {
	if !strings.Contains(body, "://") && !strings.Contains(body, "<") {
		return nil // no bare URL, no autolink
	}
	src := []byte(body)
	rec := autolinkRecorder{InlineParser: parser.NewAutoLinkParser(), at: map[*ast.AutoLink]int{}}
	inline := parser.DefaultInlineParsers()
	for i, p := range inline {
		if p.Value == rec.InlineParser {
			inline[i] = util.Prioritized(rec, p.Priority)
		}
	}
	md := parser.NewParser( // goldmark's default parser, as Fyne uses it
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	doc := md.Parse(text.NewReader(src))

	var links []addedLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindParagraph, ast.KindTextBlock:
			links = append(links, inlineLinks(body, src, n, rec.at)...)
			return ast.WalkSkipChildren, nil
		case ast.KindHeading:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return links
}

// autolinkRecorder is goldmark's autolink parser, noting where each
// autolink starts in the source (the node does not say).
type autolinkRecorder struct {
	parser.InlineParser
	at map[*ast.AutoLink]int
}

func (r autolinkRecorder) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	_, seg := block.PeekLine()
	n := r.InlineParser.Parse(parent, block, pc)
	if a, ok := n.(*ast.AutoLink); ok {
		r.at[a] = seg.Start
	}
	return n
}

// inlineLinks returns the links among the inline children of a paragraph.
// Text in emphasis, links, images and code spans is not looked at.
func inlineLinks(body string, src []byte, par ast.Node, autolinks map[*ast.AutoLink]int) []addedLink {
	var links []addedLink
	start, end := -1, -1 // the run of adjacent text being collected
	flush := func() {
		if start < 0 {
			return
		}
		for _, u := range findURLs(body[start:end]) {
			s := start + u.Start
			links = append(links, addedLink{start: s, end: start + u.End, text: u.Text, url: u.URL, joined: u.Start > 0 && !spaceBefore(body, s)})
		}
		start = -1
	}
	var prev *ast.Text // the text just before c
	for c := par.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Text:
			seg := v.Segment
			if seg.Padding == 0 && start >= 0 && seg.Start == end {
				end = seg.Stop
			} else {
				flush()
				if seg.Padding == 0 {
					start, end = seg.Start, seg.Stop
				}
			}
			prev = v
			continue
		case *ast.AutoLink:
			flush()
			s, ok := autolinks[v]
			if !ok {
				break
			}
			label := string(v.Label(src))
			target := label
			if v.AutoLinkType == ast.AutoLinkEmail {
				target = "mailto:" + label
			}
			u, err := url.Parse(target)
			if err != nil || !allowedScheme(u.Scheme) || (u.Scheme != "mailto" && u.Host == "") {
				u = nil // shown as text, as an explicit link to another scheme is
			}
			joined := prev != nil && prev.Segment.Stop == s && !spaceBefore(body, s)
			links = append(links, addedLink{start: s, end: s + len(label) + 2, text: label, url: u, joined: joined})
		default:
			flush()
		}
		prev = nil
	}
	flush()
	return links
}

// spaceBefore reports whether body[:i] ends with white space.
func spaceBefore(body string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(body[:i])
	return unicode.IsSpace(r)
}
