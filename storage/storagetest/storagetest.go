// Package storagetest opens stores for tests and checks them afterwards, in
// the manner of bbolt's internal/btesting.
package storagetest

import (
	"errors"
	"testing"
	"time"

	"newsdesk/storage"
)

// MustOpen opens a store in a fresh t.TempDir(). On cleanup it runs the
// store's integrity check (bbolt's page check, the store's invariants and
// the search index), closes the store, and checks the file again through a
// fresh read-only open, failing the test on any error.
func MustOpen(tb testing.TB, opts ...storage.Option) *storage.Store {
	tb.Helper()
	return MustOpenDir(tb, tb.TempDir(), opts...)
}

// MustOpenDir is MustOpen on a given directory.
func MustOpenDir(tb testing.TB, dir string, opts ...storage.Option) *storage.Store {
	tb.Helper()
	s, err := storage.Open(dir, opts...)
	if err != nil {
		tb.Fatalf("storage.Open(%s): %v", dir, err)
	}
	tb.Cleanup(func() { CheckAndClose(tb, s, dir) })
	return s
}

// CheckAndClose checks an open store, closes it and checks the file as
// reopened read-only. A store the test already closed gets the file check
// only.
func CheckAndClose(tb testing.TB, s *storage.Store, dir string) {
	tb.Helper()
	select {
	case <-s.SearchReady(): // so the check covers the search index too
	case <-time.After(30 * time.Second):
		tb.Errorf("search index not built after 30 s")
	}
	if err := s.Check(); err != nil && !errors.Is(err, storage.ErrClosed) {
		tb.Errorf("integrity check: %v", err)
	}
	if err := s.Close(); err != nil {
		tb.Errorf("close: %v", err)
	}
	ro, err := storage.Open(dir, storage.ReadOnly(), storage.WithIntegrityCheck())
	if err != nil {
		tb.Errorf("integrity check after close: %v", err)
		return
	}
	if err := ro.Close(); err != nil {
		tb.Errorf("close after check: %v", err)
	}
}
