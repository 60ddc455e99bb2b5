package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// Issue 13 headless: an admin's servant makes invitations through its
// control API and through `newsdesk invite` (which finds the running
// servant's API), a fresh directory joins with `newsdesk join CODE`, and
// `newsdesk serve` on it runs as a member and receives items. A used-up
// code is refused with the reason and leaves the directory untouched.
func TestInviteAndJoinHeadless(t *testing.T) {
	addr := apptest.FreeAddr(t)
	a := startServe(t, apptest.NoTestNetwork, "--listen", addr, "--seeds", addr)
	ctx := context.Background()

	code, body := a.Call(t, http.MethodPost, "/v1/invites", `{"uses":1,"expires":"168h","publisher":false,"categories":[]}`)
	var created inviteCreated
	if code != http.StatusOK || json.Unmarshal(body, &created) != nil || !strings.HasPrefix(created.Code, "newsdesk:join?") || created.ID == "" {
		t.Fatalf("POST /v1/invites = %d %s", code, body)
	}
	if c, err := trust.ParseInviteCode(created.Code); err != nil || c.Via != addr || !slices.Equal(c.Seeds, []string{addr}) {
		t.Fatalf("code %q: %+v, %v", created.Code, c, err)
	}

	// The CLI on the directory in use talks to the API.
	var out, errOut bytes.Buffer
	if err := InviteCommand(ctx, []string{"create", "--data", a.Data, "--uses", "2", "--expires", "2d"}, &out, &errOut); err != nil {
		t.Fatalf("invite create: %v\n%s", err, errOut.String())
	}
	second, err := trust.ParseInviteCode(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("invite create printed %q: %v", out.String(), err)
	}
	out.Reset()
	if err := InviteCommand(ctx, []string{"list", "--data", a.Data}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), created.ID) || !strings.Contains(out.String(), second.ID) || !strings.Contains(out.String(), "2 of 2") {
		t.Fatalf("invite list:\n%s", out.String())
	}

	// Join with the one-use code, then serve as a member.
	bDir := filepath.Join(t.TempDir(), "b")
	out.Reset()
	if err := JoinCommand(ctx, []string{created.Code, "--data", bDir}, &out, &errOut); err != nil {
		t.Fatalf("join: %v", err)
	}
	if !strings.Contains(out.String(), "joined network") {
		t.Errorf("join printed %q", out.String())
	}
	b := startServeIn(t, bDir, apptest.NoTestNetwork, "--subscribe", "it")
	b.WaitAttached(t)
	a.WaitRoute(t, "it")
	a.Publish(t, "it", "Welcome aboard", "")
	waitFor(t, "the item at the joiner", func() error {
		if got := b.Titles(t, "it"); !slices.Equal(got, []string{"Welcome aboard"}) {
			return fmt.Errorf("joiner has %q", got)
		}
		return nil
	})

	// The code is used up: refused, and the fresh directory stays empty.
	cDir := filepath.Join(t.TempDir(), "c")
	err = JoinCommand(ctx, []string{created.Code, "--data", cDir}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "used up") {
		t.Fatalf("join with a used-up code: %v", err)
	}
	if _, err := os.Stat(cDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused join left %s behind (%v)", cDir, err)
	}
	// A code that does not parse.
	if err := JoinCommand(ctx, []string{"10.0.0.1:7400", "--data", cDir}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "invitation code") {
		t.Errorf("join with an address: %v", err)
	}

	// Revoke through the CLI; the list says so; the code is refused.
	out.Reset()
	if err := InviteCommand(ctx, []string{"revoke", "--data", a.Data, second.ID}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	code, body = a.Call(t, http.MethodGet, "/v1/invites", nil)
	var list []inviteJSON
	if code != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list) != 2 || list[1].State != "revoked" || list[0].State != "used up" {
		t.Fatalf("GET /v1/invites = %d %s", code, body)
	}
	if err := JoinCommand(ctx, []string{second.String(), "--data", cDir}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("join with a revoked code: %v", err)
	}

	// The member is no admin: 403 on every invitation request.
	for _, r := range []struct{ method, path, body string }{
		{http.MethodPost, "/v1/invites", `{"uses":1}`},
		{http.MethodGet, "/v1/invites", ""},
		{http.MethodDelete, "/v1/invites/" + second.ID, ""},
	} {
		var body any
		if r.body != "" {
			body = r.body
		}
		if code, resp := b.Call(t, r.method, r.path, body); code != http.StatusForbidden || !strings.Contains(string(resp), "notAdmin") {
			t.Errorf("%s %s at a member = %d %s", r.method, r.path, code, resp)
		}
	}
	// Bad requests at the admin's.
	for _, r := range []struct {
		method, path, body string
		want               int
	}{
		{http.MethodPost, "/v1/invites", `{"uses":0,"expires":"soon"}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/invites", `{"uses":5000}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/invites", `{"Uses":1}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/invites", `{"categories":["it"]}`, http.StatusBadRequest},
		{http.MethodDelete, "/v1/invites/AAAAAAAAAAAA", "", http.StatusNotFound},
		{http.MethodDelete, "/v1/invites/x", "", http.StatusBadRequest},
		{http.MethodGet, "/v1/invites/" + second.ID, "", http.StatusMethodNotAllowed},
	} {
		var body any
		if r.body != "" {
			body = r.body
		}
		if code, resp := a.Call(t, r.method, r.path, body); code != r.want {
			t.Errorf("%s %s %s = %d %s, want %d", r.method, r.path, r.body, code, resp, r.want)
		}
	}
}

