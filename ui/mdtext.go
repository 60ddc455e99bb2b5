package ui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/rivo/uniseg"
)

// markdownText shows the segments of a Markdown body (markdownSegments)
// as widget.RichText does, but breaks the lines itself. RichText wraps
// only at spaces, each segment on its own: Japanese or Chinese text, which
// has none, is one long word to it, so a segment after bold text that
// did not fit in the rest of a line went to the next line whole, leaving
// the rest empty; and a sentence ending in "。" after bold text could
// begin a line with "。".
//
// markdownText breaks where Unicode's line breaking rules (UAX #14, by
// rivo/uniseg) allow: at spaces, between ideographs and kana, never
// before "。", "、" or a closing bracket nor after an opening one, across
// the segments of a line (Korean only at spaces), so that a line ends only when the next piece
// does not fit. It writes the breaks as new lines into copies of the text
// segments and shows them in a RichText that does not wrap, again
// whenever its width changes. A piece wider than a whole line (a long
// word) is broken between characters.
type markdownText struct {
	widget.BaseWidget

	// Segments are the body's segments, as markdownSegments returns them;
	// Refresh shows them after a change.
	Segments []widget.RichTextSegment

	shown   *widget.RichText
	brokeAt float32 // the width the shown segments were broken for; -1: none yet
}

func newMarkdownText() *markdownText {
	m := &markdownText{shown: widget.NewRichText(), brokeAt: -1}
	m.shown.Wrapping = fyne.TextWrapOff
	m.ExtendBaseWidget(m)
	return m
}

// Resize breaks the lines for the new width.
func (m *markdownText) Resize(size fyne.Size) {
	m.BaseWidget.Resize(size)
	m.reflow(size.Width)
	m.shown.Resize(size)
}

// reflow breaks the lines for width, unless they are broken for it.
func (m *markdownText) reflow(width float32) {
	if width == m.brokeAt {
		return
	}
	m.brokeAt = width
	pad := theme.SizeForWidget(theme.SizeNameInnerPadding, m)
	lf := &lineFlow{width: width - 2*pad, quotePad: 4 * theme.SizeForWidget(theme.SizeNameLineSpacing, m), o: m}
	if width <= 0 {
		lf.width = -1 // not laid out yet: no breaks
	}
	m.shown.Segments = lf.copySegments(m.Segments)
	lf.endRow()
	lf.breakRows()
	m.shown.Refresh()
}

func (m *markdownText) CreateRenderer() fyne.WidgetRenderer {
	return &markdownTextRenderer{m: m}
}

type markdownTextRenderer struct{ m *markdownText }

func (r *markdownTextRenderer) Layout(size fyne.Size) {
	r.m.reflow(size.Width)
	r.m.shown.Resize(size)
}

// MinSize is as high as the lines broken for the current width, and as
// narrow as a wrapping RichText.
func (r *markdownTextRenderer) MinSize() fyne.Size {
	pad := theme.SizeForWidget(theme.SizeNameInnerPadding, r.m)
	return fyne.NewSize(2*pad, r.m.shown.MinSize().Height)
}

// Refresh shows Segments again (new ones, or in a new theme's sizes).
func (r *markdownTextRenderer) Refresh() {
	r.m.brokeAt = -1
	r.m.reflow(r.m.Size().Width)
}

func (r *markdownTextRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.m.shown} }
func (r *markdownTextRenderer) Destroy()                     {}

// A piece of a row of segments: a text segment to break (seg), or an
// object that does not break (a link, a list's bullet).
type flowPiece struct {
	seg    *widget.TextSegment // the copy shown; nil for an object
	text   string              // seg's text; for an object, what stands for it
	size   float32             // the text size
	style  fyne.TextStyle
	width  float32 // an object's width
	bullet bool    // a list's bullet: no line ends right after it
	breaks []int   // byte offsets in text where a new line starts
}

