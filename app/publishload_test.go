package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/cli"
	"newsdesk/storage"
)

// publishLoad is the run of issue 10, part 4: servants `newsdesk serve`
// servants in one network, every one subscribed to "it"; clients parallel
// HTTP clients post items items of about 1 KiB to one servant's
// /v1/publish. It reports the accepted items per second, and checks that
// every answer was a success and that every item is stored on every other
// servant, once, with the counts the publisher gave it.
type publishLoad struct {
	servants, clients, items int

	// processes runs every servant in a process of its own (this test
	// binary again, see TestServeProcess), as the run did;
	// otherwise they share this one.
	processes bool
	// serial makes the publisher publish the way it did before the
	// pipeline (app.UseSerialPublishing).
	serial bool

	// othersDir, when set, holds the data directories of every servant
	// but the publisher, and othersNice runs their processes at that
	// nice level: standing in for computers of their own, so that the
	// publisher's disk and processors are its own (PUBOTHERSDIR=/dev/shm,
	// PUBOTHERSNICE=19 in BenchmarkServePublish).
	othersDir  string
	othersNice int
}

// start starts one servant of the load; publisher is the one the clients
// post to.
func (l publishLoad) start(tb testing.TB, publisher bool, args ...string) *apptest.Servant {
	tb.Helper()
	if l.processes {
		p := serveProcess{serial: l.serial, publisher: publisher}
		if !publisher {
			p.dataRoot, p.nice = l.othersDir, l.othersNice
		}
		return p.start(tb, args...)
	}
	return apptest.StartServe(tb, serveInProcess, args...)
}

// serveInProcess is cli.ServeWithReady as apptest.ServeFunc.
func serveInProcess(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(apptest.Ready)) error {
	return cli.ServeWithReady(ctx, args, stdout, stderr, func(r cli.Ready) { ready(apptest.Ready{ID: r.ID, Control: r.Control}) })
}

// run starts the network, posts the items, waits for them everywhere,
// stops every servant and checks their stores. It returns the accepted
// items per second (items / the time from the first post to the last
// answer).
func (l publishLoad) run(tb testing.TB) float64 {
	tb.Helper()
	if l.serial && !l.processes {
		defer app.UseSerialPublishing()()
		defer app.CommitAtOnce()()
	}
	seed := l.start(tb, false, "--subscribe", "it")
	all := []*apptest.Servant{seed}
	for i := range l.servants - 1 {
		all = append(all, l.start(tb, i == l.servants-2, "--seeds", seed.ID, "--subscribe", "it"))
	}
	pub := all[len(all)-1] // a servant that joined last: not the vertex
	others := all[:len(all)-1]

	// A first item proves the routing: once every other servant has
	// delivered it, the tree knows every subscription.
	waitDelivered(tb, all, 0, time.Minute)
	postItem(tb, http.DefaultClient, pub, "warm-up")
	waitDelivered(tb, others, 1, time.Minute)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: l.clients}}
	body := strings.Repeat("newsdesk ", 1024/9)
	var (
		next     atomic.Int64
		mu       sync.Mutex
		accepted = make(map[uuid.UUID]bool, l.items)
		failures []string
		wg       sync.WaitGroup
	)
	start := time.Now()
	for c := range l.clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(l.items) {
					return
				}
				r, err := tryPost(client, pub, fmt.Sprintf("item %d from client %d", i, c), body)
				mu.Lock()
				switch id, perr := uuid.Parse(r.ID); {
				case err != nil:
					failures = append(failures, err.Error())
				case perr != nil:
					failures = append(failures, "answer without an item ID")
				default:
					accepted[id] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(failures) > 0 {
		tb.Fatalf("%d of %d posts failed, first: %s", len(failures), l.items, failures[0])
	}
	if len(accepted) != l.items {
		tb.Fatalf("%d distinct IDs accepted for %d posts", len(accepted), l.items)
	}
	rate := float64(l.items) / elapsed.Seconds()

	waitDelivered(tb, others, 1+l.items, 3*time.Minute)
	st, _ := pub.Status(tb)
	source, err := uuid.Parse(st.Source)
	if err != nil {
		tb.Fatalf("publisher's source %q: %v", st.Source, err)
	}
	for _, s := range all {
		s.Stop()
	}
	checkPublisherStore(tb, pub, source, accepted)
	for _, s := range others {
		checkReceived(tb, s, source, accepted)
	}
	return rate
}

