package ui

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/ui/internal/fakebackend"
)

// The tests drive the UI with Fyne's test driver over the real
// application: fakebackend.Backend is an *app.App on the test's temporary
// directory whose servant has no network, and fake records what the UI
// asked of it. The UI's background work, its timers and the application's
// events are queued and run on the test goroutine by harness.sync, in
// order, with a virtual clock. The application's events are taken as it
// emits them, so the event of a call is queued when the call returns, and
// Add and Ingest return once what arrived is stored: no test sleeps.

var testNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// syncWorker queues background work and timers for harness.sync.
type syncWorker struct {
	clock  time.Duration // virtual time since the start
	jobs   []func() func()
	timers []timer
}

type timer struct {
	due time.Duration
	f   func()
}

func (w *syncWorker) Go(work func() func()) { w.jobs = append(w.jobs, work) }

func (w *syncWorker) After(d time.Duration, f func()) {
	w.timers = append(w.timers, timer{due: w.clock + d, f: f})
}

// The fake is a Backend and a TrustBackend, as the real application is.
var (
	_ Backend      = (*fakebackend.Backend)(nil)
	_ TrustBackend = (*fakebackend.Backend)(nil)
)

// fake is the application with call records.
type fake struct {
	*fakebackend.Backend
	fetched     int // entries returned by Newest and Search
	newestCalls int
	subsCalls   [][]string
	drafts      []app.Draft
	publishErr  error
	seedsSaved  [][]string
	catalogs    int
	setups      []app.Setup
	saved       []app.Settings
	probes      []string
	joins       []string // invitation codes JoinByInvitation was given
	blobOpens   int      // OpenBlob calls
}

func newFake(t testing.TB) *fake {
	t.Helper()
	return presetFake(&fake{Backend: fakebackend.New(t, testNow)})
}

// newUnsetFake is newFake before the first run (NeedsSetup).
func newUnsetFake(t testing.TB) *fake {
	t.Helper()
	return presetFake(&fake{Backend: fakebackend.NewUnset(t, testNow)})
}

// newJoinerFake is newUnsetFake on a computer that reaches admin's
// servant, which redeems its invitations (fakebackend.Backend.NewJoiner).
func newJoinerFake(admin *fakebackend.Backend) *fake {
	return presetFake(&fake{Backend: admin.NewJoiner()})
}

// presetFake gives f the subscriptions and settings of the tests, and a
// network where others read the same categories.
func presetFake(f *fake) *fake {
	f.PresetSubscriptions("company", "hr", "it", "sales")
	f.SetRemoteSubscriptions("company", "hr", "it", "sales")
	f.PresetSettings(app.Settings{DisplayName: "Tester"})
	return f
}

func (f *fake) Newest(cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	es, next, err := f.Backend.Newest(cats, n, cur)
	f.newestCalls++
	f.fetched += len(es)
	return es, next, err
}

func (f *fake) SetSubscriptions(ids []string) error {
	f.subsCalls = append(f.subsCalls, slices.Clone(ids))
	return f.Backend.SetSubscriptions(ids)
}

func (f *fake) Publish(d app.Draft) (app.PublishResult, error) {
	f.drafts = append(f.drafts, d)
	if f.publishErr != nil {
		return app.PublishResult{}, f.publishErr
	}
	return f.Backend.Publish(d)
}

func (f *fake) SetSeeds(addrs []string) error {
	f.seedsSaved = append(f.seedsSaved, slices.Clone(addrs))
	return f.Backend.SetSeeds(addrs)
}

func (f *fake) Setup(s app.Setup) error {
	f.setups = append(f.setups, s)
	return f.Backend.Setup(s)
}

// JoinByInvitation records the code; the redemption is the application's.
func (f *fake) JoinByInvitation(ctx context.Context, code string, s app.Setup) error {
	f.joins = append(f.joins, code)
	return f.Backend.JoinByInvitation(ctx, code, s)
}

func (f *fake) OpenBlob(hash string) (io.ReadSeekCloser, error) {
	f.blobOpens++
	return f.Backend.OpenBlob(hash)
}

func (f *fake) SaveSettings(s app.Settings) error {
	f.saved = append(f.saved, s)
	return f.Backend.SaveSettings(s)
}

