package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/storage"
	"newsdesk/trust"
)

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
		// Flags after the code: a bad one stops here, as before it, and
		// so does -h.
		code = fs.Arg(0)
		if err := parseFlags(fs, fs.Args()[1:]); err != nil {
			return err
		}
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
