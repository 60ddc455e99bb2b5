package cli

// Attachments on the control API (issue 29):
//
//	POST /v1/publish       as multipart/form-data: the JSON form's fields as form fields
//	                       (category, title, body, expires, at, urgent, mustRead, audience —
//	                       one part per range) and one file part named "attachment" per file;
//	                       or JSON with "attachments":[{"name","mediaType","data"}], data in
//	                       base64, at most maxJSONAttachmentBytes each. 413 {"error":"tooLarge"}
//	                       beyond an item's limits.
//	GET  /v1/blobs/<hash>  a whole, verified blob (hash: 64 lower-case hex digits), with its
//	                       media type, length and name; ranges; 404 when not held whole.

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"newsdesk/app"
	"newsdesk/news"
)

const (
	blobsPath = "/v1/blobs"
	// maxJSONAttachmentBytes bounds one attachment given in base64 in the
	// JSON form: small files; larger ones go as multipart/form-data.
	maxJSONAttachmentBytes = 1 << 20
	// maxJSONPublishBytes bounds a JSON publish request with attachments:
	// a few small ones in base64 (4/3 of their size) beside the text.
	maxJSONPublishBytes = 8 << 20
	// maxMultipartBytes bounds a multipart publish request: the
	// attachments of an item at their largest, with room for the fields
	// and the parts' headers.
	maxMultipartBytes = news.MaxAttachmentBytes + 2<<20
	// maxFormFieldBytes bounds one form field of a multipart publish (the
	// body is the largest).
	maxFormFieldBytes = maxRequestBytes
)

// attachmentJSON is an attachment in the JSON publish form.
type attachmentJSON struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType,omitempty"` // "" detects it from the content
	Data      []byte `json:"data"`                // base64
}

// itemAttachmentJSON is an attachment as /v1/items lists it.
type itemAttachmentJSON struct {
	Hash      string `json:"hash"` // SHA-256 of the bytes, lower-case hex: GET /v1/blobs/<hash>
	Name      string `json:"name"`
	Size      int64  `json:"size"`
	MediaType string `json:"mediaType"`
	State     string `json:"state"` // "whole", "arriving" or "missing"
	// Received counts the bytes here while it is arriving.
	Received int64 `json:"received,omitempty"`
}

func blobStateName(s app.BlobState) string {
	switch s {
	case app.BlobWhole:
		return "whole"
	case app.BlobArriving:
		return "arriving"
	}
	return "missing"
}

func itemAttachments(atts []app.Attachment) []itemAttachmentJSON {
	if len(atts) == 0 {
		return nil
	}
	out := make([]itemAttachmentJSON, len(atts))
	for i, a := range atts {
		out[i] = itemAttachmentJSON{Hash: a.Hash, Name: a.Name, Size: a.Size, MediaType: a.MediaType, State: blobStateName(a.State)}
		if a.State == app.BlobArriving {
			out[i].Received = a.Received
		}
	}
	return out
}

// isMultipart reports whether a request's body is multipart/form-data.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// errRequestTooLarge is a request body beyond its bound: 413.
type errRequestTooLarge struct{ limit int64 }

func (e errRequestTooLarge) Error() string {
	return fmt.Sprintf("request body larger than %d bytes", e.limit)
}

