package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"newsdesk/categories"
)

// FileName is the database file inside a data directory.
const FileName = "newsdesk.db"

// Store is an open data directory. Its methods are safe for concurrent use.
type Store struct {
	db   *bbolt.DB
	path string
	opts options
	// ownSource is this installation's source (SetOwnSource), nil until
	// set: retention treats its must-read posts like any other item.
	ownSource atomic.Pointer[uuid.UUID]

	// wmu serialises write transactions together with the search index
	// update that follows each commit, so the index sees commits in commit
	// order (bbolt runs one writer at a time anyway, so this costs nothing).
	wmu sync.Mutex

	// closeMu guards closed and sending on queue: Close takes it for
	// writing, Ingest for reading.
	closeMu    sync.RWMutex
	closed     bool
	queue      chan *ingestReq // to the writer goroutine; nil when read-only
	writerDone chan struct{}

	stop chan struct{} // closed by Close: background work ends
	bg   sync.WaitGroup

	search *searchIndex

	// itemBytes is the total size of the stored items (quota.go), known
	// once bytesKnown; both guarded by wmu.
	itemBytes  int64
	bytesKnown bool

	// blobMu serialises the changes of blob files with their records
	// (blobs.go); taken before wmu, never while holding it.
	blobMu sync.Mutex
	// blobUsed holds the last reads of blobs, for the cache's order.
	usedMu   sync.Mutex
	blobUsed map[[32]byte]int64
}

// Open opens the store in dir, creating the directory and a new store if
// there is none. It fails with:
//   - ErrInUse within the lock timeout (default 500 ms) if another process
//     has the directory open;
//   - ErrCorrupt if the file is damaged or not a Newsdesk store; the file is
//     left untouched;
//   - ErrSchemaTooNew if a newer Newsdesk wrote it;
//   - ErrReadOnly if the directory or file cannot be written (use the
//     ReadOnly option to read it anyway);
//   - ErrNotFound with the ReadOnly option if there is no store to read.
//
// Queries work at once; Search waits until the search index is built (see
// SearchReady).
func Open(dir string, opts ...Option) (*Store, error) {
	o := defaultOptions()
	for _, fn := range opts {
		fn(&o)
	}
	if dir == "" {
		return nil, errors.New("storage: data directory: required")
	}
	for _, c := range o.pinned {
		if err := categories.ValidateID(c); err != nil {
			return nil, fmt.Errorf("storage: pinned category: %w", err)
		}
	}
	if err := prepareDir(dir, o.readOnly); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	db, err := openDB(path, o)
	if err != nil {
		return nil, err
	}
	s := &Store{
		db:     db,
		path:   path,
		opts:   o,
		stop:   make(chan struct{}),
		search: newSearchIndex(),
	}
	if !o.readOnly {
		if err := s.sweepBlobs(); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if o.verify {
		if err := s.Check(); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if !o.readOnly {
		s.queue = make(chan *ingestReq, 4*o.maxBatch)
		s.writerDone = make(chan struct{})
		go s.writer()
	}
	s.bg.Add(1)
	go s.buildSearchIndex()
	return s, nil
}

// prepareDir makes sure dir is a directory, creating it unless read-only.
func prepareDir(dir string, readOnly bool) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("storage: data directory %s: not a directory", dir)
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist) && readOnly:
		return fmt.Errorf("%w: no data directory %s", ErrNotFound, dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return classify("create data directory", err)
		}
		return nil
	}
	return classify("data directory", err)
}

// openDB opens the bbolt file and brings it to the current schema. An
// existing file is first checked with plain reads (checkFile), then opened
// read-only, its pages walked (checkPages), its schema inspected and the
// values start-up reads decoded (checkStartup), so a foreign or damaged
// file is refused before anything could write to it, and later reads
// cannot crash on it.
func openDB(path string, o options) (db *bbolt.DB, err error) {
	// Last line of defence: a damaged file that passes checkFile can still
	// make bbolt panic or fault on a bad page. Turn that into ErrCorrupt
	// instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				func() {
					defer func() { _ = recover() }()
					_ = db.Close()
				}()
			}
			db, err = nil, corruptf("%s: %v", path, r)
		}
	}()

	fi, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, classify("stat", err)
	}
	if exists && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("storage: %s: not a regular file", path)
	}
	if !exists || fi.Size() == 0 {
		if o.readOnly {
			return nil, fmt.Errorf("%w: no store in %s", ErrNotFound, filepath.Dir(path))
		}
	} else {
		if err := checkFile(path); err != nil {
			if lockedByOther(path) {
				return nil, fmt.Errorf("%w: %s", ErrInUse, path)
			}
			return nil, err
		}
		ro, st, err := openInspect(path, o, true)
		if err != nil {
			return nil, err
		}
		if !st.fresh && st.schema == SchemaVersion() {
			if err := startupCheck(ro, path); err != nil {
				_ = ro.Close()
				return nil, err
			}
		}
		if o.readOnly {
			if st.fresh || st.schema != SchemaVersion() {
				_ = ro.Close()
				return nil, fmt.Errorf("%w: %s needs an upgrade to schema %d, which a read-only open cannot do", ErrReadOnly, path, SchemaVersion())
			}
			return ro, nil
		}
		if err := ro.Close(); err != nil {
			return nil, classify("close database", err)
		}
	}
	db, st, err := openInspect(path, o, false)
	if err != nil {
		return nil, err
	}
	if st.fresh || st.schema != SchemaVersion() {
		if err := db.Update(func(tx *bbolt.Tx) error { return upgrade(tx, st) }); err != nil {
			_ = db.Close()
			return nil, classify("initialise database", err)
		}
		if !st.fresh {
			// A migrated store: checked in its new form.
			if err := startupCheck(db, path); err != nil {
				_ = db.Close()
				return nil, err
			}
		}
	}
	return db, nil
}

