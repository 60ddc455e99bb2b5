// Package cli is newsdesk's command line beyond the desktop window:
// `newsdesk serve`, a servant without a window (seeds, archives, tests)
// with its loopback HTTP+JSON control API (control.go), and the tools
// `newsdesk network init` and `newsdesk key` (netcmd.go). It parses flags
// and requests, and drives the application (package app) through its
// exported methods; main calls it.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

const serveUsage = `usage: newsdesk serve --listen HOST:PORT --data DIR [flags]

Runs a servant without a window: a seed, an archive, or a test peer.
Without seeds, or when its own address is the first seed, it is the vertex.
Items, subscriptions, seeds, per-source counts, the outbox, this
installation's key (identity.key) and the network definition are kept in
DIR; --seeds and --subscribe replace the stored lists, and without them the
stored ones are used. --network FILE imports a network definition (the
first one as is, a later one only when signed by an admin of the one held);
its seeds apply when --seeds is absent. Without --network the stored
network is used, and a fresh DIR starts a new one-computer network. An
admin's servant of a network that lists no seed (such as that new one)
makes itself the network's first seed, with the address others dial, so
that invitations lead somewhere; on port 0, whose address changes at every
start, it does not.

Flags:
`

// serveConfig is the parsed, validated command line of `newsdesk serve`.
type serveConfig struct {
	listen    string
	advertise newsnet.ServantID
	seeds     []newsnet.ServantID
	data      string
	subscribe []string
	fanout    int
	control   string // "" for no control API
	archive   bool
	verbose   bool
	network   string // --network FILE, "" for none
	reset     bool   // --reset-store
	direct    int    // --direct N: the direct-delivery threshold, 0 for never
	// storageLimit is --storage-limit in bytes (app.NoStorageQuota for
	// none), 0 when not given.
	storageLimit int64
	// blobCache is --blob-cache in bytes, 0 when not given.
	blobCache int64

	seedsSet, subscribeSet, fanoutSet bool // the flags were given
}

// usageError is a bad command line. main exits with its ExitCode, 2, like
// the flag package does.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (e usageError) ExitCode() int { return 2 }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// newFlagSet is a subcommand's flag set: its errors and its usage text
// (followed by the flags) go to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs: -h comes back as flag.ErrHelp, anything
// else wrong as a usage error (exit code 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return usageError{err}
	}
	return err
}

