package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestComposeAddingIsShown: a file being read and scaled is listed as
// being added, and Publish waits for it, saying why; once added, the
// note goes and Publish publishes it.
func TestComposeAddingIsShown(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "New office")
	c.files.add("office.png", testPNG(t, 2000, 1000), true)
	if !hasLabel(c.files.list, "office.png") || !hasLabel(c.files.list, "being added…") || button(c.files.list, "Remove") != nil {
		t.Errorf("while adding, the list says %q", labels(c.files.list))
	}
	test.Tap(c.publish) // before the picture is ready
	note := c.notes[fieldAttachments]
	if len(b.drafts) != 0 || !note.Visible() || note.Text != waitingProblem() {
		t.Fatalf("published %d; note %q", len(b.drafts), note.Text)
	}
	h.sync()
	if hasLabel(c.files.list, "being added") || !hasLabel(c.files.list, "1600 × 800") || note.Visible() {
		t.Errorf("once added: list %q, note %q", labels(c.files.list), note.Text)
	}
	h.tap(c.publish)
	if len(b.drafts) != 1 || len(b.drafts[0].Attachments) != 1 {
		t.Fatalf("published %d drafts", len(b.drafts))
	}
}

// TestComposeAddedInOrderChosen: files are added in the order they were
// chosen, whichever is ready first, so a picture's reference and its
// place in the list agree with what the publisher did.
func TestComposeAddedInOrderChosen(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	c.files.add("first.png", testPNG(t, 40, 20), true)
	c.files.add("second.pdf", []byte("%PDF-1.7"), false)
	c.files.add("third.png", testPNG(t, 20, 20), true)
	jobs := h.w.jobs
	h.w.jobs = nil
	jobs[2]()() // the third is ready first: it waits for the others
	jobs[1]()()
	if len(c.files.files) != 0 || !hasLabel(c.files.list, "third.png") {
		t.Fatalf("added before the first: %d; listed %q", len(c.files.files), labels(c.files.list))
	}
	jobs[0]()()
	var names []string
	for _, df := range c.files.files {
		names = append(names, df.Name)
	}
	if !slices.Equal(names, []string{"first.png", "second.pdf", "third.png"}) {
		t.Errorf("added %q", names)
	}
	if c.body.Text != "![first.png][att:1]![third.png][att:3]" {
		t.Errorf("body %q", c.body.Text)
	}
	if hasLabel(c.files.list, "being added") {
		t.Errorf("listed %q", labels(c.files.list))
	}
}

// TestComposeClearedWhileAdding: a file still being added when the draft
// is cleared (or published) does not land in the next draft.
func TestComposeClearedWhileAdding(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	c.files.add("office.png", testPNG(t, 40, 20), true)
	test.Tap(c.clear)
	h.sync()
	if len(c.files.files) != 0 || c.body.Text != "" || len(c.files.list.Objects) != 0 {
		t.Errorf("after clearing: %d attachments, body %q, listed %q", len(c.files.files), c.body.Text, labels(c.files.list))
	}
}

// TestComposePictureFocusesText: once a picture is in, the text has the
// focus again (a dialog took it), so the publisher types on after it;
// but not when another field has it.
func TestComposePictureFocusesText(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	h.typeInto(c.body, "Look:")
	h.win.Canvas().Unfocus()
	c.files.add("office.png", testPNG(t, 40, 20), true)
	h.sync()
	if h.win.Canvas().Focused() != c.body {
		t.Fatalf("focus on %T", h.win.Canvas().Focused())
	}
	test.Type(c.body, " and more")
	if c.body.Text != "Look:![office.png][att:1] and more" {
		t.Errorf("body %q", c.body.Text)
	}

	c.files.add("plan.png", testPNG(t, 40, 20), true)
	h.win.Canvas().Focus(c.title) // meanwhile
	h.sync()
	if h.win.Canvas().Focused() != c.title {
		t.Errorf("focus moved to %T", h.win.Canvas().Focused())
	}
}

// TestComposeFileDialogSize: the dialogs that choose a picture or a file
// open large enough to show file names whole, within the window.
func TestComposeFileDialogSize(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	for _, pick := range []*widget.Button{c.files.addPicture, c.files.attachFile} {
		h.tap(pick)
		top := h.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatalf("%s showed no dialog", pick.Text)
		}
		pop := find[*widget.PopUp](top, nil)
		win := h.win.Canvas().Size()
		want := fyne.NewSize(min(fileDialogSize.Width, win.Width), min(fileDialogSize.Height, win.Height))
		if pop == nil || pop.Content.Size().Width < want.Width*0.9 || pop.Content.Size().Height < want.Height*0.9 {
			t.Errorf("%s: dialog %v in a window %v", pick.Text, pop.Content.Size(), win)
		}
		h.win.Canvas().Overlays().Remove(top)
	}
}