// startupCheck runs checkStartup on an open file.
func startupCheck(db *bbolt.DB, path string) error {
	err := db.View(checkStartup)
	if errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w (%s)", err, path)
	}
	return classify("check "+path, err)
}

// openInspect opens the file with bbolt and inspects it in a read
// transaction (which never writes). A read-only open first walks the
// file's pages (checkPages); openDB opens an existing file read-only
// before it opens it for writing, so every open of an existing file is
// walked.
func openInspect(path string, o options, readOnly bool) (*bbolt.DB, storeState, error) {
	bo := &bbolt.Options{
		Timeout:      o.lockTimeout,
		ReadOnly:     readOnly,
		NoSync:       o.noSync,
		NoGrowSync:   o.noSync,
		FreelistType: bbolt.FreelistMapType, // O(1) allocation in a large, fragmented file
	}
	if strconv.IntSize == 64 && runtime.GOOS != "windows" {
		// Address space only: a map this large means readers rarely block
		// a writer that grows the file (bbolt remaps under an exclusive
		// lock). Not on Windows, where bbolt grows the file to the map size.
		bo.InitialMmapSize = 256 << 20
	}
	db, err := bbolt.Open(path, 0o600, bo)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, storeState{}, fmt.Errorf("%w: %s is locked (waited %v)", ErrInUse, path, o.lockTimeout)
	}
	if err != nil {
		return nil, storeState{}, classify("open database", err) // the cause names the file
	}
	if readOnly {
		// Under bbolt's shared lock, so no writer changes the file under
		// the walk, and before any read through bbolt's map (Open itself
		// reads only the meta pages, which checkFile has checked).
		if err := checkPages(path); err != nil {
			_ = db.Close()
			return nil, storeState{}, err
		}
	}
	var st storeState
	if err := db.View(func(tx *bbolt.Tx) (err error) {
		st, err = inspect(tx)
		return err
	}); err != nil {
		_ = db.Close()
		if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrSchemaTooNew) {
			return nil, storeState{}, fmt.Errorf("%w (%s)", err, path)
		}
		return nil, storeState{}, classify("inspect "+path, err)
	}
	return db, st, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Size returns the bytes of the database file in use: its high-water mark.
// The file itself can be longer, because bbolt grows it ahead of need.
func (s *Store) Size() (int64, error) {
	var n int64
	err := s.view("size", func(tx *bbolt.Tx) error {
		n = tx.Size()
		return nil
	})
	return n, err
}

// Close flushes queued ingest writes, stops background work and closes the
// file. Later calls return nil; other methods return ErrClosed.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	if s.queue != nil {
		close(s.queue)
	}
	s.closeMu.Unlock()
	if s.writerDone != nil {
		<-s.writerDone
	}
	close(s.stop)
	s.bg.Wait()
	s.search.close()
	return classify("close "+s.path, s.db.Close())
}

// txChanges records what a write transaction did to the set of items, in
// order, so the search index can follow after the commit.
type txChanges struct {
	ops []indexOp
	// bytes is what the transaction added to the stored items' size
	// (negative when it removed more), kept in Store.itemBytes.
	bytes int64
	// freedBlobs are blobs whose last reference the transaction removed,
	// with their records: their files go once it has committed (blobs.go).
	freedBlobs [][32]byte
}

// update runs fn in a write transaction and, once it has committed, applies
// its item changes to the search index.
func (s *Store) update(op string, fn func(tx *bbolt.Tx, ch *txChanges) error) error {
	if s.opts.readOnly {
		return fmt.Errorf("%w: %s: store opened read-only", ErrReadOnly, op)
	}
	freed, err := s.updateLocked(op, fn)
	if len(freed) > 0 {
		s.removeFreed(freed)
	}
	return err
}

// updateLocked is update under wmu; it returns the blobs the transaction
// freed, whose files update removes after wmu is released (blobMu is
// taken before wmu, never after).
func (s *Store) updateLocked(op string, fn func(tx *bbolt.Tx, ch *txChanges) error) ([][32]byte, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var ch txChanges
	err := s.db.Update(func(tx *bbolt.Tx) error {
		ch = txChanges{}
		return fn(tx, &ch)
	})
	if err != nil {
		return nil, s.classify(op, err)
	}
	if len(ch.ops) > 0 {
		s.search.apply(&ch)
	}
	if s.bytesKnown {
		s.itemBytes += ch.bytes
	}
	return ch.freedBlobs, nil
}

// view runs fn in a read transaction.
func (s *Store) view(op string, fn func(tx *bbolt.Tx) error) error {
	return s.classify(op, s.db.View(fn))
}

// classify is the package's classify, and names the file in an ErrCorrupt
// a decoder found in it.
func (s *Store) classify(op string, err error) error {
	err = classify(op, err)
	if errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w (%s)", err, s.path)
	}
	return err
}
