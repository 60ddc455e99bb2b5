package storage_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
)

// The re-exec pattern: a test starts this test binary again with
// -test.run=^TestHelperProcess$ and the environment variable below naming a
// role. Without the variable, TestHelperProcess does nothing.
const helperEnv = "NEWSDESK_STORAGE_HELPER"

func helperCommand(t *testing.T, role, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+role, "NEWSDESK_STORAGE_DIR="+dir)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnv)
	if role == "" {
		t.Skip("helper process for other tests")
	}
	dir := os.Getenv("NEWSDESK_STORAGE_DIR")
	switch role {
	case "open":
		// Try to open a directory the parent holds and report how it went.
		start := time.Now()
		s, err := storage.Open(dir)
		elapsed := time.Since(start)
		if err == nil {
			s.Close()
		}
		fmt.Printf("RESULT inuse=%v elapsed=%d err=%v\n", errors.Is(err, storage.ErrInUse), elapsed.Milliseconds(), err)
	case "crash-ingest":
		crashIngest(dir)
	case "crash-publish":
		crashPublish(dir)
	case "crash-blobs":
		crashBlobs(dir)
	case "damaged-start":
		from, _ := strconv.ParseUint(os.Getenv("NEWSDESK_DAMAGE_FROM"), 10, 64)
		to, _ := strconv.ParseUint(os.Getenv("NEWSDESK_DAMAGE_TO"), 10, 64)
		runDamaged(dir, from, to)
	default:
		fmt.Fprintf(os.Stderr, "unknown helper role %q\n", role)
		os.Exit(2)
	}
	os.Exit(0)
}

// crashIngest ingests an endless stream of items, printing "DONE <id>" for
// each one whose write the store reported durable, until it is killed (or
// after 60 s, as a safety net).
func crashIngest(dir string) {
	s, err := storage.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	src := uuid.New()
	type pending struct {
		id   uuid.UUID
		done <-chan error
	}
	queue := make(chan pending, 256)
	go func() {
		w := bufio.NewWriter(os.Stdout)
		for p := range queue {
			if err := <-p.done; err != nil {
				fmt.Fprintln(os.Stderr, "ingest:", err)
				os.Exit(1)
			}
			fmt.Fprintf(w, "DONE %s\n", p.id)
			// Flush whenever the writer would otherwise wait: what is
			// reported must be out before the next commit finishes.
			if len(queue) == 0 || w.Buffered() > 2048 {
				w.Flush()
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for n := uint64(1); time.Now().Before(deadline); n++ {
		it := itemgen.Item(rng, src, n, time.Now())
		// Some writes that change existing state (read flags, counters)
		// interleave with the ingest transactions.
		if n%50 == 0 {
			if _, err := s.MarkAllRead(""); err != nil {
				fmt.Fprintln(os.Stderr, "mark:", err)
				os.Exit(1)
			}
		}
		queue <- pending{id: it.ID, done: s.Ingest(it)}
	}
	close(queue)
	_ = s.Close()
}

// crashSource is the source crashPublish publishes as, in every round.
var crashSource = uuid.MustParse("00000000-0000-4000-8000-00000000c0de")

// crashPublish publishes batches of 1..20 own items, numbered on from the
// stored count, while items of another source are ingested alongside, and
// prints "DONE <count>" for the last count of each batch the store
// reported durable, until it is killed (or after 60 s).
func crashPublish(dir string) {
	s, err := storage.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	last, err := s.SourceCount(crashSource)
	if err != nil {
		fmt.Fprintln(os.Stderr, "count:", err)
		os.Exit(1)
	}
	other := uuid.New()
	otherRng := rand.New(rand.NewPCG(rng.Uint64(), 2)) // a rand.Rand is not safe for concurrent use
	go func() {
		rng := otherRng
		for n := uint64(1); ; n++ {
			if err := <-s.Ingest(itemgen.Item(rng, other, n, time.Now())); err != nil {
				return // closed
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var batch []*news.Item
		for range 1 + rng.IntN(20) {
			last++
			batch = append(batch, itemgen.Item(rng, crashSource, last, time.Now()))
		}
		seqs, err := s.PublishOwn(storage.OwnBatch{Source: crashSource, Items: batch, Sent: []uint64{uint64(rng.IntN(int(last)) + 1)}})
		if err != nil || len(seqs) != len(batch) {
			fmt.Fprintln(os.Stderr, "publish:", err)
			os.Exit(1)
		}
		fmt.Printf("DONE %d\n", last)
	}
	_ = s.Close()
}

// crashBlobs stores blobs of 1 byte to 600 KiB, every other one whole
// (PutBlob) and the others chunk by chunk, and prints "DONE <hash>" for
// each one stored, until it is killed (or after 60 s). The blobs are
// referenced by items, so the cache bound never evicts one.
func crashBlobs(dir string) {
	s, err := storage.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	src := uuid.New()
	fail := func(what string, err error) {
		fmt.Fprintln(os.Stderr, what+":", err)
		os.Exit(1)
	}
	deadline := time.Now().Add(60 * time.Second)
	for n := uint64(1); time.Now().Before(deadline); n++ {
		data := make([]byte, 1+rng.IntN(600<<10))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var a news.Attachment
		if n%2 == 0 {
			if a, err = s.PutBlob(bytes.NewReader(data), "b.bin", "application/octet-stream"); err != nil {
				fail("put blob", err)
			}
		} else {
			if a, err = news.NewAttachment(bytes.NewReader(data), "b.bin", "application/octet-stream"); err != nil {
				fail("attachment", err)
			}
			var hashes [][32]byte
			for off := 0; off < len(data); off += news.ChunkSize {
				hashes = append(hashes, sha256.Sum256(data[off:min(off+news.ChunkSize, len(data))]))
			}
			if err := s.BeginBlob(a, hashes); err != nil {
				fail("begin blob", err)
			}
			for _, i := range rng.Perm(len(hashes)) {
				if _, err := s.PutBlobChunk(a.Hash, i, data[i*news.ChunkSize:min((i+1)*news.ChunkSize, len(data))]); err != nil {
					fail("put chunk", err)
				}
			}
		}
		it, err := news.NewItem("company", "blob", news.AppendManifest("x", []news.Attachment{a}), "", src, time.Now())
		if err != nil {
			fail("item", err)
		}
		it.SourceCount = n
		if err := <-s.Ingest(it); err != nil {
			fail("ingest", err)
		}
		fmt.Printf("DONE %x\n", a.Hash)
	}
	_ = s.Close()
}
