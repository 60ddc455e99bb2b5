package cli

import (
	"errors"
	"net/http"
	"time"

	"newsdesk/app"
)

// reachPath reports the reach of one of this installation's posts (reach
// reports, issue 15; app/reach.go):
//
//	GET /v1/reach?id=<uuid> → {"subscribers":N,"delivered":N,"read":N,"acknowledged":N,
//	                          "reportedAcknowledged":N,"unverifiedAcknowledged":N,"unverifiedPending":N
//	                          [,"pending":[{"name":"…","key":"ed25519:…"}]]
//	                          [,"offline":[{"name":"…","key":"ed25519:…","lastSeen":"RFC 3339"}]]
//	                          [,"confirmed":[{"name":"…","key":"ed25519:…","at":"RFC 3339"}]]}
//
// "pending" is there for must-read posts only (possibly empty): the readers
// who have the post and have not confirmed it, each proven a member.
// "acknowledged" counts the readers whose confirmation verified (issue
// 32), listed in "confirmed" with when the publisher learned of it: kept
// also while their computers are offline (issue 26); "reportedAcknowledged" is the relays' count, "unverified…" the
// entries listed that prove no membership (older releases). The counts are the latest
// the network reported: servants in the tree now. 400 for a bad id, 404 for
// an item that is not this installation's post (only its publisher learns
// an item's reach).
const reachPath = "/v1/reach"

// reachResponse is the answer of GET /v1/reach.
type reachResponse struct {
	Subscribers  uint64 `json:"subscribers"`
	Delivered    uint64 `json:"delivered"`
	Read         uint64 `json:"read"`
	Acknowledged uint64 `json:"acknowledged"`
	// The relays' count of confirmations, and the entries listed that
	// prove no membership (issue 32).
	ReportedAcknowledged   uint64 `json:"reportedAcknowledged"`
	UnverifiedAcknowledged uint64 `json:"unverifiedAcknowledged"`
	UnverifiedPending      uint64 `json:"unverifiedPending"`
	ReportedPending        uint64 `json:"reportedPending"`
	// Pending is nil, and left out, for a post that is not must-read; a
	// pointer, so that an empty list of a must-read post is [], not left
	// out.
	Pending *[]pendingReader `json:"pending,omitempty"`
	// Offline: readers once pending whose computers are not in the
	// network now, not confirmed (issue 26); left out when none.
	Offline []offlineReader `json:"offline,omitempty"`
	// Confirmed: the readers whose confirmation verified; left out when
	// none.
	Confirmed []confirmedReader `json:"confirmed,omitempty"`
}

// confirmedReader is a reader who confirmed a must-read post.
type confirmedReader struct {
	Name string    `json:"name"`
	Key  string    `json:"key"`
	At   time.Time `json:"at"`
}

// offlineReader is a pending reader whose computer is offline.
type offlineReader struct {
	Name     string    `json:"name"`
	Key      string    `json:"key"`
	LastSeen time.Time `json:"lastSeen"`
}

// pendingReader is one reader who has not confirmed a must-read post.
type pendingReader struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

func (c *control) reach(w http.ResponseWriter, r *http.Request) {
	id, err := parseItemID(r.URL.Query().Get("id"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	rc, err := c.a.Reach(id)
	switch {
	case errors.Is(err, app.ErrNotFound):
		writeError(w, http.StatusNotFound, "not a post of this installation: "+id.String())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, reachJSON(rc))
}

// reachJSON is the reach of a post as the API gives it.
func reachJSON(rc app.Reach) reachResponse {
	resp := reachResponse{Subscribers: rc.Subscribers, Delivered: rc.Delivered, Read: rc.Read, Acknowledged: rc.Acknowledged,
		ReportedAcknowledged: rc.ReportedAcknowledged, UnverifiedAcknowledged: rc.UnverifiedAcknowledged, UnverifiedPending: rc.UnverifiedPending,
		ReportedPending: rc.ReportedPending}
	if rc.MustRead {
		pending := make([]pendingReader, 0, len(rc.Pending))
		for _, p := range rc.Pending {
			pending = append(pending, pendingReader(p))
		}
		resp.Pending = &pending
		for _, o := range rc.Offline {
			resp.Offline = append(resp.Offline, offlineReader{Name: o.Name, Key: o.Key, LastSeen: o.LastSeen.UTC()})
		}
		for _, c := range rc.Confirmed {
			resp.Confirmed = append(resp.Confirmed, confirmedReader{Name: c.Name, Key: c.Key, At: c.At.UTC()})
		}
	}
	return resp

}
