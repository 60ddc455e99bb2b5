package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log sink shared by a Serve goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// servant is one in-process `newsdesk serve`.
type servant struct {
	Ready
	data string
	log  *syncBuffer
	stop func() // stops it and checks that Serve returned nil; idempotent
}

// startServe runs ServeWithReady with args (plus a fresh --data, listen and
// control on 127.0.0.1:0) until the test ends, and checks that it then
// returns nil.
func startServe(t testing.TB, args ...string) *servant {
	t.Helper()
	return startServeIn(t, filepath.Join(t.TempDir(), "data"), args...)
}

// startServeIn is startServe on a given data directory, so that a test can
// stop a servant and start it again on the same data.
func startServeIn(t testing.TB, data string, args ...string) *servant {
	t.Helper()
	s := &servant{data: data, log: &syncBuffer{}}
	args = withTestNetwork(t, args)
	args = append([]string{"--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--data", s.data}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Ready, 1)
	done := make(chan error, 1)
	go func() { done <- ServeWithReady(ctx, args, io.Discard, s.log, func(r Ready) { ready <- r }) }()
	select {
	case s.Ready = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Serve(%q) = %v before it was ready; log:\n%s", args, err, s.log)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("Serve(%q) not ready after 10s; log:\n%s", args, s.log)
	}
	var once sync.Once
	s.stop = func() {
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
		s.stop()
		if t.Failed() {
			t.Logf("log of %s:\n%s", s.ID, s.log)
		}
	})
	return s
}

// call makes a request to the servant's control API and returns the status
// code and body. body, if not nil, is sent as JSON (strings are sent as is).
func (s *servant) call(t testing.TB, method, path string, body any) (int, []byte) {
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

// status is the fixed shape of /v1/status, decoded for the test.
type status struct {
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

func (s *servant) status(t testing.TB) (status, []byte) {
	t.Helper()
	code, body := s.call(t, "GET", "/v1/status", nil)
	if code != http.StatusOK {
		t.Fatalf("status: %d %s", code, body)
	}
	var st status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("status: %v in %s", err, body)
	}
	return st, body
}

// received returns what s received on its link to peer, or nil.
func (s *servant) received(t *testing.T, peer string) []string {
	st, _ := s.status(t)
	for _, l := range st.Links {
		if l.Peer == peer {
			return l.Received
		}
	}
	return nil
}

type publishResult struct {
	ID         string `json:"id"`
	Suppressed bool   `json:"suppressed"`
	Queued     bool   `json:"queued"`
}

func (s *servant) publish(t *testing.T, category, title, body string) publishResult {
	t.Helper()
	code, out := s.call(t, "POST", "/v1/publish", map[string]string{"category": category, "title": title, "body": body})
	if code != http.StatusOK {
		t.Fatalf("publish %s: %d %s", category, code, out)
	}
	var r publishResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("publish: %v in %s", err, out)
	}
	return r
}

func (s *servant) items(t *testing.T, category string) []Item {
	t.Helper()
	code, out := s.call(t, "GET", "/v1/items?category="+category, nil)
	if code != http.StatusOK {
		t.Fatalf("items %s: %d %s", category, code, out)
	}
	var items []Item
	if err := json.Unmarshal(out, &items); err != nil {
		t.Fatalf("items: %v in %s", err, out)
	}
	return items
}

func waitFor(t *testing.T, what string, cond func() error) {
	t.Helper()
	waitForUpTo(t, 10*time.Second, what, cond)
}

