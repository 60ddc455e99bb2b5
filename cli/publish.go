package cli

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/trust"
)

// Limits of the publish request.
const (
	maxTitleRunes   = news.MaxTitleRunes
	maxBodyBytes    = news.MaxBodyBytes
	maxRequestBytes = 1 << 20 // a 64 KiB body may grow sixfold in JSON escapes
)

type publishRequest struct {
	Category string `json:"category"`
	Title    string `json:"title"`
	Body     string `json:"body"`
	Expires  string `json:"expires,omitempty"` // RFC 3339; after now: hidden everywhere from then on
	At       string `json:"at,omitempty"`      // RFC 3339; published then, not now (scheduled.go)

	// Urgent notifies every reader, muted or not, and opens in front of
	// everything; MustRead asks readers to confirm (POST /v1/ack).
	Urgent   bool `json:"urgent,omitempty"`
	MustRead bool `json:"mustRead,omitempty"`

	// Audience limits the item to servants whose advertised address lies
	// in one of these ranges (CIDR, audience.go); absent for everyone.
	Audience *[]string `json:"audience,omitempty"`

	// Attachments are small files in base64 (blobs.go); larger ones come
	// as multipart/form-data.
	Attachments []attachmentJSON `json:"attachments,omitempty"`
}

// times parses the request's optional times; a bad one is the error.
func (req *publishRequest) times() (expires, at time.Time, err error) {
	if req.Expires != "" {
		if expires, err = time.Parse(time.RFC3339Nano, req.Expires); err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("expires: not an RFC 3339 time: %q", req.Expires)
		}
	}
	if req.At != "" {
		if at, err = time.Parse(time.RFC3339Nano, req.At); err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("at: not an RFC 3339 time: %q", req.At)
		}
	}
	return expires, at, nil
}

type publishResponse struct {
	ID         string `json:"id"`
	Suppressed bool   `json:"suppressed"`       // no tree link carried it: nobody subscribed
	Queued     bool   `json:"queued,omitempty"` // not attached: in the outbox until it is
}

func (req *publishRequest) check(a *app.App) error {
	if err := a.CheckNewCategory(req.Category, nil); err != nil {
		return err
	}
	if err := network.CheckNotSystem(req.Category); err != nil {
		return err
	}
	switch n := utf8.RuneCountInString(req.Title); {
	case strings.TrimSpace(req.Title) == "":
		return errors.New("title is required")
	case n > maxTitleRunes:
		return fmt.Errorf("title is %d characters, at most %d allowed", n, maxTitleRunes)
	}
	if len(req.Body) > maxBodyBytes {
		return fmt.Errorf("body is %d bytes, at most %d allowed", len(req.Body), maxBodyBytes)
	}
	return nil
}

func (c *control) publish(w http.ResponseWriter, r *http.Request) {
	var req publishRequest
	var drafts []app.DraftAttachment
	if isMultipart(r) {
		var err error
		drafts, err = readMultipartPublish(w, r, &req)
		if writeAttachmentError(w, err) {
			return
		}
	} else {
		if !readJSONUpTo(w, r, &req, maxJSONPublishBytes) {
			return
		}
		var err error
		drafts, err = jsonAttachments(req.Attachments)
		if writeAttachmentError(w, err) {
			return
		}
	}
	if err := req.check(c.a); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	expires, at, err := req.times()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	audience, err := req.audience()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	body, atts, err := app.PrepareAttachments(req.Body, drafts)
	if writeAttachmentError(w, err) {
		return
	}
	now := time.Now()
	id, err := news.NewID(now)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "item ID: "+err.Error())
		return
	}
	it := &news.Item{
		ID:       id,
		Category: req.Category,
		Title:    req.Title,
		Body:     body,
		Author:   c.a.Settings().DisplayName,
		Source:   c.a.Source(),
		Created:  now,
		Expires:  expires,
		At:       at,
		Urgent:   req.Urgent,
		MustRead: req.MustRead,
		Audience: audience,
	}
	if err := app.CheckSchedule(it, now); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := it.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := c.a.MayPublish(it.Category); err != nil {
		// The reason only ("untrustedKey", "categoryNotAllowed", …); the log
		// has the detail.
		c.log.Warn("publication refused", "category", it.Category, "err", err)
		writeJSON(w, http.StatusForbidden, map[string]string{"error": string(trust.ReasonOf(err)), "detail": err.Error()})
		return
	}
	// The network's attachment cap of the category, before the blobs are
	// stored: 413 tooLarge naming it (PublishItem checks again).
	if err := c.a.CheckAttachmentLimit(it.Category, atts); err != nil {
		var le *app.LimitError
		if errors.As(err, &le) {
			writeLimitError(w, le)
		} else {
			writeError(w, http.StatusInternalServerError, err.Error())
		}
		return
	}
	if err := c.a.StoreAttachments(drafts, atts); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	publish := c.a.PublishItem
	if !it.At.IsZero() {
		publish = c.a.ScheduleItem
	}
	res, err := publish(it)
	var fe *news.FieldError
	var le *app.LimitError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case errors.As(err, &le):
		writeLimitError(w, le)
		return
	case errors.Is(err, app.ErrTooManyScheduled):
		writeError(w, http.StatusConflict, err.Error())
		return
	case errors.Is(err, app.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "servant is shutting down")
		return
	case errors.Is(err, app.ErrBusy):
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if res.Outcome == app.Scheduled {
		writeJSON(w, http.StatusOK, scheduledResponse{ID: res.ID.String(), Scheduled: it.At.UTC().Format(time.RFC3339Nano)})
		return
	}
	writeJSON(w, http.StatusOK, publishResponse{
		ID:         res.ID.String(),
		Suppressed: res.Outcome == app.Suppressed,
		Queued:     res.Outcome == app.Queued,
	})
}

// writeAttachmentError answers a request whose attachments were refused:
// 413 tooLarge beyond the limits of an item (or of the request), 400 for
// another reason. It reports whether it answered (err not nil).
func writeAttachmentError(w http.ResponseWriter, err error) bool {
	var big errRequestTooLarge
	switch {
	case err == nil:
		return false
	case errors.As(err, &big):
		writeError(w, http.StatusRequestEntityTooLarge, err.Error())
	case errors.Is(err, app.ErrTooLarge):
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": string(trust.TooLarge), "detail": err.Error()})
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
	return true
}

// writeLimitError answers a publication refused by the network's
// publishing limits: 429 with Retry-After (whole seconds, rounded up) for
// rateLimited, 413 for tooLarge; the body names the reason and says why.
func writeLimitError(w http.ResponseWriter, le *app.LimitError) {
	code := http.StatusRequestEntityTooLarge
	if le.Reason == trust.RateLimited {
		code = http.StatusTooManyRequests
		if le.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((le.RetryAfter+time.Second-1)/time.Second), 10))
		}
	}
	writeJSON(w, code, map[string]string{"error": string(le.Reason), "detail": le.Error()})
}
