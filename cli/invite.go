package cli

// Invitations (issue 13): the control API's /v1/invites, `newsdesk invite`
// (an admin makes, lists and revokes invitation codes) and `newsdesk join`
// (a headless servant joins a network with a code).
//
// `newsdesk invite` works on a data directory. When a servant runs on it,
// the directory is locked, so the command talks to that servant's control
// API instead: `newsdesk serve --control` writes the API's address to
// DIR/control-address while it runs (controlAddressFile).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/storage"
	"newsdesk/trust"
)

// controlAddressFile, in a data directory, holds the address of the
// control API of the servant running on it (one line), for commands that
// find the directory locked.
const controlAddressFile = "control-address"

// writeControlAddress records addr as the control API of the servant on
// dir; the function returned removes it again (if it is still ours).
func writeControlAddress(dir, addr string) (func(), error) {
	path := filepath.Join(dir, controlAddressFile)
	if err := os.WriteFile(path, []byte(addr+"\n"), 0o600); err != nil {
		return func() {}, err
	}
	return func() {
		if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == addr {
			os.Remove(path)
		}
	}, nil
}

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

const inviteUsage = `usage: newsdesk invite create --data DIR [--uses N] [--expires 7d] [--publisher [--categories a,b]]
       newsdesk invite list --data DIR
       newsdesk invite revoke --data DIR ID
       newsdesk invite admit --data DIR KEY

Makes, lists and revokes invitation codes (admins only). create prints the
code, one line to hand to the person joining (` + "`newsdesk join CODE`" + `, or
"Join a network" in the desktop app). The code names this servant, which
counts the invitation's uses for the whole network, so the servant must be
running: on a data directory in use, the command talks to its control API
(serve --control); list and revoke also work on a directory not in use.
A network that lists no seed gets no invitation: whoever joined would have
nowhere to connect. admit records a member's installation key (ed25519:…,
as its Settings or the must-read reports show it) as if it had redeemed one
of this servant's invitations, so that it gets a membership certificate
when it next asks: for members whose invitation is no longer on record,
which must-read reports list as not verified. Never a revoked key. An ID
made by an older release may start with "-": put it after "--"
(invite revoke --data DIR -- -aRk…).

Flags:
`

