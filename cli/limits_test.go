package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
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

// An admin sets the publishing limits through the control API: the next
// definition carries them and the entry check applies them at once; a
// member that is no admin gets 403, limits out of range 400.
func TestLimitsSetByAdmin(t *testing.T) {
	a := startServe(t, apptest.NoTestNetwork, "--listen", "127.0.0.1:0")
	var got struct {
		Limits    map[string]any
		Effective struct{ ItemsPerHour, BurstItems int }
		Version   uint64
	}
	code, raw := a.Call(t, "GET", "/v1/limits", nil)
	if err := json.Unmarshal(raw, &got); code != http.StatusOK || err != nil || len(got.Limits) != 0 ||
		got.Effective.ItemsPerHour != trust.DefaultItemsPerHour || got.Effective.BurstItems != trust.DefaultBurstItems {
		t.Fatalf("GET: %d %s", code, raw)
	}
	v0 := got.Version
	if code, raw := a.Call(t, "PUT", "/v1/limits", map[string]int{"itemsPerHour": -5}); code != http.StatusBadRequest {
		t.Errorf("negative rate: %d %s", code, raw)
	}
	if code, raw := a.Call(t, "PUT", "/v1/limits", map[string]int{"burstItems": 2, "itemsPerHour": 10}); code != http.StatusOK {
		t.Fatalf("PUT: %d %s", code, raw)
	}
	code, raw = a.Call(t, "GET", "/v1/limits", nil)
	if err := json.Unmarshal(raw, &got); err != nil || got.Version != v0+1 || got.Effective.BurstItems != 2 || got.Effective.ItemsPerHour != 10 {
		t.Fatalf("after PUT: %d %s", code, raw)
	}
	for i := range 3 {
		code, raw := a.Call(t, "POST", "/v1/publish", map[string]string{"category": "general", "title": "News", "body": "x"})
		if want := map[bool]int{true: http.StatusOK, false: http.StatusTooManyRequests}[i < 2]; code != want {
			t.Errorf("publication %d: %d %s, want %d", i, code, raw, want)
		}
	}

	member := startServe(t, "--listen", "127.0.0.1:0")
	if code, raw := member.Call(t, "PUT", "/v1/limits", map[string]int{"burstItems": 1000}); code != http.StatusForbidden {
		t.Errorf("PUT by a member: %d %s", code, raw)
	}
}

