package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// installationIDFile holds the installation's UUID inside the data directory.
const installationIDFile = "installation-id"

// prepareDataDir creates the data directory (0700) if it is missing, checks
// that it is writable, and returns the installation ID kept in it.
func prepareDataDir(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	// Nothing but the installation ID is written yet, but a later start
	// must not discover that the directory it keeps items in is read-only.
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return "", fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return installationID(dir)
}

// installationID returns the installation's persistent UUID, creating it on
// first run. It is the Source of every item published here: unlike the
// servant address it survives a change of IP, so message history stays
// attached to the installation.
func installationID(dir string) (string, error) {
	path := filepath.Join(dir, installationIDFile)
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			id, err := uuid.Parse(strings.TrimSpace(string(b)))
			if err != nil {
				return "", fmt.Errorf("%s is damaged (%v); restore it, or delete it to start as a new installation", path, err)
			}
			return id.String(), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("installation ID: %w", err)
		}
		err = createExclusive(path, uuid.NewString()+"\n")
		if !errors.Is(err, fs.ErrExist) {
			if err != nil {
				return "", fmt.Errorf("installation ID: %w", err)
			}
			continue // read back what was written
		}
		// Another instance created it first: read theirs.
	}
	return "", fmt.Errorf("installation ID: %s keeps changing", path)
}

// createExclusive writes content to path (0600, as os.CreateTemp makes it)
// only if path does not exist,
// atomically: the content goes to a temporary file that is then hard-linked
// into place, so a crash never leaves a half-written ID and two instances
// starting at once agree on one.
func createExclusive(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(content)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}
