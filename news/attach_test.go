package news

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
)

func testAttachment(t testing.TB, data []byte, name, mt string) Attachment {
	t.Helper()
	a, err := NewAttachment(bytes.NewReader(data), name, mt)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestChunkCountAndRoot(t *testing.T) {
	for _, c := range []struct {
		size   int64
		chunks int
		last   int
	}{{1, 1, 1}, {ChunkSize - 1, 1, ChunkSize - 1}, {ChunkSize, 1, ChunkSize}, {ChunkSize + 1, 2, 1}, {5 * ChunkSize, 5, ChunkSize}} {
		if n := ChunkCount(c.size); n != c.chunks {
			t.Errorf("ChunkCount(%d) = %d, want %d", c.size, n, c.chunks)
		}
		if l := ChunkLen(c.size, c.chunks-1); l != c.last {
			t.Errorf("ChunkLen(%d, last) = %d, want %d", c.size, l, c.last)
		}
	}
	if ChunkCount(0) != 0 || ChunkLen(10, 1) != 0 || ChunkLen(10, -1) != 0 {
		t.Error("empty blob or index outside: want 0")
	}
	// The root is the SHA-256 of the chunk digests, computed by hand here.
	data := bytes.Repeat([]byte("0123456789abcdef"), ChunkSize/16*2+3) // two whole chunks and 48 bytes
	a := testAttachment(t, data, "x.bin", "application/octet-stream")
	var cat []byte
	for off := 0; off < len(data); off += ChunkSize {
		d := sha256.Sum256(data[off:min(off+ChunkSize, len(data))])
		cat = append(cat, d[:]...)
	}
	if a.Root != sha256.Sum256(cat) || a.Hash != sha256.Sum256(data) || a.Size != int64(len(data)) {
		t.Fatalf("attachment %+v does not match the bytes", a)
	}
	// Writing in odd pieces gives the same.
	h := NewBlobHasher()
	for rest := data; len(rest) > 0; {
		k := min(len(rest), 7777)
		h.Write(rest[:k])
		rest = rest[k:]
	}
	hash, root, chunks, size := h.Sum()
	if hash != a.Hash || root != a.Root || size != a.Size || len(chunks) != 3 || ChunkRoot(chunks) != root {
		t.Fatal("piecewise hashing differs")
	}
}

func TestManifestRoundTrip(t *testing.T) {
	atts := []Attachment{
		testAttachment(t, []byte("\x89PNG picture"), "Chart Q3 (final).png", "image/png"),
		testAttachment(t, []byte("plain text & more"), "Über uns & 日本.txt", "text/plain; charset=utf-8"),
	}
	for _, text := range []string{"", "Hello", "Hello\n", "Hello\n\n", "See ![chart][att:1] and [the notes][att:2].\n\nBye"} {
		body := AppendManifest(text, atts)
		got, gotAtts, err := SplitManifest(body)
		if err != nil {
			t.Fatalf("%q: %v\n%s", text, err, body)
		}
		if got != text || len(gotAtts) != 2 || gotAtts[0] != atts[0] || gotAtts[1] != atts[1] {
			t.Fatalf("%q: round trip gave %q %+v", text, got, gotAtts)
		}
	}
	body := AppendManifest("Hi ![c][att:1]", atts)
	want := "Hi ![c][att:1]\n\n[att:1]: newsdesk:blob/sha256/" + atts[0].HashString() + "?root="
	if !strings.HasPrefix(body, want) || !strings.Contains(body, "&size=12&type=image%2Fpng&name=Chart+Q3+%28final%29.png\n[att:2]: ") {
		t.Fatalf("manifest not in the canonical form:\n%s", body)
	}
	if AppendManifest("x", nil) != "x" {
		t.Fatal("no attachments: body changes")
	}
	it := validItem(t)
	it.Body = body
	if err := it.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := it.Attachments(); len(got) != 2 || got[1].Name != "Über uns & 日本.txt" {
		t.Fatalf("Attachments() = %+v", got)
	}
	if it.Text() != "Hi ![c][att:1]" {
		t.Fatalf("Text() = %q", it.Text())
	}
	// The item still encodes and decodes as before.
	b, err := it.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Item
	if err := back.UnmarshalBinary(b); err != nil || back.Body != body {
		t.Fatalf("decode: %v", err)
	}
}

func TestManifestRefused(t *testing.T) {
	a := testAttachment(t, []byte("abc"), "a.txt", "text/plain")
	good := strings.TrimPrefix(AppendManifest("", []Attachment{a}), "\n\n")
	hash, root := a.HashString(), strings.Repeat("0", 64)
	_ = root
	cases := map[string]string{
		"wrong number":            "text\n\n" + strings.Replace(good, "[att:1]", "[att:2]", 1),
		"upper-case hex":          "text\n\n" + strings.Replace(good, hash, strings.ToUpper(hash), 1),
		"parameters reordered":    "text\n\n[att:1]: newsdesk:blob/sha256/" + hash + "?size=3&root=" + hash + "&type=text%2Fplain&name=a.txt",
		"extra parameter":         "text\n\n" + good + "&x=1",
		"zero size":               "text\n\n" + strings.Replace(good, "size=3", "size=0", 1),
		"leading zero":            "text\n\n" + strings.Replace(good, "size=3", "size=03", 1),
		"path in name":            "text\n\n" + strings.Replace(good, "name=a.txt", "name=..%2Fa.txt", 1),
		"control char in name":    "text\n\n" + strings.Replace(good, "name=a.txt", "name=a%0A.txt", 1),
		"bad media type":          "text\n\n" + strings.Replace(good, "type=text%2Fplain", "type=text", 1),
		"non-canonical type":      "text\n\n" + strings.Replace(good, "type=text%2Fplain", "type=Text%2FPlain", 1),
		"unescaped space":         "text\n\n" + strings.Replace(good, "name=a.txt", "name=a%20b.txt", 1),
		"trailing newline":        "text\n\n" + good + "\n",
		"text in the block":       "text\n\n" + good + "\nmore text",
		"reference beyond":        "see ![x][att:2]\n\n" + good,
		"reference without":       "see ![x][att:1]",
		"definition in the text":  "[att:1]: http://example.com/x\n\nmore",
		"definition, other case":  "  [ATT:1]: http://example.com/x\n\nmore",
		"too large":               "text\n\n" + strings.Replace(good, "size=3", "size=20971521", 1),
		"malformed att line only": "text\n\n[att:1]: hello",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := SplitManifest(body); !errors.Is(err, ErrManifest) {
				t.Fatalf("SplitManifest(%q) = %v, want ErrManifest", body, err)
			}
			it := validItem(t)
			it.Body = body
			var fe *FieldError
			if err := it.Validate(); !errors.As(err, &fe) || fe.Field != FieldAttachments || fe.Rule != RuleInvalidManifest {
				t.Fatalf("Validate = %v", err)
			}
		})
	}
	// Text that only looks a little like a manifest stays text.
	for _, body := range []string{"a\n\n[link]: http://x", "[att:x] is no reference", "a [att:] b", "a\n\n att:1"} {
		text, atts, err := SplitManifest(body)
		if err != nil || text != body || atts != nil {
			t.Fatalf("SplitManifest(%q) = %q, %v, %v", body, text, atts, err)
		}
	}
	// Too many attachments.
	var many []Attachment
	for range MaxAttachments + 1 {
		many = append(many, a)
	}
	if err := CheckAttachments(many); !errors.Is(err, ErrAttachmentsTooLarge) {
		t.Fatalf("%d attachments: %v", len(many), err)
	}
	if _, _, err := SplitManifest(AppendManifest("x", many)); !errors.Is(err, ErrAttachmentsTooLarge) {
		t.Fatalf("%d attachments in a body: %v", len(many), err)
	}
	big := a
	big.Size = MaxAttachmentBytes/2 + 1
	if err := CheckAttachments([]Attachment{big, big}); !errors.Is(err, ErrAttachmentsTooLarge) {
		t.Fatalf("over the total: %v", err)
	}
}

