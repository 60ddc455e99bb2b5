package storage_test

import (
	"bufio"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage/storagetest"
)

// TestCrashSafety: a child process ingests a stream of items and prints each
// ID once Ingest reports it durable; the parent kills it with SIGKILL at a
// random moment. After every kill, the reopened store must pass the
// integrity check (bbolt pages, indexes, counters) and hold every item that
// was reported done. The store accumulates over the rounds, so later rounds
// also crash a store that has been crashed before.
func TestCrashSafety(t *testing.T) {
	rounds := 5
	if testing.Short() {
		rounds = 2
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	var reported []uuid.UUID
	for round := range rounds {
		cmd := helperCommand(t, "crash-ingest", dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill at a random moment once the child is under way: some items
		// reported, some in flight.
		delay := time.Duration(50+rng.IntN(400)) * time.Millisecond
		var killTimer <-chan time.Time
		var got int
		for line := range lines {
			if !strings.HasPrefix(line, "DONE ") {
				continue
			}
			id, err := uuid.Parse(strings.TrimPrefix(line, "DONE "))
			if err != nil {
				t.Fatalf("child printed %q", line)
			}
			reported = append(reported, id)
			got++
			if killTimer == nil {
				killTimer = time.After(delay)
			}
			select {
			case <-killTimer:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killTimer = make(chan time.Time) // never again
			default:
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, not by SIGKILL", round, err)
		}
		// Reopen: integrity check on cleanup, and every reported item there.
		s := storagetest.MustOpenDir(t, dir)
		for _, id := range reported {
			if ok, err := s.Has(id); err != nil || !ok {
				t.Fatalf("round %d: item %s was reported stored but is missing (%v)", round, id, err)
			}
		}
		if err := s.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		storagetest.CheckAndClose(t, s, dir)
		t.Logf("round %d: killed after %v, %d items reported this round, %d in total, all present", round, delay, got, len(reported))
	}
}

// TestCrashPublish: a child process publishes batches of its own items
// (PublishOwn) next to a stream of received ones and is killed at a random
// moment. After every kill the store passes its integrity check, and the
// own counts are whole: the stored count is the highest count of a stored
// item, every count up to it has its item (no count without its item, none
// to be reused), and every batch reported done is there.
func TestCrashPublish(t *testing.T) {
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var reported uint64
	for round := range rounds {
		cmd := helperCommand(t, "crash-publish", dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		delay := time.Duration(50+rng.IntN(300)) * time.Millisecond
		var killTimer <-chan time.Time
		for sc.Scan() {
			n, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "DONE "), 10, 64)
			if err != nil {
				t.Fatalf("child printed %q", sc.Text())
			}
			reported = max(reported, n)
			if killTimer == nil {
				killTimer = time.After(delay)
			}
			select {
			case <-killTimer:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killTimer = make(chan time.Time)
			default:
			}
		}
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child ended with %v, not killed", round, cmd.ProcessState)
		}
		s := storagetest.MustOpenDir(t, dir)
		count, err := s.SourceCount(crashSource)
		if err != nil {
			t.Fatal(err)
		}
		items, err := s.ItemsAfter(crashSource, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if count < reported || uint64(len(items)) != count {
			t.Fatalf("round %d: stored count %d, %d items stored, %d reported", round, count, len(items), reported)
		}
		for i, it := range items {
			if it.SourceCount != uint64(i+1) {
				t.Fatalf("round %d: item %d has count %d", round, i, it.SourceCount)
			}
		}
		storagetest.CheckAndClose(t, s, dir)
		t.Logf("round %d: killed after %v, count %d, %d reported", round, delay, count, reported)
	}
}

// TestCrashBlobs: a child process stores blobs, whole (PutBlob) and chunk
// by chunk (BeginBlob, PutBlobChunk), printing each one's hash once it is
// stored, and is killed with SIGKILL at a random moment, often in the
// middle of writing one. After every kill the store opens and passes its
// check; every blob reported is there whole and matches its hash; no
// partial blob is visible (every file under blobs/<2 hex>/ is a whole blob
// that matches its name, and blobs/tmp is empty).
func TestCrashBlobs(t *testing.T) {
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	var reported [][32]byte
	for round := range rounds {
		cmd := helperCommand(t, "crash-blobs", dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		delay := time.Duration(50+rng.IntN(300)) * time.Millisecond
		var killTimer <-chan time.Time
		for sc.Scan() {
			h, err := news.ParseHash(strings.TrimPrefix(sc.Text(), "DONE "))
			if err != nil {
				t.Fatalf("child printed %q", sc.Text())
			}
			reported = append(reported, h)
			if killTimer == nil {
				killTimer = time.After(delay)
			}
			select {
			case <-killTimer:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killTimer = make(chan time.Time)
			default:
			}
		}
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child ended with %v, not killed", round, cmd.ProcessState)
		}
		s := storagetest.MustOpenDir(t, dir)
		for _, h := range reported {
			if !s.HasBlob(h) {
				t.Fatalf("round %d: blob %x was reported stored but is missing", round, h)
			}
		}
		if tmp, _ := os.ReadDir(filepath.Join(dir, "blobs", "tmp")); len(tmp) != 0 {
			t.Fatalf("round %d: blobs/tmp holds %d files after Open", round, len(tmp))
		}
		whole := 0
		for _, rel := range blobFiles(t, dir) {
			if strings.HasPrefix(rel, "partial"+string(filepath.Separator)) {
				continue
			}
			h, err := news.ParseHash(filepath.Base(rel))
			if err != nil || !s.HasBlob(h) {
				t.Fatalf("round %d: file %s is not a whole blob (%v)", round, rel, err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "blobs", rel))
			if err != nil || sha256.Sum256(data) != h {
				t.Fatalf("round %d: blob %s does not match its hash (%v)", round, rel, err)
			}
			whole++
		}
		storagetest.CheckAndClose(t, s, dir)
		t.Logf("round %d: killed after %v, %d blobs reported, %d whole files", round, delay, len(reported), whole)
	}
}
