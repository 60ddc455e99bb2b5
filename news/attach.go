package news

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Attachments (issue 29): pictures in the news and files beside it. The
// bytes travel and are stored apart from the item, as blobs addressed by
// their SHA-256; the item carries their manifest, so the publisher's
// signature covers every byte of every attachment.
//
// The manifest lives at the end of the item's Markdown body, so the item
// format does not change: one blank line, then one reference definition
// per attachment, numbered from 1, in exactly this canonical form:
//
//	[att:N]: newsdesk:blob/sha256/<hash>?root=<root>&size=<size>&type=<type>&name=<name>
//
// hash and root are 64 lower-case hex digits, size is decimal without
// leading zeros, type and name are query-escaped (url.QueryEscape). The
// body shows a picture with ![alt text][att:N]. Markdown renders reference
// definitions as nothing, so a release that knows nothing of attachments
// shows the text and no manifest.

// Limits of attachments.
const (
	// ChunkSize is the size of a blob's chunks, the unit the network
	// carries and verifies; a blob's last chunk may be shorter.
	ChunkSize = 64 << 10
	// MaxAttachments bounds the attachments of one item.
	MaxAttachments = 32
	// MaxAttachmentBytes bounds the attachments of one item, all
	// together.
	MaxAttachmentBytes = 20 << 20
	// MaxAttachmentName bounds a name, in bytes.
	MaxAttachmentName = 255
	// maxMediaType bounds a media type, in bytes.
	maxMediaType = 255
)

// Attachment is one entry of an item's manifest.
type Attachment struct {
	// Hash is the SHA-256 of the blob's bytes: its address.
	Hash [32]byte
	// Root is the SHA-256 over the concatenated SHA-256 digests of the
	// blob's ChunkSize chunks, in order (the last one may be shorter). A
	// receiver checks a list of chunk hashes against it before it takes
	// a chunk, and each chunk against its listed hash.
	Root      [32]byte
	Size      int64
	MediaType string // e.g. "image/jpeg", canonical (mime.FormatMediaType)
	Name      string // the file name readers see and save under
}

// ErrManifest is the error of a malformed manifest or a body that refers
// to attachments it does not carry (errors.Is); the *FieldError of
// Validate wraps it.
var ErrManifest = errors.New("invalid attachments")

// manifestError is an ErrManifest with its detail alone as its message, so
// that the FieldError reads "attachments: name required".
// One beyond the limits is also ErrAttachmentsTooLarge.
type manifestError struct {
	msg      string
	tooLarge bool
}

func (e *manifestError) Error() string { return e.msg }
func (e *manifestError) Is(target error) bool {
	return target == ErrManifest || e.tooLarge && target == ErrAttachmentsTooLarge
}

func manifestErr(format string, args ...any) error {
	return &manifestError{msg: fmt.Sprintf(format, args...)}
}

// ErrAttachmentsTooLarge (errors.Is) is the error of attachments beyond
// MaxAttachments or MaxAttachmentBytes; it is an ErrManifest too.
var ErrAttachmentsTooLarge = errors.New("attachments too large")

func tooLargeErr(format string, args ...any) error {
	return &manifestError{msg: fmt.Sprintf(format, args...), tooLarge: true}
}

// manifestPrefix starts every manifest line, after "[att:N]: ".
const manifestPrefix = "newsdesk:blob/sha256/"

// HashString is the blob's address as text: 64 lower-case hex digits.
func (a Attachment) HashString() string { return hex.EncodeToString(a.Hash[:]) }

// Chunks returns how many chunks the blob has.
func (a Attachment) Chunks() int { return ChunkCount(a.Size) }

// ChunkCount returns how many ChunkSize chunks a blob of size bytes has.
func ChunkCount(size int64) int {
	if size <= 0 {
		return 0
	}
	return int((size + ChunkSize - 1) / ChunkSize)
}

// ChunkLen returns the length of chunk i of a blob of size bytes, 0 for
// an index outside it.
func ChunkLen(size int64, i int) int {
	if i < 0 || i >= ChunkCount(size) {
		return 0
	}
	if i == ChunkCount(size)-1 {
		return int(size - int64(i)*ChunkSize)
	}
	return ChunkSize
}

// ChunkRoot returns the root of a list of chunk hashes: the SHA-256 of
// their concatenation.
func ChunkRoot(chunkHashes [][32]byte) [32]byte {
	h := sha256.New()
	for _, c := range chunkHashes {
		h.Write(c[:])
	}
	var root [32]byte
	h.Sum(root[:0])
	return root
}

