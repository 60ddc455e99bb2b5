package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
	"newsdesk/storage/storagetest"
)

// TestSecondInstanceInUse: while this process holds the store, another
// process opening it fails with ErrInUse within a second. bbolt's lock is an
// flock on the file, so the second instance must be a real process.
func TestSecondInstanceInUse(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	_ = s
	cmd := helperCommand(t, "open", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var inuse bool
	var ms int
	line := strings.TrimSpace(string(out))
	if i := strings.Index(line, "RESULT "); i >= 0 {
		line = line[i:]
	}
	if _, err := fmt.Sscanf(line, "RESULT inuse=%t elapsed=%d", &inuse, &ms); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	if !inuse {
		t.Fatalf("second instance did not get ErrInUse: %s", line)
	}
	if ms >= 1000 {
		t.Fatalf("second instance took %d ms to fail", ms)
	}
	if !strings.Contains(line, "data directory in use") {
		t.Errorf("unclear message: %s", line)
	}
	t.Logf("second instance: %s", line)
}

// TestSecondOpenInProcess: a second Open in the same process fails the same
// way (Linux flock locks belong to the open file, so they conflict within a
// process too).
func TestSecondOpenInProcess(t *testing.T) {
	dir := t.TempDir()
	storagetest.MustOpenDir(t, dir)
	start := time.Now()
	_, err := storage.Open(dir, storage.WithLockTimeout(100*time.Millisecond))
	if !errors.Is(err, storage.ErrInUse) {
		t.Fatalf("second Open: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// fillStore makes a closed store with n items and returns its file's bytes.
func fillStore(t *testing.T, dir string, n int) []byte {
	t.Helper()
	s, err := storage.Open(dir, storage.NoSync())
	if err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(1, 1))
	src := uuid.New()
	var chans []<-chan error
	for i := range n {
		chans = append(chans, s.Ingest(itemgen.Item(rng, src, uint64(i+1), time.Now())))
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, storage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expectCorrupt writes content as a store file, opens it, and requires
// ErrCorrupt with the file left byte for byte as it was.
func expectCorrupt(t *testing.T, name string, content []byte) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, storage.FileName)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	s, err := storage.Open(dir)
	if err == nil {
		s.Close()
		t.Fatalf("%s: Open succeeded", name)
	}
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("%s: Open = %v, want ErrCorrupt", name, err)
	}
	after, err2 := os.ReadFile(path)
	if err2 != nil || !bytes.Equal(after, content) {
		t.Fatalf("%s: file changed by the failed Open", name)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(before.ModTime()) {
		t.Errorf("%s: modification time changed", name)
	}
	t.Logf("%s: %v", name, err)
}

// TestTruncatedFile: a store file cut short at various points is refused as
// corrupt and left alone (without the pre-check, bbolt would map it and die
// of SIGBUS on the first page past the end).
func TestTruncatedFile(t *testing.T) {
	good := fillStore(t, t.TempDir(), 300)
	for _, n := range []int{10, 100, 4096, 3 * 4096, 4*4096 + 1, len(good) / 2, len(good) - len(good)/8} {
		expectCorrupt(t, fmt.Sprintf("truncated to %d of %d bytes", n, len(good)), good[:n])
	}
}

// TestForeignFile: files that are not Newsdesk stores are refused and left
// alone.
func TestForeignFile(t *testing.T) {
	random := make([]byte, 64<<10)
	rand.Read(random)
	expectCorrupt(t, "random bytes", random)
	expectCorrupt(t, "text file", []byte(strings.Repeat("this is not a database\n", 1000)))
	expectCorrupt(t, "tiny file", []byte("x"))

	// A valid bbolt file of another program.
	dir := t.TempDir()
	path := filepath.Join(dir, "other.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket([]byte("widgets"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	other, _ := os.ReadFile(path)
	expectCorrupt(t, "another program's bbolt file", other)

	// A Newsdesk store whose magic value was overwritten.
	good := fillStore(t, t.TempDir(), 5)
	dir = t.TempDir()
	path = filepath.Join(dir, storage.FileName)
	os.WriteFile(path, good, 0o600)
	db, _ = bbolt.Open(path, 0o600, nil)
	db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(storage.BucketMeta).Put([]byte("magic"), []byte("something-else"))
	})
	db.Close()
	bad, _ := os.ReadFile(path)
	expectCorrupt(t, "wrong magic", bad)

	// A damaged meta page (both copies): bbolt's own checks catch it.
	dam := bytes.Clone(good)
	for _, off := range []int{16, 4096 + 16} {
		dam[off] ^= 0xff
	}
	expectCorrupt(t, "both meta pages damaged", dam)
}

// TestEmptyFileIsNew: a zero-length file holds nothing to protect and
// becomes a new, empty, working store at the current schema. (Whether an
// installation may start on one is the app's decision: it refuses when the
// installation has run before.)
func TestEmptyFileIsNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, storage.FileName)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := storagetest.MustOpenDir(t, dir)
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("the empty file was not made a store: %v, %v", fi, err)
	}
	if es, _, err := s.Newest(nil, 10, ""); err != nil || len(es) != 0 {
		t.Fatalf("a new store lists %d items, %v", len(es), err)
	}
	it := itemgen.Item(mrand.New(mrand.NewPCG(1, 1)), uuid.New(), 1, time.Now())
	if err := s.Put(context.Background(), it); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Get(it.ID); err != nil || e.Item.Body != it.Body {
		t.Fatalf("the new store does not keep an item: %v", err)
	}
}

