package ui

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/news"
)

// readerFake has items in subscribed and unsubscribed categories, one of
// them read; edit, if given, changes the items (newest first) before they
// are stored.
func readerFake(t testing.TB, edit ...func(items []*news.Item)) *fake {
	b := newFake(t)
	b.PresetSubscriptions("company", "sales")
	items := []*news.Item{
		item(1, "company", "Quarterly results", 10),
		item(2, "company", "Town hall", 20),
		item(3, "company", "New travel policy", 30),
		item(4, "company", "Old news", 40),
		item(5, "sales/emea", "Record quarter in the Nordics", 50),
		item(6, "sales/emea", "New distributor", 60),
		item(7, "it", "Printers back", 70),
	}
	for _, e := range edit {
		e(items)
	}
	b.Add(items...)
	b.PresetRead(b.Items()[3].ID) // "Old news"
	return b
}

// TestShowMain: the window is titled Newsdesk, sized for three panes, and
// shows the reading screen with the items, newest first.
func TestShowMain(t *testing.T) {
	h := newHarness(t, readerFake(t))
	if h.win.Title() != "Newsdesk" {
		t.Errorf("title %q", h.win.Title())
	}
	if got := h.win.Canvas().Size(); got != mainSize {
		t.Errorf("window size %v, want %v", got, mainSize)
	}
	want := []string{"Quarterly results", "Town hall", "New travel policy", "Old news", "Record quarter in the Nordics", "New distributor", "Printers back"}
	if got := listTitles(h.u.reader.list); !slices.Equal(got, want) {
		t.Errorf("list %q, want %q", got, want)
	}
	if !hasLabel(h.win.Content(), "Quarterly results") || !hasLabel(h.win.Content(), "10 min ago") {
		t.Errorf("first row not rendered: %q", labels(h.win.Content()))
	}
}

// TestSidebarUnreadCounts: the sidebar lists All and the subscribed
// categories with what is under them, children indented, each with the
// unread count of everything it covers.
func TestSidebarUnreadCounts(t *testing.T) {
	h := newHarness(t, readerFake(t))
	type f struct {
		name   string
		level  int
		unread uint64
	}
	var got []f
	for _, x := range h.u.reader.sidebar.feeds {
		got = append(got, f{x.name, x.level, x.unread})
	}
	want := []f{{"All", 0, 6}, {"Company", 0, 3}, {"Sales", 0, 2}, {"Sales Americas", 1, 0}, {"Sales APAC", 1, 0}, {"Sales EMEA", 1, 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("sidebar %v, want %v", got, want)
	}
	side := h.u.reader.sidebar.list
	for _, s := range []string{"All", "6", "Company", "3", "Sales EMEA", "2"} {
		if !hasLabel(side, s) {
			t.Errorf("sidebar shows no %q: %q", s, labels(side))
		}
	}
	// Choosing a feed lists only its items.
	side.Select(2) // Sales
	h.sync()
	if got := listTitles(h.u.reader.list); !slices.Equal(got, []string{"Record quarter in the Nordics", "New distributor"}) {
		t.Errorf("Sales lists %q", got)
	}
	if h.u.reader.heading.Text != "Sales" {
		t.Errorf("heading %q", h.u.reader.heading.Text)
	}
}

// TestOpenMarksReadAndRendersMarkdown: tapping a row opens the item: the
// view shows title, author, category and the rendered Markdown body, the
// item is marked read in the backend, and the counts drop.
func TestOpenMarksReadAndRendersMarkdown(t *testing.T) {
	b := readerFake(t, func(its []*news.Item) {
		its[0].Body = "## Results\n\nRevenue is **up**. See [the report](https://intranet.example.com/q3), " +
			"not [this](javascript:alert(1)).\n\n![chart](file:///etc/passwd)\n\n- one\n- two"
	})
	it := b.Items()[0]
	h := newHarness(t, b)
	h.tap(rowTappable(t, h.u.reader.list, "Quarterly results"))

	if !isRead(t, b, it.ID) {
		t.Error("opening did not mark the item read")
	}
	v := h.u.reader.view
	if v.title.Text != "Quarterly results" {
		t.Errorf("view title %q", v.title.Text)
	}
	for _, s := range []string{"By Author company", "Company", "Tue 10 Mar 2026"} {
		if !strings.Contains(v.meta.Text, s) {
			t.Errorf("meta %q lacks %q", v.meta.Text, s)
		}
	}
	var texts []string
	var links []string
	var walkSegs func([]widget.RichTextSegment)
	walkSegs = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch x := s.(type) {
			case *widget.ImageSegment:
				t.Errorf("image segment %v kept", x.Source)
			case *widget.HyperlinkSegment:
				links = append(links, x.URL.String())
			case *widget.ListSegment:
				walkSegs(x.Items)
			case *widget.ParagraphSegment:
				walkSegs(x.Texts)
			}
			texts = append(texts, s.Textual())
		}
	}
	walkSegs(v.body.Segments)
	all := strings.Join(texts, "|")
	for _, s := range []string{"Results", "up", "this", "[image: chart]", "one", "two"} {
		if !strings.Contains(all, s) {
			t.Errorf("body lacks %q: %q", s, all)
		}
	}
	if !slices.Equal(links, []string{"https://intranet.example.com/q3"}) {
		t.Errorf("clickable links %q, want only the https one", links)
	}
	if got := h.u.reader.sidebar.feeds[0].unread; got != 5 {
		t.Errorf("All unread after opening = %d, want 5", got)
	}
	if r := h.u.reader.list.row(it.ID); !r.read {
		t.Error("row still unread")
	}
	// Opening a read item changes nothing.
	h.tap(rowTappable(t, h.u.reader.list, "Old news"))
	if got := h.u.reader.sidebar.feeds[0].unread; got != 5 {
		t.Errorf("All unread = %d, want 5", got)
	}
}

