package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"newsdesk/news"
)

// env returns an Env for goos whose environment is vars.
func env(goos string, vars map[string]string) Env {
	return Env{GOOS: goos, Getenv: func(k string) string { return vars[k] }}
}

func TestDataDir(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Env
		want string // "" means an error
	}{
		{"windows LOCALAPPDATA", env("windows", map[string]string{
			"LOCALAPPDATA": `C:\Users\ann\AppData\Local`, "USERPROFILE": `C:\Users\ann`}),
			`C:\Users\ann\AppData\Local\Newsdesk`},
		{"windows LOCALAPPDATA with a trailing separator", env("windows", map[string]string{
			"LOCALAPPDATA": `D:\Profiles\ann\Local\`}), `D:\Profiles\ann\Local\Newsdesk`},
		{"windows LOCALAPPDATA redirected to a share", env("windows", map[string]string{
			"LOCALAPPDATA": `\\fs1\profiles\ann\Local`}), `\\fs1\profiles\ann\Local\Newsdesk`},
		{"windows relative LOCALAPPDATA falls back to USERPROFILE", env("windows", map[string]string{
			"LOCALAPPDATA": `AppData\Local`, "USERPROFILE": `C:\Users\ann`}),
			`C:\Users\ann\AppData\Local\Newsdesk`},
		{"windows home only", Env{GOOS: "windows", Home: `C:\Users\bob`}, `C:\Users\bob\AppData\Local\Newsdesk`},
		{"windows nothing", env("windows", nil), ""},
		{"windows ignores XDG", env("windows", map[string]string{
			"XDG_DATA_HOME": "/x", "LOCALAPPDATA": `C:\L`}), `C:\L\Newsdesk`},
		{"linux XDG_DATA_HOME", env("linux", map[string]string{"XDG_DATA_HOME": "/data/ann"}), "/data/ann/newsdesk"},
		{"linux relative XDG_DATA_HOME is ignored", Env{GOOS: "linux", Home: "/home/ann",
			Getenv: func(k string) string { return map[string]string{"XDG_DATA_HOME": "data"}[k] }},
			"/home/ann/.local/share/newsdesk"},
		{"linux home", Env{GOOS: "linux", Home: "/home/ann"}, "/home/ann/.local/share/newsdesk"},
		{"linux ignores LOCALAPPDATA", Env{GOOS: "linux", Home: "/home/ann",
			Getenv: func(k string) string { return map[string]string{"LOCALAPPDATA": `C:\L`}[k] }},
			"/home/ann/.local/share/newsdesk"},
		{"linux nothing", env("linux", nil), ""},
		{"darwin as linux", Env{GOOS: "darwin", Home: "/Users/ann"}, "/Users/ann/.local/share/newsdesk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := DataDir(c.e)
			switch {
			case c.want == "" && err == nil:
				t.Fatalf("DataDir = %q, want an error", got)
			case c.want == "" && !strings.Contains(err.Error(), "--data DIR"):
				t.Fatalf("error %q does not say how to go on", err)
			case c.want != "" && (err != nil || got != c.want):
				t.Fatalf("DataDir = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestPresetCandidates(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Env
		want []string
	}{
		{"windows with NETWORK recorded", Env{GOOS: "windows", ExeDir: `C:\Program Files\Newsdesk`,
			Recorded: ` \\fs1\it\newsdesk.json `, Getenv: func(k string) string {
				return map[string]string{"ProgramData": `C:\ProgramData`}[k]
			}}, []string{
			`\\fs1\it\newsdesk.json`,
			`C:\Program Files\Newsdesk\network.json`,
			`C:\ProgramData\Newsdesk\network.json`,
		}},
		{"windows without NETWORK", Env{GOOS: "windows", ExeDir: `C:\Program Files\Newsdesk`}, []string{
			`C:\Program Files\Newsdesk\network.json`,
		}},
		{"linux package", Env{GOOS: "linux", ExeDir: "/usr/bin", Recorded: "/ignored"}, []string{
			"/usr/bin/network.json", "/etc/newsdesk/network.json",
		}},
		{"unknown executable", Env{GOOS: "linux"}, []string{"/etc/newsdesk/network.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PresetCandidates(c.e); !slices.Equal(got, c.want) {
				t.Fatalf("PresetCandidates =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestFindPreset(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	if p, err := FindPreset([]string{a, b, c}); p != "" || err != nil {
		t.Fatalf("none exists: %q, %v", p, err)
	}
	for _, f := range []string{b, c} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := FindPreset([]string{a, b, c}); p != b || err != nil {
		t.Fatalf("FindPreset = %q, %v; want the first that exists, %q", p, err, b)
	}
	// A candidate that cannot be examined stops the search.
	bad := filepath.Join(dir, "a.json\x00")
	if p, err := FindPreset([]string{bad, b}); p != bad || err == nil {
		t.Fatalf("unexaminable candidate: %q, %v", p, err)
	}
}

func TestDisplayName(t *testing.T) {
	long := strings.Repeat("é", news.MaxAuthorRunes+5)
	for _, c := range []struct{ full, user, want string }{
		{"Ann Smith", "ann", "Ann Smith"},
		{"Ann Smith,,,", "ann", "Ann Smith"}, // GECOS
		{"Ann Smith,Room 4,555-1234,", "ann", "Ann Smith"},
		{"", `CORP\ann.smith`, "ann.smith"}, // Windows account without a display name
		{"", "ann@corp.example", "ann"},     // UPN
		{" ,,,", "bob", "bob"},
		{"\tAnn\x07 Smith\n", "ann", "Ann Smith"}, // control characters go
		{"", "", fallbackName},
		{"", `CORP\`, fallbackName},
		{long, "x", strings.Repeat("é", news.MaxAuthorRunes)},
	} {
		if got := DisplayName(c.full, c.user); got != c.want {
			t.Errorf("DisplayName(%q, %q) = %q, want %q", c.full, c.user, got, c.want)
		}
	}
}

// TestKeyProtection: POSIX modes protect the key everywhere but on Windows,
// where the data directory gets an owner-only ACL.
func TestKeyProtection(t *testing.T) {
	for goos, want := range map[string]Protection{
		"linux": FileModes, "darwin": FileModes, "freebsd": FileModes, "windows": OwnerACL,
	} {
		if got := KeyProtection(goos); got != want {
			t.Errorf("KeyProtection(%s) = %v, want %v", goos, got, want)
		}
	}
}

// TestOwnerOnlySDDL: the ACL given to a Windows data directory grants the
// user, SYSTEM and Administrators, nobody else, inherits nothing from the
// parent folder and is inherited by everything created inside.
func TestOwnerOnlySDDL(t *testing.T) {
	const sid = "S-1-5-21-3623811015-3361044348-30300820-1013"
	got, err := OwnerOnlySDDL(sid)
	if err != nil {
		t.Fatal(err)
	}
	want := "D:P(A;OICI;FA;;;" + sid + ")(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
	if got != want {
		t.Fatalf("OwnerOnlySDDL = %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(got, "D:P(") {
		t.Error("the DACL is not protected: it would inherit the parent's entries")
	}
	for _, broad := range []string{";WD)", ";BU)", ";AU)", ";IU)", ";AN)"} { // Everyone, Users, Authenticated Users, Interactive, Anonymous
		if strings.Contains(got, broad) {
			t.Errorf("the DACL grants %s", broad)
		}
	}
	for _, bad := range []string{"", "ann", "S-1", "S-1-5-", "S-1-5-21-x", "S-1-5-21)(A;;FA;;;WD"} {
		if _, err := OwnerOnlySDDL(bad); err == nil {
			t.Errorf("OwnerOnlySDDL(%q) accepted", bad)
		}
	}
}