func (f *fake) Probe(ctx context.Context, addr string) app.Probe {
	f.probes = append(f.probes, addr)
	return f.Backend.Probe(ctx, addr)
}

// item returns a test item: n-th, minutes before testNow.
func item(n int, cat, title string, minutes int) *news.Item {
	at := testNow.Add(-time.Duration(minutes) * time.Minute)
	return &news.Item{
		ID: news.IDAt(at, uint64(n)), Category: cat, Title: title, Body: fmt.Sprintf("Body of **%s**.", title),
		Author: "Author " + cat, Source: uuid.MustParse("0191a000-0000-7000-8000-000000000001"),
		SourceCount: uint64(n), Created: at, Received: at,
	}
}

// isRead reports whether the backend holds the item as read.
func isRead(t testing.TB, b Backend, id uuid.UUID) bool {
	t.Helper()
	e, err := b.Item(id)
	if err != nil {
		t.Fatalf("item %v: %v", id, err)
	}
	return e.Read
}

// recApp is the test app recording notifications and Quit.
type recApp struct {
	fyne.App
	notes []*fyne.Notification
	quit  bool
}

func (a *recApp) SendNotification(n *fyne.Notification) { a.notes = append(a.notes, n) }
func (a *recApp) NewWindow(title string) fyne.Window {
	return &recWindow{Window: a.App.NewWindow(title)}
}

// recWindow records the close intercept and whether it is hidden or
// closed.
type recWindow struct {
	fyne.Window
	intercept func()
	hidden    bool
	closed    bool
}

func (w *recWindow) Close() { w.closed = true; w.Window.Close() }

func (w *recWindow) SetCloseIntercept(f func()) { w.intercept = f; w.Window.SetCloseIntercept(f) }
func (w *recWindow) Hide()                      { w.hidden = true; w.Window.Hide() }
func (w *recWindow) Show()                      { w.hidden = false; w.Window.Show() }
func (a *recApp) Quit()                         { a.quit = true }

type harness struct {
	t        testing.TB
	handled  []app.Event // events handled since await began (while awaiting)
	awaiting bool
	a        *recApp
	events   <-chan app.Event
	w        *syncWorker
	u        *UI
	win      fyne.Window
}

func newHarness(t testing.TB, b *fake) *harness {
	t.Helper()
	return newHarnessOver(t, b, func() time.Time { return testNow })
}

// newHarnessOver shows the UI of any backend; now is the clock at the
// start, advanced by harness.advance.
func newHarnessOver(t testing.TB, b Backend, now func() time.Time) *harness {
	t.Helper()
	a := &recApp{App: test.NewTempApp(t)}
	w := &syncWorker{}
	h := &harness{t: t, a: a, events: b.Events(), w: w}
	h.u = newUI(a, b, options{worker: w, now: func() time.Time { return now().Add(w.clock) }, tick: time.Hour})
	h.u.ShowMain()
	h.win = h.u.win
	h.sync()
	return h
}

// sync runs what is pending until nothing is: queued events (as the bridge
// would deliver them, one batch), background jobs with their results, and
// timers that are due on the virtual clock.
func (h *harness) sync() {
	h.t.Helper()
	for range 100000 {
		var evs []app.Event
	drain:
		for {
			select {
			case ev := <-h.events:
				evs = append(evs, ev)
			default:
				break drain
			}
		}
		if len(evs) > 0 {
			if h.awaiting {
				h.handled = append(h.handled, evs...)
			}
			h.u.handleEvents(evs)
			continue
		}
		if len(h.w.jobs) > 0 {
			job := h.w.jobs[0]
			h.w.jobs = h.w.jobs[1:]
			if apply := job(); apply != nil {
				apply()
			}
			continue
		}
		if i := slices.IndexFunc(h.w.timers, func(t timer) bool { return t.due <= h.w.clock }); i >= 0 {
			t := h.w.timers[i]
			h.w.timers = slices.Delete(h.w.timers, i, i+1)
			t.f()
			continue
		}
		return
	}
	h.t.Fatal("the UI did not settle")
}