// TestMarkUnreadAndMarkAllRead: "Mark unread" undoes the read mark; "Mark
// all read" marks the selected feed (and what is under it) read, and only
// that.
func TestMarkUnreadAndMarkAllRead(t *testing.T) {
	b := readerFake(t)
	h := newHarness(t, b)
	r := h.u.reader
	h.tap(rowTappable(t, r.list, "Town hall"))
	if r.view.markUnread.Disabled() {
		t.Fatal("mark unread disabled on a read item")
	}
	h.tap(r.view.markUnread)
	if isRead(t, b, b.Items()[1].ID) {
		t.Error("mark unread did not reach the backend")
	}
	if r.list.row(b.Items()[1].ID).read {
		t.Error("row still read")
	}
	if got := r.sidebar.feeds[0].unread; got != 6 {
		t.Errorf("All unread = %d, want 6", got)
	}

	r.sidebar.list.Select(2) // Sales
	h.sync()
	h.tap(r.markAll)
	if got := r.sidebar.feeds[2].unread; got != 0 {
		t.Errorf("Sales unread after mark all read = %d", got)
	}
	if got := r.sidebar.feeds[1].unread; got != 3 {
		t.Errorf("Company unread = %d, want 3 (untouched)", got)
	}
	for _, id := range r.list.ls.ids {
		if !r.list.ls.rows[id].read {
			t.Errorf("row %q still unread", r.list.ls.rows[id].title)
		}
	}
	r.sidebar.list.Select(0) // All
	h.sync()
	h.tap(r.markAll)
	for _, f := range r.sidebar.feeds {
		if f.unread != 0 {
			t.Errorf("%s: %d unread after marking all read", f.name, f.unread)
		}
	}
}

