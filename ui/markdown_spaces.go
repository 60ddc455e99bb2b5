package ui

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/text/width"
)

// Fyne's Markdown renderer (widget/markdown.go) puts a space after every
// piece of text that another inline element follows: "の**説明会**を" shows
// as "の 説明会を", "2*3*4" as "2 * 3 * 4". It means the space for a line
// break in the source, which Markdown shows as one, but adds it where the
// source has none too; and inside emphasis it joins the pieces with a
// space each. Japanese and Chinese, written without spaces, show gaps in
// the middle of words.
//
// spaceInlineText gives Fyne's text segments their source's spacing back:
// it parses the body again with goldmark's default parser, as Fyne does,
// and rewrites the text of each segment that came from a piece of text or
// from emphasis: a space only where the source has white space, or a line
// break between two letters of a script written with spaces. A line break
// between two characters of Japanese or Chinese shows as nothing, as in a
// browser (CSS Text 3, segment break transformation). Only when the
// segments are exactly those Fyne made of that tree (each one's text as
// Fyne would write it) are they changed; otherwise they stay as Fyne made
// them.

// inlineText is what Fyne made of a text or emphasis node, and what it
// should have made.
type inlineText struct {
	style      widget.RichTextStyle
	fyne, want string
}

// spaceInlineText corrects the spacing of segs, which Fyne made of body.
func spaceInlineText(body string, segs []widget.RichTextSegment) {
	src := []byte(body)
	md := parser.NewParser( // goldmark's default parser, as Fyne uses it
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	var want []inlineText
	collectInline(src, md.Parse(text.NewReader(src)), false, &want)

	var got []*widget.TextSegment
	collectSegments(segs, &got)
	if len(got) != len(want) {
		return
	}
	for i, s := range got {
		if s.Style != want[i].style || s.Text != want[i].fyne {
			return
		}
	}
	for i, s := range got {
		s.Text = want[i].want
	}
}

// collectSegments appends the text segments of segs that Fyne makes of
// text and emphasis nodes, in order.
func collectSegments(segs []widget.RichTextSegment, out *[]*widget.TextSegment) {
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.TextSegment:
			switch v.Style {
			case widget.RichTextStyleInline, widget.RichTextStyleBlockquote, widget.RichTextStyleStrong, widget.RichTextStyleEmphasis:
				*out = append(*out, v)
			}
		case *widget.ParagraphSegment:
			collectSegments(v.Texts, out)
		case *widget.ListSegment:
			collectSegments(v.Items, out)
		}
	}
}

// collectInline walks n as Fyne's renderer does and appends, for each
// text and emphasis node it makes a segment of, Fyne's text and ours.
func collectInline(src []byte, n ast.Node, quote bool, out *[]inlineText) {
	switch n.Kind() {
	case ast.KindDocument, ast.KindList, ast.KindListItem:
	case ast.KindBlockquote:
		quote = true
	case ast.KindParagraph, ast.KindTextBlock:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch v := c.(type) {
			case *ast.Text:
				*out = append(*out, textNode(src, v, quote))
			case *ast.Emphasis:
				style := widget.RichTextStyleEmphasis
				if v.Level == 2 {
					style = widget.RichTextStyleStrong
				}
				*out = append(*out, inlineText{style: style, fyne: html.UnescapeString(fyneJoined(src, v)), want: html.UnescapeString(sourceJoined(src, v))})
			}
		}
		return
	default:
		return // headings, code blocks, HTML: Fyne makes no such segment of them
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		collectInline(src, c, quote, out)
	}
}

// textNode is what Fyne makes of a text node in a paragraph, and what it
// should make.
func textNode(src []byte, t *ast.Text, quote bool) inlineText {
	value := string(t.Value(src))
	style, decode := widget.RichTextStyleInline, html.UnescapeString
	if quote {
		style, decode = widget.RichTextStyleBlockquote, func(s string) string { return s }
	}
	if value == "" { // a line break after an inline element: Fyne writes a space
		sep := breakSpace(lastRuneOf(src, t.PreviousSibling()), firstRuneOf(src, t.NextSibling()))
		return inlineText{style: style, fyne: " ", want: sep}
	}
	fyneText, want := value, value
	if next := t.NextSibling(); next != nil && next.Type() == ast.TypeInline && !strings.HasSuffix(value, " ") {
		fyneText += " "
		if t.SoftLineBreak() || t.HardLineBreak() {
			r, _ := utf8.DecodeLastRuneInString(value)
			want += breakSpace(r, firstRuneOf(src, t.NextSibling()))
		}
	}
	return inlineText{style: style, fyne: decode(fyneText), want: decode(want)}
}

// fyneJoined is the text Fyne shows for emphasis: its pieces of text
// joined with spaces.
func fyneJoined(src []byte, n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Value(src))
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSuffix(b.String(), " ")
}

// sourceJoined is the text of emphasis as the source spaces it.
func sourceJoined(src []byte, n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		t, ok := c.(*ast.Text)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		b.Write(t.Value(src))
		if t.SoftLineBreak() || t.HardLineBreak() {
			r, _ := utf8.DecodeLastRune(t.Value(src))
			b.WriteString(breakSpace(r, firstRuneOf(src, t.NextSibling())))
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimRight(b.String(), " ")
}

// breakSpace is how a line break in the source between before and after
// shows: nothing between two characters of a script written without
// spaces (Chinese, Japanese), else a space. Korean is written with
// spaces, so a break next to Hangul stays one.
func breakSpace(before, after rune) string {
	if noSpaceScript(before) && noSpaceScript(after) {
		return ""
	}
	return " "
}

// noSpaceScript reports whether r is a wide character of a script written
// without spaces between words: Han, kana, CJK punctuation and full-width
// forms; not Hangul.
func noSpaceScript(r rune) bool {
	if r == utf8.RuneError || unicode.Is(unicode.Hangul, r) {
		return false
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth, width.EastAsianHalfwidth:
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.P, unicode.S) || 0xFF00 <= r && r <= 0xFFEF
	}
	return false
}

// lastRuneOf is the last character of the text in n, or of the nodes
// before it when n has none.
func lastRuneOf(src []byte, n ast.Node) rune {
	for ; n != nil; n = n.PreviousSibling() {
		r := utf8.RuneError
		_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := c.(*ast.Text); ok && entering && t.Segment.Len() > 0 {
				r, _ = utf8.DecodeLastRune(t.Value(src))
			}
			return ast.WalkContinue, nil
		})
		if r != utf8.RuneError {
			return r
		}
	}
	return utf8.RuneError
}

// firstRuneOf is the first character of the text in n, or of the nodes
// after it when n has none.
func firstRuneOf(src []byte, n ast.Node) rune {
	for ; n != nil; n = n.NextSibling() {
		r := utf8.RuneError
		_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := c.(*ast.Text); ok && entering && t.Segment.Len() > 0 {
				r, _ = utf8.DecodeRune(t.Value(src))
				return ast.WalkStop, nil
			}
			return ast.WalkContinue, nil
		})
		if r != utf8.RuneError {
			return r
		}
	}
	return utf8.RuneError
}
