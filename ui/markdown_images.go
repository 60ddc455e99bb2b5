package ui

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Pictures in a body (issue 29). An item's pictures are its attachments,
// which the body shows with Markdown references, ![alt text][att:N]; the
// signed body ends with their manifest, a link reference definition per
// attachment ([att:N]: newsdesk:blob/sha256/…), which is never shown.
// Nothing else is ever fetched: an image with an http or https address
// shows as a link with its alt text, any other as "[image: alt text]".
//
// The manifest is cut off the body before it is rendered, and a
// definition [att:N]: att:N appended for each attachment the body names,
// so that goldmark reads the references as images both in the reader and
// in Compose, whose drafts have no manifest yet. Fyne's renderer keeps
// an image's address but not its alt text, so the images are read from
// goldmark's syntax tree as well, in the order Fyne's segments have them;
// the i-th image segment is the i-th image of the tree.

// manifestLine is a line of an item's attachment manifest.
var manifestLine = regexp.MustCompile(`^\[att:[0-9]+\]:[ \t]+newsdesk:`)

// attLabel finds the attachment references of a body: [att:N].
var attLabel = regexp.MustCompile(`\[att:([0-9]{1,4})\]`)

// attPicture is a picture of an attachment in a body, its alt text the
// first group.
var attPicture = regexp.MustCompile(`!\[([^\]\n]*)\]\[att:[0-9]+\]`)

// maxRefs bounds the definitions appended for a body's references (an
// item has at most maxAttachments; the rest are left as written).
const maxRefs = 64

// stripManifest returns body without the manifest lines at its end.
func stripManifest(body string) string {
	rest := strings.TrimRight(body, " \t\r\n")
	cut := false
	for {
		i := strings.LastIndexByte(rest, '\n')
		line := strings.TrimRight(rest[i+1:], "\r")
		if !manifestLine.MatchString(line) {
			break
		}
		cut = true
		if i < 0 {
			rest = ""
			break
		}
		rest = strings.TrimRight(rest[:i], " \t\r\n")
	}
	if !cut {
		return body
	}
	return rest
}

// withAttDefinitions appends a definition [att:N]: att:N for each
// attachment body names.
func withAttDefinitions(body string) string {
	if !strings.Contains(body, "[att:") {
		return body
	}
	var defs strings.Builder
	seen := map[string]bool{}
	for _, m := range attLabel.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || seen[m[1]] || len(seen) == maxRefs {
			continue
		}
		seen[m[1]] = true
		fmt.Fprintf(&defs, "\n[att:%d]: att:%d", n, n)
	}
	if defs.Len() == 0 {
		return body
	}
	return body + "\n" + defs.String()
}

// bodyImage is an image of a body: where it points and its alt text.
type bodyImage struct{ dest, alt string }

// bodyImages returns the images of body that Fyne's renderer keeps as
// image segments, in order: not those inside links, headings and
// emphasis, which it flattens to text.
func bodyImages(body string) []bodyImage {
	if !strings.Contains(body, "![") {
		return nil
	}
	src := []byte(body)
	md := parser.NewParser( // goldmark's default parser, as Fyne uses it
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	doc := md.Parse(text.NewReader(src))
	var imgs []bodyImage
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Image:
			imgs = append(imgs, bodyImage{dest: string(v.Destination), alt: altText(v, src)})
			return ast.WalkSkipChildren, nil
		case *ast.Link, *ast.Heading, *ast.Emphasis, *ast.CodeSpan:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return imgs
}

// altText is the plain text of an image's description.
func altText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(src))
			if v.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(v.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// pictureSet turns a body's references to its attachments into the
// segments that show them (pictures.go).
type pictureSet interface {
	// segment returns the segment showing attachment ref ("att:N") with
	// alt text, or nil when there is no such picture.
	segment(ref, alt string) widget.RichTextSegment
}

// imageZip pairs Fyne's image segments with the images of the syntax
// tree.
type imageZip struct {
	imgs []bodyImage
	next int
	ok   bool // the counts agree: the alt texts and addresses are known
	pics pictureSet
}

func newImageZip(body string, segs []widget.RichTextSegment, pics pictureSet) *imageZip {
	z := &imageZip{imgs: bodyImages(body), pics: pics}
	z.ok = countImages(segs) == len(z.imgs)
	return z
}

func countImages(segs []widget.RichTextSegment) int {
	n := 0
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.ImageSegment:
			n++
		case *widget.ListSegment:
			n += countImages(v.Items)
		case *widget.ParagraphSegment:
			n += countImages(v.Texts)
		}
	}
	return n
}

// replace returns what shows in place of the next image segment: the
// attachment's picture, a link for a web address (never fetched), or the
// alt text in brackets.
func (z *imageZip) replace(v *widget.ImageSegment) widget.RichTextSegment {
	var img bodyImage
	if z != nil && z.ok && z.next < len(z.imgs) {
		img = z.imgs[z.next]
	}
	if z != nil {
		z.next++
	}
	if strings.HasPrefix(img.dest, "att:") && z.pics != nil {
		if s := z.pics.segment(img.dest, img.alt); s != nil {
			return s
		}
	}
	if u, err := url.Parse(img.dest); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		label := img.alt
		if label == "" {
			label = img.dest
		}
		return &widget.HyperlinkSegment{Alignment: fyne.TextAlignLeading, Text: label, URL: u}
	}
	text := lang.L("[image]")
	if img.alt != "" {
		text = fmt.Sprintf(lang.L("[image: %s]"), img.alt)
	} else if v.Title != "" {
		text = fmt.Sprintf(lang.L("[image: %s]"), v.Title)
	}
	return &widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: text}
}
