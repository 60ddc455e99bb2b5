package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/widget"
)

// Markdown in Japanese, Chinese and Korean: emphasis kept, no spaces
// added (markdown_spaces.go).

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
