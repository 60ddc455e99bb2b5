// Package clocale lets Fyne read a C or POSIX locale (LANG=C.UTF-8, the
// default of containers and minimal systems) as English instead of
// printing "Fyne error: Error parsing user locale C" at every start.
//
// Fyne works out the locale while its lang package initialises, before
// main runs: go-locale takes "C.UTF-8" for the language "C", which is no
// language tag. The only way in before that is a package initialised
// earlier, and Go initialises packages in the order of their import paths
// (each once its own imports are; the order the spec fixes since Go 1.21):
// this module's path, "clocale", comes before "fyne.io/…", and it imports
// nothing but os and strings, so its init runs first. That is why it is a
// module of its own (replaced by this directory in newsdesk's go.mod): no
// path inside module newsdesk sorts before fyne.io. Import it for its
// effect, from the packages that link Fyne.
package clocale

import (
	"os"
	"strings"
)

func init() { englishForCLocale(os.Getenv, os.Setenv) }

// englishForCLocale sets LANGUAGE to "en" when the locale that decides
// (the first set of LC_ALL, LC_MESSAGES and LANG, as gettext and go-locale
// read them) is C or POSIX with a codeset or modifier, and LANGUAGE is not
// set. go-locale then reads the language from LANGUAGE, which is English,
// what the C locale shows anyway; gettext ignores LANGUAGE in the C
// locale, so other programs started from Newsdesk see no difference.
func englishForCLocale(getenv func(string) string, setenv func(string, string) error) {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		lang, _, _ := strings.Cut(v, ".")
		lang, _, _ = strings.Cut(lang, "@")
		if (lang == "C" || lang == "POSIX") && v != lang && getenv("LANGUAGE") == "" {
			setenv("LANGUAGE", "en")
		}
		return
	}
}
