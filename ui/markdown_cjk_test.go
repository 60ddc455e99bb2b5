package ui

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/rivo/uniseg"

	"newsdesk/news"
)

// Markdown in Japanese, Chinese and Korean: emphasis kept, no spaces
// added (markdown_spaces.go), lines broken only where full and where
// Japanese allows (mdtext.go); in the reader and Compose's preview.

const cjkBody = "本文…の**説明会**を開催します。"

// styled returns the text segments of segs as their text, bold in **,
// italic in *, the paragraph ends left out.
func styled(segs []widget.RichTextSegment) []string {
	var out []string
	var rec func([]widget.RichTextSegment)
	rec = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch v := s.(type) {
			case *widget.TextSegment:
				switch {
				case !v.Inline():
				case v.Style.TextStyle.Bold:
					out = append(out, "**"+v.Text+"**")
				case v.Style.TextStyle.Italic:
					out = append(out, "*"+v.Text+"*")
				default:
					out = append(out, v.Text)
				}
			case *widget.HyperlinkSegment:
				out = append(out, "["+v.Text+"]")
			case *widget.ParagraphSegment:
				rec(v.Texts)
			case *widget.ListSegment:
				rec(v.Items)
			}
		}
	}
	rec(segs)
	return out
}

// TestMarkdownCJKEmphasisNoSpaces: emphasis in Japanese is a bold segment
// of its own; no space appears where the source has none (Fyne put one
// before every emphasis and after every piece of text); a line break
// between Japanese characters shows as nothing, one in Korean or English
// as a space.
func TestMarkdownCJKEmphasisNoSpaces(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{cjkBody, []string{"本文…の", "**説明会**", "を開催します。"}},
		{"詳しくは「**説明会**」で。*午後*から", []string{"詳しくは「", "**説明会**", "」で。", "*午後*", "から"}},
		{"説明会の\n開催です。", []string{"説明会の", "開催です。"}},
		{"**説明会**\nを開催", []string{"**説明会**", "", "を開催"}},
		{"**説明\n会**です", []string{"**説明会**", "です"}},
		{"한국어\n문장 **굵게**요", []string{"한국어 ", "문장 ", "**굵게**", "요"}},
		{"foo\n**bar** baz", []string{"foo ", "**bar**", " baz"}},
		{"**bar**\nbaz", []string{"**bar**", " ", "baz"}},
		{"**a *b* c**d", []string{"**a b c**", "d"}},
		{"snake_case_name and 5*3", []string{"snake_", "case_", "name and 5*", "3"}},
		{"- 項目の**太字**と https://example.com/x です", []string{"項目の", "**太字**", "と ", "[https://example.com/x]", " です"}},
	} {
		if got := styled(markdownSegments(c.body)); !slices.Equal(got, c.want) {
			t.Errorf("%q: segments\n %q, want\n %q", c.body, got, c.want)
		}
	}
}

// line is a line of a rendered markdownText: its objects from left to
// right.
type line struct {
	y    float32
	objs []fyne.CanvasObject
}

func (r line) text() string {
	var parts []string
	for _, o := range r.objs {
		if t, ok := o.(*canvas.Text); ok {
			parts = append(parts, t.Text)
		} else {
			parts = append(parts, "[link]")
		}
	}
	return strings.Join(parts, "|")
}

// rows returns the lines m shows, as laid out, leaving out empty texts.
func lines(m *markdownText) []line {
	var out []line
	for _, o := range test.WidgetRenderer(m.shown).Objects() {
		if t, ok := o.(*canvas.Text); ok && t.Text == "" {
			continue
		}
		y := o.Position().Y
		i := slices.IndexFunc(out, func(r line) bool { return r.y == y })
		if i < 0 {
			out = append(out, line{y: y})
			i = len(out) - 1
		}
		out[i].objs = append(out[i].objs, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].y < out[j].y })
	for _, r := range out {
		sort.Slice(r.objs, func(i, j int) bool { return r.objs[i].Position().X < r.objs[j].Position().X })
	}
	return out
}

func lineTexts(rs []line) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.text())
	}
	return out
}

// textWidth is the width of a canvas text as shown.
func textWidth(t *canvas.Text) float32 {
	return fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width
}

