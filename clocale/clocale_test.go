package clocale

import "testing"

func TestEnglishForCLocale(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // LANGUAGE after
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "POSIX.utf8", "LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LC_MESSAGES": "C@euro"}, "en"},
		{map[string]string{"LANG": "C"}, ""}, // go-locale reads plain C as no locale: nothing to mend
		{map[string]string{"LANG": "de_DE.UTF-8"}, ""},
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, ""}, // LC_ALL decides
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},
		{map[string]string{}, ""},
	} {
		env := map[string]string{}
		for k, v := range tc.env {
			env[k] = v
		}
		englishForCLocale(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if got := env["LANGUAGE"]; got != tc.want {
			t.Errorf("%v: LANGUAGE %q, want %q", tc.env, got, tc.want)
		}
	}
}