// TestSearch: typing in the search field searches titles and bodies once
// typing pauses; clearing it shows the feed again.
func TestSearch(t *testing.T) {
	b := readerFake(t, func(its []*news.Item) { its[2].Body = "The travel policy covers **trains** too." })
	h := newHarness(t, b)
	r := h.u.reader
	h.typeInto(r.search, "trains")
	if len(r.list.ls.ids) != 7 {
		t.Fatalf("searched before the pause: %q", listTitles(r.list))
	}
	h.advance(searchDelay)
	if got := listTitles(r.list); !slices.Equal(got, []string{"New travel policy"}) {
		t.Errorf("search by body: %q", got)
	}
	h.typeInto(r.search, "quarter")
	h.advance(searchDelay)
	if got := listTitles(r.list); !slices.Equal(got, []string{"Quarterly results", "Record quarter in the Nordics"}) {
		t.Errorf("search by title: %q", got)
	}
	h.typeInto(r.search, "zebra")
	h.advance(searchDelay)
	if len(r.list.ls.ids) != 0 || !r.empty.Visible() || !strings.Contains(r.empty.Text, "zebra") {
		t.Errorf("no-match state: %q, %q", listTitles(r.list), r.empty.Text)
	}
	h.typeInto(r.search, "")
	h.advance(searchDelay)
	if len(r.list.ls.ids) != 7 || r.empty.Visible() {
		t.Errorf("cleared search lists %q", listTitles(r.list))
	}
}

// TestKeyboardNavigation: Down and Up move the cursor without opening;
// Enter opens the item under it (and marks it read); Ctrl+F focuses the
// search field from anywhere.
func TestKeyboardNavigation(t *testing.T) {
	b := readerFake(t)
	h := newHarness(t, b)
	l := h.u.reader.list
	if h.win.Canvas().Focused() != fyne.Focusable(l) {
		t.Fatalf("the list is not focused at start: %T", h.win.Canvas().Focused())
	}
	h.key(fyne.KeyDown)
	h.key(fyne.KeyDown)
	if got := l.row(l.cursor).title; got != "New travel policy" {
		t.Errorf("cursor on %q after Down Down", got)
	}
	h.key(fyne.KeyUp)
	if got := l.row(l.cursor).title; got != "Town hall" {
		t.Errorf("cursor on %q after Up", got)
	}
	if h.u.reader.view.id != uuid.Nil || isRead(t, b, b.Items()[1].ID) {
		t.Error("moving the cursor opened an item")
	}
	h.key(fyne.KeyReturn)
	if h.u.reader.view.title.Text != "Town hall" || !isRead(t, b, b.Items()[1].ID) {
		t.Errorf("Enter opened %q (read %v)", h.u.reader.view.title.Text, isRead(t, b, b.Items()[1].ID))
	}
	h.key(fyne.KeyEnd)
	if got := l.row(l.cursor).title; got != "Printers back" {
		t.Errorf("End: cursor on %q", got)
	}
	h.key(fyne.KeyDown) // at the end: stays
	h.key(fyne.KeyHome)
	if got := l.row(l.cursor).title; got != "Quarterly results" {
		t.Errorf("Home: cursor on %q", got)
	}
	// The cursor row is drawn as such.
	if r := find[*rowView](l, func(r *rowView) bool { return r.title.Text == "Quarterly results" }); r == nil || r.outline.StrokeColor == nil {
		t.Error("cursor row not found")
	}

	h.u.tabs.SelectIndex(2) // elsewhere
	h.win.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault})
	h.sync()
	if h.win.Canvas().Focused() != fyne.Focusable(h.u.reader.search) {
		t.Errorf("Ctrl+F focused %T", h.win.Canvas().Focused())
	}
	if h.u.tabs.Selected() != h.u.readTab {
		t.Error("Ctrl+F did not switch to reading")
	}
	// Enter in the search field moves to the list.
	h.typeInto(h.u.reader.search, "town")
	test_submit(h.u.reader.search)
	h.sync()
	if h.win.Canvas().Focused() != fyne.Focusable(l) || !slices.Equal(listTitles(l), []string{"Town hall"}) {
		t.Errorf("after Enter in search: focus %T, list %q", h.win.Canvas().Focused(), listTitles(l))
	}
}

