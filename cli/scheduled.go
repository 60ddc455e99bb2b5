package cli

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
)

// Scheduled publications in the control API. POST /v1/publish with "at"
// (RFC 3339) more than app.ScheduleTolerance after now schedules the item
// instead of publishing it: the answer is {"id","scheduled"}, the item's ID
// and its publication time, and the item waits in this servant's store,
// sent to nobody, until then (or, if the servant is not running then, until
// it next starts). An "at" further than app.ScheduleTolerance in the past
// is refused (400 "at: in the past"); one within it publishes now, with the
// ordinary answer. "expires" must come after "at".
//
//	GET    /v1/scheduled       the scheduled publications, the first due first
//	DELETE /v1/scheduled/<id>  cancels one: 200 {"cancelled":id}; 404 if not
//	                           scheduled (sent already, or cancelled)

const scheduledPath = "/v1/scheduled"

// scheduledResponse is the answer to a publication with "at".
type scheduledResponse struct {
	ID        string `json:"id"`
	Scheduled string `json:"scheduled"` // the publication time, RFC 3339 UTC
}

// scheduledJSON is one entry of GET /v1/scheduled.
type scheduledJSON struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Title    string `json:"title"`
	At       string `json:"at"`                // RFC 3339 UTC
	Expires  string `json:"expires,omitempty"` // RFC 3339 UTC
	// Problem says why it did not go out at its time; it is retried.
	Problem string `json:"problem,omitempty"`
}

func (c *control) listScheduled(w http.ResponseWriter, _ *http.Request) {
	list, err := c.a.Scheduled()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]scheduledJSON, len(list))
	for i, p := range list {
		out[i] = scheduledJSON{ID: p.Item.ID.String(), Category: p.Item.Category, Title: p.Item.Title,
			At: p.Item.At.UTC().Format(time.RFC3339Nano), Problem: p.Problem}
		if !p.Item.Expires.IsZero() {
			out[i].Expires = p.Item.Expires.UTC().Format(time.RFC3339Nano)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *control) cancelScheduled(w http.ResponseWriter, r *http.Request) {
	s := strings.TrimPrefix(r.URL.Path, scheduledPath+"/")
	id, err := uuid.Parse(s)
	if err != nil || len(s) != len(uuid.Nil.String()) {
		writeError(w, http.StatusBadRequest, "id: not an item ID (a UUID as 8-4-4-4-12 hex digits)")
		return
	}
	switch err := c.a.CancelScheduled(id); {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"cancelled": id.String()})
	case errors.Is(err, app.ErrNotFound):
		writeError(w, http.StatusNotFound, "not scheduled: "+id.String()+" (sent already, or cancelled)")
	case errors.Is(err, app.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "servant is shutting down")
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}