// parseServeArgs parses and validates the flags of `newsdesk serve`. The
// flag package reports unknown flags and malformed values on stderr itself.
func parseServeArgs(args []string, stderr io.Writer) (serveConfig, error) {
	fs := newFlagSet("newsdesk serve", serveUsage, stderr)
	listen := fs.String("listen", "", "`HOST:PORT` to accept servant connections on; port 0 picks a free one (required)")
	advertise := fs.String("advertise", "", "`HOST:PORT` other servants dial to reach this one (default: the listen address;\nrequired when listening on 0.0.0.0 or ::)")
	seeds := fs.String("seeds", "", "comma-separated seed `list` (HOST:PORT,...) in priority order")
	data := fs.String("data", "", "data `directory`, created 0700 if missing (required)")
	subscribe := fs.String("subscribe", "", "comma-separated `categories` to subscribe to")
	fanout := fs.Int("fanout", newsnet.DefaultConfig("").Fanout, "maximum down-servants per servant (the partition base `N`); network-wide, it comes from\n"+
		"the network definition, and a value other than the definition's is refused")
	control := fs.String("control", "", "loopback `HOST:PORT` for the control API; port 0 picks a free one (default: none)")
	direct := fs.Int("direct", newsnet.SuggestedDirectThreshold, "ask a source for direct delivery after `N` of its items within a minute, from two hops away\n"+
		"or more; 0 never asks. Sources answer requests either way")
	storageLimit := fs.String("storage-limit", "", "the most the stored items may take, like `4GiB`, 500MiB or none; beyond it the oldest go first\n"+
		"(kept and unconfirmed must-read items stay); kept in the data directory (default: the stored limit, else 4GiB)")
	blobCache := fs.String("blob-cache", "", "the most the pictures and files this servant only relays may take, like `2GiB`; beyond it the least\n"+
		"recently used go first (default: 512MiB; an archive or a relay for many subscribers may want more)")
	archive := fs.Bool("archive", false, "archive servant: subscribe to every category and keep items 30 days, to answer catch-up requests")
	verbose := fs.Bool("verbose", false, "log per-link detail")
	reset := fs.Bool("reset-store", false, "start a damaged installation (store missing or empty) with an empty store under a new source;\n"+
		"the damaged file is kept beside it")
	network := fs.String("network", "", "network definition `FILE` to join (from `newsdesk network init`), imported into the data directory;\n"+
		"without it the data directory's network is used, and a fresh one starts a new one-computer network")
	if err := parseFlags(fs, args); err != nil {
		return serveConfig{}, err
	}
	if fs.NArg() > 0 {
		return serveConfig{}, usagef("unexpected argument %q", fs.Arg(0))
	}
	var quota int64
	if *storageLimit != "" {
		var err error
		if quota, err = parseStorageLimit(*storageLimit); err != nil {
			return serveConfig{}, usagef("--storage-limit: %v", err)
		}
	}

	var cacheBytes int64
	if *blobCache != "" {
		var err error
		if cacheBytes, err = parseBlobCache(*blobCache); err != nil {
			return serveConfig{}, usagef("--blob-cache: %v", err)
		}
	}

	cfg := serveConfig{listen: *listen, data: *data, fanout: *fanout, control: *control, archive: *archive, verbose: *verbose, network: *network, reset: *reset, direct: *direct,
		storageLimit: quota, blobCache: cacheBytes}
	fs.Visit(func(f *flag.Flag) {
		cfg.seedsSet = cfg.seedsSet || f.Name == "seeds"
		cfg.subscribeSet = cfg.subscribeSet || f.Name == "subscribe"
		cfg.fanoutSet = cfg.fanoutSet || f.Name == "fanout"
	})
	switch {
	case cfg.listen == "":
		return cfg, usagef("--listen HOST:PORT is required")
	case cfg.data == "":
		return cfg, usagef("--data DIR is required")
	case cfg.fanout < trust.MinFanout || cfg.fanout > trust.MaxFanout:
		return cfg, usagef("--fanout must be %d to %d, got %d", trust.MinFanout, trust.MaxFanout, cfg.fanout)
	case cfg.direct < 0:
		return cfg, usagef("--direct must be 0 (never) or more, got %d", cfg.direct)
	case cfg.reset && cfg.network == "":
		// Without it the empty store would start a network of its own.
		return cfg, usagef("--reset-store needs --network FILE: the network definition was kept in the damaged store")
	}
	host, err := app.CheckHostPort(cfg.listen)
	if err != nil {
		return cfg, usagef("--listen: %v", err)
	}
	if *advertise != "" {
		id, err := newsnet.ParseServantID(*advertise)
		if err != nil {
			return cfg, usagef("--advertise: %v", err)
		}
		cfg.advertise = id
	} else if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return cfg, usagef("--listen %s accepts on every interface, which other servants cannot dial: "+
			"add --advertise HOST:PORT with the address they should use", cfg.listen)
	}
	for s := range strings.SplitSeq(*seeds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		id, err := newsnet.ParseServantID(s)
		if err != nil {
			return cfg, usagef("--seeds: %v", err)
		}
		cfg.seeds = append(cfg.seeds, id)
	}
	if cfg.subscribe, err = parseCategoryList(*subscribe); err != nil {
		return cfg, usagef("--subscribe: %v", err)
	}
	if cfg.control != "" {
		host, err := app.CheckHostPort(cfg.control)
		if err != nil {
			return cfg, usagef("--control: %v", err)
		}
		if !isLocalHost(host) {
			return cfg, usagef("--control %s: the control API has no authentication, so it listens on loopback only; "+
				"use 127.0.0.1:PORT or [::1]:PORT", cfg.control)
		}
	}
	return cfg, nil
}

// parseCategoryList splits a comma-separated list of categories, ignoring
// blanks around entries and empty entries, and checks each as a category
// entered now (categories.ValidateNewID).
func parseCategoryList(s string) ([]string, error) {
	var cats []string
	for c := range strings.SplitSeq(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if err := categories.ValidateNewID(c); err != nil {
			return nil, err
		}
		cats = append(cats, c)
	}
	return cats, nil
}

// serveTune adjusts the protocol configuration of `newsdesk serve`; tests
// replace it to shorten timeouts.
var serveTune func(*newsnet.Config)

// Ready reports where a started servant can be reached; with port 0 in the
// flags these are known only at run time.
type Ready struct {
	ID      string // the servant ID: the address other servants dial
	Control string // the control API's address; "" without --control
}

// Serve runs `newsdesk serve` with args (the arguments after "serve") until
// ctx ends, then closes every link cleanly and returns nil. A bad command
// line returns an error with ExitCode 2; -h returns flag.ErrHelp. Logs go to
// stderr; stdout is not used yet.
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return ServeWithReady(ctx, args, stdout, stderr, nil)
}

