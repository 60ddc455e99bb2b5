//go:build windows

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"newsdesk/trust"
)

// TestProtectDataDir: the data directory gets the owner-only protected
// DACL, a key created in it afterwards inherits it, and the key loads.
func TestProtectDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := ProtectDataDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := ProtectDataDir(dir); err != nil { // every start
		t.Fatalf("again: %v", err)
	}
	if _, err := trust.LoadOrCreateIdentity(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := trust.LoadOrCreateIdentity(dir); err != nil {
		t.Fatalf("loading the key again: %v", err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	sid := user.User.Sid.String()
	for _, p := range []string{dir, filepath.Join(dir, trust.IdentityFile)} {
		sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			t.Fatal(err)
		}
		sddl := sd.String()
		t.Logf("%s: %s", p, sddl)
		if !strings.Contains(sddl, sid) {
			t.Errorf("%s: the user %s has no entry: %s", p, sid, sddl)
		}
		for _, broad := range []string{";WD)", ";BU)", ";AU)", ";IU)"} {
			if strings.Contains(sddl, broad) {
				t.Errorf("%s grants %s: %s", p, broad, sddl)
			}
		}
		if p == dir && !strings.HasPrefix(sddl, "D:P") {
			t.Errorf("%s: the DACL is not protected: %s", p, sddl)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

func TestSystemEnv(t *testing.T) {
	e := System()
	if e.GOOS != "windows" || e.ExeDir == "" {
		t.Fatalf("System() = %+v", e)
	}
	if d, err := DataDir(e); err != nil || !strings.HasSuffix(d, `\Newsdesk`) {
		t.Fatalf("DataDir = %q, %v", d, err)
	}
}
