package ui

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"
)

// The tests compare English text: they run in English whatever the
// machine's locale, and a test in another language switches back when it
// ends (inLanguage).
func TestMain(m *testing.M) {
	UseLanguage("en")
	os.Exit(m.Run())
}

// inLanguage shows the interface in code until the test ends.
func inLanguage(t *testing.T, code string) {
	t.Helper()
	UseLanguage(code)
	t.Cleanup(func() { UseLanguage("en") })
}

func TestUseLanguage(t *testing.T) {
	for _, c := range []struct{ code, cancel, lang string }{
		{"de", "Abbrechen", "de"},
		{"ja", "キャンセル", "ja"},
		{"de-CH", "Abbrechen", "de"},
		{"en", "Cancel", "en"},
	} {
		UseLanguage(c.code)
		// Fyne's own words follow the choice, as ours do.
		if got := lang.L("Cancel"); got != c.cancel || currentLanguage() != c.lang {
			t.Errorf("UseLanguage(%q): Cancel reads %q in %q, want %q in %q", c.code, got, currentLanguage(), c.cancel, c.lang)
		}
	}
	UseLanguage("en")
}

func TestSystemLanguage(t *testing.T) {
	for locale, want := range map[string]string{
		"de-DE": "de", "de_AT": "de", "ja-JP": "ja", "ja": "ja", "en-GB": "en",
		"fr-FR": "en", "C": "en", "": "en", "zh-Hans": "en",
	} {
		if got := systemLanguage(locale); got != want {
			t.Errorf("systemLanguage(%q) = %q, want %q", locale, got, want)
		}
	}
}

// uiKeys returns the keys the package's code passes to lang.L and lang.X
// (simple) and lang.N (plural), with where each is used. A key must be a string
// literal, so that this test can see it.
func uiKeys(t *testing.T) (simple, plural map[string]string) {
	t.Helper()
	simple, plural = map[string]string{}, map[string]string{}
	eachCall(t, func(fset *token.FileSet, call *ast.CallExpr) {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "lang" {
			return
		}
		at := fset.Position(call.Pos()).String()
		var into map[string]string
		switch sel.Sel.Name {
		case "L":
			into = simple
		case "N":
			into = plural
		case "X":
			// A key of its own where one English word means two
			// things ("Read": the tab, and how many read a post).
			into = simple
		case "XN":
			t.Errorf("%s: lang.XN: use lang.N (the key is the English text)", at)
			return
		default:
			return
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Errorf("%s: the key of lang.%s is not a string literal", at, sel.Sel.Name)
			return
		}
		key, _ := strconv.Unquote(lit.Value)
		into[key] = at
	})
	return simple, plural
}

// eachCall calls visit with every function call in the package's own
// (non-test) files.
func eachCall(t *testing.T, visit func(*token.FileSet, *ast.CallExpr)) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				visit(fset, call)
			}
			return true
		})
	}
}

// translationFile reads translations/<code>.json.
func translationFile(t *testing.T, code string) map[string]any {
	t.Helper()
	b, err := translationFS.ReadFile("translations/" + code + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s.json: %v", code, err)
	}
	return m
}

// pluralForms are the forms each language's plurals need (CLDR: English
// and German tell one from other, Japanese has no plural).
var pluralForms = map[string][]string{"en": {"one", "other"}, "de": {"one", "other"}, "ja": {"other"}}

// TestTranslationsComplete: every text the interface shows is in each
// language's file, plurals with the forms the language needs, with the same
// values filled in (%s, %d); and no file holds text the interface no
// longer uses. English is the key itself and its file holds the plurals
// only.
func TestTranslationsComplete(t *testing.T) {
	simple, plural := uiKeys(t)
	if len(simple) < 50 {
		t.Fatalf("found %d keys only: is the scan broken?", len(simple))
	}
	for _, l := range Languages {
		file := translationFile(t, l.Code)
		for key, at := range simple {
			if l.Code == "en" {
				continue
			}
			v, ok := file[key].(string)
			if forms, isMap := file[key].(map[string]any); isMap && reservedKey(key) {
				// go-i18n reads a top-level "ID": "…" as a field of
				// the file, not as a message: such keys are written
				// {"other": "…"}.
				v, ok = forms["other"].(string)
			}
			switch {
			case !ok:
				t.Errorf("%s.json: no translation of %q (%s)", l.Code, key, at)
			case strings.TrimSpace(v) == "":
				t.Errorf("%s.json: %q is empty", l.Code, key)
			default:
				checkVerbs(t, l.Code, key, v)
			}
		}
		for key, at := range plural {
			forms, ok := file[key].(map[string]any)
			if !ok {
				t.Errorf("%s.json: no plural forms of %q (%s)", l.Code, key, at)
				continue
			}
			for _, form := range pluralForms[l.Code] {
				v, ok := forms[form].(string)
				if !ok || v == "" {
					t.Errorf("%s.json: %q has no %q form", l.Code, key, form)
					continue
				}
				checkVerbs(t, l.Code, key, v)
			}
			for form := range forms {
				if !slices.Contains(pluralForms[l.Code], form) {
					t.Errorf("%s.json: %q has a %q form, which %s does not use", l.Code, key, form, l.Code)
				}
			}
		}
		for key := range file {
			if reservedKey(key) && l.Code == "en" {
				if _, isSimple := simple[key]; isSimple {
					continue
				}
			}
			_, isSimple := simple[key]
			_, isPlural := plural[key]
			if isPlural || isSimple && l.Code != "en" {
				continue
			}
			t.Errorf("%s.json: %q is not used by the interface", l.Code, key)
		}
	}
}

