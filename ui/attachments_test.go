package ui

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	fstorage "fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/trust"
	"newsdesk/ui/internal/fakebackend"
)

// testPNG is a w×h opaque PNG: red on the left, blue on the right.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// shownImage returns the decoded picture shown under o, or nil.
func shownImage(o fyne.CanvasObject) *canvas.Image {
	return find[*canvas.Image](o, func(i *canvas.Image) bool { return i.Image != nil })
}

// TestComposeAddPicture: a picture added to the draft is scaled, listed
// with its pixels and sizes, referenced at the cursor, and shown in the
// preview from the draft's bytes.
func TestComposeAddPicture(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	photo := testPNG(t, 2000, 1000)
	h.typeInto(c.body, "Our new office. ")
	c.files.add("office.png", photo, true)
	h.sync()
	if c.body.Text != "Our new office. ![office.png][att:1]" {
		t.Errorf("body %q", c.body.Text)
	}
	if len(c.files.files) != 1 {
		t.Fatalf("%d attachments", len(c.files.files))
	}
	df := c.files.files[0]
	if !df.picture || df.width != 1600 || df.height != 800 || df.original != len(photo) {
		t.Errorf("picture %d×%d, was %d", df.width, df.height, df.original)
	}
	if !hasLabel(c.files.list, "1600 × 800, ") || !hasLabel(c.files.list, "(was "+formatBytes(int64(len(photo)))+")") || !hasLabel(c.files.list, df.Name) {
		t.Errorf("the list says %q", labels(c.files.list))
	}
	if !hasLabel(c.files.content, "1 of 32 attachments, ") {
		t.Errorf("no summary: %q", labels(c.files.content))
	}
	img := shownImage(c.preview)
	if img == nil {
		t.Fatal("the preview shows no picture")
	}
	if b := img.Image.Bounds(); b.Dx() != 1600 || b.Dy() != 800 {
		t.Errorf("the preview shows %v", b)
	}
	if w := img.Size().Width; w <= 0 || w > 1600 || w > c.preview.Size().Width {
		t.Errorf("shown %v wide in a preview %v wide", w, c.preview.Size().Width)
	}
	if !hasLabel(c.preview, "office.png") {
		t.Error("no alt text under the picture")
	}

	// A small picture stays as it is.
	small := testPNG(t, 40, 20)
	c.files.add("dot.png", small, true)
	h.sync()
	if got := c.files.files[1]; !bytes.Equal(got.Data, small) || got.original != 0 || fileInfo(got) != "40 × 20, "+formatBytes(int64(len(small))) {
		t.Errorf("small picture: %q", fileInfo(got))
	}
	// Not a picture.
	c.files.add("notes.png", []byte("not a picture"), true)
	h.sync()
	want := "“notes.png” could not be added: Newsdesk shows JPEG, PNG and GIF pictures only: attach this one as a file instead."
	if !c.files.failed.Visible() || c.files.failed.Text != want || len(c.files.files) != 2 {
		t.Errorf("a file that is no picture: %q, %d attachments", c.files.failed.Text, len(c.files.files))
	}
}

// A file that cannot be added says why in the interface's language: no
// picture, a damaged one, one too large.
func TestComposeAddRefusedInLanguages(t *testing.T) {
	for _, c := range []struct{ code, noPicture, damaged, tooLarge string }{
		{"de", "„notes.png“ konnte nicht hinzugefügt werden: Newsdesk zeigt nur JPEG-, PNG- und GIF-Bilder",
			"„cut.jpg“ konnte nicht hinzugefügt werden: Das Bild ist beschädigt oder unvollständig",
			"„big.zip“ konnte nicht hinzugefügt werden: Die Datei ist größer als 20 MiB"},
		{"ja", "「notes.png」を追加できませんでした: Newsdesk で表示できる画像は JPEG、PNG、GIF だけです。",
			"「cut.jpg」を追加できませんでした: 画像が壊れているか途中で切れているため、読み込めません。",
			"「big.zip」を追加できませんでした: ファイルが 20 MiB を超えています。"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			h, comp := composeHarness(t, newFake(t))
			for _, f := range []struct {
				name    string
				data    []byte
				picture bool
				want    string
			}{
				{"notes.png", []byte("%PDF-1.7"), true, c.noPicture},
				{"cut.jpg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16}, true, c.damaged},
				{"big.zip", make([]byte, maxFileRead+1), false, c.tooLarge},
			} {
				comp.files.add(f.name, f.data, f.picture)
				h.sync()
				if got := comp.files.failed.Text; !strings.HasPrefix(got, f.want) || len(comp.files.files) != 0 {
					t.Errorf("%s: %q, want %q", f.name, got, f.want)
				}
			}
		})
	}
}

