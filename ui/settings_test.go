package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"newsdesk/app"
)

// TestSettings: the settings show what the backend holds and the data
// directory (read-only); addresses are validated; Save stores them with
// the chosen notification categories.
func TestSettings(t *testing.T) {
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Dana", Listen: "0.0.0.0:7400", Notify: true, NotifyCategories: []string{"it"}})
	h := newHarness(t, b)
	h.u.SetDataDir("/home/dana/.local/share/newsdesk")
	h.u.prefs.load()
	v := h.u.prefs
	if v.name.Text != "Dana" || v.listen.Text != "0.0.0.0:7400" || !v.notify.Checked || !slices.Equal(v.cats.Selected, []string{"IT"}) {
		t.Errorf("loaded %q %q %v %q", v.name.Text, v.listen.Text, v.notify.Checked, v.cats.Selected)
	}
	if v.dataDir.Text != "/home/dana/.local/share/newsdesk" {
		t.Errorf("data dir %q", v.dataDir.Text)
	}
	for _, c := range []struct{ listen, advertise, problem string }{
		{"0.0.0.0", "", "missing port"},
		{"0.0.0.0:0", "", "port must be 1..65535"},
		{":7400", "10.0.0.1", "Advertised address"},
	} {
		h.typeInto(v.listen, c.listen)
		h.typeInto(v.advertise, c.advertise)
		h.tap(v.save)
		if !strings.Contains(v.problem.Text, c.problem) {
			t.Errorf("%q/%q: problem %q, want %q", c.listen, c.advertise, v.problem.Text, c.problem)
		}
	}
	if len(b.saved) != 0 {
		t.Fatal("invalid settings saved")
	}
	h.typeInto(v.listen, ":7400")
	h.typeInto(v.advertise, "10.0.0.1:7400")
	h.typeInto(v.name, "Dana W.")
	v.cats.SetSelected([]string{"Company", "IT"})
	h.tap(v.save)
	if len(b.saved) != 1 {
		t.Fatalf("saved %d times: %q", len(b.saved), v.problem.Text)
	}
	s := b.saved[0]
	if s.DisplayName != "Dana W." || s.Listen != ":7400" || s.Advertise != "10.0.0.1:7400" || !slices.Equal(s.NotifyCategories, []string{"company", "it"}) {
		t.Errorf("saved %+v", s)
	}
	// Issue 26: a new address applies at once, and the admin hears that
	// older invitations name the old one.
	if !strings.HasPrefix(v.note.Text, "Saved. Newsdesk reconnects under the new address now; there is no need to restart it.") ||
		!strings.Contains(v.note.Text, "Invitations made before name the old address") || h.u.settings.DisplayName != "Dana W." {
		t.Errorf("note %q", v.note.Text)
	}
	h.typeInto(v.name, "Dana")
	h.tap(v.save)
	if v.note.Text != "Saved." {
		t.Errorf("note after saving the name alone %q", v.note.Text)
	}
}

// TestTray: with a tray the menu shows the unread count, Open and Quit,
// and closing the window hides it instead of quitting.
func TestTray(t *testing.T) {
	b := readerFake(t)
	desk := &fakeDesktop{}
	a := &recApp{App: test.NewTempApp(t)}
	w := &syncWorker{}
	h := &harness{t: t, a: a, events: b.Events(), w: w}
	h.u = newUI(a, b, options{worker: w, now: func() time.Time { return testNow }, tick: time.Hour, desktop: desk, trayOK: func() bool { return true }})
	h.u.ShowMain()
	h.win = h.u.win
	h.sync()
	if desk.menu == nil || desk.icon == nil {
		t.Fatal("no tray menu or icon")
	}
	var labels []string
	for _, i := range desk.menu.Items {
		labels = append(labels, i.Label)
	}
	if !slices.Equal(labels, []string{"6 unread items", "", "Open Newsdesk", "", "Quit"}) {
		t.Errorf("tray menu %q", labels)
	}
	b.MarkAllRead("")
	h.sync()
	if got := desk.menu.Items[0].Label; got != "No unread items" {
		t.Errorf("after mark all read: %q", got)
	}
	// Closing the window hides it; Open brings it back.
	rw := h.win.(*recWindow)
	if rw.intercept == nil {
		t.Fatal("no close intercept with a tray")
	}
	rw.intercept()
	if !rw.hidden || a.quit {
		t.Errorf("closing: hidden %v, quit %v", rw.hidden, a.quit)
	}
	desk.menu.Items[2].Action()
	if rw.hidden {
		t.Error("Open did not show the window")
	}
	desk.menu.Items[4].Action()
	if !a.quit {
		t.Error("Quit did not quit")
	}
}

