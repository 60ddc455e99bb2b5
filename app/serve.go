// Package app is the application around the overlay: the headless servant
// (`newsdesk serve`), its control API and the items it keeps.
package app

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

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
)

const serveUsage = `usage: newsdesk serve --listen HOST:PORT --data DIR [flags]

Runs a servant without a window: a seed, an archive, or a test peer.
Without --seeds, or when its own address is the first seed, it is the vertex.

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
	verbose   bool
}

// usageError is a bad command line. main exits with its ExitCode, 2, like
// the flag package does.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (e usageError) ExitCode() int { return 2 }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// parseServeArgs parses and validates the flags of `newsdesk serve`. The
// flag package reports unknown flags and malformed values on stderr itself.
func parseServeArgs(args []string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("newsdesk serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "", "`HOST:PORT` to accept servant connections on; port 0 picks a free one (required)")
	advertise := fs.String("advertise", "", "`HOST:PORT` other servants dial to reach this one (default: the listen address;\nrequired when listening on 0.0.0.0 or ::)")
	seeds := fs.String("seeds", "", "comma-separated seed `list` (HOST:PORT,...) in priority order")
	data := fs.String("data", "", "data `directory`, created 0700 if missing (required)")
	subscribe := fs.String("subscribe", "", "comma-separated `categories` to subscribe to")
	fanout := fs.Int("fanout", newsnet.DefaultConfig("").Fanout, "maximum down-servants per servant (the partition base `N`, 2..1024)")
	control := fs.String("control", "", "loopback `HOST:PORT` for the control API; port 0 picks a free one (default: none)")
	verbose := fs.Bool("verbose", false, "log per-link detail")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return serveConfig{}, err
		}
		return serveConfig{}, usageError{err}
	}
	if fs.NArg() > 0 {
		return serveConfig{}, usagef("unexpected argument %q", fs.Arg(0))
	}

	cfg := serveConfig{listen: *listen, data: *data, fanout: *fanout, control: *control, verbose: *verbose}
	switch {
	case cfg.listen == "":
		return cfg, usagef("--listen HOST:PORT is required")
	case cfg.data == "":
		return cfg, usagef("--data DIR is required")
	case cfg.fanout < 2 || cfg.fanout > 1024:
		return cfg, usagef("--fanout must be 2..1024, got %d", cfg.fanout)
	}
	host, err := checkHostPort(cfg.listen)
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
		host, err := checkHostPort(cfg.control)
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

// checkHostPort checks a listen address: a host (possibly empty) and a
// numeric port 0..65535. It returns the host.
func checkHostPort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("address %q: port must be a number 0..65535", addr)
	}
	return host, nil
}

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

	source, err := prepareDataDir(cfg.data)
	if err != nil {
		return err
	}
	items := newItemStore(maxItemsPerCategory)

	core := newsnet.DefaultConfig("")
	core.Seeds = cfg.seeds
	core.Source = source
	core.Fanout = cfg.fanout
	// The node gets its own lifetime: on cancellation the control API stops
	// first, so no request meets a half-closed servant, then the node.
	n, err := node.Start(context.WithoutCancel(ctx), node.Config{
		Listen:    cfg.listen,
		Advertise: cfg.advertise,
		Core:      core,
		Logger:    log,
		OnDeliver: func(m *newsnet.Multicast) {
			it, err := decodeItem(m, time.Now())
			if err != nil {
				log.Warn("dropping undecodable item", "source", m.Source, "category", m.Category, "err", err)
				return
			}
			items.add(it)
		},
	})
	if err != nil {
		return err
	}
	defer n.Close()
	if err := n.SetSubscriptions(cfg.subscribe); err != nil {
		return err
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
		srv = newControlServer(&control{node: n, items: items, source: source, addr: controlURL, log: log})
		go func() { serveErr <- srv.Serve(ln) }()
	}

	st := n.Status()
	log.Info("servant listening", "id", string(n.Addr()), "listen", cfg.listen, "role", string(st.Role),
		"seeds", fmt.Sprint(cfg.seeds), "subscriptions", fmt.Sprint(cfg.subscribe),
		"installation", source, "data", cfg.data)
	if srv != nil {
		log.Info("control API listening", "addr", controlURL)
	} else {
		log.Info("control API disabled (no --control)")
	}
	if ready != nil {
		ready(Ready{ID: string(n.Addr()), Control: controlURL})
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
	n.Close()
	log.Info("stopped")
	return failure
}