// readMultipartPublish reads a multipart publish request: the form fields
// into req, as the JSON form names them, each at most once (audience once
// per range), and the file parts named "attachment". Another part is an
// error, as an unknown JSON key is.
func readMultipartPublish(w http.ResponseWriter, r *http.Request, req *publishRequest) ([]app.DraftAttachment, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxMultipartBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, fmt.Errorf("multipart form: %v", err)
	}
	var atts []app.DraftAttachment
	var total int64
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, multipartError(err)
		}
		name := part.FormName()
		if name == "attachment" {
			if len(atts) == news.MaxAttachments {
				return nil, fmt.Errorf("%w: more than %d attachments", app.ErrTooLarge, news.MaxAttachments)
			}
			data, err := io.ReadAll(io.LimitReader(part, news.MaxAttachmentBytes-total+1))
			if err != nil {
				return nil, multipartError(err)
			}
			total += int64(len(data))
			if total > news.MaxAttachmentBytes {
				return nil, fmt.Errorf("%w: attachments of more than %d bytes in all", app.ErrTooLarge, news.MaxAttachmentBytes)
			}
			mt := part.Header.Get("Content-Type")
			if mt == "application/octet-stream" {
				mt = "" // what clients send when they do not know: detect it
			}
			atts = append(atts, app.DraftAttachment{Name: part.FileName(), MediaType: mt, Data: data})
			continue
		}
		if part.FileName() != "" {
			return nil, fmt.Errorf("form: a file in field %q; files go in fields named \"attachment\"", name)
		}
		b, err := io.ReadAll(io.LimitReader(part, maxFormFieldBytes+1))
		if err != nil {
			return nil, multipartError(err)
		}
		if len(b) > maxFormFieldBytes {
			return nil, fmt.Errorf("form field %q: longer than %d bytes", name, maxFormFieldBytes)
		}
		v := string(b)
		if name != "audience" && seen[name] {
			return nil, fmt.Errorf("form field %q given twice", name)
		}
		seen[name] = true
		switch name {
		case "category":
			req.Category = v
		case "title":
			req.Title = v
		case "body":
			req.Body = v
		case "expires":
			req.Expires = v
		case "at":
			req.At = v
		case "urgent", "mustRead":
			flag := v == "true"
			if v != "true" && v != "false" {
				return nil, fmt.Errorf("form field %q: %q, want true or false", name, v)
			}
			if name == "urgent" {
				req.Urgent = flag
			} else {
				req.MustRead = flag
			}
		case "audience":
			if req.Audience == nil {
				req.Audience = &[]string{}
			}
			*req.Audience = append(*req.Audience, v)
		default:
			return nil, fmt.Errorf("form: unknown field %q", name)
		}
	}
	return atts, nil
}

func multipartError(err error) error {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return errRequestTooLarge{mbe.Limit}
	}
	return fmt.Errorf("multipart form: %v", err)
}

// jsonAttachments converts the JSON form's attachments, each at most
// maxJSONAttachmentBytes.
func jsonAttachments(in []attachmentJSON) ([]app.DraftAttachment, error) {
	out := make([]app.DraftAttachment, len(in))
	for i, a := range in {
		if len(a.Data) > maxJSONAttachmentBytes {
			return nil, fmt.Errorf("%w: attachment %q is %d bytes; in JSON at most %d each (send larger ones as multipart/form-data)",
				app.ErrTooLarge, a.Name, len(a.Data), maxJSONAttachmentBytes)
		}
		out[i] = app.DraftAttachment{Name: a.Name, MediaType: a.MediaType, Data: a.Data}
	}
	return out, nil
}

// blob serves GET /v1/blobs/<hash>: a whole blob this servant holds, as
// the manifest of an item that carries it describes it. It is sent as a
// download (Content-Disposition: attachment), never rendered in the API's
// origin: an HTML file from the network shown there could call the API.
func (c *control) blob(w http.ResponseWriter, r *http.Request) {
	hash := strings.TrimPrefix(r.URL.Path, blobsPath+"/")
	if _, err := news.ParseHash(hash); err != nil {
		writeError(w, http.StatusBadRequest, "blob: not a SHA-256 in 64 lower-case hex digits")
		return
	}
	info, err := c.a.BlobInfo(hash)
	if err != nil && !errors.Is(err, app.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	f, err := c.a.OpenBlob(hash)
	if errors.Is(err, app.ErrNotFound) {
		writeError(w, http.StatusNotFound, "blob "+hash+": not held whole here")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", info.MediaType)
	disp := "attachment"
	if info.Name != "" {
		if d := mime.FormatMediaType("attachment", map[string]string{"filename": info.Name}); d != "" {
			disp = d
		}
	}
	h.Set("Content-Disposition", disp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", "private, max-age=31536000, immutable") // content-addressed: it never changes
	h.Set("ETag", `"`+hash+`"`)
	http.ServeContent(w, r, "", time.Time{}, f)
}