// TestComposeRemoveRenumbers: removing an attachment removes its
// pictures from the body and counts the references after it down.
func TestComposeRemoveRenumbers(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	for _, name := range []string{"one.png", "two.png", "three.png"} {
		c.files.add(name, testPNG(t, 10+len(name), 10), true)
		h.sync()
		c.body.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard("\n\n")})
	}
	c.files.add("plan.pdf", []byte("%PDF-1.7 plan"), false)
	h.sync()
	c.body.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard("[The plan][att:4]")})
	want := "![one.png][att:1]\n\n![two.png][att:2]\n\n![three.png][att:3]\n\n[The plan][att:4]"
	if c.body.Text != want {
		t.Fatalf("body %q", c.body.Text)
	}
	var removes []*widget.Button
	walk(c.files.list, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Text == "Remove" {
			removes = append(removes, b)
		}
		return true
	})
	if len(removes) != 4 {
		t.Fatalf("%d remove buttons", len(removes))
	}
	if n := len(shownImages(c.preview)); n != 3 {
		t.Errorf("the preview shows %d pictures, %q", n, segmentText(c.preview.Segments))
	}
	h.tap(removes[1]) // two.png
	if want := "![one.png][att:1]\n\n![three.png][att:2]\n\n[The plan][att:3]"; c.body.Text != want {
		t.Errorf("body %q, want %q", c.body.Text, want)
	}
	var names []string
	for _, df := range c.files.files {
		names = append(names, df.Name)
	}
	if !slices.Equal(names, []string{"one.png", "three.png", "plan.pdf"}) || hasLabel(c.files.list, "two.png") {
		t.Errorf("attachments %q, listed %q", names, labels(c.files.list))
	}
	if n := len(shownImages(c.preview)); n != 2 {
		t.Errorf("the preview shows %d pictures", n)
	}
}

func shownImages(o fyne.CanvasObject) []*canvas.Image {
	var out []*canvas.Image
	walk(o, func(c fyne.CanvasObject) bool {
		if i, ok := c.(*canvas.Image); ok && i.Image != nil {
			out = append(out, i)
		}
		return true
	})
	return out
}

func TestRemoveReference(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int
		want string
	}{
		{"a ![x][att:1] b ![y][att:2] c", 1, "a  b ![y][att:1] c"},
		{"![x][att:1] [see][att:2] ![z][att:3]", 2, "![x][att:1] [see] ![z][att:2]"},
		{"`[att:9]` ![x][att:10]", 12, "`[att:9]` ![x][att:10]"},
		// A picture alone on its line goes with the line and the blank
		// line after it; at the end, with its line.
		{"Before.\n\n![x][att:1]\n\nAfter ![y][att:2].", 1, "Before.\n\nAfter ![y][att:1]."},
		{"Before.\r\n\r\n  ![x][att:1] \r\n\r\nAfter.", 1, "Before.\r\n\r\nAfter."},
		{"A\n![x][att:1]\nB", 1, "A\nB"},
		{"Before.\n\n![x][att:1]", 1, "Before.\n\n"},
		{"![x][att:1] and text", 1, " and text"},
		{"![x][att:11]\n\nB", 1, "![x][att:10]\n\nB"},
	} {
		if got := removeReference(c.body, c.n); got != c.want {
			t.Errorf("removeReference(%q, %d) = %q, want %q", c.body, c.n, got, c.want)
		}
	}
}

