package cli

// The control API: HTTP+JSON on a loopback address, for scripts, tests and
// tools that drive a headless servant. The request and response shapes are
// fixed because tools outside this repository rely on them; fields may be
// added, never changed or removed.
//
//	GET  /v1/status          the servant's place in the tree and its links
//	POST /v1/publish         {"category","title","body"[,"expires","at","urgent","mustRead","audience"]} → {"id","suppressed"[,"queued"]};
//	                         with "at" in the future → {"id","scheduled"} (scheduled.go);
//	                         429 {"error":"rateLimited","detail"} with Retry-After beyond the network's
//	                         publishing limits, 413 {"error":"tooLarge","detail"} beyond the category's byte cap
//	POST /v1/ack             {"id"} → 204: the reader confirms a must-read item (ack.go)
//	GET  /v1/reach?id=       {"subscribers","delivered","read","acknowledged","reportedAcknowledged",…[,"pending"]}: reach of an own post (reach.go)
//	POST /v1/retract         {"id","reason"} → {"retracted"}; 403 {"error":reason} if not allowed
//	GET  /v1/items?category= items of a category (and below it), oldest first
//	PUT  /v1/subscriptions   ["it","hr"] → 204; GET returns the current list
//	POST /v1/invites         {"uses","expires","publisher","categories"} → {"code","id",…} (admins only, invite.go)
//	GET  /v1/invites         the invitations this servant made; DELETE /v1/invites/<id> revokes one
//	GET  /v1/scheduled       publications waiting for their "at"; DELETE /v1/scheduled/<id> cancels one
//	GET  /v1/limits          the network's publishing limits; PUT sets them (admins only, limits.go)
//	GET  /v1/categories      the catalog with each category's titles per language; PUT replaces it (admins only, categories.go)
//	GET  /v1/network         the network census, aggregated up the tree (admins only, network.go)
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
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// Limits of the publish request.
const (
	maxTitleRunes   = news.MaxTitleRunes
	maxBodyBytes    = news.MaxBodyBytes
	maxRequestBytes = 1 << 20 // a 64 KiB body may grow sixfold in JSON escapes
)

// Item is a news item as the control API shows it. The shape is fixed:
// external tools depend on it.
type Item struct {
	ID       string `json:"id"`       // UUIDv7, chosen by the publisher
	Category string `json:"category"` // the multicast group
	Title    string `json:"title"`
	Body     string `json:"body"`
	Source   string `json:"source"`   // the publishing installation's UUID
	Received string `json:"received"` // when this servant stored it (RFC 3339, UTC)

	// Additions: the item's flags, left out when false.
	Urgent   bool `json:"urgent,omitempty"`
	MustRead bool `json:"mustRead,omitempty"`
	// Audience: the network ranges the item is for; left out for everyone.
	Audience []string `json:"audience,omitempty"`
	// NewerFormat: the item is in a format of a newer release (3 and
	// up), of which this servant knows the title but not the text; left
	// out for an item it reads.
	NewerFormat int `json:"newerFormat,omitempty"`
	// Attachments: the item's pictures and files (blobs.go), in manifest
	// order, each with whether it is here; left out when none. Body is
	// then the text without the manifest.
	Attachments []itemAttachmentJSON `json:"attachments,omitempty"`
}

// apiItem converts a stored item to the control API's shape.
func apiItem(it *news.Item) Item {
	return Item{
		ID:          it.ID.String(),
		Category:    it.Category,
		Title:       it.Title,
		Body:        it.Text(),
		Source:      it.Source.String(),
		Received:    it.Received.UTC().Format(time.RFC3339Nano),
		Urgent:      it.Urgent,
		MustRead:    it.MustRead,
		Audience:    news.FormatAudience(it.Audience),
		NewerFormat: int(it.Newer),
	}
}

// maxListedItems bounds a /v1/items answer: the newest this many items of
// the category are listed.
const maxListedItems = 10000

// maxQueryBytes bounds a /v1/items search. Each term of a query is looked
// for in the whole dictionary of the index, so a query of thousands of
// terms would hold the index for seconds; a search typed by hand is far
// shorter.
const maxQueryBytes = 1024

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

// aloneJSON is statusJSON.Alone.
type aloneJSON struct {
	Seeds []string `json:"seeds"`
}