func TestSchemaTooNew(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, 3)
	path := filepath.Join(dir, storage.FileName)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(storage.BucketMeta).Put(storage.KeySchema, []byte{0, 0, 0, byte(storage.SchemaVersion() + 1)})
	})
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = storage.Open(dir)
	if !errors.Is(err, storage.ErrSchemaTooNew) || !strings.Contains(err.Error(), "newer version") {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("file changed")
	}
}

// TestMigrationHook: a store of the current schema opened by code with one
// more migration runs it once, records the next schema, and keeps its data.
func TestMigrationHook(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, 10)
	dir2 := t.TempDir()
	fillStore(t, dir2, 1)
	runs := 0
	cur := storage.SchemaVersion()
	restore := storage.SetMigrations(append(storage.Migrations(),
		func(tx *bbolt.Tx) error {
			runs++
			_, err := tx.CreateBucket([]byte("added-later"))
			return err
		},
	))
	defer restore()
	if storage.SchemaVersion() != cur+1 {
		t.Fatalf("SchemaVersion = %d", storage.SchemaVersion())
	}
	for range 2 {
		s, err := storage.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := s.Newest(nil, 100, "")
		if err != nil || len(got) != 10 {
			t.Fatalf("after migration: %d items, %v", len(got), err)
		}
		storagetest.CheckAndClose(t, s, dir)
	}
	if runs != 1 {
		t.Errorf("migration ran %d times", runs)
	}
	// A failing migration leaves the file at the old schema.
	restore()
	restore2 := storage.SetMigrations(append(storage.Migrations(), func(*bbolt.Tx) error { return errors.New("boom") }))
	defer restore2()
	if _, err := storage.Open(dir2); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("migrate schema %d to %d: boom", cur, cur+1)) {
		t.Fatalf("failing migration: %v", err)
	}
	restore2()
	restore()
	s := storagetest.MustOpenDir(t, dir2)
	if got, _, _ := s.Newest(nil, 10, ""); len(got) != 1 {
		t.Errorf("store damaged by a failed migration")
	}
}

// TestNotADirectory: a data directory path that is a file (or under one)
// gives a clear error and leaves the file alone. This and the mount tests
// below cover "the directory cannot be used"; plain permission bits are
// tested only when not running as root, since root ignores them.
func TestNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("keep me"), 0o600)
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		_, err := storage.Open(dir)
		if err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("Open(%s) = %v", dir, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Errorf("file changed")
	}
}

func TestReadOnlyPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permission bits; TestReadOnlyFileSystem covers a read-only directory")
	}
	dir := t.TempDir()
	fillStore(t, dir, 3)
	os.Chmod(filepath.Join(dir, storage.FileName), 0o400)
	os.Chmod(dir, 0o500)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if _, err := storage.Open(dir); !errors.Is(err, storage.ErrReadOnly) {
		t.Fatalf("Open = %v, want ErrReadOnly", err)
	}
	s, err := storage.Open(dir, storage.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _, _ := s.Newest(nil, 10, ""); len(got) != 3 {
		t.Errorf("read-only open sees %d items", len(got))
	}
}

// mountTmpfs mounts a tmpfs on dir (root only) and unmounts it on cleanup;
// it skips the test where that is not possible.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

func remount(t *testing.T, dir, opts string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s: %v %s", opts, err, out)
	}
}