// TestComposeAttachmentLimits: more than 32 attachments, or more than 20
// MiB of them, is said before publishing, and nothing is published.
func TestComposeAttachmentLimits(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "Files")
	for i := range 33 {
		c.files.added(draftFile{DraftAttachment: app.DraftAttachment{Name: "f.txt", Data: []byte{byte(i)}}})
	}
	note := c.notes[fieldAttachments]
	want := "Too many attachments: an item has at most 32. Remove 1."
	if !note.Visible() || note.Text != want {
		t.Errorf("33 attachments: %q (shown %v)", note.Text, note.Visible())
	}
	h.tap(c.publish)
	if len(b.drafts) != 0 || note.Text != want {
		t.Errorf("published %d; note %q", len(b.drafts), note.Text)
	}
	c.files.clear()
	c.files.added(draftFile{DraftAttachment: app.DraftAttachment{Name: "big.bin", Data: make([]byte, 21<<20)}})
	if want := "The attachments are too large: 21 MiB in all, at most 20 MiB. Remove some."; note.Text != want {
		t.Errorf("21 MiB: %q", note.Text)
	}
	h.tap(c.publish)
	if len(b.drafts) != 0 {
		t.Errorf("published %d", len(b.drafts))
	}
	h.tap(button(c.files.list, "Remove"))
	if note.Visible() {
		t.Errorf("after removing: %q", note.Text)
	}
}

// TestComposePublishesAttachments: Publish passes the draft's
// attachments, in order, and the form is emptied after.
func TestComposePublishesAttachments(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "New office")
	h.typeInto(c.body, "Look: ")
	pic := testPNG(t, 30, 20)
	c.files.add("office.png", pic, true)
	c.files.add("plan.pdf", []byte("%PDF-1.7 plan"), false)
	h.sync()
	h.tap(c.publish)
	if len(b.drafts) != 1 {
		t.Fatalf("%d drafts", len(b.drafts))
	}
	d := b.drafts[0]
	if d.Body != "Look: ![office.png][att:1]" || len(d.Attachments) != 2 ||
		d.Attachments[0].Name != "office.png" || d.Attachments[0].MediaType != "image/png" || !bytes.Equal(d.Attachments[0].Data, pic) ||
		d.Attachments[1].Name != "plan.pdf" || string(d.Attachments[1].Data) != "%PDF-1.7 plan" {
		t.Errorf("published %q with %+v", d.Body, d.Attachments)
	}
	if len(c.files.files) != 0 || c.body.Text != "" {
		t.Errorf("not emptied: %d attachments", len(c.files.files))
	}
}

// attachmentItem is an item with a picture in its text and a file beside
// it, both here, and the picture's bytes.
func attachmentItem(t *testing.T, b *fake) (*news.Item, []byte) {
	t.Helper()
	pic := testPNG(t, 800, 400)
	it := attachedItem(t, b, pic)
	b.Transfer(pic)
	b.Transfer(planPDF)
	return it, pic
}

// planPDF is the file beside the text of attachedItem.
var planPDF = []byte("%PDF-1.7 plan")

// attachedItem is the item of attachmentItem with the picture pic, its
// attachments not here yet.
func attachedItem(t *testing.T, b *fake, pic []byte) *news.Item {
	t.Helper()
	it := item(1, "company", "New office", 10)
	it.Body = "We moved.\n\n![The new office][att:1]\n\nSee the plan."
	b.AddAttached(it,
		app.DraftAttachment{Name: "office.png", MediaType: "image/png", Data: pic},
		app.DraftAttachment{Name: "plan.pdf", MediaType: "application/pdf", Data: planPDF})
	return it
}

