package ui

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Issue 26: with a C locale (LANG=C.UTF-8, the default of containers and
// minimal systems) Fyne printed "Fyne error: Error parsing user locale C"
// before main ran, in every command and test. This test binary, which
// links Fyne through this package, is run again under such locales and
// must print no such thing.
func TestCLocaleQuiet(t *testing.T) {
	if os.Getenv("NEWSDESK_LOCALE_CHILD") != "" {
		return // the child: initialising was the test
	}
	for _, env := range [][]string{{"LANG=C.UTF-8"}, {"LC_ALL=C.UTF-8"}, {"LANG=C"}, {"LANG=POSIX"}, {}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCLocaleQuiet$")
		cmd.Env = append(cleanLocaleEnv(), append(env, "NEWSDESK_LOCALE_CHILD=1")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", env, err, out)
		}
		if strings.Contains(string(out), "locale") {
			t.Errorf("%v: the test binary printed\n%s", env, out)
		}
	}
}

// cleanLocaleEnv is this process's environment without the variables that
// choose a locale.
func cleanLocaleEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES":
			continue
		}
		out = append(out, kv)
	}
	return out
}
