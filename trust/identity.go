package trust

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// IdentityFile is the name of the installation's key file inside the data
// directory.
const IdentityFile = "identity.key"

// The key file format: one PEM block of type "PRIVATE KEY" holding the
// PKCS#8 encoding of the Ed25519 private key (what x509.MarshalPKCS8PrivateKey
// writes and `openssl pkey -in identity.key -pubout` reads). A standard
// format means an operator can inspect or back up the key with ordinary
// tools, and a later key type fits the same file.
const pemTypePrivateKey = "PRIVATE KEY"

// maxKeyFileBytes bounds what is read from a key file: a PEM Ed25519 key is
// about 120 bytes, so anything much larger is not a key file.
const maxKeyFileBytes = 4 << 10

// Identity is an installation's (or an admin's) Ed25519 key pair. The
// private half never leaves the value: it signs through Sign and the
// Sign… helpers and is used by the TLS configuration, and it is never
// printed (String and Format show the public key only).
type Identity struct {
	Public  ed25519.PublicKey
	private ed25519.PrivateKey

	certOnce sync.Once // the self-signed TLS certificate, made on first use
	cert     tls.Certificate
	certErr  error
}

// GenerateIdentity returns a fresh key pair from crypto/rand.
func GenerateIdentity() (*Identity, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("identity: generate key: %w", err)
	}
	return &Identity{Public: pub, private: priv}, nil
}

// identityFromPrivate wraps a private key, deriving the public half from it.
func identityFromPrivate(priv ed25519.PrivateKey) *Identity {
	return &Identity{Public: priv.Public().(ed25519.PublicKey), private: priv}
}

// LoadOrCreateIdentity returns the identity kept in DIR/identity.key,
// creating the directory (0700) and a new key (0600) at first run.
//
// An existing file is never modified: one that group or others may access
// is refused (the operator fixes the mode, the program does not do it
// silently, because a key that was readable may have been copied), and a
// file that is not a valid key is refused too; the operator moves it away
// to start as a new identity, which changes the installation's public key.
// Creation is atomic (temporary file, then hard link): a crash never leaves
// a half-written key and two instances starting at once agree on one key.
func LoadOrCreateIdentity(dir string) (*Identity, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	path := filepath.Join(dir, IdentityFile)
	for range 2 {
		id, err := LoadIdentityFile(path)
		if !errors.Is(err, fs.ErrNotExist) {
			return id, err
		}
		fresh, err := GenerateIdentity()
		if err != nil {
			return nil, err
		}
		err = fresh.WriteFile(path)
		if err == nil {
			return fresh, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// Another instance created it first: load theirs.
	}
	return nil, fmt.Errorf("identity key %s keeps changing", path)
}

// LoadIdentityFile reads a key file written by WriteFile (or by
// LoadOrCreateIdentity). It refuses a file that group or others may access
// and a file that does not hold exactly one Ed25519 private key. A missing
// file is an error wrapping fs.ErrNotExist.
func LoadIdentityFile(path string) (*Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("identity key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("identity key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("identity key %s is not a regular file", path)
	}
	if err := checkOwnerOnly(path, st.Mode()); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("identity key: %w", err)
	}
	priv, err := parsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("identity key %s is damaged (%v); restore it from a backup, or move it away to create a new identity (a new public key)", path, err)
	}
	return identityFromPrivate(priv), nil
}

// checkOwnerOnly refuses a key file that group or others may read, write or
// execute. Windows reports no such bits (access is by ACL there), so the
// check is skipped on Windows and the data directory's ACL protects the key.
func checkOwnerOnly(path string, mode fs.FileMode) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	perm := mode.Perm()
	switch {
	case perm&0o044 != 0:
		return fmt.Errorf("identity key %s is readable by others (mode %o); chmod 600 it", path, perm)
	case perm&0o077 != 0:
		return fmt.Errorf("identity key %s is accessible by others (mode %o); chmod 600 it", path, perm)
	}
	return nil
}

func parsePrivateKeyPEM(data []byte) (ed25519.PrivateKey, error) {
	if len(data) > maxKeyFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxKeyFileBytes)
	}
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if block.Type != pemTypePrivateKey {
		return nil, fmt.Errorf("PEM block of type %q, want %q", block.Type, pemTypePrivateKey)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("data after the PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an Ed25519 key", key)
	}
	return priv, nil
}

// MarshalPrivateKey returns the key file contents for id (PEM PKCS#8).
func (id *Identity) MarshalPrivateKey() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(id.private)
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypePrivateKey, Bytes: der}), nil
}

// WriteFile stores the private key at path with mode 0600. It never replaces
// an existing file: if path exists the error wraps fs.ErrExist. The write is
// atomic (temporary file in the same directory, synced, then hard-linked
// into place). `newsdesk network init` uses it for FILE.admin-key.
func (id *Identity) WriteFile(path string) error {
	data, err := id.MarshalPrivateKey()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("identity key: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600) // CreateTemp makes 0600 already; say it where it matters
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("identity key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("identity key %s: %w", path, fs.ErrExist)
		}
		return fmt.Errorf("identity key: %w", err)
	}
	return nil
}

// Sign returns the Ed25519 signature of msg. Callers sign domain-separated
// messages (every encoding in this package starts with its own prefix), so a
// signature made for one purpose is never valid for another.
func (id *Identity) Sign(msg []byte) []byte {
	return ed25519.Sign(id.private, msg)
}

// String returns the public key in text form; the private key is never
// printed.
func (id *Identity) String() string { return "identity " + PublicKeyString(id.Public) }

// GoString is String, so %#v does not print the private key either.
func (id *Identity) GoString() string { return id.String() }

// Format prints String for every verb, so no verb (%x, %d, …) reaches the
// private key through fmt's printing of unexported fields.
func (id *Identity) Format(f fmt.State, verb rune) { io.WriteString(f, id.String()) }

// publicKeyPrefix names the key type in the text form, so a later key type
// can be told apart and a pasted key of another kind is refused clearly.
const publicKeyPrefix = "ed25519:"

// PublicKeyString returns the text form of a public key:
// "ed25519:" followed by the 32 key bytes in unpadded base64url (51
// characters in all, no characters a shell, a URL or a JSON string treats
// specially). It is what `newsdesk key` prints and admins paste.
func PublicKeyString(pub ed25519.PublicKey) string {
	return publicKeyPrefix + base64.RawURLEncoding.EncodeToString(pub)
}

// ParsePublicKey parses the text form written by PublicKeyString. Spaces
// around it are ignored (pasting often adds a newline); anything else that
// is not exactly one canonical encoding of 32 bytes is an error.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, publicKeyPrefix)
	if !ok {
		return nil, fmt.Errorf("public key %.20q: must start with %q", s, publicKeyPrefix)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("public key %.20q: not unpadded base64url: %v", s, err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key %.20q: %d bytes, want %d", s, len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}
