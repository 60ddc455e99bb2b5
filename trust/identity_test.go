package trust

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func skipOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits on Windows")
	}
}

func TestLoadOrCreateIdentityCreatesOwnerOnlyKeyAndReloadsIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	id, err := LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %o, want 600", st.Mode().Perm())
	}
	again, err := LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Public.Equal(id.Public) {
		t.Fatal("a second start made a new key")
	}
	msg := []byte("hello")
	if !ed25519.Verify(id.Public, msg, again.Sign(msg)) {
		t.Fatal("reloaded private key does not match the public key")
	}
	data, _ := os.ReadFile(filepath.Join(dir, IdentityFile))
	if !bytes.HasPrefix(data, []byte("-----BEGIN PRIVATE KEY-----\n")) {
		t.Errorf("key file is not PEM PKCS#8:\n%s", data)
	}
}

func TestLoadOrCreateIdentityRefusesKeyOthersCanAccess(t *testing.T) {
	skipOnWindows(t)
	for _, tc := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "is readable by others (mode 644); chmod 600 it"},
		{0o640, "is readable by others (mode 640); chmod 600 it"},
		{0o604, "is readable by others (mode 604); chmod 600 it"},
		{0o620, "is accessible by others (mode 620); chmod 600 it"},
		{0o602, "is accessible by others (mode 602); chmod 600 it"},
		{0o610, "is accessible by others (mode 610); chmod 600 it"},
	} {
		t.Run(fmt.Sprintf("%o", tc.mode), func(t *testing.T) {
			dir := t.TempDir()
			id, err := LoadOrCreateIdentity(dir)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, IdentityFile)
			before, _ := os.ReadFile(path)
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err = LoadOrCreateIdentity(dir)
			contains(t, err, "identity key "+path+" "+tc.want)
			// Never silently fixed, never replaced.
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tc.mode {
				t.Errorf("mode changed to %o", st.Mode().Perm())
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("key file rewritten")
			}
			// Fixed by the operator, it loads again with the same key.
			os.Chmod(path, 0o600)
			again, err := LoadOrCreateIdentity(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Public.Equal(id.Public) {
				t.Fatal("key changed")
			}
		})
	}
}

func TestLoadOrCreateIdentityAcceptsStricterModes(t *testing.T) {
	skipOnWindows(t)
	dir := t.TempDir()
	if _, err := LoadOrCreateIdentity(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, IdentityFile)
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateIdentity(dir); err != nil {
		t.Fatalf("mode 400 refused: %v", err)
	}
}

func TestLoadOrCreateIdentityRefusesCorruptKeyAndKeepsIt(t *testing.T) {
	valid, _ := fixedIdentity(9).MarshalPrivateKey()
	rsaLike := []byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")
	for name, content := range map[string][]byte{
		"empty":          {},
		"garbage":        []byte("not a key\n"),
		"truncated":      valid[:len(valid)/2],
		"bad base64":     bytes.Replace(valid, []byte("MC4CAQAw"), []byte("!!!!!!!!"), 1),
		"other type":     rsaLike,
		"trailing block": append(append([]byte{}, valid...), valid...),
		"huge":           bytes.Repeat([]byte("A"), 1<<20),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, IdentityFile)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOrCreateIdentity(dir)
			contains(t, err, "identity key "+path+" is damaged")
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, content) {
				t.Fatal("a damaged key file was overwritten")
			}
		})
	}
}

func TestLoadOrCreateIdentityConcurrentStartsAgree(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	keys := make([]ed25519.PublicKey, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id, err := LoadOrCreateIdentity(dir)
			errs[i] = err
			if err == nil {
				keys[i] = id.Public
			}
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !keys[i].Equal(keys[0]) {
			t.Fatal("two instances starting at once made different keys")
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteFileNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.json.admin-key")
	if err := adminID.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	err := newsroomID.WriteFile(path)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: %v, want fs.ErrExist", err)
	}
	id, err := LoadIdentityFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !id.Public.Equal(adminID.Public) {
		t.Fatal("key replaced")
	}
}

func TestLoadIdentityFileMissing(t *testing.T) {
	_, err := LoadIdentityFile(filepath.Join(t.TempDir(), "none"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want fs.ErrNotExist", err)
	}
}

func TestIdentityNeverPrintsPrivateKey(t *testing.T) {
	id := fixedIdentity(7)
	seed := id.private.Seed()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%d", "%q"} {
		out := fmt.Sprintf(verb, id)
		if strings.Contains(out, fmt.Sprintf("%x", seed)) || strings.Contains(out, fmt.Sprint(seed)) || strings.Contains(out, fmt.Sprintf("%X", seed)) {
			t.Errorf("%s prints the private key: %s", verb, out)
		}
		if !strings.Contains(out, PublicKeyString(id.Public)) {
			t.Errorf("%s: %q does not show the public key", verb, out)
		}
	}
}

func TestPublicKeyStringRoundTrip(t *testing.T) {
	for i := range 50 {
		id := fixedIdentity(byte(i))
		s := PublicKeyString(id.Public)
		if len(s) != 51 || !strings.HasPrefix(s, "ed25519:") {
			t.Fatalf("text form %q", s)
		}
		got, err := ParsePublicKey(" " + s + "\n")
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(id.Public) {
			t.Fatal("round trip changed the key")
		}
	}
}

func TestParsePublicKeyRefuses(t *testing.T) {
	good := PublicKeyString(adminID.Public)
	body := strings.TrimPrefix(good, "ed25519:")
	for name, s := range map[string]string{
		"empty":          "",
		"no prefix":      body,
		"other type":     "rsa:" + body,
		"upper prefix":   "ED25519:" + body,
		"padded":         good + "=",
		"std alphabet":   "ed25519:" + strings.NewReplacer("-", "+", "_", "/").Replace(body) + "+/",
		"short":          good[:len(good)-4],
		"long":           good + "AAAA",
		"inner space":    "ed25519: " + body,
		"non-canonical":  good[:len(good)-1] + nextBase64(good[len(good)-1]),
		"bad characters": "ed25519:" + strings.Repeat("!", 43),
	} {
		if _, err := ParsePublicKey(s); err == nil {
			t.Errorf("%s: %q accepted", name, s)
		}
	}
}

// nextBase64 returns a character that changes only the unused low bits of
// the last base64 character of a 32-byte value (43 characters carry 258
// bits: the last 2 are padding and must be zero in strict decoding).
func nextBase64(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, c)
	return string(alphabet[(i&^3)|((i+1)&3)])
}
