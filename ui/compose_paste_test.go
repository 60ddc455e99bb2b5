package ui

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// pasteInto pastes the test app's clipboard holding text into the
// focused object of the window, as the driver does on Ctrl+V, and runs
// what follows.
func pasteInto(h *harness, o fyne.Focusable, text string) {
	h.t.Helper()
	h.a.Clipboard().SetContent(text)
	h.win.Canvas().Focus(o)
	focused, ok := h.win.Canvas().Focused().(fyne.Shortcutable)
	if !ok {
		h.t.Fatalf("the focused object %T takes no shortcuts", h.win.Canvas().Focused())
	}
	focused.TypedShortcut(&fyne.ShortcutPaste{Clipboard: h.a.Clipboard()})
	h.sync()
}

// pasteFiles writes a picture, a PDF and a text file with a space in its
// name, and returns their paths.
func pasteFiles(t *testing.T) (photo, plan, notes string, photoData []byte) {
	t.Helper()
	dir := t.TempDir()
	photo, plan, notes = filepath.Join(dir, "photo.png"), filepath.Join(dir, "plan.pdf"), filepath.Join(dir, "My notes.txt")
	photoData = testPNG(t, 2000, 1000)
	for p, data := range map[string][]byte{photo: photoData, plan: []byte("%PDF-1.7 plan"), notes: []byte("notes")} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return photo, plan, notes, photoData
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// TestComposePasteFileURIs: files copied in a file manager paste as a
// list of file:// addresses; the picture goes in as a picture, scaled,
// at the cursor, the PDF as a file, in their order.
func TestComposePasteFileURIs(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	photo, plan, _, photoData := pasteFiles(t)
	h.typeInto(c.body, "Look:  Below.")
	c.body.CursorColumn = len("Look: ")
	c.body.Refresh()
	pasteInto(h, c.body, fileURI(photo)+"\r\n"+fileURI(plan)+"\r\n")
	if c.body.Text != "Look: ![photo.png][att:1] Below." {
		t.Errorf("body %q", c.body.Text)
	}
	if len(c.files.files) != 2 {
		t.Fatalf("%d attachments", len(c.files.files))
	}
	pic, doc := c.files.files[0], c.files.files[1]
	if !pic.picture || pic.Name != "photo.png" || pic.width != 1600 || pic.height != 800 || pic.original != len(photoData) {
		t.Errorf("picture %q %d×%d (was %d)", pic.Name, pic.width, pic.height, pic.original)
	}
	if doc.picture || doc.Name != "plan.pdf" || string(doc.Data) != "%PDF-1.7 plan" {
		t.Errorf("file %q, picture %v", doc.Name, doc.picture)
	}
	if !hasLabel(c.files.list, "plan.pdf") || !hasLabel(c.files.list, "1600 × 800") {
		t.Errorf("listed %q", labels(c.files.list))
	}
	if shownImage(c.preview) == nil {
		t.Error("the pasted picture is not in the preview")
	}
}

// TestComposePastePath: a path pastes as a file too (what GNOME Files
// copies as text, and Explorer's "Copy as path", in quotes), the body
// unchanged for a file that is no picture; the context menu's Paste
// does the same as Ctrl+V.
func TestComposePastePath(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	photo, _, notes, _ := pasteFiles(t)
	h.typeInto(c.body, "Notes attached.")
	pasteInto(h, c.body, notes+"\n")
	if c.body.Text != "Notes attached." || len(c.files.files) != 1 || c.files.files[0].Name != "My notes.txt" || c.files.files[0].picture {
		t.Fatalf("body %q, attachments %+v", c.body.Text, c.files.files)
	}

	h.a.Clipboard().SetContent(`"` + photo + `"`)
	test.TapSecondary(c.body)
	menu := find[*widget.PopUpMenu](h.win.Canvas().Overlays().Top(), nil)
	if menu == nil {
		t.Fatal("no context menu")
	}
	i := slices.IndexFunc(menu.Items, func(o fyne.CanvasObject) bool {
		return find[*canvas.Text](o, func(t *canvas.Text) bool { return t.Text == "Paste" }) != nil
	})
	var item fyne.CanvasObject
	ok := false
	if i >= 0 {
		item = menu.Items[i]
		_, ok = item.(fyne.Tappable)
	}
	if !ok {
		t.Fatal("no Paste to tap in the context menu")
	}
	test.Tap(item.(fyne.Tappable))
	h.sync()
	if len(c.files.files) != 2 || !c.files.files[1].picture || !strings.HasSuffix(c.body.Text, "![photo.png][att:2]") {
		t.Errorf("menu paste: body %q, %d attachments", c.body.Text, len(c.files.files))
	}
}

// TestComposePasteText: text that names no existing file pastes as
// text: a path of a file that is not there, a directory, ordinary text,
// and a path with Ctrl+Shift+V (the way to paste a path as text).
func TestComposePasteText(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	_, plan, _, _ := pasteFiles(t)
	missing := filepath.Join(t.TempDir(), "gone.png")
	for _, text := range []string{
		missing,
		fileURI(missing),
		filepath.Dir(plan),
		plan + "\n" + missing, // one of them is no file: all text
		"Hello **world**,\nsecond line",
		"/etc is where the configuration lives",
	} {
		h.typeInto(c.body, "Before: ")
		pasteInto(h, c.body, text)
		if want := "Before: " + text; c.body.Text != want {
			t.Errorf("pasted %q: body %q", text, c.body.Text)
		}
		if len(c.files.files) != 0 || c.files.failed.Visible() || hasLabel(c.files.list, "being added") {
			t.Errorf("pasted %q: %d attachments, listed %q, failure %q", text, len(c.files.files), labels(c.files.list), c.files.failed.Text)
		}
	}

	// Ordinary text pastes at once, as the Entry would paste it.
	h.typeInto(c.body, "")
	h.a.Clipboard().SetContent("at once")
	c.body.TypedShortcut(&fyne.ShortcutPaste{Clipboard: h.a.Clipboard()})
	if c.body.Text != "at once" || len(h.w.jobs) != 0 {
		t.Errorf("body %q, %d jobs", c.body.Text, len(h.w.jobs))
	}

	h.typeInto(c.body, "See ")
	h.a.Clipboard().SetContent(plan)
	c.body.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyV, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift})
	h.sync()
	if c.body.Text != "See "+plan || len(c.files.files) != 0 {
		t.Errorf("Ctrl+Shift+V: body %q, %d attachments", c.body.Text, len(c.files.files))
	}
}