// InviteCommand runs `newsdesk invite` with args (the arguments after
// "invite").
func InviteCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || !slices.Contains([]string{"create", "list", "revoke", "admit"}, args[0]) {
		fmt.Fprint(stderr, inviteUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return flag.ErrHelp
		}
		if len(args) == 0 {
			return usagef("invite: a subcommand is required (create, list, revoke or admit)")
		}
		return usagef("invite: unknown subcommand %q (want create, list, revoke or admit)", args[0])
	}
	sub := args[0]
	fs := newFlagSet("newsdesk invite "+sub, inviteUsage, stderr)
	data := fs.String("data", "", "data `directory` of the admin's servant (required)")
	var (
		uses      *int
		expires   *string
		publisher *bool
		cats      *string
		anyway    *bool
	)
	if sub == "create" {
		uses = fs.Int("uses", 1, "how many installations may join with the code")
		expires = fs.String("expires", "7d", "how long the code is valid: days (7d) or a duration (168h, 90m)")
		publisher = fs.Bool("publisher", false, "who joins with it becomes a publisher")
		cats = fs.String("categories", "", "with --publisher: the comma-separated `categories` it may publish in (default: all)")
		anyway = fs.Bool("anyway", false, "make it although no seed of the network answers now")
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	var id string
	switch {
	case *data == "":
		return usagef("invite %s: --data DIR is required", sub)
	case sub == "revoke" && fs.NArg() != 1:
		return usagef("invite revoke: the invitation's ID is required (see invite list)")
	case sub == "admit" && fs.NArg() != 1:
		return usagef("invite admit: the member's installation key is required (ed25519:…)")
	case sub != "revoke" && sub != "admit" && fs.NArg() > 0:
		return usagef("invite %s: unexpected argument %q", sub, fs.Arg(0))
	case sub == "revoke", sub == "admit":
		id = fs.Arg(0)
	}
	var req inviteRequest
	if sub == "create" {
		req = inviteRequest{Uses: *uses, Expires: *expires, Publisher: *publisher, Anyway: *anyway}
		var err error
		if req.Categories, err = parseCategoryList(*cats); err != nil {
			return usagef("invite create: --categories: %v", err)
		}
		if len(req.Categories) > 0 && !req.Publisher {
			return usagef("invite create: --categories needs --publisher")
		}
		if req.Uses < 1 {
			return usagef("invite create: --uses must be at least 1")
		}
		if _, err := app.ParseInviteExpiry(req.Expires); err != nil {
			return usagef("invite create: --%v", err)
		}
	}
	var inv inviter
	if addr, ok := runningControl(ctx, *data); ok {
		inv = &apiInviter{base: "http://" + addr}
	} else {
		a, err := openForInvite(ctx, *data)
		if err != nil {
			return err
		}
		defer a.Close()
		inv = &appInviter{a: a}
	}
	switch sub {
	case "create":
		v, err := inv.create(ctx, req)
		if err != nil {
			return fmt.Errorf("invite create: %w", err)
		}
		fmt.Fprintln(stdout, v.Code)
		what := "member"
		if req.Publisher {
			what = "publisher"
		}
		fmt.Fprintf(stderr, "invitation %s: %d use%s, as %s, valid until %s\n", v.ID, v.Uses, plural(v.Uses), what, v.Expires)
	case "list":
		l, err := inv.list(ctx)
		if err != nil {
			return fmt.Errorf("invite list: %w", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tUSES LEFT\tEXPIRES\tROLE")
		for _, v := range l {
			role := "member"
			if v.Publisher {
				role = "publisher"
				if len(v.Categories) > 0 {
					role += " (" + strings.Join(v.Categories, ",") + ")"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d of %d\t%s\t%s\n", v.ID, v.State, v.UsesLeft, v.Uses, v.Expires, role)
		}
		tw.Flush()
	case "revoke":
		if err := inv.revoke(ctx, id); err != nil {
			return fmt.Errorf("invite revoke: %w", err)
		}
		fmt.Fprintf(stdout, "revoked %s\n", id)
	case "admit":
		if err := inv.admit(ctx, id); err != nil {
			return fmt.Errorf("invite admit: %w", err)
		}
		fmt.Fprintf(stdout, "admitted %s: it gets a membership certificate when it next asks (within an hour, or at its next start)\n", id)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// inviter is where `newsdesk invite` does its work: the running servant's
// control API, or the data directory itself.
type inviter interface {
	create(ctx context.Context, req inviteRequest) (inviteCreated, error)
	list(ctx context.Context) ([]inviteJSON, error)
	revoke(ctx context.Context, id string) error
	admit(ctx context.Context, key string) error
}

// runningControl returns the control API of the servant running on dir,
// if one answers at the address it recorded.
func runningControl(ctx context.Context, dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, controlAddressFile))
	if err != nil {
		return "", false
	}
	addr := strings.TrimSpace(string(b))
	if !isLocalHost(addr) {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/v1/status", nil)
	if err != nil {
		return "", false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false
	}
	resp.Body.Close()
	return addr, resp.StatusCode == http.StatusOK
}

// openForInvite opens dir's application without starting its servant.
func openForInvite(ctx context.Context, dir string) (*app.App, error) {
	if _, err := os.Stat(filepath.Join(dir, storage.FileName)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no newsdesk installation", dir)
	}
	a, err := app.Open(ctx, app.Options{DataDir: dir})
	if errors.Is(err, app.ErrInUse) {
		return nil, fmt.Errorf("%w; it runs without a control API (the desktop app, or serve without --control): "+
			"make invitations in the app (Admin → Invite…), or restart serve with --control 127.0.0.1:0", err)
	}
	return a, err
}

type appInviter struct{ a *app.App }

func (i *appInviter) create(_ context.Context, req inviteRequest) (inviteCreated, error) {
	d, err := app.ParseInviteExpiry(req.Expires)
	if err != nil {
		return inviteCreated{}, err
	}
	v, err := i.a.CreateInvitation(app.InviteOptions{Uses: req.Uses, Expires: d, Publisher: req.Publisher, Categories: req.Categories, Anyway: req.Anyway})
	if errors.Is(err, app.ErrNotRunning) {
		return inviteCreated{}, errors.New("no servant runs on this data directory: start it (newsdesk serve --data DIR --listen HOST:PORT " +
			"--control 127.0.0.1:0), then make the invitation; the code names the running servant, which counts its uses")
	}
	if err != nil {
		return inviteCreated{}, err
	}
	return inviteCreated{Code: v.Code, ID: v.ID, Expires: v.Expires.UTC().Format(time.RFC3339), Uses: v.Uses}, nil
}

func (i *appInviter) list(context.Context) ([]inviteJSON, error) {
	if !i.a.IsAdmin() {
		return nil, app.ErrNotAdmin
	}
	l, err := i.a.Invitations()
	if err != nil {
		return nil, err
	}
	out := make([]inviteJSON, len(l))
	for k, v := range l {
		out[k] = inviteOut(v)
	}
	return out, nil
}

func (i *appInviter) revoke(_ context.Context, id string) error { return i.a.RevokeInvitation(id) }

func (i *appInviter) admit(_ context.Context, key string) error { return i.a.AdmitMember(key) }

type apiInviter struct{ base string }

// call does one request of the control API and decodes a 2xx answer into
// out; an error answer becomes an error with its text.
func (i *apiInviter) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, i.base+path, rd)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("control API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("control API: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Error, Detail string }
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			if e.Detail != "" {
				return errors.New(e.Detail)
			}
			return errors.New(e.Error)
		}
		return fmt.Errorf("control API: %s", resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

func (i *apiInviter) create(ctx context.Context, req inviteRequest) (inviteCreated, error) {
	if req.Categories == nil {
		req.Categories = []string{}
	}
	var out inviteCreated
	err := i.call(ctx, http.MethodPost, invitesPath, req, &out)
	return out, err
}

func (i *apiInviter) list(ctx context.Context) ([]inviteJSON, error) {
	var out []inviteJSON
	err := i.call(ctx, http.MethodGet, invitesPath, nil, &out)
	return out, err
}

func (i *apiInviter) revoke(ctx context.Context, id string) error {
	return i.call(ctx, http.MethodDelete, invitesPath+"/"+id, nil, nil)
}

func (i *apiInviter) admit(ctx context.Context, key string) error {
	return i.call(ctx, http.MethodPost, admittedPath, map[string]string{"key": key}, nil)
}

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

const joinUsage = `usage: newsdesk join CODE --data DIR [--name NAME]

Joins a network with an invitation code (from an admin: ` + "`newsdesk invite create`" + `,
or Admin → Invite… in the desktop app). It redeems the code at a seed of
the network, checks the network definition it receives against the code,
and imports it into DIR (a fresh data directory), as serve --network FILE
would, with the network's seeds (or, when it lists none, the admin's
servant the code names) as the seeds to connect through; then
` + "`newsdesk serve --data DIR --listen HOST:PORT`" + ` runs as a member.
A refused code (used up, expired, revoked, wrong) changes nothing and
exits non-zero with the reason. The installation's key is made in DIR
before the code is redeemed: when the join fails on the way (no answer,
a seed unreachable), running the same command again redeems with the
same key, which the admin's servant answers again without counting
another use. --name is listed as the publisher's name
when the invitation makes this installation a publisher.

Flags:
`

// forgetJoinKey removes the key a refused join made, and the directory
// when the join made it too (and nothing else is in it), so a refused code
// leaves nothing behind.
func forgetJoinKey(dir, keyPath string, newDir bool) {
	os.Remove(keyPath)
	if newDir {
		os.Remove(dir) // only when empty
	}
}

// JoinCommand runs `newsdesk join` with args (the arguments after "join").
func JoinCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var code string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		code, args = args[0], args[1:]
	}
	fs := newFlagSet("newsdesk join", joinUsage, stderr)
	data := fs.String("data", "", "data `directory` to join with (required; created 0700)")
	name := fs.String("name", "", "display `NAME`, listed as the publisher's name by a publisher invitation")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if code == "" && fs.NArg() > 0 {
		code = fs.Arg(0)
		fs.Parse(fs.Args()[1:]) // flags after the code
	}
	switch {
	case code == "":
		return usagef("join: the invitation CODE is required")
	case fs.NArg() > 0:
		return usagef("join: unexpected argument %q", fs.Arg(0))
	case *data == "":
		return usagef("join: --data DIR is required")
	}
	c, err := trust.ParseInviteCode(code)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	dir := *data
	if _, err := os.Stat(filepath.Join(dir, storage.FileName)); err == nil {
		// A data directory in use already: fine if it is that network.
		a, err := app.Open(ctx, app.Options{DataDir: dir})
		if err != nil {
			return fmt.Errorf("join: %w", err)
		}
		sn := a.Network()
		a.Close()
		if trust.SameFingerprint(trust.NetworkFingerprint(&sn.Network), c.Network) {
			fmt.Fprintf(stdout, "%s is a member of network %q already\n", dir, sn.Name)
			return nil
		}
		return fmt.Errorf("join: %s belongs to network %q already; join with a fresh data directory", dir, sn.Name)
	}
	// The key is made and saved before the code is redeemed (issue 32):
	// the admin's servant counts the use for this key, so when the answer
	// is lost on its way back, the same command run again redeems with
	// the same key, which the admin's servant answers again without
	// counting a use. A key made after the answer would be a new one, and
	// find the code used up.
	_, statErr := os.Stat(dir)
	newDir := errors.Is(statErr, os.ErrNotExist)
	keyPath := filepath.Join(dir, trust.IdentityFile)
	_, statErr = os.Stat(keyPath)
	newKey := errors.Is(statErr, os.ErrNotExist)
	id, err := trust.LoadOrCreateIdentity(dir)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	if len(c.Seeds) == 0 {
		// A code made before networks always listed a seed: the admin's
		// servant it names is the one place known to be in the network.
		fmt.Fprintf(stderr, "the invitation names no seed of the network; joining through the admin's servant %s\n", c.Via)
	}
	sn, err := network.Redeem(ctx, c, id, strings.TrimSpace(*name))
	if re, ok := errors.AsType[*network.RedeemError](err); ok && re.Definitive() {
		// Decided by the admin's servant (used up, expired, revoked, a
		// wrong code): no retry can help, so a key made for it goes.
		if newKey {
			forgetJoinKey(dir, keyPath, newDir)
		}
		return fmt.Errorf("join refused: %w", err)
	}
	if err != nil {
		return fmt.Errorf("join failed: %w; this installation's key is kept in %s: run the same command again to retry "+
			"(if the admin's servant counted the use, it answers the same key again)", err, dir)
	}
	// The seeds the servant connects through, as the desktop's "Join a
	// network" stores them (app.JoinByInvitation). Stored only when the
	// definition lists none: its own are stored when it is imported.
	var seeds []string
	if len(sn.Seeds) == 0 {
		seeds = network.JoinSeeds(sn, c)
	}
	a, err := app.Open(ctx, app.Options{DataDir: dir, Network: sn, Seeds: seeds})
	if err != nil {
		return fmt.Errorf("join: importing the network definition: %w", err)
	}
	seeds = a.Seeds()
	// The certificate that lets this reader's confirmations of must-read
	// items count as verified; without it the servant asks again when it
	// starts.
	if err := a.Certify(ctx, []string{c.Via}); err != nil {
		fmt.Fprintf(stderr, "no membership certificate yet (the servant asks again when it starts): %v\n", err)
	}
	if n := strings.TrimSpace(*name); n != "" {
		s := a.Settings()
		s.DisplayName = n
		if err := a.SaveSettings(s); err != nil {
			a.Close()
			return fmt.Errorf("join: %w", err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	role := "a member"
	if _, ok := sn.Publisher(id.Public); ok {
		role = "a publisher"
	}
	fmt.Fprintf(stdout, "joined network %q (version %d) as %s, through the seed%s %s; start the servant with: newsdesk serve --data %s --listen HOST:PORT\n",
		sn.Name, sn.Version, role, plural(len(seeds)), strings.Join(seeds, ", "), dir)
	return nil
}
