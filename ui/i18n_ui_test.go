package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// The reader in German and in Japanese: tabs, the search field, the
// list's times, and the empty item view's hint.
func TestReaderInGermanAndJapanese(t *testing.T) {
	for _, c := range []struct {
		code, search, ago, hint string
		tabs                    []string
	}{
		{"de", "Titel und Text durchsuchen (Strg+F)", "vor 10 Min.", "Wählen Sie eine Meldung aus",
			[]string{"Lesen", "Abonnements", "Redaktion", "Admin", "Einstellungen"}},
		{"ja", "タイトルと本文を検索（Ctrl+F）", "10 分前", "記事を選ぶと",
			[]string{"読む", "購読", "編集部", "管理", "設定"}},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			h := newHarness(t, readerFake(t))
			if got := tabTitles(h.u.tabs.Items); !slices.Equal(got, c.tabs) {
				t.Errorf("tabs %q, want %q", got, c.tabs)
			}
			if got := h.u.reader.search.PlaceHolder; got != c.search {
				t.Errorf("search field %q, want %q", got, c.search)
			}
			if !hasLabel(h.win.Content(), c.ago) || !hasLabel(h.win.Content(), c.hint) {
				t.Errorf("no %q or %q in %q", c.ago, c.hint, labels(h.win.Content()))
			}
		})
	}
}

// My posts' list of who has not confirmed a must-read post, with the
// count in the button and the plural of the sentence right.
func TestPendingListInGermanAndJapanese(t *testing.T) {
	for _, c := range []struct {
		code, button, text string
	}{
		{"de", "Nicht bestätigt (1)…", "1 Leser hat „New travel policy“ erhalten und noch nicht bestätigt."},
		{"ja", "未確認（1）…", "1 人の読者が「New travel policy」を受け取り、まだ確認していません。"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			b := newFake(t)
			policy, err := b.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
			if err != nil {
				t.Fatal(err)
			}
			b.PresetReach(policy.ID, app.Reach{Subscribers: 12345, Delivered: 4, Read: 2, Acknowledged: 1,
				Pending: []app.Reader{{Name: "Ada", Key: "ed25519:AAAA"}}})
			h := newHarness(t, b)
			h.win.Resize(fyne.NewSize(1200, 760))
			showMyPosts(h)
			button := find[*widget.Button](h.u.posts.list, func(b *widget.Button) bool { return b.Text == c.button })
			if button == nil {
				t.Fatalf("no %q button: %q", c.button, labels(h.u.posts.list))
			}
			h.tap(button)
			top := h.win.Canvas().Overlays().Top()
			if top == nil || !hasLabel(top, c.text) {
				t.Fatalf("the list says %q, want %q", labels(top), c.text)
			}
		})
	}
}

// Settings offers the languages, each in its own name, stores the choice
// with the other settings and says that it shows after a restart.
func TestSettingsLanguageChoice(t *testing.T) {
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Dana", Listen: "0.0.0.0:7400", Language: "ja"})
	h := newHarness(t, b)
	v := h.u.prefs
	if want := []string{"System", "English", "Deutsch", "日本語"}; !slices.Equal(v.language.Options, want) {
		t.Errorf("language choices %q, want %q", v.language.Options, want)
	}
	if v.language.Selected != "日本語" {
		t.Errorf("the stored choice shows as %q", v.language.Selected)
	}
	v.language.SetSelected("Deutsch")
	h.tap(v.save)
	h.sync()
	if len(b.saved) != 1 || b.saved[0].Language != "de" {
		t.Fatalf("saved %+v", b.saved)
	}
	if !strings.Contains(v.note.Text, "The new language shows after you restart Newsdesk.") {
		t.Errorf("note %q", v.note.Text)
	}
	// The interface keeps its language until the restart.
	if got := currentLanguage(); got != "en" {
		t.Errorf("the interface switched to %q at once", got)
	}
	v.language.SetSelected("System")
	h.tap(v.save)
	h.sync()
	if got := b.saved[len(b.saved)-1].Language; got != "" {
		t.Errorf("System saved as %q", got)
	}
}

// New shows the interface in the language the settings chose.
func TestNewUsesTheStoredLanguage(t *testing.T) {
	t.Cleanup(func() { UseLanguage("en") })
	b := newFake(t)
	b.PresetSettings(app.Settings{DisplayName: "Dana", Language: "de"})
	New(test.NewTempApp(t), b)
	if got := currentLanguage(); got != "de" {
		t.Errorf("New over settings in German: the interface speaks %q", got)
	}
}

// Longer German words must not widen the window: every screen fits the
// main window's size in every language (the publishers editor came to
// 1,253 pixels with "Öffentlicher Schlüssel").
func TestScreensFitInEveryLanguage(t *testing.T) {
	for _, l := range Languages {
		t.Run(l.Code, func(t *testing.T) {
			inLanguage(t, l.Code)
			h := newHarness(t, readerFake(t))
			var tabs []*container.TabItem
			tabs = append(tabs, h.u.tabs.Items...)
			tabs = append(tabs, h.u.newsTabs.Items...)
			tabs = append(tabs, h.u.seedsTab, h.u.catalogTab, h.u.publishersTab, h.u.networkTab, h.u.invitesTab, h.u.audiencesTab, h.u.reportsTab, h.u.limitsTab)
			for _, it := range tabs {
				if w := it.Content.MinSize().Width; w > mainSize.Width {
					t.Errorf("%s is %.0f pixels wide, the window %.0f", it.Text, w, mainSize.Width)
				}
			}
		})
	}
}