var fmtVerb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// checkVerbs: a translation fills in the values its key does, each once
// (reordered with %[n]v if need be). It compares the verbs' letters.
func checkVerbs(t *testing.T, code, key, v string) {
	t.Helper()
	letters := func(s string) []string {
		var out []string
		for _, m := range fmtVerb.FindAllString(s, -1) {
			out = append(out, m[len(m)-1:])
		}
		slices.Sort(out)
		return out
	}
	if want, got := letters(key), letters(v); !slices.Equal(want, got) {
		t.Errorf("%s.json: %q fills in %v, its key %v", code, v, got, want)
	}
	if strings.Contains(v, "{{") {
		t.Errorf("%s.json: %q: the interface uses fmt verbs, not templates", code, v)
	}
}

// reservedKey reports whether go-i18n takes key, with a string value, for a
// field of the message file (message.go's reservedKeys) rather than a
// message: "ID", "Description", "one", "other"...
func reservedKey(key string) bool {
	switch strings.ToLower(key) {
	case "id", "description", "hash", "leftdelim", "rightdelim", "zero", "one", "two", "few", "many", "other", "translation":
		return true
	}
	return false
}

// TestReservedKeysTranslate: "ID" and "Description" are go-i18n field names;
// written {"other": "…"} they still translate.
func TestReservedKeysTranslate(t *testing.T) {
	inLanguage(t, "de")
	if got := lang.L("Description"); got != "Beschreibung" {
		t.Errorf("Description reads %q in German", got)
	}
}

// textCalls are the calls whose string arguments a user reads: a literal
// with words in it there must go through lang.
var textCalls = map[string]bool{
	"NewLabel": true, "NewLabelWithStyle": true, "NewButton": true, "NewButtonWithIcon": true,
	"NewCheck": true, "NewFormItem": true, "NewTabItem": true, "NewTabItemWithIcon": true,
	"SetText": true, "SetPlaceHolder": true, "SetTitle": true, "NewWindow": true,
	"NewMenu": true, "NewMenuItem": true, "NewNotification": true, "wrappedLabel": true, "reportError": true,
	"NewCustom": true, "NewConfirm": true, "NewInformation": true, "NewCustomConfirm": true,
	"ShowConfirm": true, "ShowInformation": true, "ShowCustom": true, "ShowCustomConfirm": true,
}

// sizingSamples are texts that only size a list row's template before
// the row shows real data; nobody reads them.
var sizingSamples = map[string]bool{
	"Title": true, "Name": true, "Category · Author": true, "10 min ago": true,
	"Category · time": true, "ed25519:key": true, "AAAAAAAAAAAA": true, "000 of 000 confirmed · 000 not": true,
}

var hasWord = regexp.MustCompile(`[A-Za-z]{2,}`)

// TestNoBareTextInWidgets: English put straight into a label, button,
// dialog or notification would show untranslated in every language; it
// must go through lang.L, and so into the translation files.
func TestNoBareTextInWidgets(t *testing.T) {
	eachCall(t, func(fset *token.FileSet, call *ast.CallExpr) {
		var fn string
		switch f := call.Fun.(type) {
		case *ast.SelectorExpr:
			fn = f.Sel.Name
		case *ast.Ident:
			fn = f.Name
		}
		if !textCalls[fn] {
			return
		}
		for _, arg := range call.Args {
			lit, ok := arg.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			s, _ := strconv.Unquote(lit.Value)
			if hasWord.MatchString(s) && !sizingSamples[s] && s != mainTitle {
				t.Errorf("%s: %s(%s): text for people goes through lang.L", fset.Position(lit.Pos()), fn, lit.Value)
			}
		}
	})
}
