package app

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/storage"
	"newsdesk/trust"
)

// InstallationIDFile holds the installation's source: the UUID every item
// published here carries (trust.NewSource, bound to identity.key).
const InstallationIDFile = "installation-id"

// prepareDataDir creates the data directory (0700) if it is missing and
// checks that it is writable.
func prepareDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	// Nothing is written yet, but a later start must not discover that the
	// directory it keeps items in is read-only.
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// ErrDamagedInstallation is wrapped by the error Open returns for a data
// directory whose store is gone (missing, empty) while its source remains,
// or damaged (storage.ErrCorrupt).
var ErrDamagedInstallation = errors.New("damaged installation")

// missingStore explains a store that is missing or empty next to the
// installation's source, and the ways out.
type missingStore struct {
	path, what string
}

func (e *missingStore) Error() string {
	return fmt.Sprintf("%s: the store %s is %s, but this installation has run before (its %s is there). "+
		"Starting with an empty store would number new items from 1 again, and every servant would drop them as old. "+
		"Restore %s from a backup, or start once with --reset-store to begin with an empty store under a new source",
		ErrDamagedInstallation, e.path, e.what, InstallationIDFile, storage.FileName)
}

func (e *missingStore) Unwrap() error { return ErrDamagedInstallation }

// checkStorePresent reports a damaged installation: a store file that is
// missing or empty while the source file exists. The source file is what
// counts, not identity.key: `newsdesk key` makes the key before a first
// start (an admin lists it as a publisher), and counts belong to a source.
// It runs before anything is created, and on a first run the store is
// created before the source file, so a fresh directory (or one that crashed
// half-way through its first start) never looks damaged.
func checkStorePresent(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, InstallationIDFile)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	path := filepath.Join(dir, storage.FileName)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &missingStore{path: path, what: "missing"}
	case err != nil:
		return fmt.Errorf("store %s: %w", path, err)
	case fi.Size() == 0:
		return &missingStore{path: path, what: "empty"}
	}
	return nil
}

// openStore opens the data directory's store. A damaged one (missing or
// empty next to an installation that has run, or corrupt) is refused with
// the way out, an error wrapping ErrDamagedInstallation; with reset it is
// set aside instead and a new, empty store made, and fresh reports that.
// reset on an intact store (it opens and passes Store.Check) is refused.
func openStore(dir string, reset bool, log *slog.Logger, opts ...storage.Option) (st *storage.Store, fresh bool, err error) {
	open := func() (*storage.Store, error) {
		st, err := storage.Open(dir, append([]storage.Option{storage.WithPinned(network.SystemCategories...), storage.WithCommitInterval(ingestInterval)}, opts...)...)
		if errors.Is(err, storage.ErrInUse) {
			return nil, &dirInUse{dir: dir, cause: err}
		}
		return st, damagedStore(dir, err)
	}
	damaged := checkStorePresent(dir)
	if damaged == nil {
		st, err := open()
		switch {
		case err == nil && !reset:
			return st, false, nil
		case err == nil:
			// Damage that Open does not look for (start-up found it, say)
			// still counts when the full check finds it.
			cerr := st.Check()
			st.Close()
			if cerr == nil {
				return nil, false, fmt.Errorf("--reset-store: the store in %s is intact, so there is nothing to reset; start without it", dir)
			}
			damaged = damagedStore(dir, cerr)
		default:
			damaged = err
		}
	}
	if !reset || !errors.Is(damaged, ErrDamagedInstallation) {
		return nil, false, damaged
	}
	aside, err := setStoreAside(dir, time.Now())
	if err != nil {
		return nil, false, err
	}
	log.Warn("starting with an empty store under a new source", "damaged", aside)
	st, err = open()
	return st, true, err
}

// damagedStore adds the way out to an error that found the store damaged
// (storage.ErrCorrupt, which the error keeps) and marks it as
// ErrDamagedInstallation. The storage package never writes to a file it
// refuses, so the file is as it was found. Other errors pass unchanged.
func damagedStore(dir string, err error) error {
	if !errors.Is(err, storage.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %w; newsdesk has not changed %s: restore it from a backup, or start with --reset-store to begin a new, empty store",
		ErrDamagedInstallation, err, filepath.Join(dir, storage.FileName))
}

// setStoreAside renames a damaged store out of the way (never deleting it:
// it may still be recovered by hand) so a new one can be created, and
// returns the name it was given, or "" when there was no file.
func setStoreAside(dir string, now time.Time) (string, error) {
	path := filepath.Join(dir, storage.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	aside := path + ".damaged-" + now.UTC().Format("20060102T150405Z")
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("setting the damaged store aside: %w", err)
	}
	return aside, nil
}

// installationSource returns the installation's source, kept in
// DIR/installation-id, and whether it made a new one. A new one is made (trust.NewSource) on first run, when
// fresh is set (a reset store must never reuse a count), and when the file
// holds a source the key does not own: an installation from before sources
// were bound to keys, or one whose identity.key was replaced. Its items
// under the old source stay where they are; new ones start a new stream.
func installationSource(dir string, key ed25519.PublicKey, fresh bool, log *slog.Logger) (src uuid.UUID, made bool, err error) {
	path := filepath.Join(dir, InstallationIDFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return uuid.Nil, false, fmt.Errorf("installation ID: %w", err)
	default:
		old, perr := uuid.Parse(strings.TrimSpace(string(b)))
		if perr != nil {
			return uuid.Nil, false, fmt.Errorf("%s is damaged (%v); restore it, or delete it to publish under a new source", path, perr)
		}
		if !fresh && trust.SourceOwnedBy(old, key) {
			return old, false, nil
		}
		if !fresh {
			log.Info("publishing under a new source bound to this installation's key", "old", old)
		}
	}
	src, err = trust.NewSource(key)
	if err != nil {
		return uuid.Nil, false, err
	}
	if err := replaceFile(path, src.String()+"\n"); err != nil {
		return uuid.Nil, false, fmt.Errorf("installation ID: %w", err)
	}
	return src, true, nil
}

// replaceFile writes content to path (0600) atomically: a temporary file,
// synced, renamed into place. The caller holds the store's lock, so no
// other instance writes it at the same time.
func replaceFile(path, content string) error {
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
	return os.Rename(tmp.Name(), path)
}
