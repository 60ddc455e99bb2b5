package cli

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
	"newsdesk/storage"
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