// `newsdesk invite` on a directory no servant runs on: list and revoke
// work, create says the servant must run; and usage errors.
func TestInviteCommandOffline(t *testing.T) {
	// A fixed port: a new network's servant on one is its seed.
	a := startServe(t, apptest.NoTestNetwork, "--listen", apptest.FreeAddr(t))
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := InviteCommand(ctx, []string{"create", "--data", a.Data}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	a.Stop()
	if _, err := os.Stat(filepath.Join(a.Data, controlAddressFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control address left behind: %v", err)
	}
	out.Reset()
	if err := InviteCommand(ctx, []string{"list", "--data", a.Data}, &out, &errOut); err != nil || !strings.Contains(out.String(), "active") {
		t.Fatalf("offline list: %v\n%s", err, out.String())
	}
	if err := InviteCommand(ctx, []string{"create", "--data", a.Data}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "start it") {
		t.Errorf("offline create: %v", err)
	}
	for _, args := range [][]string{
		{}, {"make"}, {"create"}, {"revoke", "--data", a.Data}, {"create", "--data", a.Data, "--categories", "it"},
		{"create", "--data", a.Data, "--uses", "0"}, {"create", "--data", a.Data, "--expires", "soon"},
	} {
		err := InviteCommand(ctx, args, &out, &errOut)
		if ec, ok := errors.AsType[usageError](err); !ok || ec.ExitCode() != 2 {
			t.Errorf("invite %q: %v, want a usage error", args, err)
		}
	}
	for _, args := range [][]string{{}, {"--data", "x"}, {"code"}} {
		if _, ok := errors.AsType[usageError](JoinCommand(ctx, args, &out, &errOut)); !ok {
			t.Errorf("join %q: want a usage error", args)
		}
	}
}

// An admin admits a member's key whose invitation is no longer on record,
// through the command (which talks to the running servant) and the API;
// a key that does not parse is 400, a member's servant answers 403.
func TestInviteAdmit(t *testing.T) {
	addr := apptest.FreeAddr(t)
	a := startServe(t, apptest.NoTestNetwork, "--listen", addr, "--seeds", addr)
	member, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	key := trust.PublicKeyString(member.Public)
	var out, errOut bytes.Buffer
	if err := InviteCommand(context.Background(), []string{"admit", "--data", a.Data, key}, &out, &errOut); err != nil {
		t.Fatalf("invite admit: %v\n%s", err, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "admitted "+key) {
		t.Errorf("invite admit printed %q", out.String())
	}
	if code, body := a.Call(t, http.MethodPost, admittedPath, map[string]string{"key": "ed25519:nonsense"}); code != http.StatusBadRequest {
		t.Errorf("a key that does not parse: %d %s", code, body)
	}
	m := startServe(t)
	if code, body := m.Call(t, http.MethodPost, admittedPath, map[string]string{"key": key}); code != http.StatusForbidden {
		t.Errorf("a member admits: %d %s", code, body)
	}
}

// Issue 26: an invitation whose seeds do not answer would lead the joiner
// into a network of one: refused with the seeds tried (409
// seedsUnreachable), made with "anyway".
func TestInviteWhenNoSeedAnswers(t *testing.T) {
	dead := apptest.FreeAddr(t) // nothing listens there
	a := startServe(t, apptest.NoTestNetwork, "--listen", apptest.FreeAddr(t), "--seeds", dead)
	code, body := a.Call(t, http.MethodPost, "/v1/invites", `{"uses":1}`)
	if code != http.StatusConflict || !strings.Contains(string(body), `"seedsUnreachable"`) || !strings.Contains(string(body), dead) {
		t.Fatalf("POST /v1/invites with no seed up = %d %s", code, body)
	}
	var out, errOut bytes.Buffer
	if err := InviteCommand(context.Background(), []string{"create", "--data", a.Data}, &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "no seed of the network answers") {
		t.Errorf("invite create with no seed up: %v", err)
	}
	if err := InviteCommand(context.Background(), []string{"create", "--data", a.Data, "--anyway"}, &out, &errOut); err != nil {
		t.Fatalf("invite create --anyway: %v\n%s", err, errOut.String())
	}
	if _, err := trust.ParseInviteCode(strings.TrimSpace(out.String())); err != nil {
		t.Errorf("invite create --anyway printed %q: %v", out.String(), err)
	}
}
