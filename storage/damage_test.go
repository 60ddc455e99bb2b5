package storage_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/internal/itemgen"
)

// damageOwn is the installation's own source in the damaged-store tests.
var damageOwn = uuid.MustParse("00000000-0000-4000-8000-0000000000aa")

// damageOthers are the other sources whose items the store holds.
var damageOthers = []uuid.UUID{
	uuid.MustParse("00000000-0000-4000-8000-0000000000b1"),
	uuid.MustParse("00000000-0000-4000-8000-0000000000b2"),
	uuid.MustParse("00000000-0000-4000-8000-0000000000b3"),
}

// damageOwnItems is how many items damageOwn publishes in the fixture.
const damageOwnItems = 200

// writeDamageFixture makes a closed store in dir that holds something in
// every bucket: own publications (with own-last, outbox entries and the own
// count), items of other sources with their counts, read marks, retractions
// (one of an item not stored), settings, seeds, subscriptions and a lost
// total. The items and by-source buckets span several levels of pages.
func writeDamageFixture(t *testing.T, dir string) {
	t.Helper()
	s, err := storage.Open(dir, storage.NoSync())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	now := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	var published []*news.Item
	for n := uint64(1); n <= damageOwnItems; n += 10 {
		var batch []*news.Item
		for i := range uint64(10) {
			batch = append(batch, itemgen.Item(rng, damageOwn, n+i, now.Add(time.Duration(n+i)*time.Second)))
		}
		var sent []uint64
		if n > 50 {
			sent = []uint64{n - 50, n - 49, n - 48}
		}
		if _, err := s.PublishOwn(storage.OwnBatch{Source: damageOwn, Items: batch, Sent: sent}); err != nil {
			t.Fatal(err)
		}
		published = append(published, batch...)
	}
	var chans []<-chan error
	var ingested []*news.Item
	counts := map[uuid.UUID]uint64{}
	for i := range 600 {
		src := damageOthers[i%len(damageOthers)]
		counts[src]++
		it := itemgen.Item(rng, src, counts[src], now.Add(time.Duration(i)*time.Second))
		ingested = append(ingested, it)
		chans = append(chans, s.Ingest(it))
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-s.IngestSourceCounts(counts); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ingested); i += 3 {
		if _, err := s.MarkRead(ingested[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	retract := []uuid.UUID{uuid.MustParse("00000000-0000-7000-8000-00000000dead")}
	for i := 5; i < len(ingested); i += 40 {
		retract = append(retract, ingested[i].ID)
	}
	retract = append(retract, published[17].ID)
	for _, id := range retract {
		if _, err := s.Retract(storage.Retraction{ItemID: id, Reason: "withdrawn", At: now}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, s.SetSubscriptions([]string{"company", "it", "sales"}))
	must(t, s.SetSeeds([]string{"10.0.0.1:7000", "10.0.0.2:7000"}))
	must(t, s.SetSetting("listen", ":7000"))
	must(t, s.SetSetting("theme", "dark"))
	must(t, s.SetLostTotal(3))
	must(t, s.Close())
}

// boltHWM returns the page size and high-water mark (pages in use) of a
// bbolt file: the meta page with the higher transaction ID wins.
func boltHWM(b []byte) (pageSize, hwm uint64) {
	var txid uint64
	ne := binary.NativeEndian
	for _, off := range []int{0, int(ne.Uint32(b[16+8:]))} {
		m := b[off+16:]
		if id := ne.Uint64(m[48:]); id >= txid {
			txid, pageSize, hwm = id, uint64(ne.Uint32(m[8:])), ne.Uint64(m[40:])
		}
	}
	return pageSize, hwm
}

// damage returns a copy of a store file with bytes flipped inside its used
// pages (never the two meta pages, whose checksums bbolt checks anyway).
// Even seeds flip 1-4 bytes anywhere, as a disk or a careless tool would;
// odd seeds flip a byte of a page's header or its first elements, where
// the B+tree's structure lives (page IDs, counts, element offsets, key
// sizes and child page numbers).
func damage(base []byte, seed uint64) []byte {
	ps, hwm := boltHWM(base)
	b := bytes.Clone(base)
	rng := rand.New(rand.NewPCG(seed, 0xda))
	flip := func(off uint64) { b[off] ^= byte(1 + rng.IntN(255)) }
	if seed%2 == 0 {
		for range 1 + rng.IntN(4) {
			flip(2*ps + rng.Uint64N((hwm-2)*ps))
		}
		return b
	}
	page := 2 + rng.Uint64N(hwm-2)
	flip(page*ps + rng.Uint64N(64))
	return b
}

// startupReads opens a store the way the application does and makes every
// read its start-up makes: settings, seeds, subscriptions, counts, own-last,
// the outbox, the lost total, the publisher's history window through
// ItemsAfter (the servant's restoreOwnHistory), the first pages of the item
// list, and a search, which waits for the search index build over every
// item. It returns Open's error, or the errors of the reads.
func startupReads(dir string) (openErr error, readErrs []error) {
	s, err := storage.Open(dir, storage.WithPinned("newsdesk"), storage.WithCommitInterval(50*time.Millisecond))
	if err != nil {
		return err, nil
	}
	note := func(err error) {
		if err != nil {
			readErrs = append(readErrs, err)
		}
	}
	_, err = s.Settings()
	note(err)
	_, _, err = s.Setting("listen")
	note(err)
	_, err = s.Seeds()
	note(err)
	_, err = s.Subscriptions()
	note(err)
	own, err := s.SourceCount(damageOwn)
	note(err)
	_, _, err = s.OwnLast()
	note(err)
	_, err = s.SourceCounts()
	note(err)
	_, err = s.Outbox()
	note(err)
	_, err = s.LostTotal()
	note(err)
	_, err = s.Retention()
	note(err)
	for k := max(own, 64) - 63; k <= own; k++ {
		_, err = s.ItemsAfter(damageOwn, k-1, 1)
		note(err)
	}
	_, err = s.HighestStoredCount(damageOwn)
	note(err)
	_, err = s.ItemsAfter(damageOthers[0], 0, 0)
	note(err)
	_, err = s.UnreadCounts()
	note(err)
	_, err = s.ItemCounts()
	note(err)
	_, _, err = s.Newest(nil, 50, "")
	note(err)
	_, _, err = s.Newest([]string{"sales", "newsdesk"}, 50, "")
	note(err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	_, _, err = s.Search(ctx, "ka", nil, 20, "")
	cancel()
	note(err)
	note(s.Close())
	return nil, readErrs
}

// runDamaged is the helper process's side of TestDamagedStore: it runs the
// cases [from, to) and reports each on stdout. A line "BEGIN i" without its
// "END i" means case i killed the process.
func runDamaged(work string, from, to uint64) {
	base, err := os.ReadFile(filepath.Join(work, "base", storage.FileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "read fixture:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := from; i < to; i++ {
		fmt.Fprintf(w, "BEGIN %d\n", i)
		w.Flush()
		dir := filepath.Join(work, fmt.Sprintf("case%d", i))
		bad := damage(base, i)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		path := filepath.Join(dir, storage.FileName)
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		openErr, readErrs := startupReads(dir)
		after, _ := os.ReadFile(path)
		switch {
		case openErr != nil && !errors.Is(openErr, storage.ErrCorrupt):
			fmt.Fprintf(w, "END %d BAD open failed without ErrCorrupt: %v\n", i, openErr)
		case openErr != nil && !bytes.Equal(after, bad):
			fmt.Fprintf(w, "END %d BAD the failed open changed the file\n", i)
		case openErr != nil && !strings.Contains(openErr.Error(), path):
			fmt.Fprintf(w, "END %d BAD the error does not name the file: %v\n", i, openErr)
		case openErr != nil:
			fmt.Fprintf(w, "END %d refused %v\n", i, openErr)
		default:
			var other []error
			for _, err := range readErrs {
				if !errors.Is(err, storage.ErrCorrupt) {
					other = append(other, err)
				}
			}
			switch {
			case len(other) > 0:
				fmt.Fprintf(w, "END %d BAD a read failed without ErrCorrupt: %v\n", i, errors.Join(other...))
			case len(readErrs) > 0:
				fmt.Fprintf(w, "END %d reads %v\n", i, readErrs[0])
			default:
				fmt.Fprintf(w, "END %d clean\n", i)
			}
		}
		w.Flush()
		_ = os.RemoveAll(dir)
	}
}

// TestDamagedStore: bytes flipped inside the used pages of a store never
// crash the process that opens it and makes the application's start-up
// reads (issue 11: a slice bounds panic in ItemsAfter under the servant's
// restoreOwnHistory, and a SIGSEGV in the search index build). Open refuses
// a store whose pages do not form a sound B+tree with ErrCorrupt naming the
// file, and leaves the file as it was; damage that leaves the structure
// sound (a flipped letter in an item's text, say) either goes unnoticed or
// fails the read that meets it with ErrCorrupt. The damaged stores are
// opened in a child process, so that a crash is reported as the case that
// caused it, and the remaining cases still run. NEWSDESK_DAMAGE_VERBOSE=1
// logs every case's outcome. (Before the fix about one case in seven
// crashed, both ways the issue reports among them.)
func TestDamagedStore(t *testing.T) {
	cases := uint64(160)
	if testing.Short() {
		cases = 40
	}
	work := t.TempDir()
	writeDamageFixture(t, filepath.Join(work, "base"))

	outcomes := map[string]int{}
	var crashed []string
	for from := uint64(0); from < cases; {
		cmd := helperCommand(t, "damaged-start", work)
		cmd.Env = append(cmd.Env, "NEWSDESK_DAMAGE_FROM="+strconv.FormatUint(from, 10), "NEWSDESK_DAMAGE_TO="+strconv.FormatUint(cases, 10))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		begun, ended := int64(-1), int64(-1)
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || f[0] != "END" {
				if len(f) == 2 && f[0] == "BEGIN" {
					begun, _ = strconv.ParseInt(f[1], 10, 64)
				}
				continue
			}
			ended, _ = strconv.ParseInt(f[1], 10, 64)
			if os.Getenv("NEWSDESK_DAMAGE_VERBOSE") != "" {
				t.Log(line)
			}
			outcomes[f[2]]++
			if f[2] == "BAD" {
				t.Errorf("case %s: %s", f[1], strings.Join(f[3:], " "))
			}
		}
		if err == nil {
			break
		}
		if begun < 0 || begun == ended {
			t.Fatalf("helper failed outside a case: %v\n%s", err, stderr.String())
		}
		crash := stderr.String()
		if i := strings.Index(crash, "\ngoroutine "); i >= 0 {
			if j := strings.Index(crash[i+1:], "\n\n"); j >= 0 {
				crash = crash[:i+1+j] // the panic and the crashing goroutine's stack
			}
		}
		crashed = append(crashed, fmt.Sprintf("case %d (seed %d) crashed the process: %v\n%s", begun, begun, err, crash))
		outcomes["crashed"]++
		from = uint64(begun) + 1
	}
	t.Logf("%d damaged stores: %v", cases, outcomes)
	for _, c := range crashed {
		t.Error(c)
	}
}