// network init sets the publishing limits (here also: no attachments);
// limits out of range are a usage error and write nothing.
func TestNetworkInitLimits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "limited.json")
	if err := NetworkCommand([]string{"init", "--name", "Limited", "--out", out, "--items-per-hour", "30", "--item-bytes", "8192",
		"--attachment-bytes", "-1"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	sn, err := app.ReadNetworkFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil || sn.Limits.ItemsPerHour != 30 || sn.Limits.ItemBytes != 8192 || sn.Limits.BurstItems != 0 ||
		sn.Limits.AttachmentCap("it") != 0 {
		t.Fatalf("definition: limits %+v, %v", sn.Limits, err)
	}
	bad := filepath.Join(dir, "bad.json")
	err = NetworkCommand([]string{"init", "--name", "x", "--out", bad, "--burst-items", "-1"}, io.Discard, io.Discard)
	if ec, ok := errors.AsType[usageError](err); !ok || ec.ExitCode() != 2 {
		t.Errorf("--burst-items -1 = %v, want a usage error", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("wrote %s", bad)
	}
}

// serve --storage-limit sets the storage quota, kept in the data
// directory; a size out of range or malformed is a usage error.
func TestServeStorageLimit(t *testing.T) {
	for v, want := range map[string]int64{"100MiB": 100 << 20, "2gb": 2 << 30, "none": app.NoStorageQuota, "1TiB": 1 << 40} {
		if got, err := parseStorageLimit(v); err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, bad := range []string{"1MiB", "2TiB", "-4GiB", "lots", "4.5GiB"} {
		if _, err := parseServeArgs([]string{"--listen", "127.0.0.1:0", "--data", t.TempDir(), "--storage-limit", bad}, io.Discard); err == nil {
			t.Errorf("--storage-limit %q accepted", bad)
		}
	}
	s := startServe(t, "--storage-limit", "100MiB")
	code, raw := s.Call(t, "GET", "/v1/status", nil)
	var st struct{ Storage struct{ Quota int64 } }
	if err := json.Unmarshal(raw, &st); code != http.StatusOK || err != nil || st.Storage.Quota != 100<<20 {
		t.Errorf("status: %d %s", code, raw)
	}
}

// The attachment limits through the control API: an admin sets them with
// PUT /v1/limits and GET shows them, as set and resolved; /v1/publish then
// answers 413 tooLarge naming the limit for attachments beyond the
// category's cap (in a multipart form or in JSON) and stores nothing of
// them, and 400 for a cap out of range.
func TestAttachmentLimitsOverTheAPI(t *testing.T) {
	a := startServe(t, apptest.NoTestNetwork, "--listen", "127.0.0.1:0")
	if code, raw := a.Call(t, "PUT", "/v1/limits", map[string]any{"attachmentBytes": 256 << 10,
		"categoryAttachmentBytes": map[string]int64{"hr": trust.NoAttachments}}); code != http.StatusOK {
		t.Fatalf("PUT: %d %s", code, raw)
	}
	var got struct {
		Limits struct {
			AttachmentBytes         int64
			CategoryAttachmentBytes map[string]int64
		}
		Effective struct{ AttachmentBytes, AttachmentBytesPerHour int64 }
	}
	code, raw := a.Call(t, "GET", "/v1/limits", nil)
	if err := json.Unmarshal(raw, &got); code != http.StatusOK || err != nil || got.Limits.AttachmentBytes != 256<<10 ||
		got.Limits.CategoryAttachmentBytes["hr"] != trust.NoAttachments || got.Effective.AttachmentBytes != 256<<10 ||
		got.Effective.AttachmentBytesPerHour != trust.DefaultAttachmentBytesPerHour {
		t.Fatalf("GET: %d %s", code, raw)
	}

	type file = struct {
		name, mt string
		data     []byte
	}
	over := bytes.Repeat([]byte{7}, 300<<10)
	var e struct{ Error, Detail string }
	code, out := postMultipart(t, a, [][2]string{{"category", "it"}, {"title", "Plans"}}, []file{{"plan.bin", "application/octet-stream", over}})
	if err := json.Unmarshal(out, &e); err != nil || code != http.StatusRequestEntityTooLarge || e.Error != string(trust.TooLarge) ||
		!strings.Contains(e.Detail, "at most 256 KiB") {
		t.Fatalf("300 KiB under a limit of 256 KiB: %d %s, want 413 tooLarge naming the limit", code, out)
	}
	sum := sha256.Sum256(over)
	if code, _ := a.Call(t, "GET", "/v1/blobs/"+hex.EncodeToString(sum[:]), nil); code != http.StatusNotFound {
		t.Errorf("the refused attachment is served: %d", code)
	}
	code, raw = a.Call(t, "POST", "/v1/publish", map[string]any{"category": "hr", "title": "Holidays",
		"attachments": []map[string]any{{"name": "note.txt", "mediaType": "text/plain", "data": []byte("hello")}}})
	if err := json.Unmarshal(raw, &e); err != nil || code != http.StatusRequestEntityTooLarge || !strings.Contains(e.Detail, "no attachments") {
		t.Errorf("an attachment where none are allowed: %d %s", code, raw)
	}
	if code, out := postMultipart(t, a, [][2]string{{"category", "it"}, {"title", "Small"}}, []file{{"small.bin", "", bytes.Repeat([]byte{8}, 200<<10)}}); code != http.StatusOK {
		t.Errorf("200 KiB under a limit of 256 KiB: %d %s", code, out)
	}
	if code, raw := a.Call(t, "PUT", "/v1/limits", map[string]any{"attachmentBytes": 20}); code != http.StatusBadRequest {
		t.Errorf("an attachment cap of 20 bytes: %d %s", code, raw)
	}
}
