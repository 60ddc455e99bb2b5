// Package install knows where an installed Newsdesk keeps things on each
// operating system: the per-user data directory, the network definition an
// IT department presets so that the first-run wizard is skipped, and how
// the installation's key file is kept from other users.
//
// Its decisions are plain functions of an Env (the OS name, the
// environment, the executable's directory), so tests cover Windows paths on
// Linux and the other way round. The few calls into the running system
// (the registry value the MSI records, the data directory's ACL) live in
// per-OS files: system_windows.go and system_other.go.
package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/trust"
)

// PresetName is the file name of a preset network definition: beside the
// executable, in /etc/newsdesk (Unix) or in %ProgramData%\Newsdesk
// (Windows).
const PresetName = "network.json"

// RegistryKey and RegistryValue are where the Windows installer records
// the path given as its NETWORK property (HKEY_LOCAL_MACHINE, 64-bit view).
// packaging/windows/newsdesk.wxs writes them.
const (
	RegistryKey   = `SOFTWARE\Newsdesk`
	RegistryValue = "NetworkDefinition"
)

// Env is what the decisions of this package depend on.
type Env struct {
	// GOOS is the operating system, as runtime.GOOS names it.
	GOOS string
	// Getenv reads an environment variable ("" when unset). Nil reads none.
	Getenv func(string) string
	// Home is the user's home directory ("" when unknown).
	Home string
	// ExeDir is the directory of the running executable ("" when unknown).
	ExeDir string
	// Recorded is the definition path the Windows installer recorded
	// (NETWORK=…), "" when none.
	Recorded string
}

// System returns the Env of the running process.
func System() Env {
	e := Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Recorded: recordedPreset()}
	e.Home, _ = os.UserHomeDir()
	if exe, err := os.Executable(); err == nil {
		e.ExeDir = filepath.Dir(exe)
	}
	return e
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) windows() bool { return e.GOOS == "windows" }