// statusJSON is the /v1/status answer. The first block is the fixed shape;
// the rest are additions.
type statusJSON struct {
	ID      string   `json:"id"`
	IDValue uint64   `json:"idValue"`
	Root    bool     `json:"root"` // this servant is the vertex
	Up      string   `json:"up"`   // "" when not attached
	Downs   []string `json:"downs"`
	// Leaves are the servants below this one that others cannot dial;
	// Leaf: this servant is one of them.
	Leaves []string `json:"leaves"`
	Leaf   bool     `json:"leaf"`
	// Reachable: whether the last dial-back to this servant's advertised
	// address (ReachAddr) reached it; null when none was made yet.
	Reachable *bool  `json:"reachable"`
	ReachAddr string `json:"reachAddr"`
	ReachAt   string `json:"reachAt"` // RFC 3339, "" when never
	// AddressChanged is the last change of the advertised address in
	// this run (the computer moved to another network); null when none.
	AddressChanged *addressChangeJSON `json:"addressChanged"`
	// Release is this build's release and Protocol the wire versions it
	// speaks; NewerRelease the newest newer release a neighbour runs.
	Release       string     `json:"release"`
	Protocol      [2]uint16  `json:"protocol"`
	NewerRelease  string     `json:"newerRelease"`
	Partition     [2]uint64  `json:"partition"`
	Subscriptions []string   `json:"subscriptions"`
	Links         []linkJSON `json:"links"` // up first, then downs
	// Direct lists the direct links (issue 14): a hot source's items in
	// some categories sent straight to a subscriber, outside the tree.
	Direct []directJSON `json:"direct"`

	Role     string       `json:"role"`     // idle, connecting, attached, vertex, stopped
	RootPath []string     `json:"rootPath"` // from the vertex to the up-servant
	Source   string       `json:"source"`   // this installation's ID
	Control  string       `json:"control"`  // this API's address
	Counters countersJSON `json:"counters"`
	Lost     uint64       `json:"lost"` // needed items no holder could retransmit, and blobs none could deliver
	// LostBlobs counts the blobs of attachments among Lost.
	LostBlobs uint64 `json:"lostBlobs"`

	// StoreProblem says why delivered items wait to be stored ("disk
	// full"), "" when none wait; Unstored counts them.
	StoreProblem string `json:"storeProblem"`
	Unstored     int    `json:"unstored"`

	// Alone is set while this servant is the vertex of a network of its
	// own although it should be attached below a seed: items of others
	// do not reach it. Its seeds are those it should be below, none of
	// which answers (empty: it joined a network that lists no seed).
	// null otherwise.
	Alone *aloneJSON `json:"alone"`

	// Rejected counts the multicast messages this servant dropped on
	// arrival, per reason (trust.Rejection: "unsigned", "badSignature",
	// "untrustedKey", …); every reason is present, zeros included.
	Rejected map[string]uint64 `json:"rejected"`
	// Misconduct: peers that exceeded their budgets (requests, reach
	// reports), per reason (every reason present, zeros included), and the
	// servants whose joins are refused for it now.
	Misconduct misconductJSON `json:"misconduct"`
	// RateLimited lists the sources of which this servant refused items
	// as beyond their publisher's limits ("rateLimited") or their
	// category's byte cap ("tooLarge"), most recent first, counted over
	// every run ([] when none).
	RateLimited []network.LimitedSource `json:"rateLimited"`
	// Storage is what the stored items take against the storage quota,
	// and what the quota removed last.
	Storage storageJSON `json:"storage"`
	Key     string      `json:"key"`     // this installation's public key (trust.PublicKeyString)
	Network networkJSON `json:"network"` // the network definition held
}

type storageJSON struct {
	Used    int64         `json:"used"`    // bytes of stored items (the quota's measure)
	Quota   int64         `json:"quota"`   // bytes; -1: none
	Evicted *app.Eviction `json:"evicted"` // the last eviction, null when none
}

type misconductJSON struct {
	Counts map[string]uint64 `json:"counts"`
	Banned []string          `json:"banned"`
	// Requests that waited for their link's answers to drain, and those
	// refused beyond the waiting bounds; reach reports refused beyond
	// their rate.
	RequestsWaited  uint64 `json:"requestsWaited"`
	RequestsRefused uint64 `json:"requestsRefused"`
	ReportsRefused  uint64 `json:"reportsRefused"`
}

type addressChangeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	At   string `json:"at"` // RFC 3339
}

type directJSON struct {
	Peer       string   `json:"peer"`
	Source     string   `json:"source"`
	Categories []string `json:"categories"`
	Role       string   `json:"role"`      // "publisher" (we send our items) or "subscriber"
	Delivered  uint64   `json:"delivered"` // items sent over it, or received over it first
}

type networkJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Version   uint64 `json:"version"`
	Admin     bool   `json:"admin"`     // this installation is an admin
	Publisher bool   `json:"publisher"` // listed as a publisher (or open publishing)
	Open      bool   `json:"openPublishing"`
	// Newer lists the definition's members of a newer release, kept and
	// passed on unchanged ([] when none).
	Newer []string `json:"newerFeatures"`
}

type linkJSON struct {
	Peer     string   `json:"peer"`
	Received []string `json:"received"`
	Sent     []string `json:"sent"`
	Up       bool     `json:"up"`      // addition: the uplink
	Leaf     bool     `json:"leaf"`    // addition: a downlink to a leaf
	Version  uint16   `json:"version"` // addition: the link's wire version
	Release  string   `json:"release"` // addition: the peer's release, "" when unknown
}

type countersJSON struct {
	Published  uint64 `json:"published"`
	Suppressed uint64 `json:"suppressed"`
	Delivered  uint64 `json:"delivered"`
	Relayed    uint64 `json:"relayed"`
	Duplicates uint64 `json:"duplicates"`
	Resets     uint64 `json:"resets"`
	Lost       uint64 `json:"lost"` // needed items no holder could retransmit

	MulticastFrames uint64 `json:"multicastFrames"`
	PeriodicFrames  uint64 `json:"periodicFrames"`
	ControlFrames   uint64 `json:"controlFrames"`
	RecoveryFrames  uint64 `json:"recoveryFrames"`

	// Items sent to and received from direct links (issue 14).
	DirectSent     uint64 `json:"directSent"`
	DirectReceived uint64 `json:"directReceived"`
}

// strs converts to []string, never nil: the API promises [] rather than null.
func strs[S ~[]E, E ~string](s S) []string {
	out := make([]string, len(s))
	for i, e := range s {
		out[i] = string(e)
	}
	return out
}