// waitForUpTo polls cond until it holds, for at most limit. In a simTest
// the time is virtual, and each check comes once everything due has
// happened.
func waitForUpTo(t *testing.T, limit time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		settle(t)
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two headless servants in one process: the second joins the first, the
// status JSON has its fixed shape, items published on one are listed on the
// other, subscriptions change live, and bad requests get JSON errors.
func TestServeEndToEnd(t *testing.T) {
	a := startServe(t, "--subscribe", "hr")
	b := startServe(t, "--seeds", a.ID, "--subscribe", "it")
	if !strings.HasPrefix(a.Control, "127.0.0.1:") || !strings.HasPrefix(a.ID, "127.0.0.1:") {
		t.Fatalf("ready %+v: want loopback addresses", a.Ready)
	}
	if !strings.Contains(a.log.String(), "control API listening") || !strings.Contains(a.log.String(), a.Control) {
		t.Errorf("the log does not name the control address %s:\n%s", a.Control, a.log)
	}

	waitFor(t, "b attached under a with routing sets exchanged", func() error {
		if got := a.received(t, b.ID); !slices.Equal(got, []string{"it"}) {
			return fmt.Errorf("a received %v from b", got)
		}
		if got := b.received(t, a.ID); !slices.Equal(got, []string{"hr"}) {
			return fmt.Errorf("b received %v from a", got)
		}
		return nil
	})

	t.Run("status shape", func(t *testing.T) {
		sa, rawA := a.status(t)
		sb, rawB := b.status(t)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(rawB, &fields); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "idValue", "root", "up", "downs", "partition", "subscriptions", "links"} {
			if _, ok := fields[k]; !ok {
				t.Errorf("status lacks %q: %s", k, rawB)
			}
		}
		if string(fields["downs"]) != "[]" {
			t.Errorf(`b's downs = %s, want [] (never null)`, fields["downs"])
		}
		var port uint64
		fmt.Sscanf(strings.TrimPrefix(b.ID, "127.0.0.1:"), "%d", &port)
		if want := uint64(127)<<40 | uint64(1)<<16 | port; sb.IDValue != want {
			t.Errorf("b idValue = %d, want %d", sb.IDValue, want)
		}
		if sb.ID != b.ID || sb.Root || sb.Up != a.ID || !slices.Equal(sb.Subscriptions, []string{"it"}) {
			t.Errorf("b status %s", rawB)
		}
		if sa.ID != a.ID || !sa.Root || sa.Up != "" || !slices.Equal(sa.Downs, []string{b.ID}) {
			t.Errorf("a status %s", rawA)
		}
		if p := sa.Partition; p[0] > sa.IDValue || sa.IDValue > p[1] {
			t.Errorf("a's partition %v does not hold its own value %d", p, sa.IDValue)
		}
		if len(sa.Links) != 1 || sa.Links[0].Peer != b.ID || !slices.Equal(sa.Links[0].Sent, []string{"hr"}) {
			t.Errorf("a links: %s", rawA)
		}
	})

	sa, _ := a.status(t)
	sourceA, _ := os.ReadFile(filepath.Join(a.data, installationIDFile))
	if sa.Source != strings.TrimSpace(string(sourceA)) {
		t.Errorf("a's source %q, installation-id file %q", sa.Source, sourceA)
	}

	// a → b in a subscribed category.
	before := time.Now()
	r := a.publish(t, "it", "Printer moved", "Second floor, <room> 2.14 & co")
	if r.Suppressed || r.ID == "" {
		t.Fatalf("publish it = %+v, want sent", r)
	}
	waitFor(t, "the item on b", func() error {
		if n := len(b.items(t, "it")); n != 1 {
			return fmt.Errorf("b lists %d items", n)
		}
		return nil
	})
	got := b.items(t, "it")[0]
	want := Item{ID: r.ID, Category: "it", Title: "Printer moved", Body: "Second floor, <room> 2.14 & co", Source: sa.Source}
	received, err := time.Parse(time.RFC3339Nano, got.Received)
	if err != nil || received.Before(before.Add(-time.Second)) {
		t.Errorf("received %q: %v", got.Received, err)
	}
	got.Received = ""
	if got != want {
		t.Errorf("b's item %+v, want %+v", got, want)
	}
	if own := a.items(t, "it"); len(own) != 1 || own[0].ID != r.ID {
		t.Errorf("a's own items: %+v", own)
	}

	// Nobody subscribes to sales: suppressed.
	if r := a.publish(t, "sales", "Q3", ""); !r.Suppressed {
		t.Errorf("publish sales = %+v, want suppressed", r)
	}

	// b → a in a category below a's subscription "hr".
	r2 := b.publish(t, "hr/payroll", "Payday", "Friday")
	if r2.Suppressed {
		t.Fatalf("publish hr/payroll suppressed")
	}
	waitFor(t, "the hr/payroll item on a, listed under hr", func() error {
		if items := a.items(t, "hr"); len(items) != 1 || items[0].ID != r2.ID || items[0].Category != "hr/payroll" {
			return fmt.Errorf("a lists %+v under hr", items)
		}
		return nil
	})

	// Live subscription change on b.
	if code, out := b.call(t, "PUT", "/v1/subscriptions", []string{"sales", "hr"}); code != http.StatusNoContent {
		t.Fatalf("PUT subscriptions: %d %s", code, out)
	}
	if code, out := b.call(t, "GET", "/v1/subscriptions", nil); code != http.StatusOK || string(bytes.TrimSpace(out)) != `["hr","sales"]` {
		t.Errorf("GET subscriptions: %d %s", code, out)
	}
	waitFor(t, "a to learn b's new subscriptions", func() error {
		if got := a.received(t, b.ID); !slices.Equal(got, []string{"hr", "sales"}) {
			return fmt.Errorf("a received %v from b", got)
		}
		return nil
	})
	r3 := a.publish(t, "sales", "Q4", "up")
	if r3.Suppressed {
		t.Errorf("publish sales after b subscribed = suppressed")
	}
	if r := a.publish(t, "it", "Nobody", ""); !r.Suppressed {
		t.Errorf("publish it after b unsubscribed = %+v, want suppressed", r)
	}
	// Q3 was published before b subscribed to sales; Q4's history tells b
	// that it missed a sales item of a's, which b now needs, so b asks for it
	// and delivers both in a's order.
	waitFor(t, "the sales items on b", func() error {
		if items := b.items(t, "sales"); len(items) != 2 || items[0].Title != "Q3" || items[1].ID != r3.ID {
			return fmt.Errorf("b lists %+v under sales", items)
		}
		return nil
	})

	t.Run("errors", func(t *testing.T) { checkErrors(t, a) })
}