func test_submit(e *widget.Entry) { e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) }

// TestLiveArrival: an item arriving from the network appears in place,
// unread, and the counts follow; a read-state change made elsewhere shows
// too.
func TestLiveArrival(t *testing.T) {
	b := readerFake(t)
	h := newHarness(t, b)
	b.Ingest(item(8, "company", "Just in", 1))
	h.sync()
	l := h.u.reader.list
	if got := listTitles(l); got[0] != "Just in" || len(got) != 8 {
		t.Errorf("list after arrival %q", got)
	}
	if r := l.row(l.ls.ids[0]); r.read {
		t.Error("arrived item shows read")
	}
	if got := h.u.reader.sidebar.feeds[1].unread; got != 4 {
		t.Errorf("Company unread %d, want 4", got)
	}
	// An item of a category the feed does not show stays out.
	h.u.reader.sidebar.list.Select(2) // Sales
	h.sync()
	b.Ingest(item(9, "company", "Not sales", 0))
	h.sync()
	if slices.Contains(listTitles(l), "Not sales") {
		t.Error("a company item appeared under Sales")
	}
	b.MarkRead(b.Items()[len(b.Items())-1].ID) // elsewhere, e.g. another window
	h.sync()
	if got := h.u.reader.sidebar.feeds[2].unread; got != 2 {
		t.Errorf("Sales unread %d", got)
	}
}

// TestCorrectionReplacesItem: a correction takes the place of the item it
// corrects and says so, whether both are loaded together or the
// correction arrives later.
func TestCorrectionReplacesItem(t *testing.T) {
	b := readerFake(t)
	orig := item(10, "company", "Offices closed on 2 October", 5)
	b.Add(orig)
	h := newHarness(t, b)
	l := h.u.reader.list
	if !slices.Contains(listTitles(l), "Offices closed on 2 October") {
		t.Fatal("original not listed")
	}
	h.tap(rowTappable(t, l, "Offices closed on 2 October"))

	corr := item(11, "company", "Offices closed on 3 October", 1)
	corr.Supersedes = orig.ID
	b.Ingest(corr)
	h.sync()
	got := listTitles(l)
	if slices.Contains(got, "Offices closed on 2 October") || got[0] != "Offices closed on 3 October" {
		t.Fatalf("after the correction arrived: %q", got)
	}
	r := l.row(corr.ID)
	if r.correctionOf != "Offices closed on 2 October" {
		t.Errorf("correctionOf %q", r.correctionOf)
	}
	if !hasLabel(l, "Correction of “Offices closed on 2 October”") {
		t.Errorf("row does not say what it corrects: %q", labels(l))
	}
	// The reader had the original open: the view moved to the correction.
	v := h.u.reader.view
	if v.title.Text != "Offices closed on 3 October" || !v.correction.Visible() || !strings.Contains(v.correction.Text, "2 October") {
		t.Errorf("view: %q / %q", v.title.Text, v.correction.Text)
	}
	h.tap(v.original)
	if v.title.Text != "Offices closed on 2 October" {
		t.Errorf("Show the original shows %q", v.title.Text)
	}

	// Loaded from scratch, the original never shows.
	h2 := newHarness(t, b)
	got = listTitles(h2.u.reader.list)
	if slices.Contains(got, "Offices closed on 2 October") || !slices.Contains(got, "Offices closed on 3 October") {
		t.Errorf("fresh list %q", got)
	}
	if r := h2.u.reader.list.row(corr.ID); r.correctionOf != "Offices closed on 2 October" {
		t.Errorf("fresh correctionOf %q", r.correctionOf)
	}
}