func (c *control) status(w http.ResponseWriter, r *http.Request) {
	ns := c.a.ServantStatus()
	st := ns.Status
	out := statusJSON{
		ID:            string(st.ID),
		IDValue:       st.IDValue,
		Root:          st.Role == newsnet.RoleVertex,
		Up:            string(st.Up),
		Downs:         strs(st.Downs),
		Leaves:        strs(st.Leaves),
		Leaf:          st.Leaf,
		ReachAddr:     string(st.ReachAddr),
		Release:       ns.Release,
		Protocol:      [2]uint16{newsnet.MinProtocolVersion, newsnet.ProtocolVersion},
		NewerRelease:  ns.NewerRelease,
		Partition:     [2]uint64{st.Partition.Lo, st.Partition.Hi},
		Subscriptions: strs(st.Subscriptions),
		Links:         make([]linkJSON, len(st.Links)),
		Role:          string(st.Role),
		RootPath:      strs(st.RootPath),
		Source:        ns.Source,
		Control:       c.addr,
		Lost:          ns.Lost,
		LostBlobs:     ns.LostBlobs,
		StoreProblem:  ns.StoreProblem,
		Unstored:      ns.Unstored,
		Counters: countersJSON{
			Published: st.Counters.Published, Suppressed: st.Counters.Suppressed,
			Delivered: st.Counters.Delivered, Relayed: st.Counters.Relayed,
			Duplicates: st.Counters.Duplicates, Resets: st.Counters.Resets, Lost: st.Counters.Lost,
			MulticastFrames: st.Counters.MulticastFrames, PeriodicFrames: st.Counters.PeriodicFrames,
			ControlFrames: st.Counters.ControlFrames, RecoveryFrames: st.Counters.RecoveryFrames,
			DirectSent: st.Counters.DirectSent, DirectReceived: st.Counters.DirectReceived,
		},
		Direct: make([]directJSON, len(st.Direct)),
	}
	if al := ns.Alone; al != nil {
		out.Alone = &aloneJSON{Seeds: strs(al.Seeds)}
	}
	if m := ns.Moved; m != nil {
		out.AddressChanged = &addressChangeJSON{From: m.From, To: m.To, At: m.At.UTC().Format(time.RFC3339)}
	}
	if st.Reach != newsnet.ReachUnknown {
		reachable := st.Reach == newsnet.ReachReachable
		out.Reachable = &reachable
		out.ReachAt = st.ReachAt.UTC().Format(time.RFC3339)
	}
	for i, d := range st.Direct {
		out.Direct[i] = directJSON{Peer: string(d.Peer), Source: d.Source, Categories: strs(d.Categories), Role: d.Role, Delivered: d.Delivered}
	}
	out.Rejected = make(map[string]uint64, len(st.Rejected))
	for _, r := range trust.Rejections() {
		out.Rejected[string(r)] = 0
	}
	for r, n := range st.Rejected {
		out.Rejected[r] += n
	}
	out.Misconduct = misconductJSON{Counts: map[string]uint64{}, Banned: strs(st.Misconduct.Banned),
		RequestsWaited: st.Counters.RequestsWaited, RequestsRefused: st.Counters.RequestsRefused, ReportsRefused: st.Counters.ReportsRefused}
	for _, r := range newsnet.MisconductReasons() {
		out.Misconduct.Counts[r] = st.Misconduct.Counts[r]
	}
	out.RateLimited = c.a.RateLimited()
	used, quota, err := c.a.StoredBytes()
	if err != nil {
		c.log.Warn("reading the stored size failed", "err", err)
	}
	out.Storage = storageJSON{Used: used, Quota: quota, Evicted: ns.Evicted}
	sn := c.a.Network()
	key := c.a.Identity().Public
	_, listed := sn.Publisher(key)
	out.Key = trust.PublicKeyString(key)
	out.Network = networkJSON{ID: sn.ID.String(), Name: sn.Name, Version: sn.Version,
		Admin: sn.IsAdmin(key), Publisher: !sn.IsRevoked(key) && (listed || sn.OpenPublishing || sn.IsAdmin(key)), Open: sn.OpenPublishing,
		Newer: strs(sn.NewerMembers())}
	for i, l := range st.Links {
		out.Links[i] = linkJSON{Peer: string(l.Peer), Received: strs(l.Received), Sent: strs(l.Sent), Up: l.Up, Leaf: l.Leaf,
			Version: l.Version, Release: l.Release}
	}
	writeJSON(w, http.StatusOK, out)
}

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

func (c *control) listItems(w http.ResponseWriter, r *http.Request) {
	cat, query := r.URL.Query().Get("category"), r.URL.Query().Get("q")
	if cat == "" && query == "" {
		writeError(w, http.StatusBadRequest, "category query parameter: category is empty")
		return
	}
	// Any ID that can be stored, also one named before categories.ValidateNewID.
	if cat != "" {
		if err := categories.ValidateID(cat); err != nil {
			writeError(w, http.StatusBadRequest, "category query parameter: "+err.Error())
			return
		}
	}
	if len(query) > maxQueryBytes {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("q query parameter: longer than %d bytes", maxQueryBytes))
		return
	}
	var items []*news.Item
	var err error
	if query != "" {
		items, err = c.a.SearchOldestFirst(r.Context(), query, cat, maxListedItems)
	} else {
		items, err = c.a.OldestFirst(cat, maxListedItems)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]Item, len(items)) // never nil: [] rather than null
	for i, it := range items {
		out[i] = apiItem(it)
		out[i].Attachments = itemAttachments(c.a.AttachmentsOf(it))
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *control) subscriptions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, strs(c.a.Status().Subscriptions))
}

func (c *control) setSubscriptions(w http.ResponseWriter, r *http.Request) {
	var cats []string
	if !readJSON(w, r, &cats) {
		return
	}
	if err := c.a.CheckNewSubscriptions(cats); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := c.a.SetSubscriptions(cats); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	c.log.Info("subscriptions changed", "categories", cats)
	w.WriteHeader(http.StatusNoContent)
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