func TestAttachmentNames(t *testing.T) {
	for _, n := range []string{"a.png", "Bericht März.pdf", "x y", strings.Repeat("n", MaxAttachmentName)} {
		if err := CheckAttachmentName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range []string{"", ".", "..", "a/b", `a\b`, "a\x00", "a\tb", "\xff", strings.Repeat("n", MaxAttachmentName+1)} {
		if err := CheckAttachmentName(n); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
}

// FuzzSplitManifest: SplitManifest never panics; what it accepts is
// canonical (appending the manifest to the text again gives the body) and
// within the limits.
func FuzzSplitManifest(f *testing.F) {
	a := Attachment{Hash: sha256.Sum256([]byte("a")), Root: sha256.Sum256([]byte("r")), Size: 1, MediaType: "image/png", Name: "a b.png"}
	f.Add(AppendManifest("text ![x][att:1]", []Attachment{a}))
	f.Add(AppendManifest("", []Attachment{a, a}))
	f.Add("plain\n\n[att:1]: newsdesk:blob/sha256/xx")
	f.Add("[att:1]")
	f.Fuzz(func(t *testing.T, body string) {
		text, atts, err := SplitManifest(body)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error not ErrManifest: %v", err)
			}
			return
		}
		if AppendManifest(text, atts) != body {
			t.Fatalf("not canonical: %q", body)
		}
		if err := CheckAttachments(atts); err != nil {
			t.Fatal(err)
		}
	})
}
