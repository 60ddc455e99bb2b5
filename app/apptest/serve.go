package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Ready is where a servant started by ServeFunc can be reached.
type Ready struct {
	ID      string // the servant ID
	Control string // the control API's address
}

// ServeFunc runs `newsdesk serve` with args until ctx ends and calls ready
// once it listens (cli.ServeWithReady, adapted by the caller: this package
// does not import cli).
type ServeFunc func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(Ready)) error

// SyncBuffer is a log sink shared by a Serve goroutine and the test.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Servant is one `newsdesk serve`, in this process or another.
type Servant struct {
	Ready
	Data string
	Log  fmt.Stringer
	Stop func() // stops it and checks that Serve returned nil; idempotent
}

// StartServe runs serve with args (plus a fresh --data, listen and control
// on 127.0.0.1:0, and the test network unless args name one) until the
// test ends, and checks that it then returns nil.
func StartServe(t testing.TB, serve ServeFunc, args ...string) *Servant {
	t.Helper()
	return StartServeIn(t, serve, filepath.Join(t.TempDir(), "data"), args...)
}

// StartServeIn is StartServe on a given data directory, so that a test can
// stop a servant and start it again on the same data.
func StartServeIn(t testing.TB, serve ServeFunc, data string, args ...string) *Servant {
	t.Helper()
	log := &SyncBuffer{}
	s := &Servant{Data: data, Log: log}
	args = WithTestNetwork(t, args)
	args = append([]string{"--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--data", s.Data}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Ready, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, args, io.Discard, log, func(r Ready) { ready <- r }) }()
	select {
	case s.Ready = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Serve(%q) = %v before it was ready; log:\n%s", args, err, log)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("Serve(%q) not ready after 10s; log:\n%s", args, log)
	}
	var once sync.Once
	s.Stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("Serve did not return 10s after its context was cancelled")
			}
		})
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("log of %s:\n%s", s.ID, log)
		}
	})
	return s
}

// Call makes a request to the servant's control API and returns the status
// code and body. body, if not nil, is sent as JSON (strings are sent as is).
func (s *Servant) Call(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, "http://"+s.Control+path, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// Status is the fixed shape of /v1/status, decoded for the test.
type Status struct {
	ID            string    `json:"id"`
	IDValue       uint64    `json:"idValue"`
	Root          bool      `json:"root"`
	Up            string    `json:"up"`
	Downs         []string  `json:"downs"`
	Partition     [2]uint64 `json:"partition"`
	Subscriptions []string  `json:"subscriptions"`
	Links         []struct {
		Peer     string   `json:"peer"`
		Received []string `json:"received"`
		Sent     []string `json:"sent"`
	} `json:"links"`
	Source string `json:"source"`
}

// Status returns the servant's /v1/status, decoded and raw.
func (s *Servant) Status(t testing.TB) (Status, []byte) {
	t.Helper()
	code, body := s.Call(t, "GET", "/v1/status", nil)
	if code != http.StatusOK {
		t.Fatalf("status: %d %s", code, body)
	}
	var st Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("status: %v in %s", err, body)
	}
	return st, body
}

// Received returns what s received on its link to peer, or nil.
func (s *Servant) Received(t testing.TB, peer string) []string {
	st, _ := s.Status(t)
	for _, l := range st.Links {
		if l.Peer == peer {
			return l.Received
		}
	}
	return nil
}

// PublishResult is the answer of /v1/publish.
type PublishResult struct {
	ID         string `json:"id"`
	Suppressed bool   `json:"suppressed"`
	Queued     bool   `json:"queued"`
}

// Publish posts an item to /v1/publish and fails the test unless it is
// taken.
func (s *Servant) Publish(t testing.TB, category, title, body string) PublishResult {
	t.Helper()
	code, out := s.Call(t, "POST", "/v1/publish", map[string]string{"category": category, "title": title, "body": body})
	if code != http.StatusOK {
		t.Fatalf("publish %s: %d %s", category, code, out)
	}
	var r PublishResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("publish: %v in %s", err, out)
	}
	return r
}

// Item is the fixed shape of an item of /v1/items.
type Item struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Title    string `json:"title"`
	Body     string `json:"body"`
	Source   string `json:"source"`
	Received string `json:"received"`
}

// Items returns s's /v1/items of a category.
func (s *Servant) Items(t testing.TB, category string) []Item {
	t.Helper()
	code, out := s.Call(t, "GET", "/v1/items?category="+category, nil)
	if code != http.StatusOK {
		t.Fatalf("items %s: %d %s", category, code, out)
	}
	var items []Item
	if err := json.Unmarshal(out, &items); err != nil {
		t.Fatalf("items: %v in %s", err, out)
	}
	return items
}

// Titles lists the titles of s's items in a category, oldest first.
func (s *Servant) Titles(t testing.TB, category string) []string {
	t.Helper()
	var out []string
	for _, it := range s.Items(t, category) {
		out = append(out, it.Title)
	}
	return out
}

// WaitAttached waits until s is attached to a tree (under whichever
// servant the listeners placed it).
func (s *Servant) WaitAttached(t testing.TB) {
	t.Helper()
	WaitFor(t, 20*time.Second, s.ID+" attached", nil, func() error {
		if st, _ := s.Status(t); st.Up == "" {
			return errors.New("no uplink")
		}
		return nil
	})
}

// WaitRoute waits until some link of s has received category c (or a
// category that covers it, such as an archive's "*"): a subscriber of c
// lies beyond it.
func (s *Servant) WaitRoute(t testing.TB, c string) {
	t.Helper()
	WaitFor(t, 10*time.Second, s.ID+" to learn of a subscriber of "+c, nil, func() error {
		st, _ := s.Status(t)
		for _, l := range st.Links {
			if newsnet.CategorySet(l.Received).Matches(c) {
				return nil
			}
		}
		return fmt.Errorf("links %+v", st.Links)
	})
}