// TestReaderShowsPicture: a picture the text refers to shows in its
// place, no wider than the reading pane nor than itself, with its alt
// text; a tap opens it at full size. The manifest is never shown; the
// other attachment is listed with Open and Save as….
func TestReaderShowsPicture(t *testing.T) {
	b := newFake(t)
	b.PresetSubscriptions("company")
	it, _ := attachmentItem(t, b)
	if !strings.Contains(it.Body, "[att:2]: newsdesk:blob/sha256/") {
		t.Fatalf("no manifest: %q", it.Body)
	}
	h := newHarness(t, b)
	var opened []*url.URL
	h.u.opts.openURL = func(u *url.URL) error { opened = append(opened, u); return nil }
	h.tap(rowTappable(t, h.u.reader.list, "New office"))
	v := h.u.reader.view
	text := segmentText(v.body.Segments)
	if strings.Contains(text, "newsdesk:") || strings.Contains(text, "att:") || !strings.Contains(text, "See the plan.") {
		t.Errorf("body shows %q", text)
	}
	img := shownImage(v.body)
	if img == nil {
		t.Fatal("no picture shown")
	}
	if w := img.Size().Width; w <= 0 || w > 800 || w > v.body.Size().Width {
		t.Errorf("picture %v wide in a pane %v wide", img.Size(), v.body.Size().Width)
	}
	if r := img.Size().Width / img.Size().Height; r < 1.9 || r > 2.1 {
		t.Errorf("aspect ratio %v", r)
	}
	if !hasLabel(v.body, "The new office") {
		t.Error("no alt text")
	}
	pv := find[*pictureView](v.body, nil)
	h.tap(pv)
	if h.u.pictureWindow == nil || h.u.pictureWindow.Title() != "The new office" {
		t.Error("the tap opened no full-size window")
	} else {
		h.u.pictureWindow.Close()
	}

	// The file beside the text.
	files := v.files.content
	if !hasLabel(files, "plan.pdf") || hasLabel(files, "office.png") || !hasLabel(files, formatBytes(13)) {
		t.Errorf("attachments listed: %q", labels(files))
	}
	open, save := button(files, "Open"), button(files, "Save as…")
	if open == nil || save == nil || open.Disabled() {
		t.Fatal("no Open and Save as… buttons")
	}
	h.tap(open)
	if len(opened) != 1 || opened[0].Scheme != "file" || !strings.HasSuffix(opened[0].Path, "/plan.pdf") {
		t.Fatalf("opened %v", opened)
	}
	if data, err := os.ReadFile(opened[0].Path); err != nil || string(data) != "%PDF-1.7 plan" {
		t.Errorf("the file opened holds %q, %v", data, err)
	}
	h.tap(save)
	if top := h.win.Canvas().Overlays().Top(); top == nil {
		t.Error("Save as… showed no dialog")
	}
	h.u.Close()
	if _, err := os.Stat(opened[0].Path); !os.IsNotExist(err) {
		t.Errorf("the temporary file stays: %v", err)
	}
}