// TestNoTray: without a tray, closing the window is not intercepted (it
// quits the app, the window being the master).
func TestNoTray(t *testing.T) {
	h := newHarness(t, readerFake(t))
	if h.win.(*recWindow).intercept != nil || h.u.tray != nil {
		t.Error("close intercepted without a tray")
	}
}

type fakeDesktop struct {
	menu *fyne.Menu
	icon fyne.Resource
}

func (d *fakeDesktop) SetSystemTrayMenu(m *fyne.Menu)    { d.menu = m }
func (d *fakeDesktop) SetSystemTrayIcon(r fyne.Resource) { d.icon = r }
func (d *fakeDesktop) SetSystemTrayWindow(w fyne.Window) {}

// Issue 26: the settings say how long items are kept, with the year the
// desktop keeps them by default recommended, and Save stores the choice;
// a retention set elsewhere is shown in days and kept unless changed.
func TestSettingsRetention(t *testing.T) {
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Dana", Listen: "0.0.0.0:7400", Retention: app.DesktopRetention})
	h := newHarness(t, b)
	h.u.prefs.load()
	v := h.u.prefs
	for _, ti := range h.u.tabs.Items {
		if ti.Content == v.content {
			h.u.tabs.Select(ti)
		}
	}
	h.sync()
	if v.retention.Selected != "1 year (recommended)" {
		t.Errorf("retention shown as %q", v.retention.Selected)
	}
	if !hasLabel(v.content, "must-read items you have not confirmed stay") {
		t.Error("the settings do not say what is never deleted")
	}
	for _, c := range []struct {
		label string
		want  time.Duration
	}{{"90 days", 90 * 24 * time.Hour}, {"Forever", 0}} {
		v.retention.SetSelected(c.label)
		h.tap(v.save)
		if got := b.Settings().Retention; got != c.want || v.note.Text != "Saved." {
			t.Errorf("%s: saved %v (%q), want %v", c.label, got, v.note.Text+v.problem.Text, c.want)
		}
	}

	b.PresetSettings(app.Settings{DisplayName: "Dana", Listen: "0.0.0.0:7400", Retention: 45 * 24 * time.Hour})
	h.u.settings = b.Settings()
	v.load()
	if v.retention.Selected != "45 days" {
		t.Errorf("a retention set elsewhere shown as %q", v.retention.Selected)
	}
	h.tap(v.save)
	if got := b.Settings().Retention; got != 45*24*time.Hour {
		t.Errorf("saving unchanged made the retention %v", got)
	}
}

// Issue 32: Settings offer the storage limit, with the default
// recommended, and Save stores the choice; what the limit removed last is
// said beside it, and in the status line for a day.
func TestSettingsStorageLimit(t *testing.T) {
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Dana", Listen: "0.0.0.0:7400", Retention: app.DesktopRetention})
	ev := &app.Eviction{At: time.Now().Add(-time.Hour), Items: 120, Bytes: 3 << 20, Quota: app.DefaultStorageQuota}
	st := b.Status()
	st.Evicted = ev
	b.PresetStatus(st)
	h := newHarness(t, b)
	h.u.prefs.load()
	v := h.u.prefs
	h.sync()
	if v.quota.Selected != "4 GiB (recommended)" {
		t.Errorf("storage limit shown as %q", v.quota.Selected)
	}
	if !v.evicted.Visible() || !strings.Contains(v.evicted.Text, "the 120 oldest items (3 MiB) were removed") {
		t.Errorf("eviction shown as %q (visible %v)", v.evicted.Text, v.evicted.Visible())
	}
	if s := statusText(st); !strings.Contains(s, "Storage limit of 4 GiB reached") {
		t.Errorf("status line %q", s)
	}
	st.Evicted = &app.Eviction{At: time.Now().Add(-48 * time.Hour), Items: 1, Quota: app.DefaultStorageQuota}
	if s := statusText(st); strings.Contains(s, "Storage limit") {
		t.Errorf("status line two days later %q", s)
	}
	for _, c := range []struct {
		label string
		want  int64
	}{{"16 GiB", 16 << 30}, {"No limit", app.NoStorageQuota}} {
		v.quota.SetSelected(c.label)
		h.tap(v.save)
		if got := b.Settings().StorageQuota; got != c.want || v.note.Text != "Saved." {
			t.Errorf("%s: saved %d (%q), want %d", c.label, got, v.note.Text+v.problem.Text, c.want)
		}
	}
}