// isAbs reports whether p is an absolute path on e's OS: a drive path
// (C:\…, C:/…) or a UNC path (\\server\share) on Windows, /… elsewhere.
func (e Env) isAbs(p string) bool {
	if !e.windows() {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) {
		return len(p) > 2
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// join joins path elements with e's separator.
func (e Env) join(elem ...string) string {
	if !e.windows() {
		return path.Join(elem...)
	}
	parts := make([]string, 0, len(elem))
	for i, el := range elem {
		if i > 0 {
			el = strings.TrimLeft(el, `\/`)
		}
		if i < len(elem)-1 {
			el = strings.TrimRight(el, `\/`)
		}
		if el != "" {
			parts = append(parts, el)
		}
	}
	return strings.Join(parts, `\`)
}

// DataDir is the default per-user data directory:
//   - Windows: %LOCALAPPDATA%\Newsdesk (the local, non-roaming part of the
//     profile: the store can be large and the key must not follow the user
//     to other computers), else %USERPROFILE%\AppData\Local\Newsdesk;
//   - elsewhere: $XDG_DATA_HOME/newsdesk, else ~/.local/share/newsdesk.
//
// Relative values of the variables are ignored, as the XDG specification
// asks. It fails when nothing gives a directory; --data DIR then does.
func DataDir(e Env) (string, error) {
	if e.windows() {
		if d := e.getenv("LOCALAPPDATA"); e.isAbs(d) {
			return e.join(d, "Newsdesk"), nil
		}
		for _, home := range []string{e.getenv("USERPROFILE"), e.Home} {
			if e.isAbs(home) {
				return e.join(home, "AppData", "Local", "Newsdesk"), nil
			}
		}
		return "", errors.New(`no data directory: %LOCALAPPDATA% is not set (use --data DIR)`)
	}
	if d := e.getenv("XDG_DATA_HOME"); e.isAbs(d) {
		return e.join(d, "newsdesk"), nil
	}
	if e.isAbs(e.Home) {
		return e.join(e.Home, ".local", "share", "newsdesk"), nil
	}
	return "", errors.New("no data directory: no home directory (use --data DIR)")
}

// PresetCandidates lists, first to last, where a preset network definition
// is looked for at first run:
//  1. Windows: the path the installer recorded (msiexec … NETWORK=path);
//  2. network.json beside the executable (a software-distribution tool, or
//     an unpacked tarball);
//  3. the system-wide file: %ProgramData%\Newsdesk\network.json on Windows,
//     /etc/newsdesk/network.json elsewhere.
//
// The first that exists is used; the others are not read.
func PresetCandidates(e Env) []string {
	var out []string
	if e.windows() && strings.TrimSpace(e.Recorded) != "" {
		out = append(out, strings.TrimSpace(e.Recorded))
	}
	if e.isAbs(e.ExeDir) {
		out = append(out, e.join(e.ExeDir, PresetName))
	}
	if e.windows() {
		if pd := e.getenv("ProgramData"); e.isAbs(pd) {
			out = append(out, e.join(pd, "Newsdesk", PresetName))
		}
	} else {
		out = append(out, "/etc/newsdesk/"+PresetName)
	}
	return out
}

// FindPreset returns the first candidate that exists. A candidate that
// exists but cannot be examined (permission denied, say) is returned with
// the error: it is the administrator's choice, and passing over it would
// set the installation up some other way.
func FindPreset(candidates []string) (string, error) {
	for _, p := range candidates {
		_, err := os.Stat(p)
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, fs.ErrNotExist):
			continue
		default:
			return p, err
		}
	}
	return "", nil
}

// Target is the application a preset sets up; gui.go adapts *app.App.
type Target interface {
	// NeedsSetup is true until the first run has been set up.
	NeedsSetup() bool
	// ImportNetwork makes the installation use the definition.
	ImportNetwork(*trust.SignedNetwork) error
	// Setup finishes the first run (as the wizard does) and starts the
	// servant, joining through seeds.
	Setup(displayName string, seeds []string) error
}

// ApplyPreset sets up a first run from a preset definition, as the wizard's
// "Import a network definition file" would: it imports the first existing
// candidate and joins through the definition's seeds under displayName.
// It returns the path used, "" when t is set up already or no candidate
// exists. A preset that exists but cannot be used is an error naming it: the
// caller shows it rather than falling back to the wizard, where a user
// could start a network of their own instead of the company's.
func ApplyPreset(t Target, candidates []string, displayName string) (string, error) {
	if !t.NeedsSetup() {
		return "", nil
	}
	p, err := FindPreset(candidates)
	if p == "" || err != nil {
		return p, err
	}
	sn, err := app.ReadNetworkFile(p)
	if err != nil {
		return p, err
	}
	if len(sn.Seeds) == 0 {
		return p, fmt.Errorf("the network definition %s (%q) lists no seeds to connect to", p, sn.Name)
	}
	if err := t.ImportNetwork(sn); err != nil {
		return p, fmt.Errorf("importing the network definition %s: %w", p, err)
	}
	if err := t.Setup(displayName, sn.Seeds); err != nil {
		return p, fmt.Errorf("joining the network %q: %w", sn.Name, err)
	}
	return p, nil
}

// fallbackName is the display name when the account tells none.
const fallbackName = "Newsdesk user"

// DisplayName is the display name a preset first run uses, from the
// operating system's account: its full name (the GECOS field up to the
// first comma on Unix, the account's display name on Windows), else the
// login name without a Windows domain (DOMAIN\ann) or UPN suffix
// (ann@corp.example). Control characters go and the result is cut to what
// a news item's author field takes. The user can change it under Settings.
func DisplayName(fullName, username string) string {
	clean := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == utf8.RuneError {
				return -1
			}
			return r
		}, s)
		s = strings.TrimSpace(s)
		if utf8.RuneCountInString(s) > news.MaxAuthorRunes {
			s = strings.TrimSpace(string([]rune(s)[:news.MaxAuthorRunes]))
		}
		return s
	}
	if i := strings.IndexByte(fullName, ','); i >= 0 {
		fullName = fullName[:i]
	}
	if n := clean(fullName); n != "" {
		return n
	}
	if i := strings.LastIndexByte(username, '\\'); i >= 0 {
		username = username[i+1:]
	}
	if i := strings.IndexByte(username, '@'); i > 0 {
		username = username[:i]
	}
	if n := clean(username); n != "" {
		return n
	}
	return fallbackName
}

// Protection is how an installation's key file (and store) is kept from
// other users of the computer.
type Protection int

const (
	// FileModes: POSIX permissions. The data directory is created 0700
	// and the key 0600 (package trust refuses a key others may read).
	FileModes Protection = iota
	// OwnerACL: Windows, where mode bits mean nothing. The data directory
	// gets a protected ACL (no inherited entries) granting full control
	// to the user, SYSTEM and Administrators only, inherited by every
	// file created in it; ProtectDataDir sets it at every start.
	OwnerACL
)

func (p Protection) String() string {
	if p == OwnerACL {
		return "owner-only ACL on the data directory"
	}
	return "file modes 0700/0600"
}

// KeyProtection says how the key is protected on goos.
func KeyProtection(goos string) Protection {
	if goos == "windows" {
		return OwnerACL
	}
	return FileModes
}

// OwnerOnlySDDL is the security descriptor (SDDL) ProtectDataDir gives a
// Windows data directory: a protected DACL ("P": nothing inherited from
// the parent, so a folder that grants Users or Everyone read access
// above it lends none) with full access ("FA") for the user's SID, SYSTEM
// ("SY") and the Administrators group ("BA"), each inherited by files and
// subfolders ("OICI"). These are the principals a profile folder grants;
// an administrator can take any file anyway, and backups run as SYSTEM.
func OwnerOnlySDDL(userSID string) (string, error) {
	if !validSID(userSID) {
		return "", fmt.Errorf("not a SID: %q", userSID)
	}
	return "D:P(A;OICI;FA;;;" + userSID + ")(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", nil
}

// validSID accepts the string form S-1-<authority>-<sub>… of a SID.
func validSID(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 3 || parts[0] != "S" || parts[1] != "1" {
		return false
	}
	for _, p := range parts[2:] {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
