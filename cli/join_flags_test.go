package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// offlineCode is a well-formed, signed invitation code whose admin's
// servant and seed are a free loopback port nobody listens on.
func offlineCode(t *testing.T) string {
	t.Helper()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	id, err := trust.NewInviteID()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := trust.NewInviteToken()
	if err != nil {
		t.Fatal(err)
	}
	addr := apptest.FreeAddr(t)
	c := &trust.InviteCode{ID: id, Token: tok, Via: addr, Seeds: []string{addr}}
	c.Sign(admin)
	if _, err := trust.ParseInviteCode(c.String()); err != nil {
		t.Fatalf("the test's code does not parse: %v", err)
	}
	return c.String()
}

// Flags after the invitation code are parsed like those before it: a bad
// one is a usage error (exit status 2) and -h prints the usage, and
// neither joins: no data directory, no key is made, nothing is redeemed.
func TestJoinFlagsAfterCode(t *testing.T) {
	code := offlineCode(t)
	for _, c := range []struct {
		name  string
		after []string
		say   string // on stderr
		help  bool
	}{
		{"unknown flag", []string{"--bogus"}, "flag provided but not defined: -bogus", false},
		{"flag without its value", []string{"--name"}, "flag needs an argument: -name", false},
		{"help", []string{"-h"}, "usage: newsdesk join", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out, errOut bytes.Buffer
			args := append([]string{"--data", dir, code}, c.after...)
			err := JoinCommand(ctx, args, &out, &errOut)
			if c.help {
				if !errors.Is(err, flag.ErrHelp) {
					t.Errorf("join %q = %v, want flag.ErrHelp", c.after, err)
				}
			} else if ue, ok := errors.AsType[usageError](err); !ok || ue.ExitCode() != 2 {
				t.Errorf("join %q = %v, want a usage error (exit status 2)", c.after, err)
			}
			if !strings.Contains(errOut.String(), c.say) {
				t.Errorf("stderr %q, want %q", errOut.String(), c.say)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the data directory was made (%v): it joined", err)
			}
		})
	}
	// A good flag after the code is taken, and the join goes ahead (to
	// find nobody at the code's address).
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err := JoinCommand(ctx, []string{"--data", dir, code, "--name", "Ann"}, &out, &errOut)
	if _, ok := errors.AsType[usageError](err); ok || err == nil || !strings.Contains(err.Error(), "join failed") {
		t.Errorf("join with --name after the code = %v, want it to try and fail to reach the servant", err)
	}
}