// ParseHash parses a blob address: exactly 64 lower-case hex digits.
func ParseHash(s string) ([32]byte, error) {
	var h [32]byte
	if len(s) != 64 || strings.ToLower(s) != s {
		return h, manifestErr("blob hash %.80q: not 64 lower-case hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, manifestErr("blob hash %.80q: not 64 lower-case hex digits", s)
	}
	return h, nil
}

// BlobHasher computes what a manifest says of a blob while its bytes are
// written to it: the SHA-256, the chunk hashes and their root, the size.
type BlobHasher struct {
	whole  hash.Hash
	chunk  hash.Hash
	inCh   int // bytes of the current chunk so far
	size   int64
	chunks [][32]byte
}

// NewBlobHasher returns a hasher for one blob.
func NewBlobHasher() *BlobHasher {
	return &BlobHasher{whole: sha256.New(), chunk: sha256.New()}
}

// Write adds p to the blob; it never fails.
func (h *BlobHasher) Write(p []byte) (int, error) {
	n := len(p)
	h.whole.Write(p)
	h.size += int64(n)
	for len(p) > 0 {
		k := min(len(p), ChunkSize-h.inCh)
		h.chunk.Write(p[:k])
		h.inCh += k
		p = p[k:]
		if h.inCh == ChunkSize {
			h.endChunk()
		}
	}
	return n, nil
}

func (h *BlobHasher) endChunk() {
	var c [32]byte
	h.chunk.Sum(c[:0])
	h.chunks = append(h.chunks, c)
	h.chunk.Reset()
	h.inCh = 0
}

// Size returns the bytes written so far.
func (h *BlobHasher) Size() int64 { return h.size }

// Sum returns the blob's hash, root and chunk hashes, and its size. The
// hasher takes no more writes afterwards.
func (h *BlobHasher) Sum() (hash, root [32]byte, chunks [][32]byte, size int64) {
	if h.inCh > 0 {
		h.endChunk()
	}
	h.whole.Sum(hash[:0])
	return hash, ChunkRoot(h.chunks), h.chunks, h.size
}

// NewAttachment reads a blob to its end and returns its manifest entry,
// checked (CheckAttachment). A blob larger than MaxAttachmentBytes is
// refused without reading all of it.
func NewAttachment(r io.Reader, name, mediaType string) (Attachment, error) {
	h := NewBlobHasher()
	n, err := io.Copy(h, io.LimitReader(r, MaxAttachmentBytes+1))
	if err != nil {
		return Attachment{}, err
	}
	if n > MaxAttachmentBytes {
		return Attachment{}, tooLargeErr("%q is larger than %d bytes", name, MaxAttachmentBytes)
	}
	a := Attachment{Name: name, MediaType: mediaType}
	a.Hash, a.Root, _, a.Size = h.Sum()
	if err := CheckAttachment(a); err != nil {
		return Attachment{}, err
	}
	return a, nil
}

// CheckAttachment checks one manifest entry by itself: a size above 0
// and within MaxAttachmentBytes, a name of 1 to MaxAttachmentName bytes of
// valid UTF-8 without path separators or control characters (and not "."
// or ".."), and a syntactically valid media type in canonical form.
func CheckAttachment(a Attachment) error {
	if err := CheckAttachmentName(a.Name); err != nil {
		return err
	}
	if a.Size <= 0 {
		return manifestErr("%q is empty", a.Name)
	}
	if a.Size > MaxAttachmentBytes {
		return tooLargeErr("%q is %d bytes, at most %d allowed", a.Name, a.Size, MaxAttachmentBytes)
	}
	return CheckMediaType(a.MediaType)
}

// CheckAttachmentName checks an attachment's name (see CheckAttachment).
func CheckAttachmentName(name string) error {
	switch {
	case name == "":
		return manifestErr("a name is required")
	case len(name) > MaxAttachmentName:
		return manifestErr("name longer than %d bytes", MaxAttachmentName)
	case !utf8.ValidString(name):
		return manifestErr("name not valid UTF-8")
	case strings.ContainsAny(name, `/\`):
		return manifestErr("name %q holds a path separator", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return manifestErr("name %q holds a control character", name)
	case name == "." || name == "..":
		return manifestErr("name %q", name)
	}
	return nil
}

// CheckMediaType checks a media type: valid by mime.ParseMediaType and in
// the form mime.FormatMediaType writes ("image/png", "text/plain;
// charset=utf-8").
func CheckMediaType(mt string) error {
	if mt == "" || len(mt) > maxMediaType {
		return manifestErr("media type %.80q: required, at most %d bytes", mt, maxMediaType)
	}
	canon, err := CanonicalMediaType(mt)
	if err != nil {
		return err
	}
	if canon != mt {
		return manifestErr("media type %q is not canonical (%q)", mt, canon)
	}
	return nil
}

// CanonicalMediaType returns mt as mime.FormatMediaType writes it, or an
// error when it is not a media type.
func CanonicalMediaType(mt string) (string, error) {
	t, params, err := mime.ParseMediaType(mt)
	if err != nil || !strings.Contains(t, "/") {
		return "", manifestErr("media type %.80q: not valid", mt)
	}
	canon := mime.FormatMediaType(t, params)
	if canon == "" {
		return "", manifestErr("media type %.80q: not valid", mt)
	}
	return canon, nil
}

// CheckAttachments checks a whole manifest: each entry, at most
// MaxAttachments of them, at most MaxAttachmentBytes in all.
func CheckAttachments(atts []Attachment) error {
	if len(atts) > MaxAttachments {
		return tooLargeErr("%d attachments, at most %d allowed", len(atts), MaxAttachments)
	}
	var total int64
	for _, a := range atts {
		if err := CheckAttachment(a); err != nil {
			return err
		}
		total += a.Size
	}
	if total > MaxAttachmentBytes {
		return tooLargeErr("%d bytes in all, at most %d allowed", total, MaxAttachmentBytes)
	}
	return nil
}

// TotalSize returns the bytes of all the attachments.
func TotalSize(atts []Attachment) int64 {
	var n int64
	for _, a := range atts {
		n += a.Size
	}
	return n
}

// manifestLine writes the canonical line of attachment n (from 1).
func manifestLine(n int, a Attachment) string {
	var b strings.Builder
	b.Grow(200 + len(a.Name))
	b.WriteString("[att:")
	b.WriteString(strconv.Itoa(n))
	b.WriteString("]: ")
	b.WriteString(manifestPrefix)
	b.WriteString(hex.EncodeToString(a.Hash[:]))
	b.WriteString("?root=")
	b.WriteString(hex.EncodeToString(a.Root[:]))
	b.WriteString("&size=")
	b.WriteString(strconv.FormatInt(a.Size, 10))
	b.WriteString("&type=")
	b.WriteString(url.QueryEscape(a.MediaType))
	b.WriteString("&name=")
	b.WriteString(url.QueryEscape(a.Name))
	return b.String()
}

// AttachmentRef returns the reference of attachment n (from 1) that a
// body's image or link uses: "att:N".
func AttachmentRef(n int) string { return "att:" + strconv.Itoa(n) }

// AppendManifest returns body with the manifest of atts at its end: a
// blank line, then one line per attachment. With no attachments it
// returns body unchanged. SplitManifest undoes it.
func AppendManifest(body string, atts []Attachment) string {
	if len(atts) == 0 {
		return body
	}
	var b strings.Builder
	b.WriteString(body)
	b.WriteString("\n")
	for i, a := range atts {
		b.WriteString("\n")
		b.WriteString(manifestLine(i+1, a))
	}
	return b.String()
}

// parseManifestLine parses a line that must be the canonical line of
// attachment n.
func parseManifestLine(n int, line string) (Attachment, error) {
	var a Attachment
	head := "[att:" + strconv.Itoa(n) + "]: " + manifestPrefix
	rest, ok := strings.CutPrefix(line, head)
	if !ok {
		return a, manifestErr("line %d of the manifest is not [att:%d]: %s…", n, n, manifestPrefix)
	}
	hashHex, query, ok := strings.Cut(rest, "?")
	if !ok {
		return a, manifestErr("[att:%d]: no parameters", n)
	}
	var err error
	if a.Hash, err = ParseHash(hashHex); err != nil {
		return a, err
	}
	var fields [4]string
	for i, key := range [...]string{"root=", "size=", "type=", "name="} {
		if i > 0 {
			var ok bool
			if query, ok = strings.CutPrefix(query, "&"); !ok {
				return a, manifestErr("[att:%d]: parameters not root, size, type, name", n)
			}
		}
		var ok bool
		if query, ok = strings.CutPrefix(query, key); !ok {
			return a, manifestErr("[att:%d]: parameters not root, size, type, name", n)
		}
		end := strings.IndexByte(query, '&')
		if end < 0 {
			end = len(query)
		}
		fields[i], query = query[:end], query[end:]
	}
	if query != "" {
		return a, manifestErr("[att:%d]: parameters not root, size, type, name", n)
	}
	if a.Root, err = ParseHash(fields[0]); err != nil {
		return a, err
	}
	if a.Size, err = strconv.ParseInt(fields[1], 10, 64); err != nil {
		return a, manifestErr("[att:%d]: size %.30q", n, fields[1])
	}
	if a.MediaType, err = url.QueryUnescape(fields[2]); err != nil {
		return a, manifestErr("[att:%d]: type: %v", n, err)
	}
	if a.Name, err = url.QueryUnescape(fields[3]); err != nil {
		return a, manifestErr("[att:%d]: name: %v", n, err)
	}
	if err := CheckAttachment(a); err != nil {
		return a, err
	}
	if manifestLine(n, a) != line {
		return a, manifestErr("[att:%d]: not in canonical form", n)
	}
	return a, nil
}

// SplitManifest splits a body into its text and its manifest. The
// trailing block (after the last blank line) is the manifest when any of
// its lines starts with "[att:"; it must then consist of canonical lines
// numbered 1, 2, … and nothing else, or the body is malformed
// (ErrManifest). A body without one is all text, with no attachments.
//
// The text is checked too: no reference definition of an att: label
// outside the manifest, and no reference [att:N] to an attachment the
// manifest does not hold.
func SplitManifest(body string) (text string, atts []Attachment, err error) {
	text = body
	if i := strings.LastIndex(body, "\n\n"); i >= 0 {
		block := body[i+2:]
		if hasAttLine(block) {
			lines := strings.Split(block, "\n")
			if len(lines) > MaxAttachments {
				return "", nil, tooLargeErr("%d attachments, at most %d allowed", len(lines), MaxAttachments)
			}
			for n, line := range lines {
				a, err := parseManifestLine(n+1, line)
				if err != nil {
					return "", nil, err
				}
				atts = append(atts, a)
			}
			if err := CheckAttachments(atts); err != nil {
				return "", nil, err
			}
			text = body[:i]
		}
	}
	if err := checkRefs(text, len(atts)); err != nil {
		return "", nil, err
	}
	return text, atts, nil
}

// hasAttLine reports whether a line of block starts with "[att:".
func hasAttLine(block string) bool {
	for line := range strings.Lines(block) {
		if strings.HasPrefix(line, "[att:") {
			return true
		}
	}
	return false
}

// checkRefs refuses, in text, a reference definition of an att: label
// (Markdown allows up to three spaces before one, and labels match
// without regard to case), and a reference [att:N] with N outside 1..n.
func checkRefs(text string, n int) error {
	for line := range strings.Lines(text) {
		l := strings.TrimLeft(line, " ")
		if len(line)-len(l) <= 3 && len(l) >= 5 && strings.EqualFold(l[:5], "[att:") {
			if end := strings.Index(l, "]:"); end > 0 && isDigits(l[5:end]) {
				return manifestErr("a definition of %s outside the manifest", l[1:end])
			}
		}
	}
	for rest := text; ; {
		i := strings.Index(rest, "[att:")
		if i < 0 {
			return nil
		}
		rest = rest[i+5:]
		end := strings.IndexByte(rest, ']')
		if end <= 0 || !isDigits(rest[:end]) {
			continue
		}
		k, err := strconv.Atoi(rest[:end])
		if err != nil || k < 1 || k > n {
			return manifestErr("the text refers to [att:%.12s], which the item does not carry (it has %d)", rest[:end], n)
		}
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Attachments returns the item's manifest (nil for none). An item that
// passed Validate has a well-formed one; of one that did not, it returns
// nil.
func (it *Item) Attachments() []Attachment {
	if !mayReferAttachments(it.Body) {
		return nil
	}
	_, atts, err := SplitManifest(it.Body)
	if err != nil {
		return nil
	}
	return atts
}

// Text returns the item's body without its manifest: what readers,
// notifications and search see.
func (it *Item) Text() string {
	if !mayReferAttachments(it.Body) {
		return it.Body
	}
	text, _, err := SplitManifest(it.Body)
	if err != nil {
		return it.Body
	}
	return text
}

// mayReferAttachments reports whether body holds "[att:" in any case: only
// such a body can have a manifest or refer to one.
func mayReferAttachments(body string) bool {
	for rest := body; ; {
		i := strings.IndexByte(rest, '[')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
		if len(rest) >= 4 && strings.EqualFold(rest[:4], "att:") {
			return true
		}
	}
}