// TestReadOnlyFileSystem: on a read-only mount, Open fails with ErrReadOnly
// (for a new store and for an existing one), and the ReadOnly option reads an
// existing store; writes through it fail with ErrReadOnly.
func TestReadOnlyFileSystem(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=16m")
	fillStore(t, dir, 20)
	remount(t, dir, "ro")
	t.Cleanup(func() { remount(t, dir, "rw") })

	_, err := storage.Open(dir)
	if !errors.Is(err, storage.ErrReadOnly) || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("Open on a read-only fs = %v", err)
	}
	t.Logf("existing store: %v", err)
	s, err := storage.Open(dir, storage.ReadOnly(), storage.WithIntegrityCheck())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, _, err := s.Newest(nil, 100, "")
	if err != nil || len(got) != 20 {
		t.Fatalf("read-only store: %d items, %v", len(got), err)
	}
	if err := s.Put(context.Background(), got[0].Item); !errors.Is(err, storage.ErrReadOnly) {
		t.Errorf("Put on a read-only store = %v", err)
	}
	if _, err := s.MarkRead(got[0].Item.ID); !errors.Is(err, storage.ErrReadOnly) {
		t.Errorf("MarkRead on a read-only store = %v", err)
	}
	if res, _, err := s.Search(context.Background(), strings.Fields(got[0].Item.Title)[0], nil, 10, ""); err != nil || len(res) == 0 {
		t.Errorf("search on a read-only store: %d, %v", len(res), err)
	}

	// A new store on a read-only file system.
	empty := t.TempDir()
	mountTmpfs(t, empty, "size=1m,ro")
	if _, err := storage.Open(empty); !errors.Is(err, storage.ErrReadOnly) {
		t.Fatalf("Open of a new store on a read-only fs = %v", err)
	} else {
		t.Logf("new store: %v", err)
	}
}

// TestDiskFull fills a small tmpfs until a write fails: the error is
// ErrDiskFull naming the cause, and everything reported stored before is
// readable, in the same session and after reopening on the still-full disk.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=1m")
	s, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(3, 3))
	src := uuid.New()
	var stored []*news.Item
	var fullErr error
	// Single Puts first, then a burst through Ingest, which also exercises
	// the writer's per-item retry after a failed group commit.
	for n := uint64(1); n < 5000 && fullErr == nil; n++ {
		it := itemgen.Item(rng, src, n, time.Now())
		if err := s.Put(context.Background(), it); err != nil {
			fullErr = err
			break
		}
		stored = append(stored, it)
	}
	if fullErr == nil {
		t.Fatal("1 MB tmpfs never filled up")
	}
	if !errors.Is(fullErr, storage.ErrDiskFull) || !errors.Is(fullErr, syscall.ENOSPC) || !strings.Contains(fullErr.Error(), "disk full") {
		t.Fatalf("write error = %v, want ErrDiskFull wrapping ENOSPC", fullErr)
	}
	t.Logf("after %d items: %v", len(stored), fullErr)
	var chans []<-chan error
	var burst []*news.Item
	for i := range 50 {
		it := itemgen.Item(rng, src, uint64(10000+i), time.Now())
		it.Body = it.Body[:100] // small ones: some may still fit
		burst = append(burst, it)
		chans = append(chans, s.Ingest(it))
	}
	for i, ch := range chans {
		if err := <-ch; err == nil {
			stored = append(stored, burst[i])
		} else if !errors.Is(err, storage.ErrDiskFull) {
			t.Fatalf("burst item %d: %v", i, err)
		}
	}
	checkStored := func(s *storage.Store, when string) {
		t.Helper()
		for _, it := range stored {
			e, err := s.Get(it.ID)
			if err != nil || e.Item.Body != it.Body {
				t.Fatalf("%s: item %s: %v", when, it.ID, err)
			}
		}
		if err := s.Check(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
	checkStored(s, "same session")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storagetest.MustOpenDir(t, dir) // on the still-full disk: Open must not need to write
	<-s.SearchReady()
	checkStored(s, "after reopen")
}

// TestClosedStore: everything fails cleanly after Close, and Close flushes
// queued ingests first.
func TestClosedStore(t *testing.T) {
	dir := t.TempDir()
	s, err := storage.Open(dir, storage.NoSync())
	if err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(5, 5))
	var chans []<-chan error
	for i := range 500 {
		chans = append(chans, s.Ingest(itemgen.Item(rng, testSources[0], uint64(i+1), time.Now())))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			t.Fatalf("queued ingest after Close: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := <-s.Ingest(itemgen.Item(rng, testSources[0], 999, time.Now())); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Ingest after Close = %v", err)
	}
	if _, _, err := s.Newest(nil, 1, ""); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Newest after Close = %v", err)
	}
	if _, _, err := s.Search(context.Background(), "ka", nil, 1, ""); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Search after Close = %v", err)
	}
	s2 := storagetest.MustOpenDir(t, dir)
	if got, _, _ := s2.Newest(nil, 1000, ""); len(got) != 500 {
		t.Errorf("after reopen: %d items, want 500", len(got))
	}
}