// lineFlow breaks the rows of a RichText's segments, in the order
// RichText lays them out: a row runs until a segment that is not inline.
type lineFlow struct {
	width    float32 // of a row; < 0: do not break
	quotePad float32 // a quotation's rows are indented by this
	o        fyne.Widget
	row      []*flowPiece   // the pieces of the row being collected
	rows     [][]*flowPiece // all the rows
}

// copySegments returns segs with copies of their text segments, noting
// the pieces of each row.
func (f *lineFlow) copySegments(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.TextSegment:
			c := &widget.TextSegment{Style: v.Style, Text: v.Text}
			out = append(out, c)
			name := v.Style.SizeName
			if name == "" {
				name = theme.SizeNameText
			}
			f.row = append(f.row, &flowPiece{seg: c, text: c.Text, size: theme.SizeForWidget(name, f.o), style: v.Style.TextStyle})
			if !v.Inline() {
				f.endRow()
			}
		case *widget.ParagraphSegment:
			texts := f.copySegments(v.Texts)
			out = append(out, &widget.ParagraphSegment{Texts: texts})
			if len(texts) > 0 && !texts[len(texts)-1].Inline() {
				f.endRow()
			}
		case *widget.ListSegment:
			c := *v // keeps its numbering and indentation
			c.Items = make([]widget.RichTextSegment, len(v.Items))
			for i, p := range v.Segments() { // each item behind its bullet, as RichText shows it
				texts := p.(*widget.ParagraphSegment).Texts
				for _, b := range texts[:len(texts)-1] {
					if t, ok := b.(*widget.TextSegment); ok {
						size := theme.SizeForWidget(theme.SizeNameText, f.o)
						f.row = append(f.row, &flowPiece{text: t.Text, size: size, style: t.Style.TextStyle, bullet: true,
							width: fyne.MeasureText(t.Text, size, t.Style.TextStyle).Width})
					}
				}
				c.Items[i] = f.copySegments(v.Items[i : i+1])[0]
				f.endRow() // an item ends its row
			}
			out = append(out, &c)
		case *pictureSegment: // pictures.go
			if f.width > 0 {
				v.width = f.width
			}
			out = append(out, v)
			f.endRow()
		case *widget.HyperlinkSegment:
			out = append(out, v)
			size := theme.SizeForWidget(theme.SizeNameText, f.o)
			f.row = append(f.row, &flowPiece{text: "\uFFFC", width: fyne.MeasureText(v.Text, size, fyne.TextStyle{}).Width})
		default:
			out = append(out, s)
			if s.Inline() {
				w := float32(0)
				if vis := s.Visual(); vis != nil {
					w = vis.MinSize().Width
				}
				f.row = append(f.row, &flowPiece{text: "\uFFFC", width: w})
			} else {
				f.endRow()
			}
		}
	}
	return out
}

func (f *lineFlow) endRow() {
	if len(f.row) > 0 {
		f.rows = append(f.rows, f.row)
		f.row = nil
	}
}

// A unit of a row: the text between two places where a line may end.
type flowUnit struct {
	start, end int     // in the row's text
	width      float32 // without the white space at its end
	full       float32 // with it
	hard       bool    // a line must end after it
}

// breakRows breaks each row into lines that fit the width, and writes
// the breaks into the copied segments.
func (f *lineFlow) breakRows() {
	if f.width < 0 {
		return
	}
	for _, row := range f.rows {
		f.breakRow(row)
	}
	for _, row := range f.rows {
		for _, p := range row {
			if p.seg == nil || len(p.breaks) == 0 {
				continue
			}
			slices.Sort(p.breaks)
			var b strings.Builder
			last := 0
			for _, at := range p.breaks {
				b.WriteString(p.text[last:at])
				b.WriteByte('\n')
				last = at
			}
			b.WriteString(p.text[last:])
			p.seg.Text = b.String()
		}
	}
}

