package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"newsdesk/news"
	"newsdesk/storage"
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
	// Lost: the blob is missing because the network could not deliver it
	// (counted in the status's lost); FetchBlob may still try again.
	Lost bool
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

// ErrTooLarge: a draft's attachments are beyond the limits of one item
// (news.MaxAttachments files, news.MaxAttachmentBytes in all). The error
// wraps it with the detail Compose shows; the control API answers 413.
var ErrTooLarge = errors.New("attachments too large")

// PrepareAttachments checks a draft's attachments against the limits and
// the manifest's rules (names, media types), detects the media type of
// each given none (http.DetectContentType), and returns body with their
// manifest at its end (news.AppendManifest). Nothing is stored. A breach
// of a limit is an ErrTooLarge; another refusal a news.ErrManifest (a
// *news.FieldError of the attachments field when the text refers to an
// attachment the draft lacks).
func PrepareAttachments(body string, das []DraftAttachment) (string, []news.Attachment, error) {
	if len(das) == 0 {
		return body, nil, nil
	}
	if len(das) > news.MaxAttachments {
		return "", nil, fmt.Errorf("%w: %d attachments, at most %d allowed", ErrTooLarge, len(das), news.MaxAttachments)
	}
	var total int64
	for _, d := range das {
		total += int64(len(d.Data))
	}
	if total > news.MaxAttachmentBytes {
		return "", nil, fmt.Errorf("%w: %s in all, at most %s allowed", ErrTooLarge, formatMiB(total), formatMiB(news.MaxAttachmentBytes))
	}
	atts := make([]news.Attachment, len(das))
	for i, d := range das {
		mt := d.MediaType
		if mt == "" {
			mt = http.DetectContentType(d.Data)
		}
		canon, err := news.CanonicalMediaType(mt)
		if err != nil {
			return "", nil, fmt.Errorf("attachment %q: %w", d.Name, err)
		}
		if atts[i], err = news.NewAttachment(bytes.NewReader(d.Data), d.Name, canon); err != nil {
			return "", nil, fmt.Errorf("attachment %q: %w", d.Name, err)
		}
	}
	full := news.AppendManifest(body, atts)
	if _, _, err := news.SplitManifest(full); err != nil {
		if errors.Is(err, news.ErrAttachmentsTooLarge) {
			return "", nil, fmt.Errorf("%w: %w", ErrTooLarge, err)
		}
		return "", nil, &news.FieldError{Field: news.FieldAttachments, Rule: news.RuleInvalidManifest, Err: err}
	}
	return full, atts, nil
}

func formatMiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// storeAttachments stores the blobs of a draft's attachments, as
// PrepareAttachments described them. Until the item is stored they are
// entries of the relay cache; if the publication fails they are evicted in
// time like any other.
func (a *App) storeAttachments(das []DraftAttachment, atts []news.Attachment) error {
	for i, d := range das {
		got, err := a.store.PutBlob(bytes.NewReader(d.Data), atts[i].Name, atts[i].MediaType)
		if err != nil {
			return fmt.Errorf("attachment %q: %w", d.Name, err)
		}
		if got.Hash != atts[i].Hash || got.Root != atts[i].Root {
			return fmt.Errorf("attachment %q changed while it was stored", d.Name)
		}
	}
	return nil
}

// StoreAttachments stores the blobs of attachments PrepareAttachments
// described, for a publisher outside Publish (the control API) that puts
// the prepared body into its item before PublishItem.
func (a *App) StoreAttachments(das []DraftAttachment, atts []news.Attachment) error {
	return a.storeAttachments(das, atts)
}

// AttachmentsOf describes an item's attachments with whether each is here,
// as Entry.Attachments does.
func (a *App) AttachmentsOf(it *news.Item) []Attachment { return a.attachmentViews(it) }

// attachmentViews describes an item's attachments with whether each is
// here.
func (a *App) attachmentViews(it *news.Item) []Attachment {
	atts := it.Attachments()
	if len(atts) == 0 {
		return nil
	}
	out := make([]Attachment, len(atts))
	for i, m := range atts {
		out[i] = Attachment{Ref: news.AttachmentRef(i + 1), Hash: m.HashString(), Name: m.Name,
			MediaType: m.MediaType, Size: m.Size, State: BlobMissing}
		switch received, _, err := a.store.BlobReceived(m.Hash); {
		case err != nil:
		case a.store.HasBlob(m.Hash):
			out[i].State, out[i].Received = BlobWhole, m.Size
		case received > 0 && !a.store.BlobLost(m.Hash):
			out[i].State, out[i].Received = BlobArriving, received
		}
		out[i].Lost = out[i].State == BlobMissing && a.store.BlobLost(m.Hash)
	}
	return out
}

// OpenBlob opens a whole, verified blob by its hash (64 lower-case hex
// digits); ErrNotFound when this installation does not hold it whole.
func (a *App) OpenBlob(hash string) (io.ReadSeekCloser, error) {
	h, err := news.ParseHash(hash)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	f, err := a.store.OpenBlob(h)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// BlobInfo describes a blob as the manifest of a stored item that carries
// it names it (its name, media type and size), with its state. A blob no
// item here names (one this servant relays) has no name and the media type
// application/octet-stream. ErrNotFound for a hash that is not one.
func (a *App) BlobInfo(hash string) (Attachment, error) {
	h, err := news.ParseHash(hash)
	if err != nil {
		return Attachment{}, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	ids, err := a.store.BlobItems(h)
	if err != nil {
		return Attachment{}, err
	}
	for _, id := range ids {
		e, err := a.store.Get(id)
		if err != nil {
			continue
		}
		for _, v := range a.attachmentViews(e.Item) {
			if v.Hash == hash {
				v.Ref = ""
				return v, nil
			}
		}
	}
	info := Attachment{Hash: hash, MediaType: "application/octet-stream", State: BlobMissing}
	if received, size, err := a.store.BlobReceived(h); err == nil && size > 0 {
		info.Size, info.Received = size, received
		switch {
		case a.store.HasBlob(h):
			info.State = BlobWhole
		case received > 0:
			info.State = BlobArriving
		}
	}
	return info, nil
}

// BlobsLost returns how many blobs could not be recovered (storage
// MarkBlobLost), across runs.
func (a *App) BlobsLost() uint64 {
	n, err := a.store.BlobsLost()
	if err != nil && !errors.Is(err, storage.ErrClosed) {
		a.log.Warn("reading the count of lost blobs failed", "err", err)
	}
	return n
}

// textOnly returns the item as the UI sees it: the body without its
// manifest (news.Item.Text). The stored, signed item keeps it; a shallow
// copy is changed, never the item itself.
func textOnly(it *news.Item) *news.Item {
	if it == nil || !strings.Contains(it.Body, "[att:") {
		return it
	}
	text := it.Text()
	if text == it.Body {
		return it
	}
	c := *it
	c.Body = text
	return &c
}