// TestReaderPictureArrivingAndMissing: while a picture arrives, a
// placeholder shows how far; when it is missing, a placeholder says so;
// once whole, the picture shows. Files not here cannot be opened.
func TestReaderPictureArrivingAndMissing(t *testing.T) {
	b := newFake(t)
	b.PresetSubscriptions("company")
	pic := noisyPNG(t, 200, 100) // two chunks
	if news.ChunkCount(int64(len(pic))) != 2 {
		t.Fatalf("the picture is %d bytes", len(pic))
	}
	it := attachedItem(t, b, pic)
	b.TransferPart(pic, 1)
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "New office"))
	v := h.u.reader.view
	if shownImage(v.body) != nil {
		t.Error("a picture not here is shown")
	}
	bar := find[*widget.ProgressBar](v.body, nil)
	if bar == nil || bar.Value != news.ChunkSize || bar.Max != float64(len(pic)) {
		t.Fatalf("progress %v", bar)
	}
	if !hasLabel(v.body, "The picture “The new office” is arriving: ") {
		t.Errorf("placeholder says %q", labels(v.body))
	}
	if !hasLabel(v.files.content, "not on this computer yet") || button(v.files.content, "Save as…") == nil || !button(v.files.content, "Save as…").Disabled() {
		t.Errorf("missing file: %q", labels(v.files.content))
	}
	// A file not here is got from the network when the reader asks.
	h.tap(button(v.files.content, "Download"))
	h.sync()
	if got := b.Fetched(); len(got) != 1 || got[0] != hashOf(planPDF) {
		t.Errorf("Download asked for %v", got)
	}
	if !hasLabel(v.files.content, "Asking the network") || !button(v.files.content, "Download").Disabled() {
		t.Errorf("after Download: %q", labels(v.files.content))
	}
	opens := b.blobOpens

	// The application's event of the lost picture updates the view.
	b.LoseBlob(pic)
	h.sync()
	if !hasLabel(v.body, "The picture “The new office” is missing: it has not reached this computer.") || find[*widget.ProgressBar](v.body, nil) != nil {
		t.Errorf("placeholder says %q", labels(v.body))
	}
	if b.blobOpens != opens {
		t.Error("a blob not here was read")
	}

	b.Transfer(pic)
	h.sync()
	if shownImage(v.body) == nil {
		t.Error("the picture that arrived is not shown")
	}
	if e, err := b.Item(it.ID); err != nil || e.Attachments[0].State != app.BlobWhole || e.Attachments[1].State != app.BlobMissing {
		t.Errorf("attachments %+v, %v", e.Attachments, err)
	}
}

// noisyPNG is a w×h picture of noise: it does not compress.
func noisyPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rand.NewChaCha8([32]byte{1}).Read(img.Pix)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReaderNeverFetchesRemoteImages: an image with a web address shows
// as a link with its alt text, and nothing is requested from the server.
func TestReaderNeverFetchesRemoteImages(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write(testPNG(t, 4, 4))
	}))
	defer srv.Close()
	b := newFake(t)
	b.PresetSubscriptions("company")
	it := item(1, "company", "Tracking", 10)
	it.Body = "Hello.\n\n![Company logo](" + srv.URL + "/logo.png)\n\n![](" + srv.URL + "/pixel.gif) and ![x](file:///etc/passwd)"
	b.Add(it)
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "Tracking"))
	v := h.u.reader.view
	var links []string
	var walkSegs func([]widget.RichTextSegment)
	walkSegs = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch x := s.(type) {
			case *widget.ImageSegment:
				t.Errorf("image segment %v kept", x.Source)
			case *widget.HyperlinkSegment:
				links = append(links, x.Text+" → "+x.URL.String())
			case *widget.ParagraphSegment:
				walkSegs(x.Texts)
			}
		}
	}
	walkSegs(v.body.Segments)
	if want := []string{"Company logo → " + srv.URL + "/logo.png", srv.URL + "/pixel.gif → " + srv.URL + "/pixel.gif"}; !slices.Equal(links, want) {
		t.Errorf("links %q, want %q", links, want)
	}
	if !strings.Contains(segmentText(v.body.Segments), "[image: x]") {
		t.Errorf("body %q", segmentText(v.body.Segments))
	}
	if shownImage(v.body) != nil {
		t.Error("a picture is shown")
	}
	h.sync()
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times", n)
	}
}

func TestStripManifest(t *testing.T) {
	for body, want := range map[string]string{
		"Text.\n\n[att:1]: newsdesk:blob/sha256/ab?size=1\n[att:2]: newsdesk:blob/sha256/cd?size=2": "Text.",
		"Text.\n\n[att:1]: newsdesk:blob/sha256/ab?size=1\n":                                        "Text.",
		"Text.\n\n[att:1]: https://example.com/":                                                    "Text.\n\n[att:1]: https://example.com/",
		"[att:1]: newsdesk:blob/x":                                                                  "",
		"No manifest.\n":                                                                            "No manifest.\n",
	} {
		if got := stripManifest(body); got != want {
			t.Errorf("stripManifest(%q) = %q, want %q", body, got, want)
		}
	}
}

