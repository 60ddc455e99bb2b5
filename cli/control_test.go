package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/app/apptest"
)

// Two headless servants in one process: the second joins the first, the
// status JSON has its fixed shape, items published on one are listed on the
// other, subscriptions change live, and bad requests get JSON errors.
func TestServeEndToEnd(t *testing.T) {
	a := startServe(t, "--subscribe", "hr")
	b := startServe(t, "--seeds", a.ID, "--subscribe", "it")
	if !strings.HasPrefix(a.Control, "127.0.0.1:") || !strings.HasPrefix(a.ID, "127.0.0.1:") {
		t.Fatalf("ready %+v: want loopback addresses", a.Ready)
	}
	if !strings.Contains(a.Log.String(), "control API listening") || !strings.Contains(a.Log.String(), a.Control) {
		t.Errorf("the log does not name the control address %s:\n%s", a.Control, a.Log)
	}

	waitFor(t, "b attached under a with routing sets exchanged", func() error {
		if got := a.Received(t, b.ID); !slices.Equal(got, []string{"it"}) {
			return fmt.Errorf("a received %v from b", got)
		}
		if got := b.Received(t, a.ID); !slices.Equal(got, []string{"hr"}) {
			return fmt.Errorf("b received %v from a", got)
		}
		return nil
	})

	t.Run("status shape", func(t *testing.T) {
		// b hangs below a as a leaf until a has dialed it back.
		waitFor(t, "b dialed back and in its slot", func() error {
			if st, _ := a.Status(t); !slices.Equal(st.Downs, []string{b.ID}) {
				return fmt.Errorf("a's downs %v", st.Downs)
			}
			return nil
		})
		sa, rawA := a.Status(t)
		sb, rawB := b.Status(t)
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

	sa, _ := a.Status(t)
	sourceA, _ := os.ReadFile(filepath.Join(a.Data, app.InstallationIDFile))
	if sa.Source != strings.TrimSpace(string(sourceA)) {
		t.Errorf("a's source %q, installation-id file %q", sa.Source, sourceA)
	}

	// a → b in a subscribed category.
	before := time.Now()
	r := a.Publish(t, "it", "Printer moved", "Second floor, <room> 2.14 & co")
	if r.Suppressed || r.ID == "" {
		t.Fatalf("publish it = %+v, want sent", r)
	}
	waitFor(t, "the item on b", func() error {
		if n := len(b.Items(t, "it")); n != 1 {
			return fmt.Errorf("b lists %d items", n)
		}
		return nil
	})
	got := b.Items(t, "it")[0]
	want := apptest.Item{ID: r.ID, Category: "it", Title: "Printer moved", Body: "Second floor, <room> 2.14 & co", Source: sa.Source}
	received, err := time.Parse(time.RFC3339Nano, got.Received)
	if err != nil || received.Before(before.Add(-time.Second)) {
		t.Errorf("received %q: %v", got.Received, err)
	}
	got.Received = ""
	if got != want {
		t.Errorf("b's item %+v, want %+v", got, want)
	}
	if own := a.Items(t, "it"); len(own) != 1 || own[0].ID != r.ID {
		t.Errorf("a's own items: %+v", own)
	}

	// Nobody subscribes to sales: suppressed.
	if r := a.Publish(t, "sales", "Q3", ""); !r.Suppressed {
		t.Errorf("publish sales = %+v, want suppressed", r)
	}

	// b → a in a category below a's subscription "hr".
	r2 := b.Publish(t, "hr/payroll", "Payday", "Friday")
	if r2.Suppressed {
		t.Fatalf("publish hr/payroll suppressed")
	}
	waitFor(t, "the hr/payroll item on a, listed under hr", func() error {
		if items := a.Items(t, "hr"); len(items) != 1 || items[0].ID != r2.ID || items[0].Category != "hr/payroll" {
			return fmt.Errorf("a lists %+v under hr", items)
		}
		return nil
	})

	// Live subscription change on b.
	if code, out := b.Call(t, "PUT", "/v1/subscriptions", []string{"sales", "hr"}); code != http.StatusNoContent {
		t.Fatalf("PUT subscriptions: %d %s", code, out)
	}
	if code, out := b.Call(t, "GET", "/v1/subscriptions", nil); code != http.StatusOK || string(bytes.TrimSpace(out)) != `["hr","sales"]` {
		t.Errorf("GET subscriptions: %d %s", code, out)
	}
	waitFor(t, "a to learn b's new subscriptions", func() error {
		if got := a.Received(t, b.ID); !slices.Equal(got, []string{"hr", "sales"}) {
			return fmt.Errorf("a received %v from b", got)
		}
		return nil
	})
	r3 := a.Publish(t, "sales", "Q4", "up")
	if r3.Suppressed {
		t.Errorf("publish sales after b subscribed = suppressed")
	}
	if r := a.Publish(t, "it", "Nobody", ""); !r.Suppressed {
		t.Errorf("publish it after b unsubscribed = %+v, want suppressed", r)
	}
	// Q3 was published before b subscribed to sales; Q4's history tells b
	// that it missed a sales item of a's, which b now needs, so b asks for it
	// and delivers both in a's order.
	waitFor(t, "the sales items on b", func() error {
		if items := b.Items(t, "sales"); len(items) != 2 || items[0].Title != "Q3" || items[1].ID != r3.ID {
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
		{"POST", "/v1/publish", `{"category":"it","title":"t","body":"` + strings.Repeat("b", 9<<20) + `"}`, 413, "larger than"},
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
		code, out := s.Call(t, tt.method, tt.path, tt.body)
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

// GET /v1/items?q= searches as the app does (storage.Search: every word of
// the query inside some word of the item, in any script, case, width and
// Latin accents folded), in category and below it when one is given,
// oldest first like the listing.
func TestControlItemsSearch(t *testing.T) {
	s := startServe(t)
	publish := func(cat, title, body string) string {
		t.Helper()
		code, out := s.Call(t, "POST", "/v1/publish", map[string]string{"category": cat, "title": title, "body": body})
		var res struct{ ID string }
		if code != http.StatusOK || json.Unmarshal(out, &res) != nil {
			t.Fatalf("publish %q: %d %s", title, code, out)
		}
		return res.ID
	}
	meeting := publish("it", "説明会", "新しい勤怠システムの説明会は午後三時から会議室Aで行います。")
	street := publish("hr/payroll", "Straße gesperrt", "Das Büro von Herrn Müller ist über den Hof erreichbar.")
	printer := publish("it", "Printer moved", "The printer is on floor 2 now, next to the 会議室.")

	for _, c := range []struct {
		q, category string
		want        []string
	}{
		{"会議室", "", []string{meeting, printer}},
		{"行います", "", []string{meeting}},
		{"会議室", "it", []string{meeting, printer}},
		{"会議室", "hr", nil},
		{"会社", "", nil},
		{"STRASSE", "", []string{street}},
		{"muller", "hr", []string{street}},
		{"Müller büro", "hr/payroll", []string{street}},
		{"ＰＲＩＮＴＥＲ", "", []string{printer}},
		{"printer 会議室", "it", []string{printer}},
		{"printer", "hr", nil},
		{"  ,;", "", nil}, // no words: nothing, as in the app
	} {
		path := "/v1/items?q=" + url.QueryEscape(c.q)
		if c.category != "" {
			path += "&category=" + c.category
		}
		code, out := s.Call(t, "GET", path, nil)
		var items []apptest.Item
		if code != http.StatusOK || json.Unmarshal(out, &items) != nil {
			t.Fatalf("GET %s: %d %s", path, code, out)
		}
		got := []string{}
		for _, it := range items {
			got = append(got, it.ID)
		}
		if want := append([]string{}, c.want...); !slices.Equal(got, want) {
			t.Errorf("GET %s: %s, want the items %v", path, out, want)
		}
	}
	checkControlCases(t, s, []controlCase{
		{"GET", "/v1/items?q=", "", 400, "category"},
		{"GET", "/v1/items?q=x&category=Bad", "", 400, "category"},
		{"GET", "/v1/items?q=" + strings.Repeat("x", 1025), "", 400, "longer than 1024 bytes"},
	})
}
