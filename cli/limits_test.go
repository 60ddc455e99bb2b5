package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// A publisher over the network's publishing limits gets 429 from
// /v1/publish, with the reason and a Retry-After, and nothing is stored;
// an item beyond its category's byte cap gets 413 tooLarge. Issue 32: 8
// clients published 17,472 items in 20 s and all were accepted.
func TestPublishOverLimitIs429(t *testing.T) {
	data := filepath.Join(t.TempDir(), "a")
	admin, sn, _ := apptest.PublishersNetwork(t, data)
	n := sn.Network.Clone()
	n.Version++
	n.Limits = trust.PublishLimits{ItemsPerHour: 5, BurstItems: 3, CategoryItemBytes: map[string]int{"it": 2048}}
	sn, err := admin.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	a := startServeIn(t, data, "--network", apptest.WriteNetworkFile(t, sn))
	post := func(body string) (*http.Response, []byte) {
		t.Helper()
		j, _ := json.Marshal(map[string]string{"category": "it", "title": "Printer news", "body": body})
		resp, err := http.Post("http://"+a.Control+"/v1/publish", "application/json", bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp, out
	}
	for i := range 3 {
		if resp, body := post("fine"); resp.StatusCode != http.StatusOK {
			t.Fatalf("item %d within the burst: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := post("one too many")
	var e struct{ Error, Detail string }
	json.Unmarshal(body, &e)
	if resp.StatusCode != http.StatusTooManyRequests || e.Error != string(trust.RateLimited) || !strings.Contains(e.Detail, "try again") {
		t.Fatalf("beyond the burst: %d %s, want 429 rateLimited", resp.StatusCode, body)
	}
	// One item per 12 minutes refills: Retry-After says when.
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 || s > 12*60 {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	if got := a.Titles(t, "it"); len(got) != 3 {
		t.Errorf("stored %d items, want the 3 accepted", len(got))
	}
	resp, body = post(strings.Repeat("x", 3000))
	json.Unmarshal(body, &e)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || e.Error != string(trust.TooLarge) {
		t.Fatalf("beyond the byte cap: %d %s, want 413 tooLarge", resp.StatusCode, body)
	}
	code, raw := a.Call(t, "GET", "/v1/status", nil)
	var st struct {
		RateLimited []any `json:"rateLimited"`
		Storage     struct {
			Used, Quota int64
			Evicted     any
		} `json:"storage"`
	}
	if err := json.Unmarshal(raw, &st); code != http.StatusOK || err != nil || st.RateLimited == nil || len(st.RateLimited) != 0 ||
		st.Storage.Used <= 0 || st.Storage.Quota != app.DefaultStorageQuota || st.Storage.Evicted != nil {
		t.Errorf("status: %d %v %s", code, err, raw)
	}
}