var _ AttachmentBackend = (*fakebackend.Backend)(nil)

// TestPictureInText: a picture amid a paragraph's text starts a line of
// its own, and the text around it stays, in order.
func TestPictureInText(t *testing.T) {
	test.NewTempApp(t)
	u := &UI{}
	pics := newPictures(u, []app.Attachment{{Ref: "att:1", Hash: "ab", Name: "a.png", MediaType: "image/png"},
		{Ref: "att:2", Hash: "cd", Name: "b.pdf", MediaType: "application/pdf"}}, nil)
	segs := markdownBody("Before ![One][att:1] after, [the plan][att:2] and ![Two][att:2].\n\n[att:1]: newsdesk:blob/sha256/ab?size=1", pics)
	var kinds []string
	for _, s := range segs {
		switch v := s.(type) {
		case *pictureSegment:
			kinds = append(kinds, "picture "+v.pic.alt)
		default:
			kinds = append(kinds, s.Textual())
		}
	}
	want := []string{"Before ", "", "picture One", " after, ", "the plan", " and ", "[image: Two]", "."}
	if !slices.Equal(kinds[:min(len(kinds), len(want))], want) {
		t.Errorf("segments %q, want %q…", kinds, want)
	}
	if !pics.used["att:1"] || pics.used["att:2"] {
		t.Errorf("shown inline: %v", pics.used)
	}
}

// TestSnippetOfPictures: a notification's text names a picture by its alt
// text and never shows the manifest.
func TestSnippetOfPictures(t *testing.T) {
	got := snippet("Look: ![The office][att:1]\n\n[att:1]: newsdesk:blob/sha256/ab?size=1&name=a.png")
	if got != "Look: The office" {
		t.Errorf("snippet %q", got)
	}
}

