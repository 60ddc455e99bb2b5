package cli

// GET and PUT /v1/limits: the network's publishing limits (issue 32,
// trust.PublishLimits), for an admin of a headless servant.
//
//	GET /v1/limits → {"limits":{…as set…},"effective":{"itemsPerHour",…},"version"}
//	PUT /v1/limits {"itemsPerHour","burstItems","bytesPerHour","burstBytes","itemBytes","categoryItemBytes",
//	                "attachmentBytes","categoryAttachmentBytes","attachmentBytesPerHour"}
//	               → {"version"}: the next definition, signed with this installation's key
//	               and published; a field left out (or 0) takes its default; an attachment
//	               cap of -1 allows no attachments.
//	               403 for a servant that is not an admin, 400 for limits out of range.

import (
	"errors"
	"net/http"

	"newsdesk/app"
	"newsdesk/trust"
)

const limitsPath = "/v1/limits"

// limitsJSON is trust.PublishLimits as the API writes it: the names of the
// definition's "publishLimits" member.
type limitsJSON struct {
	ItemsPerHour      int            `json:"itemsPerHour,omitempty"`
	BurstItems        int            `json:"burstItems,omitempty"`
	BytesPerHour      int64          `json:"bytesPerHour,omitempty"`
	BurstBytes        int64          `json:"burstBytes,omitempty"`
	ItemBytes         int            `json:"itemBytes,omitempty"`
	CategoryItemBytes map[string]int `json:"categoryItemBytes,omitempty"`
	// The attachment limits, flat beside the others here (the definition
	// keeps them in a member of their own, "attachmentLimits").
	AttachmentBytes         int64            `json:"attachmentBytes,omitempty"`
	CategoryAttachmentBytes map[string]int64 `json:"categoryAttachmentBytes,omitempty"`
	AttachmentBytesPerHour  int64            `json:"attachmentBytesPerHour,omitempty"`
}

// effectiveJSON are the limits with their defaults resolved.
// AttachmentBytes is the cap of categories without an entry of their own,
// 0 when they allow no attachments.
type effectiveJSON struct {
	ItemsPerHour           int   `json:"itemsPerHour"`
	BurstItems             int   `json:"burstItems"`
	BytesPerHour           int64 `json:"bytesPerHour"`
	BurstBytes             int64 `json:"burstBytes"`
	AttachmentBytes        int64 `json:"attachmentBytes"`
	AttachmentBytesPerHour int64 `json:"attachmentBytesPerHour"`
}

func (c *control) getLimits(w http.ResponseWriter, _ *http.Request) {
	sn := c.a.Network()
	l, r := sn.Limits, sn.Limits.Rate()
	writeJSON(w, http.StatusOK, map[string]any{
		"limits": limitsJSON{ItemsPerHour: l.ItemsPerHour, BurstItems: l.BurstItems, BytesPerHour: l.BytesPerHour,
			BurstBytes: l.BurstBytes, ItemBytes: l.ItemBytes, CategoryItemBytes: l.CategoryItemBytes,
			AttachmentBytes: l.AttachmentBytes, CategoryAttachmentBytes: l.CategoryAttachmentBytes,
			AttachmentBytesPerHour: l.AttachmentBytesPerHour},
		"effective": effectiveJSON{ItemsPerHour: r.ItemsPerHour, BurstItems: r.BurstItems, BytesPerHour: r.BytesPerHour, BurstBytes: r.BurstBytes,
			AttachmentBytes: l.AttachmentCap(""), AttachmentBytesPerHour: l.AttachmentRate()},
		"version": sn.Version,
	})
}

func (c *control) setLimits(w http.ResponseWriter, r *http.Request) {
	var req limitsJSON
	if !readJSON(w, r, &req) {
		return
	}
	now := trust.PublishLimits{ItemsPerHour: req.ItemsPerHour, BurstItems: req.BurstItems, BytesPerHour: req.BytesPerHour,
		BurstBytes: req.BurstBytes, ItemBytes: req.ItemBytes, CategoryItemBytes: req.CategoryItemBytes,
		AttachmentBytes: req.AttachmentBytes, CategoryAttachmentBytes: req.CategoryAttachmentBytes,
		AttachmentBytesPerHour: req.AttachmentBytesPerHour}
	v, err := c.a.SetPublishLimits(c.a.PublishLimits(), now)
	switch {
	case errors.Is(err, app.ErrNotAdmin):
		writeError(w, http.StatusForbidden, "only an admin of the network may change its publishing limits")
	case errors.Is(err, app.ErrLimitsChanged):
		writeError(w, http.StatusConflict, err.Error())
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]uint64{"version": v})
	}
}
