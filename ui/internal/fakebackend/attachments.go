package fakebackend

import (
	"context"
	"fmt"
	"io"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// Attachments (issue 29) are the application's: a draft's blobs are
// stored whole when it is published, a received item's by AddAttached
// (app.App.StoreAttachments, as a blob that came whole). What the
// network has not brought yet is what a test presets: SetBlobState makes
// a blob arriving or missing in what the reader is shown and opens, as the
// servant's transfer would, which chunk by chunk has no place in a test
// of the window.

type blobState struct {
	state    app.BlobState
	received int64
}

// AddAttached stores it as received earlier (Add) with the attachments,
// whole: its body gets their manifest (app.PrepareAttachments), as its
// publisher's application gave it.
func (b *Backend) AddAttached(it *news.Item, das ...app.DraftAttachment) {
	b.t.Helper()
	body, atts, err := app.PrepareAttachments(it.Body, das)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := b.App.StoreAttachments(das, atts); err != nil {
		b.t.Fatal(err)
	}
	it.Body = body
	b.Add(it)
}

// SetBlobState makes the blob of hash arriving (received bytes of it so
// far), missing, or whole again (as stored).
func (b *Backend) SetBlobState(hash string, state app.BlobState, received int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.blobs == nil {
		b.blobs = map[string]blobState{}
	}
	if state == app.BlobWhole {
		delete(b.blobs, hash)
		return
	}
	b.blobs[hash] = blobState{state, received}
}

// withStates shows the attachments of es in the states SetBlobState set.
func (b *Backend) withStates(es []app.Entry) []app.Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range es {
		for j, a := range es[i].Attachments {
			if st, ok := b.blobs[a.Hash]; ok {
				es[i].Attachments[j].State, es[i].Attachments[j].Received = st.state, st.received
			}
		}
	}
	return es
}

// Newest is the application's, with the blob states SetBlobState set.
func (b *Backend) Newest(cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	es, next, err := b.App.Newest(cats, n, cur)
	return b.withStates(es), next, err
}

// Search is the application's, with the blob states SetBlobState set.
func (b *Backend) Search(ctx context.Context, query string, cats []string, n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	es, next, err := b.App.Search(ctx, query, cats, n, cur)
	return b.withStates(es), next, err
}

// MyPosts is the application's, with the blob states SetBlobState set.
func (b *Backend) MyPosts(n int, cur app.Cursor) ([]app.Entry, app.Cursor, error) {
	es, next, err := b.App.MyPosts(n, cur)
	return b.withStates(es), next, err
}

// Item is the application's, with the blob states SetBlobState set.
func (b *Backend) Item(id uuid.UUID) (app.Entry, error) {
	e, err := b.App.Item(id)
	if err != nil {
		return e, err
	}
	return b.withStates([]app.Entry{e})[0], nil
}

// BlobOpens counts the OpenBlob calls.
func (b *Backend) BlobOpens() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opens
}

// OpenBlob opens a whole blob as the application does; one a test made
// arriving or missing is app.ErrNotFound.
func (b *Backend) OpenBlob(hash string) (io.ReadSeekCloser, error) {
	b.mu.Lock()
	b.opens++
	_, notWhole := b.blobs[hash]
	b.mu.Unlock()
	if notWhole {
		return nil, fmt.Errorf("blob %s: %w", hash, app.ErrNotFound)
	}
	return b.App.OpenBlob(hash)
}

// Fetched returns the hashes the application asked the servant to fetch,
// in order.
func (b *Backend) Fetched() []string { return b.servant().fetchedBlobs() }
