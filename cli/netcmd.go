package cli

// `newsdesk network init` and `newsdesk key`: the tools an IT department
// uses to create a network and to learn an installation's key.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

const networkUsage = `usage: newsdesk network init --name NAME --out FILE [--seeds A,B] [--fanout N] [--open-publishing]
                             [--items-per-hour N] [--burst-items N] [--bytes-per-hour N] [--burst-bytes N] [--item-bytes N]

Creates a new network: writes its signed definition to FILE (owner-only: it
holds the network secret, hand it to members only) and the admin's private
key beside it as FILE.admin-key (owner-only; keep it safe, it signs every
later version). Servants join with ` + "`newsdesk serve --network FILE`" + `. The admin
may publish everywhere; with --open-publishing every member may publish
(items are still signed and verified) — for small teams and tests. A
servant whose data directory holds FILE.admin-key as identity.key is the
admin. --fanout is how many down-servants a servant takes, and so how
wide and flat the tree is; every servant of the network uses the
definition's (an admin can change it later; servants restart for it).
The publishing limits bound what one publisher key puts into the network
(0 takes the default; an admin changes them later with PUT /v1/limits),
the attachment limits what one item carries and one key publishes per hour.

Flags:
`

// NetworkCommand runs `newsdesk network` with args (the arguments after
// "network"). Usage errors have ExitCode 2.
func NetworkCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "init" {
		fmt.Fprint(stderr, networkUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return flag.ErrHelp
		}
		if len(args) == 0 {
			return usagef("network: a subcommand is required (init)")
		}
		return usagef("network: unknown subcommand %q (want init)", args[0])
	}
	fs := newFlagSet("newsdesk network init", networkUsage, stderr)
	name := fs.String("name", "", "the network's display `NAME` (required)")
	out := fs.String("out", "", "`FILE` to write the signed definition to; the admin key goes to FILE.admin-key (required)")
	seeds := fs.String("seeds", "", "comma-separated seed `list` (HOST:PORT,...) in priority order")
	open := fs.Bool("open-publishing", false, "every member may publish (items are still signed and verified)")
	fanout := fs.Int("fanout", trust.DefaultFanout, fmt.Sprintf("maximum down-servants per servant (the partition base `N`), %d to %d: "+
		"higher makes a flatter tree (fewer hops, more links per servant)", trust.MinFanout, trust.MaxFanout))
	var limits trust.PublishLimits
	fs.IntVar(&limits.ItemsPerHour, "items-per-hour", 0, fmt.Sprintf("items one publisher key may publish per hour, sustained (0: %d)", trust.DefaultItemsPerHour))
	fs.IntVar(&limits.BurstItems, "burst-items", 0, fmt.Sprintf("items one publisher key may publish at once (0: %d)", trust.DefaultBurstItems))
	fs.Int64Var(&limits.BytesPerHour, "bytes-per-hour", 0, fmt.Sprintf("bytes of items one publisher key may publish per hour (0: %d)", trust.DefaultBytesPerHour))
	fs.Int64Var(&limits.BurstBytes, "burst-bytes", 0, fmt.Sprintf("bytes of items one publisher key may publish at once (0: %d)", trust.DefaultBurstBytes))
	fs.IntVar(&limits.ItemBytes, "item-bytes", 0, "the most bytes one item may have, in every category (0: no cap beyond the item format's)")
	fs.Int64Var(&limits.AttachmentBytes, "attachment-bytes", 0, fmt.Sprintf("the most bytes of attachments one item may carry in all, %d to %d "+
		"(0: %d, the item format's own; %d: no attachments)", trust.MinAttachmentBytesCap, trust.MaxAttachmentBytesCap, trust.MaxAttachmentBytesCap, trust.NoAttachments))
	fs.Int64Var(&limits.AttachmentBytesPerHour, "attachment-bytes-per-hour", 0, fmt.Sprintf("bytes of attachments one publisher key may publish per hour (0: %d)",
		trust.DefaultAttachmentBytesPerHour))
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usagef("network init: unexpected argument %q", fs.Arg(0))
	case strings.TrimSpace(*name) == "":
		return usagef("network init: --name NAME is required")
	case *out == "":
		return usagef("network init: --out FILE is required")
	case *fanout < trust.MinFanout || *fanout > trust.MaxFanout:
		// The bounds every definition is checked against
		// (trust.Network.Validate), an admin's edits included.
		return usagef("network init: --fanout must be %d to %d, got %d", trust.MinFanout, trust.MaxFanout, *fanout)
	}
	var seedList []string
	for s := range strings.SplitSeq(*seeds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, err := newsnet.ParseServantID(s); err != nil {
			return usagef("network init: --seeds: %v", err)
		}
		seedList = append(seedList, s)
	}
	keyPath := *out + ".admin-key"
	for _, p := range []string{*out, keyPath} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("network init: %s exists; not overwriting it (a new network has a new secret and admin key)", p)
		}
	}
	admin, err := trust.GenerateIdentity()
	if err != nil {
		return err
	}
	sn, err := trust.NewNetwork(strings.TrimSpace(*name), admin, seedList, *open)
	if err != nil {
		return fmt.Errorf("network init: %w", err)
	}
	if *fanout != sn.Fanout || !limits.IsZero() {
		n := sn.Network.Clone()
		n.Fanout = *fanout
		n.Limits = limits
		if sn, err = admin.SignNetwork(n); err != nil {
			return usagef("network init: %v", err)
		}
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		return usagef("network init: %v", err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		return fmt.Errorf("network init: %w", err)
	}
	if err := admin.WriteFile(keyPath); err != nil {
		return fmt.Errorf("network init: admin key: %w", err)
	}
	if err := writeExclusive(*out, doc); err != nil {
		os.Remove(keyPath)
		return fmt.Errorf("network init: %w", err)
	}
	fmt.Fprintf(stdout, "network %q (id %s, version %d, fanout %d) written to %s\n", sn.Name, sn.ID, sn.Version, sn.Fanout, *out)
	fmt.Fprintf(stdout, "admin key %s written to %s (keep it safe)\n", trust.PublicKeyString(admin.Public), keyPath)
	if sn.OpenPublishing {
		fmt.Fprintln(stdout, "open publishing: every member may publish")
	}
	return nil
}

// writeExclusive writes data to a new owner-only file, refusing to replace
// one, and syncs it.
func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists; not overwriting it", path)
		}
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

const keyUsage = `usage: newsdesk key --data DIR

Prints this installation's public key (creating the key in DIR at first
run), the text an admin adds to the network's publishers.

Flags:
`

// KeyCommand runs `newsdesk key` with args (the arguments after "key").
func KeyCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("newsdesk key", keyUsage, stderr)
	data := fs.String("data", "", "data `directory`, created 0700 if missing (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usagef("key: unexpected argument %q", fs.Arg(0))
	case *data == "":
		return usagef("key: --data DIR is required")
	}
	id, err := trust.LoadOrCreateIdentity(*data)
	if err != nil {
		return fmt.Errorf("installation key: %w", err)
	}
	fmt.Fprintln(stdout, trust.PublicKeyString(id.Public))
	return nil
}
