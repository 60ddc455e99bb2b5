package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	berrors "go.etcd.io/bbolt/errors"
)

// Errors callers can test for with errors.Is. Returned errors wrap these with
// the path and the underlying cause.
var (
	// ErrInUse: another process has the data directory open.
	ErrInUse = errors.New("storage: data directory in use by another process")
	// ErrCorrupt: the database file is damaged or is not a Newsdesk store.
	// The file is left exactly as it was found.
	ErrCorrupt = errors.New("storage: database file is corrupt or not a newsdesk store")
	// ErrSchemaTooNew: the file was written by a newer version of Newsdesk.
	ErrSchemaTooNew = errors.New("storage: database file is from a newer version of newsdesk")
	// ErrReadOnly: the data directory or file cannot be written (read-only
	// file system, permissions, or the store was opened with ReadOnly).
	ErrReadOnly = errors.New("storage: data directory is read-only")
	// ErrDiskFull: a write failed for lack of space. Everything committed
	// before stays readable.
	ErrDiskFull = errors.New("storage: disk full")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("storage: store is closed")
	// ErrNotFound: no such item (or outbox entry).
	ErrNotFound = errors.New("storage: not found")
	// ErrBadCursor: a pagination cursor that this package did not produce.
	ErrBadCursor = errors.New("storage: invalid cursor")
)

// classify maps an error from the file system or bbolt to the package's
// sentinel errors, keeping the cause: errors.Is works for both, and the
// message says what happened and where.
func classify(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrInUse), errors.Is(err, ErrCorrupt), errors.Is(err, ErrSchemaTooNew),
		errors.Is(err, ErrReadOnly), errors.Is(err, ErrDiskFull), errors.Is(err, ErrClosed),
		errors.Is(err, ErrNotFound), errors.Is(err, ErrBadCursor):
		return err
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%w: %s: the database file is locked", ErrInUse, op)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, berrors.ErrMaxSizeReached):
		return fmt.Errorf("%w: %s: %w", ErrDiskFull, op, err)
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission), errors.Is(err, berrors.ErrDatabaseReadOnly),
		errors.Is(err, berrors.ErrTxNotWritable):
		return fmt.Errorf("%w: %s: %w", ErrReadOnly, op, err)
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrInvalidMapping):
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, op, err)
	}
	return fmt.Errorf("storage: %s: %w", op, err)
}

// corruptf builds an ErrCorrupt with a reason.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
