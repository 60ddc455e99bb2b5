package ui

import (
	"fmt"
	"strings"
	"testing"

	"newsdesk/news"
)

// Compose's audience field: empty is everyone; typed ranges become the
// draft's canonical audience; a malformed range stops the draft with the
// problem under the field; a success clears it.
func TestComposeAudience(t *testing.T) {
	b := newFake(t)
	h, c := composeHarness(t, b)
	if c.audience.PlaceHolder != audienceHint() {
		t.Errorf("the audience field's hint is %q", c.audience.PlaceHolder)
	}
	chooseCategory(c, "hr")
	h.typeInto(c.title, "Berlin office closed on Friday")

	h.typeInto(c.audience, "10.1.4.0/22, berlin")
	h.tap(c.publish)
	if len(b.drafts) != 0 {
		t.Fatalf("a draft with a malformed range went out: %+v", b.drafts)
	}
	note := c.notes[news.FieldAudience]
	if !note.Visible() || !strings.Contains(note.Text, `"berlin" is not a network range`) {
		t.Errorf("the note under the audience says %q (visible %v)", note.Text, note.Visible())
	}

	h.typeInto(c.audience, "2001:db8:4::/48 10.1.4.7/22")
	if note.Visible() {
		t.Errorf("the note stayed after the field changed: %q", note.Text)
	}
	h.tap(c.publish)
	if len(b.drafts) != 1 || fmt.Sprint(news.FormatAudience(b.drafts[0].Audience)) != "[10.1.4.0/22 2001:db8:4::/48]" {
		t.Fatalf("drafts %+v", b.drafts)
	}
	if c.audience.Text != "" {
		t.Errorf("the form kept the audience %q", c.audience.Text)
	}
	if e, _ := b.Item(b.Items()[0].ID); len(e.Item.Audience) != 2 {
		t.Errorf("the published item's audience is %v", e.Item.Audience)
	}
}