// TestComposeDrop: files dropped on the window while Compose shows are
// added: pictures as pictures, others as files.
func TestComposeDrop(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	dir := t.TempDir()
	pic, doc := dir+"/Photo.PNG", dir+"/notes.txt"
	if err := os.WriteFile(pic, testPNG(t, 20, 10), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, []byte("notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.files.dropped(fyne.Position{}, []fyne.URI{fstorage.NewFileURI(pic), fstorage.NewFileURI(doc)})
	h.sync()
	if len(c.files.files) != 2 || !c.files.files[0].picture || c.files.files[1].picture || c.files.files[1].Name != "notes.txt" {
		t.Fatalf("dropped: %+v", c.files.files)
	}
	if c.body.Text != "![Photo.PNG][att:1]" {
		t.Errorf("body %q", c.body.Text)
	}
	// Elsewhere, a drop adds nothing.
	h.u.tabs.Select(h.u.readTab)
	c.files.dropped(fyne.Position{}, []fyne.URI{fstorage.NewFileURI(doc)})
	h.sync()
	if len(c.files.files) != 2 {
		t.Errorf("a drop on the reader added to the draft: %d", len(c.files.files))
	}
	// A folder dropped is refused as one, naming it.
	h.u.tabs.Select(h.u.newsTab)
	folder := dir + "/Plans"
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	c.files.dropped(fyne.Position{}, []fyne.URI{fstorage.NewFileURI(folder)})
	h.sync()
	if want := folder + " is a folder: choose a file in it."; len(c.files.files) != 2 || !strings.Contains(c.files.failed.Text, want) || !c.files.failed.Visible() {
		t.Errorf("a folder dropped: %d files, note %q; want 2 and %q", len(c.files.files), c.files.failed.Text, want)
	}
}

// TestCorrectionKeepsAttachments: a correction starts from the original's
// text without its manifest and with its attachments; those not on this
// computer are left out, with their pictures, and the note says so.
func TestCorrectionKeepsAttachments(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	pic := testPNG(t, 800, 400)
	it := attachedItem(t, b, pic)
	b.Transfer(planPDF)
	e, err := b.Item(it.ID)
	if err != nil {
		t.Fatal(err)
	}
	c.correct(e)
	h.sync()
	if c.body.Text != "We moved.\n\nSee the plan." || len(c.files.files) != 1 || c.files.files[0].Name != "plan.pdf" {
		t.Errorf("body %q, %d attachments", c.body.Text, len(c.files.files))
	}
	if want := "1 attachment of the original is not on this computer and was left out."; c.files.failed.Text != want || !c.files.failed.Visible() {
		t.Errorf("note %q", c.files.failed.Text)
	}

	b.Transfer(pic)
	e, _ = b.Item(it.ID)
	c.correct(e)
	h.sync()
	if c.body.Text != "We moved.\n\n![The new office][att:1]\n\nSee the plan." {
		t.Errorf("body %q", c.body.Text)
	}
	if len(c.files.files) != 2 || !bytes.Equal(c.files.files[0].Data, pic) || !c.files.files[0].picture || c.files.files[0].width != 800 ||
		c.files.files[1].Name != "plan.pdf" || c.files.files[1].picture {
		t.Errorf("attachments %+v", c.files.files)
	}
	if shownImage(c.preview) == nil {
		t.Error("the preview shows no picture")
	}
	if c.files.failed.Visible() {
		t.Errorf("the note %q stays", c.files.failed.Text)
	}
}

// TestComposeNetworkAttachmentLimit: Compose measures the attachments
// against the network's cap in the chosen category, not the item
// format's: the summary says "x of y", a draft beyond the cap is stopped
// with a note naming it, a category allowing none says so, and when an
// admin lifts the cap while Compose is open, the draft goes.
func TestComposeNetworkAttachmentLimit(t *testing.T) {
	b := newFake(t)
	b.PresetNetwork(nextVersion(t, b.Identity(), b.Network(), func(n *trust.Network) {
		n.Limits = trust.PublishLimits{AttachmentBytes: 1 << 20, CategoryAttachmentBytes: map[string]int64{"hr": trust.NoAttachments}}
	}))
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "Plans")
	c.files.added(draftFile{DraftAttachment: app.DraftAttachment{Name: "plan.bin", Data: make([]byte, 2<<20)}})
	note := c.notes[fieldAttachments]
	if want := "The attachments are too large: 2 MiB in all, and the network allows at most 1 MiB in this category. Remove some."; !note.Visible() || note.Text != want {
		t.Errorf("2 MiB against 1 MiB: %q (shown %v)", note.Text, note.Visible())
	}
	if want := "1 of 32 attachments, 2 MiB of 1 MiB"; c.files.summary.Text != want {
		t.Errorf("summary %q, want %q", c.files.summary.Text, want)
	}
	h.tap(c.publish)
	if len(b.drafts) != 0 {
		t.Fatalf("published %d drafts beyond the network's cap", len(b.drafts))
	}
	chooseCategory(c, "hr")
	if want := "The network allows no attachments in this category: remove them."; note.Text != want {
		t.Errorf("in hr: %q", note.Text)
	}

	if err := b.PublishNetwork(nextVersion(t, b.Identity(), b.Network(), func(n *trust.Network) { n.Limits = trust.PublishLimits{} })); err != nil {
		t.Fatal(err)
	}
	h.sync()
	chooseCategory(c, "it")
	if want := "1 of 32 attachments, 2 MiB of 20 MiB"; c.files.summary.Text != want {
		t.Errorf("after the cap was lifted: summary %q, want %q", c.files.summary.Text, want)
	}
	h.tap(c.publish)
	if len(b.drafts) != 1 || c.outcome.Text == "" || strings.HasPrefix(c.outcome.Text, "Not published") {
		t.Errorf("after the cap was lifted: %d drafts, outcome %q", len(b.drafts), c.outcome.Text)
	}
}