func (f *lineFlow) breakRow(row []*flowPiece) {
	var all strings.Builder
	starts := make([]int, len(row)) // of each piece in all
	for i, p := range row {
		starts[i] = all.Len()
		all.WriteString(p.text)
	}
	text := all.String()
	width := f.width
	if p := row[0]; p.seg != nil && p.seg.Style == widget.RichTextStyleBlockquote {
		width -= f.quotePad
	}

	// piece returns the index of the piece that holds byte at of text.
	piece := func(at int) int {
		i, found := slices.BinarySearch(starts, at)
		if !found {
			i--
		}
		for i+1 < len(row) && starts[i+1] == at && row[i].text == "" {
			i++
		}
		return i
	}
	// measure is the width of text[start:end].
	measure := func(start, end int) float32 {
		w := float32(0)
		for i := piece(start); i < len(row) && starts[i] < end; i++ {
			p := row[i]
			if p.seg == nil {
				w += p.width
				continue
			}
			s, e := max(start-starts[i], 0), min(end-starts[i], len(p.text))
			if s < e {
				w += fyne.MeasureText(p.text[s:e], p.size, p.style).Width
			}
		}
		return w
	}
	// breakAt starts a new line at byte at of text, and reports whether
	// it could.
	breakAt := func(at int) bool {
		i := piece(at)
		p := row[i]
		if at > starts[i] && p.seg != nil { // inside a text
			p.breaks = append(p.breaks, at-starts[i])
			return true
		}
		if i > 0 && row[i-1].seg != nil { // after a text: end it
			q := row[i-1]
			q.breaks = append(q.breaks, len(q.text))
			return true
		}
		if p.seg != nil && (i == 0 || !row[i-1].bullet) { // before a text, after a link
			p.breaks = append(p.breaks, 0)
			return true
		}
		return false // between two objects, or after a bullet
	}

	var units []flowUnit
	rest, state, at := text, -1, 0
	for len(rest) > 0 {
		var seg string
		var must bool
		seg, rest, must, state = uniseg.FirstLineSegmentInString(rest, state)
		u := flowUnit{start: at, end: at + len(seg), hard: must && len(rest) > 0}
		at += len(seg)
		// Korean is written with spaces between words and broken there,
		// not between the syllables of a word as UAX #14 allows (CSS's
		// word-break: keep-all).
		if n := len(units); n > 0 && !units[n-1].hard {
			last, _ := utf8.DecodeLastRuneInString(text[:u.start])
			next, _ := utf8.DecodeRuneInString(seg)
			if unicode.Is(unicode.Hangul, last) && unicode.Is(unicode.Hangul, next) {
				u.start = units[n-1].start
				units = units[:n-1]
			}
		}
		body := strings.TrimRight(text[u.start:u.end], " \t\r\n\u3000")
		u.width = measure(u.start, u.start+len(body))
		u.full = u.width
		if u.start+len(body) < u.end {
			u.full = measure(u.start, u.end)
		}
		units = append(units, u)
	}

	x := float32(0)
	content := false // the line holds more than a bullet
	for _, u := range units {
		if content && x+u.width > width && breakAt(u.start) {
			x, content = 0, false
		}
		if !content && u.width > width {
			x = breakLong(row[piece(u.start)], starts[piece(u.start)], u, x, width, measure, breakAt)
		} else {
			x += u.full
		}
		content = content || !row[piece(u.start)].bullet
		if u.hard {
			x, content = 0, false
		}
	}
}

// breakLong breaks unit u, wider than a line, between its characters
// (grapheme clusters) when it lies in one text p (which starts at byte
// start of the row's text); x is the width used on the line before it.
// It returns the width used on the last line.
func breakLong(p *flowPiece, start int, u flowUnit, x, width float32, measure func(int, int) float32, breakAt func(int) bool) float32 {
	if p.seg == nil || u.end > start+len(p.text) {
		return x + u.full
	}
	lineStart := u.start
	gr := uniseg.NewGraphemes(p.text[u.start-start : u.end-start])
	for gr.Next() {
		from, to := gr.Positions()
		if at := u.start + from; at > lineStart && x+measure(lineStart, u.start+to) > width &&
			strings.TrimSpace(gr.Str()) != "" && breakAt(at) {
			x, lineStart = 0, at
		}
	}
	return x + measure(lineStart, u.end)
}