// TestNotifications: an item arriving from the network in a notifying
// category, or any urgent one, sends a desktop notification; others do
// not, nor do read-state changes, one's own posts or retractions: the
// events say which items arrived (issue 12, item 4).
func TestNotifications(t *testing.T) {
	b := readerFake(t)
	s := b.Settings()
	s.Notify, s.NotifyCategories = true, []string{"sales"}
	b.PresetSettings(s)
	h := newHarness(t, b)
	sent := func() *fyne.Notification {
		if len(h.a.notes) == 0 {
			return nil
		}
		return h.a.notes[len(h.a.notes)-1]
	}
	none := func(what string) {
		t.Helper()
		for _, n := range h.a.notes {
			t.Errorf("notified %q for %s", n.Title, what)
		}
		h.a.notes = nil
	}

	early := item(19, "sales", "Before the window", 5)
	b.Ingest(early) // received before the window opened: it waits in the list
	h.sync()
	none("an item received before the window opened")
	quiet := item(20, "company", "Quiet", 0)
	quiet.Received = testNow.Add(1)
	b.Ingest(quiet)
	h.sync()
	none("a category not chosen")
	emea := item(21, "sales/emea", "Big deal", 0)
	emea.Received = testNow.Add(1)
	b.Ingest(emea)
	h.sync()
	if n := sent(); n == nil || n.Title != "Sales EMEA: Big deal" || !strings.Contains(n.Content, "Author sales/emea") {
		t.Errorf("notification %+v", n)
	}
	urgent := item(22, "company", "E-mail down", 0)
	urgent.Urgent = true
	urgent.Received = testNow.Add(1)
	b.Ingest(urgent)
	h.sync()
	if n := sent(); n == nil || n.Title != "Urgent: E-mail down" {
		t.Errorf("urgent notification %+v", n)
	}

	// Old items changing state do not notify.
	h.a.notes = nil
	b.MarkUnread(b.Items()[3].ID)
	h.sync()
	none("a read-state change")
	// Nor does an item that came after the window opened but was never
	// announced as an arrival (too many arrived at once to name them), when
	// it is marked unread: the notifier took it for news.
	unnamed := item(23, "sales", "Arrived in a burst", 0)
	unnamed.Received = testNow.Add(1)
	b.Add(unnamed)
	b.PresetRead(unnamed.ID)
	b.MarkUnread(unnamed.ID)
	h.sync()
	none("marking unread an item never announced")

	// One's own post, urgent and in a notifying category.
	h.u.tabs.Select(h.u.newsTab)
	h.u.newsTabs.SelectIndex(0)
	h.sync()
	c := h.u.compose
	chooseCategory(c, "sales")
	h.typeInto(c.title, "Price list")
	h.tap(c.urgent)
	h.tap(c.publish)
	if len(b.drafts) != 1 || !b.drafts[0].Urgent {
		t.Fatalf("drafts %+v", b.drafts)
	}
	none("one's own post")

	// A retraction (an admin's, from the network) of an unread item in a
	// notifying category.
	if err := b.Retract(unnamed.ID, "Wrong prices"); err != nil {
		t.Fatal(err)
	}
	h.sync()
	none("a retraction")
	// An item whose retraction came first arrives hidden, announced to
	// nobody.
	gone := item(24, "sales", "Retracted before it came", 0)
	gone.Urgent = true
	gone.Received = testNow.Add(1)
	if err := b.Retract(gone.ID, "Premature"); err != nil {
		t.Fatal(err)
	}
	b.Ingest(gone)
	h.sync()
	none("an item retracted before it arrived")
}

