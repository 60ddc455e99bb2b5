package app

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"newsdesk/news"
)

// TestPublishAttachments: a draft's attachments become blobs and a
// manifest at the end of the signed body; the UI's entries show the text
// without the manifest and each attachment, whole, which OpenBlob reads;
// the media type is detected when the draft gives none.
func TestPublishAttachments(t *testing.T) {
	a := openApp(t, Options{})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100<<10)...)
	d := Draft{Category: "it", Title: "The new office", Body: "Here it is: ![the office][att:1]",
		Attachments: []DraftAttachment{{Name: "office.png", Data: png}, {Name: "plan.txt", MediaType: "text/plain", Data: []byte("floor plan")}}}
	res, err := a.Publish(d)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := a.store.Get(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if atts := stored.Item.Attachments(); len(atts) != 2 || !strings.HasPrefix(stored.Item.Body, d.Body+"\n\n[att:1]: newsdesk:blob/sha256/") {
		t.Fatalf("stored body %q", stored.Item.Body)
	}
	e, err := a.Item(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Item.Body != d.Body {
		t.Errorf("the UI sees the body %q, want it without the manifest", e.Item.Body)
	}
	if len(e.Attachments) != 2 {
		t.Fatalf("Entry.Attachments = %+v", e.Attachments)
	}
	img, txt := e.Attachments[0], e.Attachments[1]
	if img.Ref != "att:1" || img.MediaType != "image/png" || !img.IsImage() || img.State != BlobWhole || img.Size != int64(len(png)) || img.Received != img.Size {
		t.Errorf("image attachment %+v", img)
	}
	if txt.Ref != "att:2" || txt.MediaType != "text/plain" || txt.Name != "plan.txt" || txt.State != BlobWhole {
		t.Errorf("text attachment %+v", txt)
	}
	f, err := a.OpenBlob(img.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, png) {
		t.Error("OpenBlob read other bytes")
	}
	if info, err := a.BlobInfo(txt.Hash); err != nil || info.Name != "plan.txt" || info.State != BlobWhole {
		t.Errorf("BlobInfo = %+v, %v", info, err)
	}
	list, _, err := a.Newest(nil, 10, "")
	if err != nil || len(list) == 0 || len(list[0].Attachments) != 2 || list[0].Item.Body != d.Body {
		t.Errorf("Newest: %+v, %v", list, err)
	}
	if _, err := a.OpenBlob(strings.Repeat("0", 64)); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenBlob of a blob not here: %v", err)
	}
	if _, err := a.OpenBlob("nothex"); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenBlob of a bad hash: %v", err)
	}
}

// TestPublishAttachmentLimits: beyond the limits of an item a draft is an
// ErrTooLarge with the detail, and nothing is stored; a bad name or a
// reference to an attachment the draft lacks is refused too.
func TestPublishAttachmentLimits(t *testing.T) {
	a := openApp(t, Options{})
	big := make([]byte, news.MaxAttachmentBytes/2+1)
	_, err := a.Publish(Draft{Category: "it", Title: "t", Attachments: []DraftAttachment{{Name: "a", Data: big}, {Name: "b", Data: big}}})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at most 20.0 MiB") {
		t.Fatalf("over 20 MiB: %v", err)
	}
	var many []DraftAttachment
	for range news.MaxAttachments + 1 {
		many = append(many, DraftAttachment{Name: "x.txt", Data: []byte("x")})
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "t", Attachments: many}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%d attachments: %v", len(many), err)
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "t", Attachments: []DraftAttachment{{Name: "../x", Data: []byte("x")}}}); !errors.Is(err, news.ErrManifest) {
		t.Fatalf("a path as a name: %v", err)
	}
	var fe *news.FieldError
	if _, err := a.Publish(Draft{Category: "it", Title: "t", Body: "![x][att:2]", Attachments: []DraftAttachment{{Name: "x", Data: []byte("x")}}}); !errors.As(err, &fe) || fe.Field != news.FieldAttachments {
		t.Fatalf("a reference beyond the attachments: %v", err)
	}
	if n, _ := a.store.BlobCacheBytes(); n != 0 {
		t.Fatalf("refused drafts left %d bytes of blobs", n)
	}
}
