package fakebackend

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// Attachments (issue 29): the fake keeps the blobs of the drafts it
// publishes, and of items a test gives them, in memory, whole unless a
// test says otherwise (SetBlobState). An item's body ends with the
// manifest the application appends, so that the reader's hiding of it is
// exercised; Entry.Attachments is computed from what was given, not read
// back from the manifest.

// attachmentsLocked returns the reader's view of the item's attachments
// (m.mu held).
func (m *Backend) attachmentsLocked(id uuid.UUID) []app.Attachment {
	atts := slices.Clone(m.atts[id])
	for i := range atts {
		if st, ok := m.blobStates[atts[i].Hash]; ok {
			atts[i].State, atts[i].Received = st.state, st.received
		}
	}
	return atts
}

type blobState struct {
	state    app.BlobState
	received int64
}

// storeAttachmentsLocked keeps the draft's attachments of item id and
// returns the manifest to append to its body ("" for none).
func (m *Backend) storeAttachmentsLocked(id uuid.UUID, draft []app.DraftAttachment) string {
	if len(draft) == 0 {
		return ""
	}
	if m.blobs == nil {
		m.blobs = map[string][]byte{}
	}
	var manifest strings.Builder
	manifest.WriteString("\n\n")
	var atts []app.Attachment
	for i, d := range draft {
		sum := sha256.Sum256(d.Data)
		hash := hex.EncodeToString(sum[:])
		mt := d.MediaType
		if mt == "" {
			mt, _, _ = strings.Cut(http.DetectContentType(d.Data), ";")
		}
		m.blobs[hash] = bytes.Clone(d.Data)
		a := app.Attachment{Ref: fmt.Sprintf("att:%d", i+1), Hash: hash, Name: d.Name, MediaType: mt, Size: int64(len(d.Data))}
		atts = append(atts, a)
		fmt.Fprintf(&manifest, "[%s]: newsdesk:blob/sha256/%s?root=%s&size=%d&type=%s&name=%s\n",
			a.Ref, hash, hash, a.Size, url.QueryEscape(mt), url.QueryEscape(d.Name))
	}
	m.atts[id] = atts
	return strings.TrimSuffix(manifest.String(), "\n")
}

// PresetAttachments gives the stored item id the attachments, whole, and
// appends their manifest to its body, as if it had been published so.
func (m *Backend) PresetAttachments(id uuid.UUID, draft ...app.DraftAttachment) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it := m.byID[id]
	if it == nil {
		panic("PresetAttachments: no item " + id.String())
	}
	it.Body += m.storeAttachmentsLocked(id, draft)
}

// SetBlobState makes the blob of hash arriving (received bytes of it so
// far), missing or whole again; OpenBlob serves whole blobs only.
func (m *Backend) SetBlobState(hash string, state app.BlobState, received int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.blobStates == nil {
		m.blobStates = map[string]blobState{}
	}
	m.blobStates[hash] = blobState{state, received}
}

// Attachments returns the attachments of item id as the reader sees them.
func (m *Backend) Attachments(id uuid.UUID) []app.Attachment {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.attachmentsLocked(id)
}

// BlobOpens counts the OpenBlob calls.
func (m *Backend) BlobOpens() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.blobOpens
}

// OpenBlob opens a whole blob (app.BlobOpener); app.ErrNotFound for one
// not held or not whole.
func (m *Backend) OpenBlob(hash string) (io.ReadSeekCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobOpens++
	data, ok := m.blobs[hash]
	if st, set := m.blobStates[hash]; !ok || set && st.state != app.BlobWhole {
		return nil, fmt.Errorf("blob %s: %w", hash, app.ErrNotFound)
	}
	return nopCloser{bytes.NewReader(data)}, nil
}

// FetchBlob records that the reader asked for a blob (ui.BlobFetcher);
// Fetched lists the hashes asked for. The state stays as set: a test
// moves it on with SetBlobState.
func (m *Backend) FetchBlob(hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[hash]; !ok {
		return fmt.Errorf("blob %s: %w", hash, app.ErrNotFound)
	}
	m.fetched = append(m.fetched, hash)
	return nil
}

// Fetched returns the hashes FetchBlob was asked for, in order.
func (m *Backend) Fetched() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.fetched)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

var _ app.BlobOpener = (*Backend)(nil)

// ManifestFree is a published item's body before its manifest (tests
// compare the text a publisher wrote).
func ManifestFree(it *news.Item) string {
	body, _, _ := strings.Cut(it.Body, "\n\n[att:1]: newsdesk:")
	return body
}