// checkFlow checks the lines of m as laid out: each starts at the left
// edge, its pieces follow one another with no gap, none is wider than m,
// none begins with 。、」） or ends with 「（, and each but a paragraph's
// last is full: the first piece of the next line (up to where Unicode
// lets a line end) would not have fit.
func checkFlow(t *testing.T, m *markdownText) {
	t.Helper()
	pad := theme.SizeForWidget(theme.SizeNameInnerPadding, m)
	right := m.Size().Width - pad
	rs := lines(m)
	if len(rs) == 0 {
		t.Fatal("nothing shown")
	}
	const slack = 0.5
	for i, r := range rs {
		x := r.objs[0].Position().X
		if x < pad-slack || x > pad+slack {
			t.Errorf("line %q starts at %v, not at the edge %v", r.text(), x, pad)
		}
		for _, o := range r.objs {
			if o.Position().X > x+slack || o.Position().X < x-slack {
				t.Errorf("line %q: a gap or an overlap at %v, want %v", r.text(), o.Position().X, x)
			}
			if txt, ok := o.(*canvas.Text); ok {
				x += textWidth(txt)
			} else {
				x += o.Size().Width
			}
		}
		text := strings.ReplaceAll(r.text(), "|", "")
		if first, _ := utf8.DecodeRuneInString(text); strings.ContainsRune("。、」）", first) {
			t.Errorf("line %q begins with %q", r.text(), first)
		}
		if last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(text, " ")); strings.ContainsRune("「（", last) {
			t.Errorf("line %q ends with %q", r.text(), last)
		}
		if end := x - spaceAtEnd(r); end > right+slack {
			t.Errorf("line %q ends at %v, beyond %v", r.text(), end, right)
		}
		if i+1 == len(rs) || rs[i+1].y-r.y > 1.6*fyne.MeasureText("あ", theme.TextSize(), fyne.TextStyle{}).Height {
			continue // a paragraph's last line
		}
		next, ok := rs[i+1].objs[0].(*canvas.Text)
		if !ok || strings.HasPrefix(strings.TrimLeft(next.Text, " "), "•") {
			continue // a link, or the next item of a list
		}
		nextText := strings.ReplaceAll(rs[i+1].text(), "|", "")
		first, _, _, _ := uniseg.FirstLineSegmentInString(nextText, -1)
		first = strings.TrimRight(first, " ")
		if r, _ := utf8.DecodeRuneInString(first); unicode.Is(unicode.Hangul, r) {
			first = strings.Fields(nextText)[0] // a Korean word is kept whole
		}
		if w := fyne.MeasureText(first, next.TextSize, next.TextStyle).Width; x+w <= right-slack {
			t.Errorf("line %q ends at %v although %q (%v wide) fits before %v", r.text(), x, first, w, right)
		}
	}
}

// spaceAtEnd is the width of the white space that ends line r.
func spaceAtEnd(r line) float32 {
	last, ok := r.objs[len(r.objs)-1].(*canvas.Text)
	if !ok {
		return 0
	}
	trimmed := strings.TrimRight(last.Text, " ")
	return textWidth(last) - fyne.MeasureText(trimmed, last.TextSize, last.TextStyle).Width
}

// showMarkdown shows body in a markdownText whose lines are width wide.
func showMarkdown(t *testing.T, body string, width float32) *markdownText {
	t.Helper()
	useCJKFonts(fyne.CurrentApp())
	m := newMarkdownText()
	m.Segments = markdownSegments(body)
	m.Refresh()
	w := test.NewWindow(container.NewWithoutLayout(m))
	t.Cleanup(w.Close)
	pad := theme.SizeForWidget(theme.SizeNameInnerPadding, m)
	m.Resize(fyne.NewSize(width+2*pad, 400))
	return m
}

// measureStyle measures s in the fonts showMarkdown uses: the bundled CJK
// ones, not whatever fallback the machine has (a machine without a system
// CJK font measures other widths).
func measureStyle(s string, style fyne.TextStyle) float32 {
	useCJKFonts(fyne.CurrentApp())
	return fyne.MeasureText(s, theme.TextSize(), style).Width
}

