package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"newsdesk/news"
)

// postMultipart posts a publish form: fields, then files (name → bytes,
// with the given media types, "" for none).
func postMultipart(t *testing.T, s *servant, fields [][2]string, files []struct {
	name, mt string
	data     []byte
}) (int, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="attachment"; filename=%q`, f.name))
		if f.mt != "" {
			h.Set("Content-Type", f.mt)
		}
		pw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(f.data)
	}
	mw.Close()
	resp, err := http.Post("http://"+s.Control+"/v1/publish", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

type listedItem struct {
	ID          string `json:"id"`
	Body        string `json:"body"`
	Attachments []struct {
		Hash      string `json:"hash"`
		Name      string `json:"name"`
		Size      int64  `json:"size"`
		MediaType string `json:"mediaType"`
		State     string `json:"state"`
	} `json:"attachments"`
}

// TestControlAttachments: /v1/publish takes files as multipart/form-data
// and small ones in base64 in JSON; /v1/items lists them; /v1/blobs/<hash>
// serves each with its type, length, name and ranges, and 404 for a blob
// not here; beyond an item's limits the answer is 413 tooLarge.
func TestControlAttachments(t *testing.T) {
	s := startServe(t, "--subscribe", "it")
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3}, 40000)...)
	code, out := postMultipart(t, s, [][2]string{{"category", "it"}, {"title", "Office"}, {"body", "See ![the office][att:1]."}, {"urgent", "true"}},
		[]struct {
			name, mt string
			data     []byte
		}{{"office.png", "application/octet-stream", png}, {"Plan März.txt", "text/plain", []byte("floor plan")}})
	if code != http.StatusOK {
		t.Fatalf("multipart publish: %d %s", code, out)
	}
	code, out = s.Call(t, "POST", "/v1/publish", map[string]any{"category": "it", "title": "Small", "body": "a note",
		"attachments": []map[string]any{{"name": "note.txt", "mediaType": "text/plain", "data": []byte("hello")}}})
	if code != http.StatusOK {
		t.Fatalf("JSON publish: %d %s", code, out)
	}
	code, out = s.Call(t, "GET", "/v1/items?category=it", nil)
	var items []listedItem
	if code != http.StatusOK || json.Unmarshal(out, &items) != nil || len(items) != 2 {
		t.Fatalf("items: %d %s", code, out)
	}
	first := items[0]
	if first.Body != "See ![the office][att:1]." || len(first.Attachments) != 2 {
		t.Fatalf("first item %+v", first)
	}
	img, txt := first.Attachments[0], first.Attachments[1]
	sum := sha256.Sum256(png)
	if img.Hash != hex.EncodeToString(sum[:]) || img.MediaType != "image/png" || img.Size != int64(len(png)) || img.State != "whole" || img.Name != "office.png" {
		t.Errorf("image %+v", img)
	}
	if txt.Name != "Plan März.txt" || txt.MediaType != "text/plain" || txt.State != "whole" {
		t.Errorf("text %+v", txt)
	}
	if a := items[1].Attachments; len(a) != 1 || a[0].Name != "note.txt" || a[0].Size != 5 {
		t.Errorf("JSON attachment %+v", a)
	}

	get := func(path string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+s.Control+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := get("/v1/blobs/"+img.Hash, nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Equal(body, png) || resp.Header.Get("Content-Type") != "image/png" ||
		resp.ContentLength != int64(len(png)) || resp.Header.Get("Content-Disposition") != `attachment; filename=office.png` {
		t.Errorf("GET blob: %d %v, %d bytes", resp.StatusCode, resp.Header, len(body))
	}
	resp = get("/v1/blobs/"+txt.Hash, nil)
	if d := resp.Header.Get("Content-Disposition"); !strings.Contains(d, "filename*=utf-8''Plan%20M%C3%A4rz.txt") {
		t.Errorf("Content-Disposition of a non-ASCII name: %q", d)
	}
	resp = get("/v1/blobs/"+img.Hash, map[string]string{"Range": "bytes=10-19"})
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, png[10:20]) {
		t.Errorf("range: %d %q", resp.StatusCode, body)
	}
	if resp := get("/v1/blobs/"+strings.Repeat("ab", 32), nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("blob not here: %d", resp.StatusCode)
	}
	if resp := get("/v1/blobs/xyz", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("not a hash: %d", resp.StatusCode)
	}

	// Beyond the limits: 413 tooLarge, nothing published.
	big := make([]byte, news.MaxAttachmentBytes/2+1)
	code, out = postMultipart(t, s, [][2]string{{"category", "it"}, {"title", "Too much"}},
		[]struct {
			name, mt string
			data     []byte
		}{{"a.bin", "", big}, {"b.bin", "", big}})
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), `"error":"tooLarge"`) {
		t.Errorf("over 20 MiB: %d %s", code, out)
	}
	code, out = s.Call(t, "POST", "/v1/publish", map[string]any{"category": "it", "title": "Big JSON",
		"attachments": []map[string]any{{"name": "x.bin", "data": make([]byte, maxJSONAttachmentBytes+1)}}})
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("JSON attachment over its cap: %d %s", code, out)
	}
	// Refused: a form field not known, a bad name, a reference beyond.
	for _, c := range []struct {
		fields [][2]string
		file   string
	}{
		{[][2]string{{"category", "it"}, {"title", "t"}, {"colour", "red"}}, "a.txt"},
		{[][2]string{{"category", "it"}, {"title", "t"}}, ".."},
		{[][2]string{{"category", "it"}, {"title", "t"}, {"body", "![x][att:2]"}}, "a.txt"},
	} {
		code, out := postMultipart(t, s, c.fields, []struct {
			name, mt string
			data     []byte
		}{{c.file, "text/plain", []byte("x")}})
		if code != http.StatusBadRequest {
			t.Errorf("%v %q: %d %s, want 400", c.fields, c.file, code, out)
		}
	}
	if _, out := s.Call(t, "GET", "/v1/items?category=it", nil); strings.Count(string(out), `"id"`) != 2 {
		t.Errorf("refused publications were published: %s", out)
	}
}
