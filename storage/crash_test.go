package storage_test

import (
	"bufio"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

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