// TestMarkdownCJKWrapsWhenFull: the example of issue 31: with room for
// "を開催" after the bold "説明会", they stay on its line, and only
// "します。" goes to the next; the pieces follow one another without a
// space. Fyne's RichText put all of "を開催します。" on a line of its own.
func TestMarkdownCJKWrapsWhenFull(t *testing.T) {
	test.NewTempApp(t)
	regular, bold := fyne.TextStyle{}, fyne.TextStyle{Bold: true}
	width := measureStyle("本文…の", regular) + measureStyle("説明会", bold) + measureStyle("を開催", regular) + measureStyle("し", regular)/2
	m := showMarkdown(t, cjkBody, width)
	if got, want := lineTexts(lines(m)), []string{"本文…の|説明会|を開催", "します。"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	checkFlow(t, m)
	for _, o := range lines(m)[0].objs {
		if txt := o.(*canvas.Text); txt.TextStyle.Bold != (txt.Text == "説明会") {
			t.Errorf("%q is bold: %v", txt.Text, txt.TextStyle.Bold)
		}
	}

	// At any width: lines full, none beginning with 。 or 」.
	for width := float32(50); width <= 400; width += 7 {
		checkFlow(t, showMarkdown(t, cjkBody+"詳しくは「**説明会**」で。"+cjkBody, width))
	}

	// All of it on one line when there is room.
	m = showMarkdown(t, cjkBody, measureStyle("本文…の説明会を開催します。", bold)+1)
	if got, want := lineTexts(lines(m)), []string{"本文…の|説明会|を開催します。"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// TestMarkdownCJKLineBreakRules: no line begins with "。", "、" or a
// closing bracket, and none ends with an opening one, even across
// segments: the character before goes along.
func TestMarkdownCJKLineBreakRules(t *testing.T) {
	test.NewTempApp(t)
	regular := fyne.TextStyle{}
	// Room for all but the "。": "す。" moves on together.
	m := showMarkdown(t, "説明会を開催します。", measureStyle("説明会を開催します", regular)+1)
	if got, want := lineTexts(lines(m)), []string{"説明会を開催しま", "す。"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	// The 」 after bold text: the bold 会 goes along with it.
	m = showMarkdown(t, "詳しくは「**説明会**」で", measureStyle("詳しくは「説明会", regular)+1)
	if got, want := lineTexts(lines(m)), []string{"詳しくは「|説明", "会|」で"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	// Room up to the 「: it goes to the next line with what it opens.
	m = showMarkdown(t, "詳しくは「説明会」で", measureStyle("詳しくは「", regular)+1)
	if got := lineTexts(lines(m)); len(got) < 2 || got[0] != "詳しくは" || !strings.HasPrefix(got[1], "「") {
		t.Errorf("lines %q, want the 「 to begin the second", got)
	}
}

// TestMarkdownWrapsLatinAndLongWords: English still breaks at spaces,
// with bold and links in the line; a word longer than the line is broken
// between letters rather than drawn beyond the edge; Korean breaks at its
// spaces only, not between the syllables of a word.
func TestMarkdownWrapsLatinAndLongWords(t *testing.T) {
	test.NewTempApp(t)
	body := "The core network switches are replaced on **Saturday** between 22:00 and 02:00. " +
		"Details on [the IT portal](https://it.example.com/maintenance) and " +
		"Supercalifragilisticexpialidociousnessandmoreandmoreandmore.\n\n" +
		"- VPN and e-mail are unavailable for about *20 minutes* on Saturday night\n" +
		"- 한국어 문장도 공백에서 줄이 바뀝니다 그리고 더 길게 씁니다"
	for width := float32(120); width <= 420; width += 11 {
		m := showMarkdown(t, body, width)
		checkFlow(t, m)
		var words []string
		for _, r := range lines(m) {
			text := strings.ReplaceAll(r.text(), "|", "")
			if strings.HasPrefix(text, "• ") {
				text = text[len("• "):]
			}
			words = append(words, strings.Fields(text)...)
		}
		got := strings.Join(words, " ")
		for _, w := range []string{"Saturday", "between", "22:00", "minutes", "unavailable", "문장도", "공백에서"} {
			if !slices.Contains(words, w) && !strings.Contains(got, " "+w+" ") {
				t.Errorf("width %v: the word %q is broken: %q", width, w, lineTexts(lines(m)))
			}
		}
	}
}

// TestReaderAndPreviewWrapJapanese: the reader and Compose's preview show
// the example as laid out above, at the window's width.
func TestReaderAndPreviewWrapJapanese(t *testing.T) {
	long := strings.Repeat(cjkBody, 6)
	b := readerFake(t, func(its []*news.Item) { its[0].Body = long })
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "Quarterly results"))
	body := h.u.reader.view.body
	if got := strings.Join(styled(body.Segments), ""); got != strings.Repeat("本文…の**説明会**を開催します。", 6) {
		t.Errorf("reader segments %q", got)
	}
	if len(lines(body)) < 2 {
		t.Fatalf("the reader shows %q: not wrapped", lineTexts(lines(body)))
	}
	checkFlow(t, body)

	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.SelectIndex(0)
	h.sync()
	c := h.u.compose
	h.typeInto(c.body, long)
	h.advance(previewDelay)
	if len(lines(c.preview)) < 3 {
		t.Fatalf("the preview shows %q: not wrapped", lineTexts(lines(c.preview)))
	}
	checkFlow(t, c.preview)
}