func checkErrors(t *testing.T, s *servant) {
	long := strings.Repeat("x", 201)
	tests := []struct {
		method, path string
		body         any
		code         int
		want         string // substring of the error message
	}{
		{"POST", "/v1/publish", map[string]string{"category": "IT", "title": "t"}, 400, "category"},
		{"POST", "/v1/publish", map[string]string{"category": "a//b", "title": "t"}, 400, "category"},
		{"POST", "/v1/publish", map[string]string{"title": "t"}, 400, "category is empty"},
		{"POST", "/v1/publish", map[string]string{"category": "it"}, 400, "title is required"},
		{"POST", "/v1/publish", map[string]string{"category": "it", "title": "   "}, 400, "title is required"},
		{"POST", "/v1/publish", map[string]string{"category": "it", "title": long}, 400, "at most 200"},
		{"POST", "/v1/publish", map[string]string{"category": "it", "title": "t", "body": strings.Repeat("b", 64<<10+1)}, 400, "body is"},
		{"POST", "/v1/publish", map[string]string{"category": "it", "title": "t", "extra": "x"}, 400, "unknown field"},
		{"POST", "/v1/publish", `{"category":"it","title":"t"} {}`, 400, "after the JSON value"},
		{"POST", "/v1/publish", `{"category":`, 400, "bad JSON"},
		{"POST", "/v1/publish", "", 400, "empty request body"},
		{"POST", "/v1/publish", `{"category":"it","title":"t","body":"` + strings.Repeat("b", 2<<20) + `"}`, 413, "larger than"},
		{"GET", "/v1/publish", nil, 405, "not allowed"},
		{"DELETE", "/v1/status", nil, 405, "not allowed"},
		{"POST", "/v1/items", nil, 405, "not allowed"},
		{"POST", "/v1/subscriptions", []string{"it"}, 405, "not allowed"},
		{"GET", "/v1/nothing", nil, 404, "no such endpoint"},
		{"GET", "/", nil, 404, "no such endpoint"},
		{"GET", "/v1/items", nil, 400, "category"},
		{"GET", "/v1/items?category=Bad", nil, 400, "category"},
		{"PUT", "/v1/subscriptions", []string{"it", "Bad"}, 400, "category"},
		{"PUT", "/v1/subscriptions", map[string]int{"it": 1}, 400, "bad JSON"},
	}
	for _, tt := range tests {
		code, out := s.call(t, tt.method, tt.path, tt.body)
		var e struct{ Error string }
		if err := json.Unmarshal(out, &e); err != nil || code != tt.code || !strings.Contains(e.Error, tt.want) {
			short := string(out)
			if len(short) > 200 {
				short = short[:200] + "..."
			}
			t.Errorf("%s %s: %d %s; want %d with an error containing %q", tt.method, tt.path, code, short, tt.code, tt.want)
		}
	}

	// A request a web page could make is refused.
	req, _ := http.NewRequest("POST", "http://"+s.Control+"/v1/publish", strings.NewReader(`{"category":"it","title":"csrf"}`))
	req.Header.Set("Origin", "https://intranet.example.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin publish: %d, want 403", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", "http://"+s.Control+"/v1/status", nil)
	req.Host = "rebound.example.com"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host header: %d, want 403", resp.StatusCode)
	}
}
