package packaging

// The .deb and the MSI are checked the way a packager would look at them:
// dpkg-deb -c / -I / -e for the Debian package, msiinfo for the MSI. Each
// test builds its package from a stub binary in a temporary directory
// (seconds, so it runs in every `go test ./...`), or checks the real one
// when NEWSDESK_DEB / NEWSDESK_MSI names it (make deb, make
// package-windows). Without the tools they skip.

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"newsdesk/app"
	"newsdesk/install"
)

// need skips the test unless every tool is on PATH.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stub writes a placeholder binary of mode 0755 and returns its path.
func stub(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("MZ stub\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// theDeb returns the package under test: $NEWSDESK_DEB, or one built now
// from a stub binary.
func theDeb(t *testing.T) (deb string, real bool) {
	if p := os.Getenv("NEWSDESK_DEB"); p != "" {
		return p, true
	}
	tmp := t.TempDir()
	out := run(t, "./deb/mkdeb.sh", stub(t, tmp, "newsdesk"), tmp, "0.0.0-test", "amd64")
	return strings.TrimSpace(out), false
}

// debEntry is one line of dpkg-deb -c.
type debEntry struct{ mode, owner string }

func TestDebContents(t *testing.T) {
	need(t, "dpkg-deb")
	deb, real := theDeb(t)
	entries := map[string]debEntry{}
	sc := bufio.NewScanner(strings.NewReader(run(t, "dpkg-deb", "-c", deb)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			t.Fatalf("dpkg-deb -c line %q", sc.Text())
		}
		entries[f[len(f)-1]] = debEntry{mode: f[0], owner: f[1]}
	}
	want := map[string]string{
		"./usr/bin/newsdesk":                                  "-rwxr-xr-x",
		"./usr/share/applications/newsdesk.desktop":           "-rw-r--r--",
		"./usr/share/icons/hicolor/256x256/apps/newsdesk.png": "-rw-r--r--",
		"./lib/systemd/system/newsdesk-seed.service":          "-rw-r--r--",
		"./etc/default/newsdesk-seed":                         "-rw-r--r--",
		"./etc/newsdesk/":                                     "drwxr-xr-x",
		"./usr/share/doc/newsdesk/README.md":                  "-rw-r--r--",
		"./usr/share/doc/newsdesk/docs/admin.md":              "-rw-r--r--",
		"./usr/share/doc/newsdesk/docs/operations.md":         "-rw-r--r--",
		"./usr/share/doc/newsdesk/docs/api.md":                "-rw-r--r--",
	}
	// The README's other documents, whichever there are.
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		want["./usr/share/doc/newsdesk/docs/"+filepath.Base(d)] = "-rw-r--r--"
	}
	for p, mode := range want {
		e, ok := entries[p]
		switch {
		case !ok:
			t.Errorf("%s is missing", p)
		case e.mode != mode:
			t.Errorf("%s: mode %s, want %s", p, e.mode, mode)
		}
	}
	for p, e := range entries {
		if e.owner != "root/root" {
			t.Errorf("%s is owned by %s", p, e.owner)
		}
		if _, ok := want[p]; !ok && !strings.HasPrefix(e.mode, "d") {
			t.Errorf("unexpected file %s", p)
		}
		if e.mode[5] == 'w' || e.mode[8] == 'w' {
			t.Errorf("%s is writable by group or others: %s", p, e.mode)
		}
	}

	info := run(t, "dpkg-deb", "-f", deb, "Package", "Architecture", "Depends")
	for _, w := range []string{"Package: newsdesk", "Architecture: amd64", "libgl1", "libx11-6", "libxrandr2", "libxcursor1", "libxi6", "libxinerama1", "libxxf86vm1"} {
		if !strings.Contains(info, w) {
			t.Errorf("control fields lack %q:\n%s", w, info)
		}
	}

	ctl := t.TempDir()
	run(t, "dpkg-deb", "-e", deb, ctl)
	if b, _ := os.ReadFile(filepath.Join(ctl, "conffiles")); strings.TrimSpace(string(b)) != "/etc/default/newsdesk-seed" {
		t.Errorf("conffiles: %q", b)
	}
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		b, err := os.ReadFile(filepath.Join(ctl, s))
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`\benable\b`).Match(stripComments(b)) {
			t.Errorf("%s enables the seed service; it must stay disabled until an admin enables it", s)
		}
		if fi, _ := os.Stat(filepath.Join(ctl, s)); fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v", s, fi.Mode())
		}
	}
	if real {
		// The real binary links the libraries Depends names.
		root := t.TempDir()
		run(t, "dpkg-deb", "-x", deb, root)
		if exe := filepath.Join(root, "usr/bin/newsdesk"); fileSize(t, exe) < 1<<20 {
			t.Errorf("%s is %d bytes: not the app", exe, fileSize(t, exe))
		}
	}
}

