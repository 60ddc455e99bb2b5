package cli

import (
	"errors"
	"net/http"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/trust"
)

// retractRequest is the body of POST /v1/retract.
type retractRequest struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// retract hides an item everywhere with a retraction signed by this
// servant's key: 200 {"retracted": id}, 400 for a bad ID or reason, 403
// with the reason when this key may not retract it, 404 for an item not
// here (unless this servant is an admin, which may retract by ID).
func (c *control) retract(w http.ResponseWriter, r *http.Request) {
	var req retractRequest
	if !readJSON(w, r, &req) {
		return
	}
	id, err := uuid.Parse(req.ID)
	if err != nil || len(req.ID) != len(uuid.Nil.String()) {
		// Only the canonical form: uuid.Parse also takes "urn:uuid:…",
		// "{…}" and 32 bare hex digits.
		writeError(w, http.StatusBadRequest, "id: not an item ID (a UUID as 8-4-4-4-12 hex digits)")
		return
	}
	if err := network.CheckItemID(id); err != nil {
		writeError(w, http.StatusBadRequest, "id: "+err.Error())
		return
	}
	if err := news.CheckLine("reason", req.Reason, trust.MaxRetractionReasonRunes); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var notAuth *network.NotAuthorizedError
	switch err := c.a.Retract(id, req.Reason); {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"retracted": id.String()})
	case errors.As(err, &notAuth):
		c.log.Warn("retraction refused", "item", id, "err", err)
		writeJSON(w, http.StatusForbidden, map[string]string{"error": notAuth.Reason(), "detail": err.Error()})
	case errors.Is(err, network.ErrBadItemID):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, network.ErrItemNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, app.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "servant is shutting down")
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}
