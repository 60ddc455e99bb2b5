package ui

import (
	"strings"

	"fyne.io/fyne/v2/widget"
)

// Item bodies come from other computers, so their Markdown is rendered
// with images stripped (an image URI could name a local file or make the
// reader fetch from a tracking server) and only http, https and mailto
// links clickable; any other link shows as its text.

// markdownSegments parses body and returns the sanitised segments.
func markdownSegments(body string) []widget.RichTextSegment {
	// A fresh RichText has no renderer, so parsing here loads nothing.
	return sanitize(widget.NewRichTextFromMarkdown(body).Segments)
}

// setMarkdown renders body into rt, sanitised.
func setMarkdown(rt *widget.RichText, body string) {
	rt.Segments = markdownSegments(body)
	rt.Refresh()
}

func sanitize(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := segs[:0]
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.ImageSegment:
			text := "[image]"
			if v.Title != "" {
				text = "[image: " + v.Title + "]"
			}
			out = append(out, &widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: text})
		case *widget.HyperlinkSegment:
			if v.URL == nil || !allowedScheme(v.URL.Scheme) {
				out = append(out, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: v.Text})
				continue
			}
			out = append(out, v)
		case *widget.ListSegment:
			v.Items = sanitize(v.Items)
			out = append(out, v)
		case *widget.ParagraphSegment:
			v.Texts = sanitize(v.Texts)
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
