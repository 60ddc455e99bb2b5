package cli

// The control API: HTTP+JSON on a loopback address, for scripts, tests and
// tools that drive a headless servant. The request and response shapes are
// fixed because tools outside this repository rely on them; fields may be
// added, never changed or removed.
//
//	GET  /v1/status          the servant's place in the tree and its links (status.go)
//	POST /v1/publish         {"category","title","body"[,"expires","at","urgent","mustRead","audience"]} → {"id","suppressed"[,"queued"]} (publish.go);
//	                         with "at" in the future → {"id","scheduled"} (scheduled.go);
//	                         429 {"error":"rateLimited","detail"} with Retry-After beyond the network's
//	                         publishing limits, 413 {"error":"tooLarge","detail"} beyond the category's byte cap
//	POST /v1/ack             {"id"} → 204: the reader confirms a must-read item (ack.go)
//	GET  /v1/reach?id=       {"subscribers","delivered","read","acknowledged","reportedAcknowledged",…[,"pending"]}: reach of an own post (reach.go)
//	POST /v1/retract         {"id","reason"} → {"retracted"}; 403 {"error":reason} if not allowed (retract.go)
//	GET  /v1/items?category= items of a category (and below it), oldest first (items.go)
//	PUT  /v1/subscriptions   ["it","hr"] → 204; GET returns the current list (subscriptions.go)
//	POST /v1/invites         {"uses","expires","publisher","categories"} → {"code","id",…} (admins only, invite.go)
//	GET  /v1/invites         the invitations this servant made; DELETE /v1/invites/<id> revokes one
//	GET  /v1/scheduled       publications waiting for their "at"; DELETE /v1/scheduled/<id> cancels one
//	GET  /v1/limits          the network's publishing limits; PUT sets them (admins only, limits.go)
//	GET  /v1/categories      the catalog with each category's titles per language; PUT replaces it (admins only, categories.go)
//	GET  /v1/network         the network census, aggregated up the tree (admins only, network.go)
//	GET  /v1/reports         the latest report of every must-read post, newest first (admins only, reports.go)
//	POST /v1/admitted        {"key"} → {"admitted"}: a member's key gets a certificate when it asks (admins only, invite.go)
//	GET  /v1/blobs/<hash>    an attachment's bytes (blobs.go); /v1/publish also takes multipart/form-data with files
//
// Every error is JSON: {"error":"..."}.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"newsdesk/app"
)

// control serves the control API for one application.
type control struct {
	a    *app.App
	addr string // the control API's own address, reported in status
	log  *slog.Logger
}

// endpoint is one path of the API with a handler per method.
type endpoint map[string]func(http.ResponseWriter, *http.Request)

func (c *control) routes() map[string]endpoint {
	return map[string]endpoint{
		"/v1/status":        {http.MethodGet: c.status},
		"/v1/publish":       {http.MethodPost: c.publish},
		"/v1/retract":       {http.MethodPost: c.retract},
		ackPath:             {http.MethodPost: c.ack},
		reachPath:           {http.MethodGet: c.reach},
		"/v1/items":         {http.MethodGet: c.listItems},
		"/v1/subscriptions": {http.MethodGet: c.subscriptions, http.MethodPut: c.setSubscriptions},
		invitesPath:         {http.MethodGet: c.listInvites, http.MethodPost: c.createInvite},
		invitesPath + "/":   {http.MethodDelete: c.revokeInvite}, // + the invitation's ID (invite.go)
		limitsPath:          {http.MethodGet: c.getLimits, http.MethodPut: c.setLimits},
		categoriesPath:      {http.MethodGet: c.getCategories, http.MethodPut: c.setCategories},
		scheduledPath:       {http.MethodGet: c.listScheduled},
		scheduledPath + "/": {http.MethodDelete: c.cancelScheduled}, // + the item's ID (scheduled.go)
		networkPath:         {http.MethodGet: c.network},
		reportsPath:         {http.MethodGet: c.reports},
		admittedPath:        {http.MethodPost: c.admitMember},
		blobsPath + "/":     {http.MethodGet: c.blob}, // + the blob's hash (blobs.go)
	}
}

// handler routes requests by path and method. It does its own routing
// rather than use http.ServeMux patterns so that 404 and 405 answers are
// JSON like every other error.
func (c *control) handler() http.Handler {
	routes := c.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkLocalRequest(r); err != nil {
			writeError(w, http.StatusForbidden, err.Error())
			return
		}
		path := r.URL.Path
		for _, p := range []string{invitesPath, scheduledPath, blobsPath} {
			if strings.HasPrefix(path, p+"/") {
				path = p + "/"
			}
		}
		ep, ok := routes[path]
		if !ok {
			writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
			return
		}
		h, ok := ep[r.Method]
		if !ok {
			allowed := make([]string, 0, len(ep))
			for m := range ep {
				allowed = append(allowed, m)
			}
			slices.Sort(allowed)
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s not allowed on %s", r.Method, r.URL.Path))
			return
		}
		h(w, r)
	})
}

// checkLocalRequest refuses requests a web page could have made. The API
// listens on loopback, but a browser on this machine can still reach it:
// a page from elsewhere would carry a foreign Origin (cross-site request
// forgery), and a DNS-rebound name would carry a foreign Host. Tools such as
// curl send neither.
func checkLocalRequest(r *http.Request) error {
	if !isLocalHost(r.Host) {
		return fmt.Errorf("host %q is not a loopback address", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !isLocalHost(u.Host) {
			return fmt.Errorf("origin %q is not a loopback address", o)
		}
	}
	return nil
}

// isLocalHost reports whether hostport names this machine: "localhost" or a
// loopback IP, with or without a port.
func isLocalHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// strs converts to []string, never nil: the API promises [] rather than null.
func strs[S ~[]E, E ~string](s S) []string {
	out := make([]string, len(s))
	for i, e := range s {
		out[i] = string(e)
	}
	return out
}

// readJSON decodes the request body, strictly: one JSON value of the
// expected shape, at most maxRequestBytes, object keys exactly as named
// (encoding/json alone would match them without regard to case), none
// unknown and none given twice (encoding/json alone would keep the last).
// It answers the request itself when that fails.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	return readJSONUpTo(w, r, v, maxRequestBytes)
}

// readJSONUpTo is readJSON for a body of at most max bytes.
func readJSONUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", limit))
		return false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = errors.New("unexpected data after the JSON value")
	}
	if err == nil {
		err = checkStrictJSON(body, v)
	}
	if err == nil {
		return true
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("empty request body")
	}
	writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
	return false
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// newControlServer returns the HTTP server for the control API, with timeouts
// so a stuck client cannot hold connections open.
func newControlServer(c *control) *http.Server {
	return &http.Server{
		Handler:           c.handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(c.log.Handler(), slog.LevelWarn),
	}
}
