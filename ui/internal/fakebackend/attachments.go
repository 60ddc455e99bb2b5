package fakebackend

import (
	"crypto/sha256"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/newsnet"
)

// Attachments (issue 29) are the application's: a publication's blobs are
// stored whole by Publish; a received item's come later, as the network's
// transfer brings them chunk by chunk. What the network brings is what a
// test has the servant hand to the application: chunks into its blob
// keeper (node.Config.Blobs), and progress, done or lost to its
// node.Config.OnBlob (Transfer, TransferPart, LoseBlob).

// AddAttached stores it as received earlier (Add) with the attachments
// das: its body gets their manifest (app.PrepareAttachments), as its
// publisher's application gave it. Their blobs are not here until a
// transfer brings them.
func (b *Backend) AddAttached(it *news.Item, das ...app.DraftAttachment) {
	b.t.Helper()
	body, _, err := app.PrepareAttachments(it.Body, das)
	if err != nil {
		b.t.Fatal(err)
	}
	it.Body = body
	b.Add(it)
}

// Transfer has the servant bring data, a blob an item here attaches,
// whole.
func (b *Backend) Transfer(data []byte) { b.TransferPart(data, news.ChunkCount(int64(len(data)))) }

// TransferPart has the servant bring the first chunks (news.ChunkSize) of
// data, and say how far it came, or that it is whole.
func (b *Backend) TransferPart(data []byte, chunks int) {
	b.t.Helper()
	if err := b.servant().transfer(data, chunks); err != nil {
		b.t.Fatalf("transferring a blob: %v", err)
	}
}

// LoseBlob has the servant give up on data: no servant could deliver it.
func (b *Backend) LoseBlob(data []byte) {
	b.servant().blobEvent(newsnet.BlobLost{Hash: sha256.Sum256(data), Total: 1})
}

// Fetched returns the hashes the application asked the servant to fetch,
// in order.
func (b *Backend) Fetched() []string { return b.servant().fetchedBlobs() }