// ServeWithReady is Serve that calls ready, if not nil, once the servant and
// its control API are listening.
func ServeWithReady(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(Ready)) error {
	cfg, err := parseServeArgs(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	opts := app.Options{
		Kind:       app.KindHeadless,
		DataDir:    cfg.data,
		Listen:     cfg.listen,
		Advertise:  string(cfg.advertise),
		Archive:    cfg.archive,
		Logger:     log,
		Start:      true,
		ResetStore: cfg.reset,
		Tune:       serveTune,

		DirectThreshold: cfg.direct,
		BlobCacheBytes:  cfg.blobCache,
	}
	if cfg.direct == 0 {
		opts.DirectThreshold = -1 // never ask: app.Options reads 0 as its default
	}
	if cfg.fanoutSet {
		opts.Fanout = cfg.fanout
	}
	if cfg.network != "" {
		if opts.Network, err = app.ReadNetworkFile(cfg.network); err != nil {
			return err
		}
	}
	if cfg.seedsSet {
		opts.Seeds = strs(cfg.seeds)
	}
	if cfg.subscribeSet {
		opts.Subscriptions = append([]string{}, cfg.subscribe...)
	}
	// The app gets its own lifetime: on cancellation the control API stops
	// first, so no request meets a half-closed servant, then the app.
	a, err := app.Open(context.WithoutCancel(ctx), opts)
	if _, ok := errors.AsType[*app.FanoutError](err); ok {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	defer a.Close()
	if cfg.storageLimit != 0 {
		if err := a.SetStorageQuota(cfg.storageLimit); err != nil {
			return fmt.Errorf("--storage-limit: %w", err)
		}
	}

	var (
		srv        *http.Server
		serveErr   = make(chan error, 1)
		controlURL string
	)
	if cfg.control != "" {
		ln, err := net.Listen("tcp", cfg.control)
		if err != nil {
			return fmt.Errorf("control API: %w", err)
		}
		controlURL = ln.Addr().String()
		if !isLocalHost(controlURL) {
			// "localhost" resolved to something that is not loopback.
			ln.Close()
			return fmt.Errorf("control API: %s is not a loopback address", controlURL)
		}
		srv = newControlServer(&control{a: a, addr: controlURL, log: log})
		go func() { serveErr <- srv.Serve(ln) }()
		// `newsdesk invite` finds the running servant's API here.
		forget, err := writeControlAddress(cfg.data, controlURL)
		if err != nil {
			log.Warn("recording the control API's address in the data directory failed", "err", err)
		}
		defer forget()
	}

	st := a.Status()
	log.Info("servant listening", "id", a.Addr(), "listen", cfg.listen, "role", string(st.Role),
		"seeds", fmt.Sprint(a.Seeds()), "subscriptions", fmt.Sprint(st.Subscriptions),
		"installation", st.Source, "data", cfg.data, "archive", cfg.archive)
	if srv != nil {
		log.Info("control API listening", "addr", controlURL)
	} else {
		log.Info("control API disabled (no --control)")
	}
	if ready != nil {
		ready(Ready{ID: a.Addr(), Control: controlURL})
	}

	var failure error
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-serveErr:
		failure = fmt.Errorf("control API: %w", err)
		log.Error("control API failed; shutting down", "err", err)
	}
	if srv != nil {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := srv.Shutdown(shutdownCtx); err != nil {
			srv.Close()
		}
		cancel()
	}
	if err := a.Close(); err != nil && failure == nil {
		failure = err
	}
	log.Info("stopped")
	return failure
}

// parseStorageLimit reads --storage-limit: "none", or a whole number of
// bytes with an optional unit B, KiB, MiB, GiB or TiB (KB, MB, GB and TB
// are read as the same powers of 1024, as disks show them rarely but
// people write them often).
func parseStorageLimit(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "none") {
		return app.NoStorageQuota, nil
	}
	n, err := parseSize(v, app.MaxStorageQuota)
	if err != nil {
		return 0, fmt.Errorf("%q: want none, or a size like 4GiB or 500MiB", v)
	}
	if err := app.CheckStorageQuota(n); err != nil {
		return 0, err
	}
	return n, nil
}

// minBlobCache is the smallest --blob-cache: room for one attachment of
// the largest size, so a relay never evicts the blob it is passing on.
const minBlobCache = news.MaxAttachmentBytes

// parseBlobCache reads --blob-cache: a size as --storage-limit takes it,
// from minBlobCache up.
func parseBlobCache(v string) (int64, error) {
	n, err := parseSize(strings.TrimSpace(v), app.MaxStorageQuota)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size like 2GiB or 500MiB", v)
	}
	if n < minBlobCache {
		return 0, fmt.Errorf("%s is less than one attachment of the largest size (%d MiB)", v, minBlobCache>>20)
	}
	return n, nil
}

// parseSize reads a whole, positive number of bytes with an optional unit
// B, KiB, MiB, GiB or TiB, at most most bytes.
func parseSize(v string, most int64) (int64, error) {
	units := []struct {
		suffix string
		mul    int64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}
	num, mul := strings.ToUpper(v), int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mul = strings.TrimSpace(n), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > most/mul {
		return 0, fmt.Errorf("%q is not a size", v)
	}
	return n * mul, nil
}