// tryPost posts one item and decodes the answer; any status but 200 is an
// error.
func tryPost(c *http.Client, s *apptest.Servant, title, body string) (apptest.PublishResult, error) {
	j, _ := json.Marshal(map[string]string{"category": "it", "title": title, "body": body})
	resp, err := c.Post("http://"+s.Control+"/v1/publish", "application/json", bytes.NewReader(j))
	if err != nil {
		return apptest.PublishResult{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return apptest.PublishResult{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return apptest.PublishResult{}, fmt.Errorf("publish: %d %s", resp.StatusCode, out)
	}
	var r apptest.PublishResult
	if err := json.Unmarshal(out, &r); err != nil {
		return apptest.PublishResult{}, fmt.Errorf("publish: %v in %s", err, out)
	}
	return r, nil
}

func postItem(tb testing.TB, c *http.Client, s *apptest.Servant, title string) apptest.PublishResult {
	tb.Helper()
	r, err := tryPost(c, s, title, "")
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// delivered returns the servant's counters.delivered.
func delivered(tb testing.TB, s *apptest.Servant) uint64 {
	tb.Helper()
	_, body := s.Status(tb)
	var st struct {
		Counters struct {
			Delivered uint64 `json:"delivered"`
		} `json:"counters"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		tb.Fatalf("status: %v", err)
	}
	return st.Counters.Delivered
}

// waitDelivered waits until every servant has delivered at least n items
// (n == 0: until every one is attached or the vertex).
func waitDelivered(tb testing.TB, all []*apptest.Servant, n int, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for {
		behind := 0
		var example string
		for _, s := range all {
			if n == 0 {
				st, _ := s.Status(tb)
				if st.Up == "" && !st.Root {
					behind++
					example = s.ID + " is not attached"
				}
				continue
			}
			if d := delivered(tb, s); d < uint64(n) {
				behind++
				example = fmt.Sprintf("%s delivered %d", s.ID, d)
			}
		}
		if behind == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("after %v, %d servants have not delivered %d items (%s)", limit, behind, n, example)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openStopped opens a stopped servant's store read-only.
func openStopped(tb testing.TB, s *apptest.Servant) *storage.Store {
	tb.Helper()
	st, err := storage.Open(s.Data, storage.ReadOnly())
	if err != nil {
		tb.Fatalf("opening %s's store: %v", s.ID, err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// checkPublisherStore checks that the publisher stored every accepted item
// with consecutive counts 2.. (1 was the warm-up), read, and that nothing
// is left in its outbox.
func checkPublisherStore(tb testing.TB, pub *apptest.Servant, id uuid.UUID, accepted map[uuid.UUID]bool) {
	tb.Helper()
	st := openStopped(tb, pub)
	items, err := st.ItemsAfter(id, 1, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if len(items) != len(accepted) {
		tb.Fatalf("publisher stored %d items after the warm-up, %d accepted", len(items), len(accepted))
	}
	for i, it := range items {
		if want := uint64(i + 2); it.SourceCount != want {
			tb.Fatalf("publisher's item %d has count %d, want %d", i, it.SourceCount, want)
		}
		if !accepted[it.ID] {
			tb.Fatalf("publisher stored %s, which no answer named", it.ID)
		}
	}
	if n, err := st.SourceCount(id); err != nil || n != uint64(len(accepted)+1) {
		tb.Fatalf("publisher's own count %d, %v; want %d", n, err, len(accepted)+1)
	}
	if ob, err := st.Outbox(); err != nil || len(ob) != 0 {
		tb.Fatalf("publisher's outbox holds %d entries, %v", len(ob), err)
	}
}

// checkReceived checks that s stored every accepted item of source, each
// once, in count order.
func checkReceived(tb testing.TB, s *apptest.Servant, source uuid.UUID, accepted map[uuid.UUID]bool) {
	tb.Helper()
	st := openStopped(tb, s)
	items, err := st.ItemsAfter(source, 1, 0)
	if err != nil {
		tb.Fatal(err)
	}
	seen := make(map[uuid.UUID]bool, len(items))
	for _, it := range items {
		if !accepted[it.ID] || seen[it.ID] {
			tb.Fatalf("%s stored %s (count %d), not accepted or twice", s.ID, it.ID, it.SourceCount)
		}
		seen[it.ID] = true
	}
	if len(seen) != len(accepted) {
		tb.Fatalf("%s stored %d of the %d accepted items", s.ID, len(seen), len(accepted))
	}
}

// Eight clients posting at once to one servant's /v1/publish: every post
// is answered with a stored, numbered item (consecutive counts, nothing
// left in the outbox at the end), and every item reaches every other
// servant once.
func TestServePublishLoad(t *testing.T) {
	items := 400
	if testing.Short() {
		items = 100
	}
	rate := publishLoad{servants: 4, clients: 8, items: items}.run(t)
	t.Logf("%.0f items/s accepted", rate)
}

// BenchmarkServePublish is issue 10's measurement: 30 `newsdesk serve`
// servants, each a process of its own, 8 parallel clients, 3,000 items to
// one servant's /v1/publish. Run it once:
//
//	go test -tags migrated_fynedo -run '^$' -bench ServePublish -benchtime 1x ./app/
//
// "serial" is the servants as they were before the publishing pipeline
// (app.UseSerialPublishing; delivered items committed at once), "pipeline" as they
// are now; each runs on a fresh network. PUBSERVANTS=n changes the number
// of servants, PUBINPROCESS=1 runs them all in this process, and
// PUBOTHERSDIR and PUBOTHERSNICE give every servant but the publisher
// another disk and a lower CPU priority (see publishLoad).
func BenchmarkServePublish(b *testing.B) {
	load := publishLoad{servants: 30, clients: 8, items: 3000, processes: true}
	if v, _ := strconv.Atoi(os.Getenv("PUBSERVANTS")); v > 0 {
		load.servants = v
	}
	if os.Getenv("PUBINPROCESS") != "" {
		load.processes = false
	}
	load.othersDir = os.Getenv("PUBOTHERSDIR")
	load.othersNice, _ = strconv.Atoi(os.Getenv("PUBOTHERSNICE"))
	for _, serial := range []bool{true, false} {
		name := "pipeline"
		if serial {
			name = "serial"
		}
		b.Run(name, func(b *testing.B) {
			load.serial = serial
			for range b.N {
				rate := load.run(b)
				b.ReportMetric(rate, "items/s")
			}
		})
	}
}

// serveProcessEnv names the environment variables of TestServeProcess.
const (
	serveProcessArgs   = "NEWSDESK_TEST_SERVE_ARGS"   // JSON list of serve arguments; unset: not a helper
	serveProcessSerial = "NEWSDESK_TEST_SERVE_SERIAL" // "1": the old publisher, "0": an old servant
)

// TestServeProcess is not a test: serveProcess.start runs this test binary
// again with it, to run one `newsdesk serve` in a process of its own. It
// prints "READY <id> <control>" once the servant listens and stops on
// SIGINT.
func TestServeProcess(t *testing.T) {
	raw := os.Getenv(serveProcessArgs)
	if raw == "" {
		t.Skip("helper process for the publishing benchmark")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, "args:", err)
		os.Exit(2)
	}
	if os.Getenv(serveProcessSerial) == "1" {
		app.UseSerialPublishing()
	}
	if os.Getenv(serveProcessSerial) != "" {
		app.CommitAtOnce() // as before the pipeline: every servant commits at once
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := cli.ServeWithReady(ctx, args, io.Discard, os.Stderr, func(r cli.Ready) {
		fmt.Printf("READY %s %s\n", r.ID, r.Control)
	})
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// serveProcess is one `newsdesk serve` in a child process of its own.
//
// serial runs it as servants ran before the publishing pipeline: the
// publisher (publisher set) publishing with app.UseSerialPublishing, and every one
// committing delivered items at once (no ingest interval). dataRoot, if
// set, is where its data directory goes (else a test temporary
// directory); nice is its CPU priority.
type serveProcess struct {
	serial, publisher bool
	dataRoot          string
	nice              int
}

// start runs the process with args (plus a fresh --data, listen and
// control on 127.0.0.1:0) until the test ends; its log goes to a file
// that the test prints if it fails.
func (p serveProcess) start(tb testing.TB, args ...string) *apptest.Servant {
	tb.Helper()
	serial, publisher := p.serial, p.publisher
	dir := tb.TempDir()
	data := filepath.Join(dir, "data")
	if p.dataRoot != "" {
		d, err := os.MkdirTemp(p.dataRoot, "newsdesk-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(d) })
		data = filepath.Join(d, "data")
	}
	s := &apptest.Servant{Data: data, Log: &apptest.SyncBuffer{}}
	args = apptest.WithTestNetwork(tb, args)
	args = append([]string{"--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--data", s.Data}, args...)
	j, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$", "-test.count=1")
	if p.nice != 0 {
		cmd = exec.Command("nice", "-n", strconv.Itoa(p.nice), os.Args[0], "-test.run=^TestServeProcess$", "-test.count=1")
	}
	cmd.Env = append(os.Environ(), serveProcessArgs+"="+string(j))
	switch {
	case serial && publisher:
		cmd.Env = append(cmd.Env, serveProcessSerial+"=1")
	case serial:
		cmd.Env = append(cmd.Env, serveProcessSerial+"=0")
	}
	logPath := filepath.Join(dir, "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- line
			}
		}
		exited <- cmd.Wait()
	}()
	showLog := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	select {
	case line := <-ready:
		s.ID, s.Control, _ = strings.Cut(line, " ")
	case err := <-exited:
		tb.Fatalf("serve process ended before it was ready: %v; log:\n%s", err, showLog())
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		tb.Fatalf("serve process not ready after 20s; log:\n%s", showLog())
	}
	var once sync.Once
	s.Stop = func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case err := <-exited:
				if err != nil {
					tb.Errorf("serve process %s ended with %v", s.ID, err)
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				tb.Errorf("serve process %s did not stop 20s after SIGINT", s.ID)
			}
		})
	}
	tb.Cleanup(func() {
		s.Stop()
		if tb.Failed() {
			tb.Logf("log of %s:\n%s", s.ID, showLog())
		}
	})
	return s
}
