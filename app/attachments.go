package app

import (
	"io"
)

// The attachment views (issue 29): what Compose hands over with a draft,
// and what the reader is told about an item's pictures and files. The
// bytes themselves are blobs in the store, addressed by their SHA-256;
// the signed item carries their manifest (news.Attachment), so the
// publisher's signature covers every byte.

// DraftAttachment is a file a publisher attaches to a draft. The draft's
// body shows an image inline with a Markdown reference to it,
// ![alt text][att:N], where N counts Draft.Attachments from 1; a file no
// reference names is listed beside the text.
type DraftAttachment struct {
	// Name is the file name readers see and save under, without
	// directories.
	Name string
	// MediaType is e.g. "image/jpeg"; "" lets Publish detect it from the
	// content.
	MediaType string
	// Data is the file's content, already scaled when it is a photo.
	Data []byte
}

// BlobState says whether an attachment can be shown or saved here.
type BlobState int

const (
	// BlobWhole: every byte is here and verified against the manifest.
	BlobWhole BlobState = iota
	// BlobArriving: chunks are on their way; Attachment.Received says how
	// far.
	BlobArriving
	// BlobMissing: the attachment is not here and no transfer is under
	// way: not yet asked for, or counted lost when it could not be
	// recovered.
	BlobMissing
)

// Attachment is one of an item's attachments as a reader sees it.
type Attachment struct {
	// Ref is the reference the body's images use: "att:1", "att:2", …
	Ref string
	// Hash is the blob's address: the SHA-256 of its bytes, in lower-case
	// hex.
	Hash      string
	Name      string
	MediaType string
	Size      int64
	State     BlobState
	// Received counts the verified bytes while the blob is arriving.
	Received int64
}

// IsImage reports whether the attachment is a picture the reader can show
// inline.
func (a Attachment) IsImage() bool {
	switch a.MediaType {
	case "image/jpeg", "image/png", "image/gif":
		return true
	}
	return false
}

// BlobOpener opens a whole, verified blob for reading: App.OpenBlob;
// ErrNotFound when this installation does not hold it whole.
type BlobOpener interface {
	OpenBlob(hash string) (io.ReadSeekCloser, error)
}