func TestPastedPaths(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"file:///home/a/x.png\r\nfile:///home/a/y.pdf\r\n", []string{"/home/a/x.png", "/home/a/y.pdf"}},
		{"file:///home/a/My%20Photo.jpg", []string{"/home/a/My Photo.jpg"}},
		{"file://localhost/home/a/x.png", []string{"/home/a/x.png"}},
		{"FILE:/home/a/x.png", []string{"/home/a/x.png"}},
		{"/home/a/x.png\n\n/home/a/../b/y.png\n", []string{"/home/a/x.png", "/home/b/y.png"}},
		{`"/home/a/x.png"`, []string{"/home/a/x.png"}},
		{"file://server/share/x.png", nil}, // another computer's
		{"https://example.com/x.png", nil},
		{"x.png", nil}, // relative: a word, not a file
		{"Hello world", nil},
		{"/home/a/x.png\nand some text", nil},
		{"", nil},
		{"\n\n", nil},
		{strings.Repeat("/home/a/x.png\n", maxAttachments+1), nil},
	}
	if runtime.GOOS == "windows" {
		cases = []struct {
			text string
			want []string
		}{
			{`"C:\Users\a\x.png"` + "\r\n" + `"C:\Users\a\y.pdf"`, []string{`C:\Users\a\x.png`, `C:\Users\a\y.pdf`}},
			{"file:///C:/Users/a/My%20Photo.jpg", []string{`C:\Users\a\My Photo.jpg`}},
			{`\\server\share\x.png`, []string{`\\server\share\x.png`}},
			{"x.png", nil},
			{`C:x.png`, nil},
		}
	}
	for _, c := range cases {
		if got := pastedPaths(c.text); !slices.Equal(got, c.want) {
			t.Errorf("pastedPaths(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := pastedPaths(strings.Repeat("/home/a/x.png\n", maxAttachments)); len(got) != maxAttachments && runtime.GOOS != "windows" {
		t.Errorf("%d paths of %d", len(got), maxAttachments)
	}
}
