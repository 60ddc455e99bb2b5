package ui

import (
	"slices"
	"strings"
	"testing"

	"newsdesk/news"
)

// newerItem is item n as a newer release would encode it (format 9): this
// release reads its envelope only.
func newerItem(t *testing.T, n int, cat, title string, minutes int) *news.Item {
	t.Helper()
	it := item(n, cat, title, minutes)
	enc, err := news.AppendEnvelope(nil, 9, it, []byte("fields this release does not read"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := news.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	d.Item.Received = it.Received
	return d.Item
}

// TestNewerItemSaysSo: an item of a newer Newsdesk is listed with its
// title (or, without one, as what it is) and opens to one line saying
// that it needs a newer Newsdesk, never to an empty or garbled text.
func TestNewerItemSaysSo(t *testing.T) {
	b := readerFake(t)
	b.Add(newerItem(t, 8, "company", "Neue Gleitzeitregelung", 5), newerItem(t, 9, "company", "", 6))
	h := newHarness(t, b)
	titles := listTitles(h.u.reader.list)
	if !slices.Contains(titles, "Neue Gleitzeitregelung") || !slices.Contains(titles, newerItemTitle()) {
		t.Fatalf("list %q", titles)
	}
	for _, title := range []string{"Neue Gleitzeitregelung", newerItemTitle()} {
		h.tap(rowTappable(t, h.u.reader.list, title))
		var text []string
		for _, s := range h.u.reader.view.body.Segments {
			text = append(text, s.Textual())
		}
		if got := strings.Join(text, " "); !strings.Contains(got, "This item needs a newer Newsdesk.") {
			t.Errorf("%s opens to %q", title, got)
		}
	}
}