// TestSeedUnit checks the seed's unit as shipped: its own user and state
// directory, `newsdesk serve` from the package's path, and, where
// systemd-analyze exists, systemd's own verdict.
func TestSeedUnit(t *testing.T) {
	unit, err := os.ReadFile("newsdesk-seed.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"DynamicUser=yes", "User=newsdesk-seed", "StateDirectory=newsdesk", "StateDirectoryMode=0700",
		"EnvironmentFile=-/etc/default/newsdesk-seed",
		"ExecStart=/usr/bin/newsdesk serve --listen 0.0.0.0:7400 --data /var/lib/newsdesk --control 127.0.0.1:7480 $NEWSDESK_SEED_ARGS",
		"WantedBy=multi-user.target",
	} {
		if !slices.Contains(strings.Split(string(unit), "\n"), line) {
			t.Errorf("the unit lacks the line %q", line)
		}
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze is not installed: unit not verified")
		return
	}
	// verify checks that ExecStart's program exists: point it at a stub.
	dir := t.TempDir()
	exe := stub(t, dir, "newsdesk")
	fixed := strings.ReplaceAll(string(unit), "/usr/bin/newsdesk", exe)
	p := filepath.Join(dir, "newsdesk-seed.service")
	if err := os.WriteFile(p, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", p).CombinedOutput()
	if err != nil || strings.Contains(string(out), "newsdesk-seed.service") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// theMSI returns the installer under test: $NEWSDESK_MSI, or one built now
// from stub files.
func theMSI(t *testing.T) (msi string, real bool) {
	if p := os.Getenv("NEWSDESK_MSI"); p != "" {
		return p, true
	}
	need(t, "wixl", "msibuild")
	dir := t.TempDir()
	stub(t, dir, "newsdesk.exe")
	stub(t, dir, "newsdesk.ico")
	out := run(t, "./windows/mkmsi.sh", dir, filepath.Join(dir, "out", "Newsdesk.msi"), "0.0.1")
	return strings.TrimSpace(out), false
}

// table returns an MSI table's rows (msiinfo export), without the three
// header lines, each split at tabs.
func table(t *testing.T, msi, name string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(run(t, "msiinfo", "export", msi, name), "\r\n"), "\n")
	var rows [][]string
	for _, l := range lines[min(3, len(lines)):] {
		rows = append(rows, strings.Split(strings.TrimRight(l, "\r"), "\t"))
	}
	return rows
}

// row finds the row whose column col is v.
func row(rows [][]string, col int, v string) []string {
	for _, r := range rows {
		if len(r) > col && r[col] == v {
			return r
		}
	}
	return nil
}

func TestMSI(t *testing.T) {
	need(t, "msiinfo")
	msi, real := theMSI(t)

	// Files: the app and its icon, in C:\Program Files\Newsdesk.
	files := table(t, msi, "File")
	for _, name := range []string{"newsdesk.exe", "newsdesk.ico"} {
		r := row(files, 2, name)
		if r == nil || r[1] != "App" {
			t.Fatalf("File table lacks %s in component App: %q", name, files)
		}
		if size, _ := strconv.Atoi(r[3]); real && name == "newsdesk.exe" && size < 10<<20 {
			t.Errorf("newsdesk.exe is %d bytes: not the app", size)
		}
	}
	if r := row(table(t, msi, "Directory"), 0, "INSTALLDIR"); r == nil || r[1] != "ProgramFiles64Folder" || r[2] != "Newsdesk" {
		t.Errorf("INSTALLDIR: %q", r)
	}
	if listing := run(t, "msiinfo", "streams", msi); !strings.Contains(listing, "newsdesk.cab") {
		t.Errorf("no embedded cabinet:\n%s", listing)
	}

	// Per-machine, with an icon in Apps and Features.
	props := table(t, msi, "Property")
	for name, want := range map[string]string{"ALLUSERS": "1", "ARPPRODUCTICON": "newsdesk.ico", "ProductName": "Newsdesk"} {
		if r := row(props, 0, name); r == nil || r[1] != want {
			t.Errorf("property %s = %q, want %q", name, r, want)
		}
	}
	secure := row(props, 0, "SecureCustomProperties")
	for _, p := range []string{"NETWORK", "AUTOSTART"} {
		if secure == nil || !slices.Contains(strings.Split(secure[1], ";"), p) {
			t.Errorf("%s is not a secure property (it would not reach the per-machine install): %q", p, secure)
		}
	}

	// The Start-menu entry.
	sc := row(table(t, msi, "Shortcut"), 0, "StartMenuShortcut")
	if sc == nil || sc[1] != "ProgramMenuFolder" || sc[2] != "Newsdesk" || sc[4] != "[INSTALLDIR]newsdesk.exe" {
		t.Errorf("Start-menu shortcut: %q", sc)
	}

	// NETWORK=… is recorded where install.System reads it; AUTOSTART=1
	// adds the Run entry. Each is an optional feature raised by its
	// property, and every component is 64-bit (the registry view the app
	// reads).
	reg := table(t, msi, "Registry")
	rec := row(reg, 3, install.RegistryValue)
	if rec == nil || rec[1] != "2" || rec[2] != install.RegistryKey || rec[4] != "[NETWORK]" {
		t.Fatalf("NETWORK is not recorded in HKLM\\%s\\%s: %q", install.RegistryKey, install.RegistryValue, rec)
	}
	autorun := row(reg, 2, `SOFTWARE\Microsoft\Windows\CurrentVersion\Run`)
	if autorun == nil || autorun[4] != `"[INSTALLDIR]newsdesk.exe"` {
		t.Fatalf("autostart Run entry: %q", autorun)
	}
	comps := table(t, msi, "Component")
	for _, c := range comps {
		if a, _ := strconv.Atoi(c[3]); a&256 == 0 {
			t.Errorf("component %s is not 64-bit (attributes %s)", c[0], c[3])
		}
	}
	feats := table(t, msi, "FeatureComponents")
	conds := table(t, msi, "Condition")
	for feature, want := range map[string]struct{ component, condition string }{
		"NetworkPreset": {rec[5], "NETWORK"},
		"Autostart":     {autorun[5], "AUTOSTART"},
	} {
		if r := row(feats, 0, feature); r == nil || r[1] != want.component {
			t.Errorf("feature %s holds %q, want component %s", feature, r, want.component)
		}
		if r := row(table(t, msi, "Feature"), 0, feature); r == nil || r[5] != "1000" {
			t.Errorf("feature %s is installed by default: %q", feature, r)
		}
		if r := row(conds, 0, feature); r == nil || r[1] != "1" || r[2] != want.condition {
			t.Errorf("feature %s is not raised by %s: %q", feature, want.condition, r)
		}
	}
	if r := row(feats, 1, "App"); r == nil || r[0] != "Main" {
		t.Errorf("the app is not in the main feature: %q", r)
	}

	testFirewallRule(t, msi)
}

// testFirewallRule checks the custom actions mkmsi.sh adds: netsh opens
// the servant's default port to this program on install, repair and
// upgrade, and closes it on uninstall.
func testFirewallRule(t *testing.T, msi string) {
	_, port, err := net.SplitHostPort(app.DefaultListen)
	if err != nil {
		t.Fatal(err)
	}
	const (
		netsh   = `"[System64Folder]netsh.exe" advfirewall firewall `
		program = `program="[INSTALLDIR]newsdesk.exe"`
	)
	add := netsh + `add rule name="Newsdesk" dir=in action=allow protocol=TCP localport=` + port + ` ` + program + ` profile=domain,private`
	del := netsh + `delete rule name="Newsdesk" ` + program
	// Types: 34 an exe run in a directory (Source), +64 exit code ignored,
	// +256 rollback, +1024 deferred (run from the install script, which
	// is where the files are installed), +2048 no impersonation (run as
	// LocalSystem, which may change the firewall).
	const (
		deferred       = 34 + 1024 + 2048
		deferredIgnore = deferred + 64
		rollback       = deferredIgnore + 256
	)
	// In the order they must run. The old product's uninstall, which
	// deletes the rule during a major upgrade, must be over before the new
	// product's install script adds it again.
	actions := []struct {
		action    string
		typ       int
		target    string
		condition string
	}{
		{"RemoveExistingProducts", -1, "", ""},
		{"InstallInitialize", -1, "", ""},
		// Uninstall.
		{"FirewallRuleRemoveRollback", rollback, add, `REMOVE="ALL"`},
		{"FirewallRuleRemove", deferredIgnore, del, `REMOVE="ALL"`},
		{"RemoveFiles", -1, "", ""},
		// Install, repair, upgrade: delete first, so that there is one rule;
		// the add's failure fails the install.
		{"InstallFiles", -1, "", ""},
		{"FirewallRuleAddRollback", rollback, del, "NOT REMOVE"},
		{"FirewallRuleClear", deferredIgnore, del, "NOT REMOVE"},
		{"FirewallRuleAdd", deferred, add, "NOT REMOVE"},
		{"InstallFinalize", -1, "", ""},
	}
	if r := row(table(t, msi, "Directory"), 0, "System64Folder"); r == nil {
		t.Errorf("no System64Folder in the Directory table (the custom actions' working directory)")
	}
	cas := table(t, msi, "CustomAction")
	seq := table(t, msi, "InstallExecuteSequence")
	prev, prevName := -1, ""
	for _, a := range actions {
		s := row(seq, 0, a.action)
		if s == nil {
			t.Errorf("%s is not in InstallExecuteSequence", a.action)
			continue
		}
		if n := atoi(s[2]); n <= prev {
			t.Errorf("%s (%d) must run after %s (%d)", a.action, n, prevName, prev)
		} else {
			prev, prevName = n, a.action
		}
		if a.typ < 0 {
			continue
		}
		if s[1] != a.condition {
			t.Errorf("%s runs on %q, want %q", a.action, s[1], a.condition)
		}
		c := row(cas, 0, a.action)
		if c == nil {
			t.Errorf("no custom action %s", a.action)
			continue
		}
		if atoi(c[1]) != a.typ || c[2] != "System64Folder" || c[3] != a.target {
			t.Errorf("custom action %s: %q\nwant type %d, source System64Folder, target %s", a.action, c, a.typ, a.target)
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func fileSize(t *testing.T, p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// stripComments drops shell comment lines.
func stripComments(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}
