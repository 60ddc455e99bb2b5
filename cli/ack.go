package cli

import (
	"errors"
	"net/http"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/network"
)

// ackPath confirms a must-read item as this installation's reader:
//
//	POST /v1/ack {"id":"<uuid>"} → 204; 404 for an item not here, 409 for
//	an item that is not must-read, 400 for a bad request
//
// Confirming again is fine (204) and keeps the first confirmation's time.
const ackPath = "/v1/ack"

// ackRequest is the body of POST /v1/ack.
type ackRequest struct {
	ID string `json:"id"`
}

func (c *control) ack(w http.ResponseWriter, r *http.Request) {
	var req ackRequest
	if !readJSON(w, r, &req) {
		return
	}
	id, err := parseItemID(req.ID)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	switch _, err := c.a.Acknowledge(id); {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, app.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such item: "+id.String())
	case errors.Is(err, app.ErrNotMustRead):
		writeError(w, http.StatusConflict, "item "+id.String()+" is not must-read: there is nothing to confirm")
	case errors.Is(err, app.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "servant is shutting down")
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// parseItemID reads an item ID as the control API takes it: a UUIDv7 in
// the canonical 8-4-4-4-12 form only (uuid.Parse also takes "urn:uuid:…",
// "{…}" and 32 bare hex digits).
func parseItemID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != len(uuid.Nil.String()) {
		return uuid.Nil, errors.New("id: not an item ID (a UUID as 8-4-4-4-12 hex digits)")
	}
	if err := network.CheckItemID(id); err != nil {
		return uuid.Nil, errors.New("id: " + err.Error())
	}
	return id, nil
}