// TestUrgentNotifiesInBurst: in a burst of arrivals longer than the
// notifier looks through, an urgent item still notifies (it used to be
// missed when it came after the first maxChecked), and those of other
// categories do not.
func TestUrgentNotifiesInBurst(t *testing.T) {
	b := readerFake(t)
	s := b.Settings()
	s.Notify, s.NotifyCategories = true, []string{"sales"}
	b.PresetSettings(s)
	h := newHarness(t, b)
	var burst []*news.Item
	for i := range maxChecked + 20 {
		it := item(100+i, "company", fmt.Sprintf("Routine %d", i), 0)
		it.Received = testNow.Add(1)
		burst = append(burst, it)
	}
	urgent := item(99, "it", "Building evacuated", 0)
	urgent.Urgent = true
	urgent.Received = testNow.Add(1)
	b.Ingest(append(burst, urgent)...)
	h.sync()
	if len(h.a.notes) != 1 || h.a.notes[0].Title != "Urgent: Building evacuated" {
		var titles []string
		for _, n := range h.a.notes {
			titles = append(titles, n.Title)
		}
		t.Errorf("notifications %q, want the urgent one", titles)
	}
}

// Issue 26: Keep beside an open item's title keeps it past the retention;
// the button says so, and tapping it again lets the item go.
func TestKeepItem(t *testing.T) {
	b := readerFake(t)
	h := newHarness(t, b)
	r := h.u.reader
	h.tap(rowTappable(t, r.list, "Town hall"))
	id := b.Items()[1].ID
	if r.view.keep.Hidden || r.view.keep.Text != "Keep" {
		t.Fatalf("keep button %q, hidden %v", r.view.keep.Text, r.view.keep.Hidden)
	}
	h.tap(r.view.keep)
	if e, _ := b.Item(id); !e.Kept {
		t.Fatal("Keep did not reach the backend")
	}
	if r.view.keep.Text != "Kept" {
		t.Errorf("after Keep the button says %q", r.view.keep.Text)
	}
	h.tap(rowTappable(t, r.list, "Quarterly results"))
	if r.view.keep.Text != "Keep" {
		t.Errorf("another item shows %q", r.view.keep.Text)
	}
	h.tap(rowTappable(t, r.list, "Town hall"))
	if r.view.keep.Text != "Kept" {
		t.Errorf("the kept item, opened again, shows %q", r.view.keep.Text)
	}
	h.tap(r.view.keep)
	if e, _ := b.Item(id); e.Kept || r.view.keep.Text != "Keep" {
		t.Errorf("after letting it go: kept %v, button %q", e.Kept, r.view.keep.Text)
	}
}

// Issue 26: a link in an item that the system cannot open says so, with
// the address to copy, instead of failing silently.
func TestLinkThatCannotOpen(t *testing.T) {
	b := newFake(t)
	b.PresetSubscriptions("company")
	it := item(1, "company", "New intranet", 10)
	it.Body = "The policy is at https://intranet.example.com/policy today."
	b.Add(it)
	h := newHarness(t, b)
	var opened []string
	h.u.opts.openURL = func(u *url.URL) error {
		opened = append(opened, u.String())
		return errors.New("no browser found (xdg-open: not found)")
	}
	h.tap(rowTappable(t, h.u.reader.list, "New intranet"))
	var link *widget.HyperlinkSegment
	for _, s := range h.u.reader.view.body.Segments {
		if p, ok := s.(*widget.ParagraphSegment); ok {
			for _, x := range p.Texts {
				if l, ok := x.(*widget.HyperlinkSegment); ok {
					link = l
				}
			}
		}
		if l, ok := s.(*widget.HyperlinkSegment); ok {
			link = l
		}
	}
	if link == nil || link.OnTapped == nil {
		t.Fatalf("no link of ours in %d segments", len(h.u.reader.view.body.Segments))
	}
	link.OnTapped()
	if !slices.Equal(opened, []string{"https://intranet.example.com/policy"}) {
		t.Errorf("opened %q", opened)
	}
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "could not open this link in a browser: An unexpected problem occurred (details in English: no browser found") || !hasLabel(top, "https://intranet.example.com/policy") {
		t.Fatalf("the failure is not shown: %q", labels(top))
	}
	h.tap(button(top, "Copy the address"))
	if got := h.a.Clipboard().Content(); got != "https://intranet.example.com/policy" {
		t.Errorf("clipboard %q", got)
	}
}