// await blocks until the backend sends an event that ok accepts (a real
// application delivering over the network), handling every event on
// the way, then runs what follows. An event that sync handled while
// await ran counts too: sync drains every queued event.
func (h *harness) await(what string, ok func(app.Event) bool) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	h.handled, h.awaiting = nil, true
	defer func() { h.handled, h.awaiting = nil, false }()
	for {
		select {
		case ev := <-h.events:
			h.handled = append(h.handled, ev)
			h.u.handleEvents([]app.Event{ev})
			h.sync()
			if slices.ContainsFunc(h.handled, ok) {
				return
			}
		case <-deadline:
			h.t.Fatalf("no event: %s", what)
		}
	}
}

// advance moves the virtual clock and runs what fell due.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.w.clock += d
	h.sync()
}

// key sends a key to the focused widget.
func (h *harness) key(name fyne.KeyName) {
	h.t.Helper()
	f := h.win.Canvas().Focused()
	if f == nil {
		h.t.Fatalf("key %s: nothing focused", name)
	}
	f.TypedKey(&fyne.KeyEvent{Name: name})
	h.sync()
}

// tap taps a button and runs what follows.
func (h *harness) tap(b fyne.Tappable) {
	h.t.Helper()
	test.Tap(b)
	h.sync()
}

// typeInto types text into an entry (after emptying it) and runs what
// follows, timers excepted.
func (h *harness) typeInto(e interface {
	fyne.Focusable
	SetText(string)
}, text string) {
	h.t.Helper()
	e.SetText("")
	test.Type(e, text)
	h.sync()
}

// pasteInto empties e and pastes text into it, as a person pastes a long
// code (typing it key by key takes minutes under the race detector).
func (h *harness) pasteInto(e *widget.Entry, text string) {
	h.t.Helper()
	e.SetText("")
	e.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard(text)})
	h.sync()
}

// labels returns the texts of the visible labels under o, looking through
// containers and widget renderers as the canvas would.
func labels(o fyne.CanvasObject) []string {
	var found []string
	walk(o, func(o fyne.CanvasObject) bool {
		if l, ok := o.(*widget.Label); ok {
			found = append(found, l.Text)
			return false
		}
		return true
	})
	return found
}

// hasLabel reports whether a visible label under o contains text.
func hasLabel(o fyne.CanvasObject, text string) bool {
	return slices.ContainsFunc(labels(o), func(l string) bool { return strings.Contains(l, text) })
}

// walk visits the visible objects under o; visit returns whether to look
// inside.
func walk(o fyne.CanvasObject, visit func(fyne.CanvasObject) bool) {
	if o == nil || !o.Visible() {
		return
	}
	if !visit(o) {
		return
	}
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			walk(c, visit)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			walk(c, visit)
		}
	}
}

// find returns the first visible object under o of type T that ok accepts.
func find[T fyne.CanvasObject](o fyne.CanvasObject, ok func(T) bool) T {
	var found T
	done := false
	walk(o, func(c fyne.CanvasObject) bool {
		if done {
			return false
		}
		if t, is := c.(T); is && (ok == nil || ok(t)) {
			found, done = t, true
			return false
		}
		return true
	})
	return found
}

// rowTappable returns the list item (the tappable wrapper) showing a row
// whose title is title.
func rowTappable(t *testing.T, l *itemList, title string) fyne.Tappable {
	t.Helper()
	var hit fyne.Tappable
	walk(l, func(o fyne.CanvasObject) bool {
		if hit != nil {
			return false
		}
		if tp, ok := o.(fyne.Tappable); ok && o != fyne.CanvasObject(l) {
			if r := find[*rowView](o, nil); r != nil && r.title.Text == title {
				hit = tp
				return false
			}
		}
		return true
	})
	if hit == nil {
		t.Fatalf("no row titled %q on screen", title)
	}
	return hit
}

// listTitles returns the titles in the item list's index, in order.
func listTitles(l *itemList) []string {
	var out []string
	for _, id := range l.ls.ids {
		out = append(out, l.ls.rows[id].title)
	}
	return out
}

// segmentText flattens rich-text segments to their text, nested lists and
// paragraphs included, joined by "|".
func segmentText(segs []widget.RichTextSegment) string {
	var out []string
	var rec func([]widget.RichTextSegment)
	rec = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch x := s.(type) {
			case *widget.ListSegment:
				rec(x.Items)
			case *widget.ParagraphSegment:
				rec(x.Texts)
			default:
				out = append(out, s.Textual())
			}
		}
	}
	rec(segs)
	return strings.Join(out, "|")
}
