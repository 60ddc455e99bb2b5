package cli

// Invitations (issue 13): the control API's /v1/invites, `newsdesk invite`
// (an admin makes, lists and revokes invitation codes; invitecmd.go) and
// `newsdesk join` (a headless servant joins a network with a code; join.go).

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"newsdesk/app"
	"newsdesk/trust"
)

// inviteRequest is the body of POST /v1/invites.
type inviteRequest struct {
	Uses       int      `json:"uses"`
	Expires    string   `json:"expires"` // a Go duration ("168h") or days ("7d"); "" for 7 days
	Publisher  bool     `json:"publisher"`
	Categories []string `json:"categories"`
	Anyway     bool     `json:"anyway"` // make it although no seed answers
}

// inviteCreated is the answer of POST /v1/invites.
type inviteCreated struct {
	Code    string `json:"code"`
	ID      string `json:"id"`
	Expires string `json:"expires"` // RFC 3339, UTC
	Uses    int    `json:"uses"`
}

// inviteJSON is one invitation of GET /v1/invites.
type inviteJSON struct {
	ID         string   `json:"id"`
	Created    string   `json:"created"`
	Expires    string   `json:"expires"`
	Uses       int      `json:"uses"`
	Used       int      `json:"used"`
	UsesLeft   int      `json:"usesLeft"`
	State      string   `json:"state"` // active, used up, expired, revoked
	Publisher  bool     `json:"publisher"`
	Categories []string `json:"categories"`
	Redeemed   []string `json:"redeemed"` // the keys that redeemed it
}

func inviteOut(v app.Invite) inviteJSON {
	return inviteJSON{ID: v.ID, Created: v.Created.UTC().Format(time.RFC3339), Expires: v.Expires.UTC().Format(time.RFC3339),
		Uses: v.Uses, Used: v.Used, UsesLeft: v.UsesLeft, State: v.State, Publisher: v.Publisher,
		Categories: nonNil(v.Categories), Redeemed: nonNil(v.Redeemed)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// inviteError answers an error of the invitation methods.
func (c *control) inviteError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, app.ErrNotAdmin):
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "notAdmin", "detail": err.Error()})
	case errors.Is(err, app.ErrUnknownInvitation):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, app.ErrNotRunning), errors.Is(err, app.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, app.ErrNoSeed):
		writeJSON(w, http.StatusConflict, map[string]string{"error": "noSeed", "detail": err.Error()})
	case errors.Is(err, app.ErrSeedsUnreachable):
		writeJSON(w, http.StatusConflict, map[string]string{"error": "seedsUnreachable", "detail": err.Error()})
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
}

// createInvite: POST /v1/invites (admins only).
func (c *control) createInvite(w http.ResponseWriter, r *http.Request) {
	var req inviteRequest
	if !readJSON(w, r, &req) {
		return
	}
	if !c.a.IsAdmin() {
		c.inviteError(w, app.ErrNotAdmin)
		return
	}
	o := app.InviteOptions{Uses: req.Uses, Publisher: req.Publisher, Categories: req.Categories, Anyway: req.Anyway}
	if req.Uses < 0 {
		writeError(w, http.StatusBadRequest, "uses: must be positive")
		return
	}
	if req.Expires != "" {
		d, err := app.ParseInviteExpiry(req.Expires)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if d == 0 {
			writeError(w, http.StatusBadRequest, "expires: must be positive")
			return
		}
		o.Expires = d
	}
	v, err := c.a.CreateInvitation(o)
	if err != nil {
		c.inviteError(w, err)
		return
	}
	c.log.Info("invitation created", "id", v.ID, "uses", v.Uses, "expires", v.Expires, "publisher", v.Publisher)
	writeJSON(w, http.StatusOK, inviteCreated{Code: v.Code, ID: v.ID, Expires: v.Expires.UTC().Format(time.RFC3339), Uses: v.Uses})
}

// listInvites: GET /v1/invites (admins only).
func (c *control) listInvites(w http.ResponseWriter, r *http.Request) {
	if !c.a.IsAdmin() {
		c.inviteError(w, app.ErrNotAdmin)
		return
	}
	l, err := c.a.Invitations()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]inviteJSON, len(l))
	for i, v := range l {
		out[i] = inviteOut(v)
	}
	writeJSON(w, http.StatusOK, out)
}

// revokeInvite: DELETE /v1/invites/<id> (admins only).
func (c *control) revokeInvite(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, invitesPath+"/")
	if err := trust.CheckInviteID(id); err != nil {
		writeError(w, http.StatusBadRequest, "id: "+strings.TrimPrefix(err.Error(), trust.ErrBadInviteCode.Error()+": "))
		return
	}
	if err := c.a.RevokeInvitation(id); err != nil {
		c.inviteError(w, err)
		return
	}
	c.log.Info("invitation revoked", "id", id)
	writeJSON(w, http.StatusOK, map[string]string{"revoked": id})
}

const invitesPath = "/v1/invites"

// admittedPath records a member's key as admitted (admins only).
const admittedPath = "/v1/admitted"

// admitMember: POST /v1/admitted {"key"} (admins only) → {"admitted": key}.
func (c *control) admitMember(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Key string `json:"key"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	switch err := c.a.AdmitMember(req.Key); {
	case errors.Is(err, app.ErrRevokedMember):
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "revokedKey", "detail": err.Error()})
	case err != nil:
		c.inviteError(w, err)
	default:
		writeJSON(w, http.StatusOK, map[string]string{"admitted": req.Key})
	}
}
