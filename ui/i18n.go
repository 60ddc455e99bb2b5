package ui

import (
	"embed"
	"strings"
	"sync"
	_ "unsafe" // go:linkname, see forceLanguage

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"golang.org/x/text/language"

	"newsdesk/categories"
)

// The interface's words go through Fyne's lang package: lang.L with the
// English text as the key (gettext style, so English needs no file but
// for plurals), lang.N for text with a number in it. Text with values in
// it keeps Go's verbs (%s, %d) in the key and in the translations, which
// fill them in with fmt; a translation may reorder them (%[2]s).
// translations/*.json hold German and Japanese, and English plurals;
// docs/translating.md says how to add a language. i18n_test.go checks that
// every key used here is in every file.

//go:embed translations
var translationFS embed.FS

// A Language the interface is offered in: Code is the BCP 47 tag stored
// in the settings ("" follows the system), Name is how the language calls
// itself in the Settings choice.
type Language struct{ Code, Name string }

// Languages are the interface's languages, in the order Settings offers
// them after "System".
var Languages = []Language{{"en", "English"}, {"de", "Deutsch"}, {"ja", "日本語"}}

var (
	loadTranslations sync.Once
	langMu           sync.Mutex
	shownLanguage    = "en" // the language the interface shows: a Code of Languages
	titleLang        = "en" // the language category titles are chosen for (titleLanguage)
)

// UseLanguage makes the interface speak code, one of Languages' codes, or
// the system's language for "" (and for a language Newsdesk does not
// know). Views built before keep their words: changing it takes a restart
// (Settings says so). Dates and numbers (format.go) follow it too. Call
// it before the views are built (New does): Fyne's lang swaps its
// localizer without a lock, so nothing may translate meanwhile.
func UseLanguage(code string) {
	loadTranslations.Do(func() {
		if err := lang.AddTranslationsFS(translationFS, "translations"); err != nil {
			fyne.LogError("loading the interface's translations", err)
		}
	})
	chosen := knownLanguage(code)
	if chosen == "" {
		chosen = systemLanguage(string(lang.SystemLocale()))
	}
	// AddTranslationsFS chose the system's language; an explicit choice
	// replaces it. Fyne's own words (dialog buttons) follow as well.
	forceLanguage(chosen)
	from := code
	if knownLanguage(code) == "" {
		from = string(lang.SystemLocale())
	}
	title := chosen
	if knownLanguage(from) == chosen {
		if c, err := categories.CanonicalLanguage(from); err == nil {
			title = c
		}
	}
	langMu.Lock()
	shownLanguage, titleLang = chosen, title
	langMu.Unlock()
}

// titleLanguage is the language tag category titles are shown in
// (app.CategoryTitle): the interface's language, as the choice in
// Settings or the system's locale names it when that is the same language,
// so that a Swiss German reader ("de-CH") sees the catalog's "de-CH" title
// before its "de" one. A system language the interface does not speak
// does not pick titles either: a French system reads the interface in
// English, and so the English titles.
func titleLanguage() string {
	langMu.Lock()
	defer langMu.Unlock()
	return titleLang
}

// currentLanguage is the Code of the language the interface shows.
func currentLanguage() string {
	langMu.Lock()
	defer langMu.Unlock()
	return shownLanguage
}

// knownLanguage returns code's language when Languages has it ("de-AT"
// is "de"), else "".
func knownLanguage(code string) string {
	base, _, _ := strings.Cut(strings.ReplaceAll(code, "_", "-"), "-")
	for _, l := range Languages {
		if strings.EqualFold(base, l.Code) {
			return l.Code
		}
	}
	return ""
}

// systemLanguage picks the best of Languages for the system locale, English
// when none fits (a French system reads English, not German).
func systemLanguage(locale string) string {
	tags := make([]language.Tag, len(Languages))
	for i, l := range Languages {
		tags[i] = language.Make(l.Code)
	}
	tag, err := language.Parse(strings.ReplaceAll(locale, "_", "-"))
	if err != nil {
		return Languages[0].Code
	}
	_, i, conf := language.NewMatcher(tags).Match(tag)
	if conf == language.No {
		return Languages[0].Code
	}
	return Languages[i].Code
}

// setupLang is Fyne's (lang/lang.go): it points lang's localizer at one
// language. Fyne offers no exported way to choose a language other than
// the system's (it reads the locale from the OS: environment variables on
// Unix, the Win32 API on Windows), so the Settings choice reaches it by
// name. If Fyne renames it, the build fails here, loudly;
// TestUseLanguage checks it does what we need.
//
//go:linkname setupLang fyne.io/fyne/v2/lang.setupLang
func setupLang(lang string)

func forceLanguage(code string) { setupLang(code) }
