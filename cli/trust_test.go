package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// A key file that others may read refuses to start `serve`, with a clear
// error (app's TestIdentityKeyFileRefusedWhenReadable checks Open).
func TestServeRefusesReadableKey(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits on Windows")
	}
	dir := t.TempDir()
	if _, err := trust.LoadOrCreateIdentity(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, trust.IdentityFile), 0o644); err != nil {
		t.Fatal(err)
	}
	err := ServeWithReady(context.Background(), []string{"--listen", "127.0.0.1:0", "--data", dir}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("serve with a world-readable key = %v", err)
	}
}

// `network init` writes an owner-only definition that verifies and the
// admin key beside it; `key` prints an installation's key.
func TestNetworkInitAndKey(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "acme.json")
	var stdout bytes.Buffer
	err := NetworkCommand([]string{"init", "--name", "Acme", "--out", out, "--seeds", "10.0.0.1:7400,10.0.0.2:7400", "--open-publishing"}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{out, out + ".admin-key"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	sn, err := app.ReadNetworkFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		t.Fatal(err)
	}
	admin, err := trust.LoadIdentityFile(out + ".admin-key")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Name != "Acme" || !sn.OpenPublishing || !slices.Equal(sn.Seeds, []string{"10.0.0.1:7400", "10.0.0.2:7400"}) ||
		!sn.IsAdmin(admin.Public) || !sn.Signer.Equal(admin.Public) {
		t.Errorf("definition %+v", sn.Network)
	}
	if !strings.Contains(stdout.String(), trust.PublicKeyString(admin.Public)) {
		t.Errorf("output %q does not name the admin key", stdout.String())
	}
	// Never overwrites.
	if err := NetworkCommand([]string{"init", "--name", "Acme", "--out", out}, io.Discard, io.Discard); err == nil {
		t.Error("network init over an existing file succeeded")
	}
	for _, args := range [][]string{nil, {"frobnicate"}, {"init"}, {"init", "--name", "x"}, {"init", "--out", filepath.Join(dir, "x")},
		{"init", "--name", "x", "--out", filepath.Join(dir, "y"), "--seeds", "nohost"}} {
		err := NetworkCommand(args, io.Discard, io.Discard)
		var coded interface{ ExitCode() int }
		if !errors.As(err, &coded) || coded.ExitCode() != 2 {
			t.Errorf("network %q = %v, want a usage error (exit 2)", args, err)
		}
	}

	data := filepath.Join(dir, "data")
	stdout.Reset()
	if err := KeyCommand([]string{"--data", data}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	id, err := trust.LoadIdentityFile(filepath.Join(data, trust.IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(stdout.String()); got != trust.PublicKeyString(id.Public) {
		t.Errorf("key printed %q, want %q", got, trust.PublicKeyString(id.Public))
	}
	if err := KeyCommand(nil, io.Discard, io.Discard); err == nil {
		t.Error("key without --data succeeded")
	}
}

// publisherAndReader starts two `serve` processes of a network whose
// publisher is a, for "it" only; b subscribes to "it". a publishes "Printer
// fixed", and it has reached b.
func publisherAndReader(t *testing.T) (a, b *servant, r publishResult) {
	t.Helper()
	aData := filepath.Join(t.TempDir(), "a")
	_, _, file := apptest.PublishersNetwork(t, aData)
	a = startServeIn(t, aData, "--network", file)
	b = startServe(t, "--network", file, "--seeds", a.ID, "--subscribe", "it")
	b.WaitAttached(t)
	a.WaitRoute(t, "it")
	r = a.Publish(t, "it", "Printer fixed", "")
	waitFor(t, "the item on b", func() error {
		if got := b.Titles(t, "it"); !slices.Equal(got, []string{"Printer fixed"}) {
			return fmt.Errorf("b has %q", got)
		}
		return nil
	})
	return a, b, r
}

// serve --network: the listed publisher's items reach a subscriber; a
// servant whose key is not a publisher gets 403 from /v1/publish, and the
// publisher outside its categories too.
func TestServeNetworkPublishers(t *testing.T) {
	a, b, _ := publisherAndReader(t)
	code, body := b.Call(t, "POST", "/v1/publish", map[string]string{"category": "it", "title": "Not mine to say"})
	var e struct{ Error string }
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.UntrustedKey) {
		t.Errorf("publish by a non-publisher: %d %s, want 403 untrustedKey", code, body)
	}
	code, body = a.Call(t, "POST", "/v1/publish", map[string]string{"category": "hr", "title": "Outside my remit"})
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.CategoryNotAllowed) {
		t.Errorf("publish outside the publisher's categories: %d %s, want 403 categoryNotAllowed", code, body)
	}
	_, raw := b.Status(t)
	var st struct {
		Rejected map[string]uint64 `json:"rejected"`
		Network  struct {
			Publisher bool `json:"publisher"`
		} `json:"network"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if st.Network.Publisher || len(st.Rejected) != len(trust.Rejections()) || st.Rejected["badSignature"] != 0 {
		t.Errorf("b's status: %s", raw)
	}
}

// serve --network refuses an older definition than the one held, one not
// signed by an admin, and a first definition not signed by its own admin.
func TestServeRefusesBadDefinitions(t *testing.T) {
	admin, _ := trust.GenerateIdentity()
	stranger, _ := trust.GenerateIdentity()
	v1, err := trust.NewNetwork("Acme", admin, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	next := func(from *trust.SignedNetwork, by *trust.Identity) *trust.SignedNetwork {
		n := from.Network.Clone()
		n.Version++
		sn, err := by.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	v2 := next(v1, admin)
	v3stranger := next(v2, stranger)

	serveErr := func(data string, sn *trust.SignedNetwork) error {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		args := []string{"--listen", "127.0.0.1:0", "--data", data, "--network", apptest.WriteNetworkFile(t, sn)}
		go func() { done <- ServeWithReady(ctx, args, io.Discard, io.Discard, func(Ready) { cancel() }) }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not return")
			return nil
		}
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := serveErr(data, v2); err != nil {
		t.Fatalf("serve with v2: %v", err)
	}
	if err := serveErr(data, v2); err != nil {
		t.Fatalf("serve with v2 again: %v", err)
	}
	if err := serveErr(data, v1); !errors.Is(err, trust.ErrNotNewer) || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("serve with the older v1 = %v, want a refusal (not newer)", err)
	}
	if err := serveErr(data, v3stranger); !errors.Is(err, trust.ErrNotAdmin) {
		t.Errorf("serve with a v3 signed by a non-admin = %v, want a refusal (not an admin)", err)
	}
	// A first import signed by a key that is not its own admin.
	forgedFirst := func() *trust.SignedNetwork {
		sn, err := stranger.SignNetwork(v1.Network.Clone())
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}()
	if err := serveErr(filepath.Join(t.TempDir(), "fresh"), forgedFirst); !errors.Is(err, trust.ErrNotAdmin) {
		t.Errorf("serve with a first definition not signed by its admin = %v, want a refusal", err)
	}
}

// POST /v1/retract: the publisher's retraction hides its item on the
// subscriber; a servant that did not publish it gets 403 with the reason;
// bad IDs and reasons are 400, an unknown item 404.
func TestServeRetract(t *testing.T) {
	a, b, r := publisherAndReader(t)

	var e struct{ Error string }
	code, body := b.Call(t, "POST", "/v1/retract", map[string]string{"id": r.ID})
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.NotAuthorized) {
		t.Errorf("retraction by a servant that did not publish it: %d %s, want 403 notAuthorized", code, body)
	}
	for _, bad := range []map[string]string{
		{"id": "not-an-id"},
		{"id": r.ID, "reason": "two\nlines"},
	} {
		if code, body := a.Call(t, "POST", "/v1/retract", bad); code != http.StatusBadRequest {
			t.Errorf("retract %v: %d %s, want 400", bad, code, body)
		}
	}
	if code, body := a.Call(t, "POST", "/v1/retract", map[string]string{"id": "0191a000-0000-7000-8000-000000000001"}); code != http.StatusNotFound {
		t.Errorf("retract of an unknown item: %d %s, want 404", code, body)
	}

	if code, body := a.Call(t, "POST", "/v1/retract", map[string]string{"id": r.ID, "reason": "Still broken"}); code != http.StatusOK {
		t.Fatalf("retraction by the publisher: %d %s", code, body)
	}
	waitFor(t, "the item gone from b", func() error {
		if got := b.Titles(t, "it"); len(got) != 0 {
			return fmt.Errorf("b lists %q", got)
		}
		return nil
	})
	if got := a.Titles(t, "it"); len(got) != 0 {
		t.Errorf("a lists %q", got)
	}
}
